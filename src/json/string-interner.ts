import * as bytes from './bytes.js';
import * as values from './read-value.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs per frame).
const { QUOTE } = bytes;
const { valueAt } = values;

/** Strings longer than this (in bytes, quotes included) are not interned. */
const MAX_INTERNED_BYTES = 128;

/**
 * Decodes JSON strings, handing back the same string for the same bytes.
 * It remembers the last few values it decoded (by their exact bytes, quotes
 * and escapes included) and compares new bytes with those before decoding:
 * the methods and tool names of a session repeat, and comparing a dozen
 * bytes is cheaper than decoding them to a new string each time.
 */
export class StringInterner {
  readonly #bytes: Uint8Array[] = [];
  readonly #strings: string[] = [];
  readonly #size: number;
  #next = 0;

  /** @param size how many values to remember */
  constructor(size = 8) {
    this.#size = size;
  }

  /** The string the JSON value in `[start, end)` holds; undefined if it is not a string. */
  stringAt(buf: Buffer, start: number, end: number): string | undefined {
    if (start < 0 || buf[start] !== QUOTE) return undefined;
    const n = end - start;
    const known = this.#bytes;
    for (let e = 0; e < known.length; e++) {
      const bytes = known[e] as Uint8Array;
      if (bytes.length !== n) continue;
      let k = 0;
      while (k < n && bytes[k] === buf[start + k]) k++;
      if (k === n) return this.#strings[e];
    }
    const value = valueAt(buf, start, end);
    if (typeof value !== 'string') return undefined;
    if (n <= MAX_INTERNED_BYTES) {
      const slot = this.#next;
      this.#next = slot + 1 === this.#size ? 0 : slot + 1;
      const copy = new Uint8Array(n);
      copy.set(buf.subarray(start, end));
      known[slot] = copy;
      this.#strings[slot] = value;
    }
    return value;
  }
}
