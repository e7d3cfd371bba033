/**
 * A run's executions by instance id, as its replay looks them up.
 *
 * Nearly every id is a proxy's per-session counter, `mcp_1`, `mcp_2`, …:
 * those are kept in an array at their number, and only other ids in a Map.
 * A Map entry per call cost the debugger about a microsecond of each
 * recorded pipelined call (hashing, growing a table of a few hundred
 * thousand entries, and the garbage collector tracing it and the key
 * strings it keeps), against a slot in an array. A number far beyond the
 * ones seen so far would leave a gap that turns the array into a slow
 * dictionary, so it goes to the Map too, as does any id spelled another way
 * (`mcp_01`): each id has exactly one place.
 *
 * @module
 */

/** How far past the numbers seen so far a number may go and still take a slot. */
const MAX_GAP = 1024;
/** `mcp_` as character codes. */
const M = 0x6d;
const C = 0x63;
const P = 0x70;
const UNDERSCORE = 0x5f;

/** The counter's number in `id` (`mcp_<n>`, n without leading zeros), or -1. */
function counterOf(id: string): number {
  const length = id.length;
  if (length < 5 || length > 13) return -1;
  if (id.charCodeAt(0) !== M || id.charCodeAt(1) !== C || id.charCodeAt(2) !== P || id.charCodeAt(3) !== UNDERSCORE) return -1;
  // One spelling per number: no leading zero (but `mcp_0` itself).
  if (id.charCodeAt(4) === 0x30 && length > 5) return -1;
  let n = 0;
  for (let i = 4; i < length; i++) {
    const digit = id.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/** Values by instance id: `mcp_<n>` in an array slot, anything else in a Map. */
export class InstanceIndex<T> {
  readonly #slots: Array<T | undefined> = [];
  readonly #others = new Map<string, T>();

  /** The value for `id`, if any. */
  get(id: string): T | undefined {
    const n = counterOf(id);
    if (n >= 0 && n < this.#slots.length) {
      const value = this.#slots[n];
      if (value !== undefined) return value;
    }
    // Usually empty: a new call's id is looked up once, and must not cost a hash.
    return this.#others.size === 0 ? undefined : this.#others.get(id);
  }

  /** Whether `id` has a value. */
  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Give `id` its value (`value` must not be undefined). */
  set(id: string, value: T): void {
    const n = counterOf(id);
    const slots = this.#slots;
    if (n >= 0 && n < slots.length + MAX_GAP && (this.#others.size === 0 || !this.#others.has(id))) {
      // Filled up to n first: the array stays packed with holes as undefined, never sparse.
      while (slots.length < n) slots.push(undefined);
      slots[n] = value;
      return;
    }
    this.#others.set(id, value);
  }
}
