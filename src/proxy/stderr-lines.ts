import { StringDecoder } from 'node:string_decoder';

/** Options for {@link StderrLines}. */
export interface StderrLinesOptions {
  /** Bytes of stderr turned into recorded lines per second; past it output is counted, not recorded. @default 1048576 */
  bytesPerSecond?: number;
  /** Characters kept of one line. @default 8192 */
  maxLineLength?: number;
}

/**
 * Splits a server's stderr into lines for the record, within a budget. A
 * server that floods stderr would otherwise turn the debugger's record into
 * the bottleneck; past the budget whole chunks are skipped (and a note says
 * how much) until the next second.
 */
export class StderrLines {
  readonly #budget: number;
  readonly #maxLine: number;
  readonly #decoder = new StringDecoder('utf8');
  #partial = '';
  #windowStart = 0;
  #used = 0;
  #skipped = 0;

  constructor(options: StderrLinesOptions = {}) {
    this.#budget = options.bytesPerSecond ?? 1024 * 1024;
    this.#maxLine = options.maxLineLength ?? 8192;
  }

  /** Feed a chunk; returns the complete lines to record. */
  push(chunk: Buffer, now = Date.now()): string[] {
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now;
      this.#used = 0;
    }
    if (this.#used + chunk.length > this.#budget) {
      this.#skipped += chunk.length;
      // The line in progress is broken now; start clean after the gap.
      this.#partial = '';
      this.#decoder.end();
      return [];
    }
    this.#used += chunk.length;
    const out: string[] = [];
    if (this.#skipped > 0) {
      out.push(`[graphmind: ${this.#skipped} bytes of stderr were not recorded: the server wrote faster than ${this.#budget} bytes/s]`);
      this.#skipped = 0;
    }
    const parts = (this.#partial + this.#decoder.write(chunk)).split('\n');
    this.#partial = parts.pop() ?? '';
    if (this.#partial.length > this.#maxLine) {
      parts.push(this.#partial);
      this.#partial = '';
    }
    for (const part of parts) out.push(this.#clip(part.endsWith('\r') ? part.slice(0, -1) : part));
    return out;
  }

  /** An unterminated last line, at the end of the output. */
  end(): string[] {
    const rest = this.#partial + this.#decoder.end();
    this.#partial = '';
    return rest.length > 0 ? [this.#clip(rest)] : [];
  }

  #clip(line: string): string {
    if (line.length <= this.#maxLine) return line;
    // Copied out: a slice would keep the whole decoded chunk alive.
    return `${Buffer.from(line.slice(0, this.#maxLine)).toString()}… [${line.length - this.#maxLine} more characters]`;
  }
}
