/** Where a proxy's diagnostics (and, over stdio, the server's stderr) go. */
export interface TextSink {
  /** Write `chunk` without waiting: a sink may queue it, or drop it rather than stall the caller. */
  write(chunk: string | Buffer): void;
  /** Resolve once queued output is written, or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}
