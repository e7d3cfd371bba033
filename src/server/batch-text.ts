const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const SPACE = 0x20;

/**
 * Where each element of a JSON array of objects ends: the index of the `,`
 * or `]` after it. Element `i` is `text.slice(ends[i - 1] + 1, ends[i])`
 * (with `ends[-1]` taken as 0).
 *
 * `text` must be valid JSON (it has just been parsed). Returns undefined
 * unless it is an array of `count` objects written compactly: whitespace
 * outside strings (which could be a newline) or anything unexpected makes
 * the caller stringify instead.
 */
export function arrayElementEnds(text: string, count: number): number[] | undefined {
  const last = text.length - 1;
  if (text.charCodeAt(0) !== OPEN_ARRAY || text.charCodeAt(last) !== CLOSE_ARRAY) return undefined;
  const ends: number[] = [];
  let i = 1;
  while (i < last) {
    if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
    let depth = 0;
    // Walk to the brace that closes this element: in valid JSON only strings and nesting matter.
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        // Jump to the closing quote: one not escaped by an odd run of backslashes.
        let close = text.indexOf('"', i + 1);
        for (;;) {
          let slashes = 0;
          while (text.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
          if ((slashes & 1) === 0) break;
          close = text.indexOf('"', close + 1);
        }
        if (close === -1) return undefined;
        i = close;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        depth++;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth === 0) break;
      } else if (c <= SPACE || Number.isNaN(c)) {
        return undefined;
      }
      i++;
    }
    i++;
    const separator = text.charCodeAt(i);
    if (separator !== COMMA && !(separator === CLOSE_ARRAY && i === last)) return undefined;
    ends.push(i);
    i++;
  }
  return ends.length === count ? ends : undefined;
}

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
