import { StringDecoder } from 'node:string_decoder';

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
 */
export class StderrTail {
  readonly #maxLines: number;
  readonly #maxBytes: number;
  readonly #decoder = new StringDecoder('utf8');
  #lines: string[] = [];
  #bytes = 0;
  #partial = '';

  constructor(options: StderrTailOptions = {}) {
    this.#maxLines = options.maxLines ?? 200;
    this.#maxBytes = options.maxBytes ?? 32 * 1024;
  }

  /** Feed a chunk of output; returns the complete lines it finished. */
  push(chunk: Buffer): string[] {
    const text = this.#partial + this.#decoder.write(chunk);
    const parts = text.split('\n');
    this.#partial = parts.pop() ?? '';
    if (this.#partial.length > this.#maxBytes) {
      parts.push(this.#partial);
      this.#partial = '';
    }
    const done = parts.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    for (const line of done) this.#add(line);
    return done;
  }

  /** Finish an unterminated last line (at the end of the output); returns it, if any. */
  end(): string[] {
    const rest = this.#partial + this.#decoder.end();
    this.#partial = '';
    if (rest.length === 0) return [];
    this.#add(rest);
    return [rest];
  }

  /** The kept lines, oldest first, including an unfinished last line. */
  lines(): string[] {
    this.end();
    return [...this.#lines];
  }

  #add(line: string): void {
    const size = Buffer.byteLength(line) + 1;
    this.#lines.push(line);
    this.#bytes += size;
    while (this.#lines.length > this.#maxLines || (this.#bytes > this.#maxBytes && this.#lines.length > 1)) {
      const dropped = this.#lines.shift() as string;
      this.#bytes -= Buffer.byteLength(dropped) + 1;
    }
  }
}
