const NEWLINE = 0x0a;

/**
 * An ingest batch as it arrived: a compact JSON array of events. Its events
 * are logged one per line, and the log takes each event's own text instead
 * of stringifying the parsed event again (most of what logging it costs).
 * When its bytes are at hand with offsets that match (a batch read from its
 * bytes, or an ASCII message), a run of consecutive events goes to the log
 * as one slice of them.
 */
export class BatchText {
  readonly #text: string | undefined;
  readonly #ends: number[];
  readonly #bytes: Buffer | undefined;
  /** Elements that are groups of calls (report/completed-group.ts): their text is not any one event's. */
  readonly #groups: Set<number> | undefined;

  /**
   * `ends` are offsets in `text`. `bytes`, if given, are the message as
   * received, which this takes over: the separator after each element
   * becomes a newline in place.
   */
  constructor(text: string, ends: number[], bytes?: Buffer);
  /**
   * A batch read from its bytes (see {@link BatchReader}): `ends` are
   * offsets in `bytes`, which it takes over; `groups` the elements that are
   * groups of calls.
   */
  constructor(bytes: Buffer, ends: number[], groups?: Set<number>);
  constructor(source: string | Buffer, ends: number[], other?: Buffer | Set<number>) {
    this.#ends = ends;
    if (typeof source !== 'string') {
      this.#text = undefined;
      this.#bytes = newlines(source, ends);
      this.#groups = other instanceof Set ? other : undefined;
      return;
    }
    this.#groups = undefined;
    const bytes = Buffer.isBuffer(other) ? other : undefined;
    this.#text = source;
    // Only pure ASCII has the same offsets in bytes as in the text.
    this.#bytes = bytes !== undefined && bytes.length === source.length ? newlines(bytes, ends) : undefined;
  }

  /** Element `i`'s JSON text. */
  line(i: number): string {
    const start = this.#start(i);
    const end = this.#ends[i] as number;
    return this.#text === undefined ? (this.#bytes as Buffer).toString('utf8', start, end) : this.#text.slice(start, end);
  }

  /** The JSON text of the one event element `i` is; undefined if it is a group of calls. */
  eventText(i: number): string | undefined {
    return this.#groups?.has(i) === true ? undefined : this.line(i);
  }

  /** Elements `first` to `last` as lines, each ending in a newline. */
  lines(first: number, last: number): Buffer | string {
    if (this.#bytes !== undefined) return this.#bytes.subarray(this.#start(first), (this.#ends[last] as number) + 1);
    let text = '';
    for (let i = first; i <= last; i++) text += `${this.line(i)}\n`;
    return text;
  }

  #start(i: number): number {
    return i === 0 ? 1 : (this.#ends[i - 1] as number) + 1;
  }
}

function newlines(bytes: Buffer, ends: number[]): Buffer {
  for (const end of ends) bytes[end] = NEWLINE;
  return bytes;
}
