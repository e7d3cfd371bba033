/** Options for {@link StderrTail}. */
export interface StderrTailOptions {
  /** @default 200 */
  maxLines?: number;
  /** @default 32768 */
  maxBytes?: number;
}

/**
 * The last lines a process wrote to stderr, bounded by count and size, for
 * diagnostics about a server that died.
 *
 * It keeps raw bytes (a little more than `maxBytes`) and decodes them only
 * when asked, so a server flooding stderr costs a copy per chunk, not a
 * string per line.
 */
export class StderrTail {
  readonly #maxLines: number;
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #truncated = false;

  constructor(options: StderrTailOptions = {}) {
    this.#maxLines = options.maxLines ?? 200;
    this.#maxBytes = options.maxBytes ?? 32 * 1024;
  }

  /** Keep a chunk of output. */
  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    // Keep what a full tail needs, plus room for the line it starts in.
    const keep = this.#maxBytes * 2;
    while (this.#bytes - (this.#chunks[0]?.length ?? 0) >= keep) {
      this.#bytes -= (this.#chunks.shift() as Buffer).length;
      this.#truncated = true;
    }
  }

  /** The kept lines, oldest first, an unfinished last line included. */
  lines(): string[] {
    let text = Buffer.concat(this.#chunks, this.#bytes).toString('utf8');
    // The first line may have lost its start to the bound: leave it out.
    if (this.#truncated) text = text.slice(text.indexOf('\n') + 1);
    const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    if (lines.at(-1) === '') lines.pop();
    const kept: string[] = [];
    let size = 0;
    for (let i = lines.length - 1; i >= 0 && kept.length < this.#maxLines; i--) {
      const line = lines[i] as string;
      size += Buffer.byteLength(line) + 1;
      if (size > this.#maxBytes && kept.length > 0) break;
      kept.push(line);
    }
    return kept.reverse();
  }
}
