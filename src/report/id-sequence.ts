/**
 * Ids `<prefix>1`, `<prefix>2`, … as strings, spelled without converting a
 * number to a string.
 *
 * V8 keeps the result of every number-to-decimal-string conversion in a
 * cache that outlives the young generation: a fresh id per relayed call,
 * made with `${prefix}${n}`, keeps thousands of short strings alive through
 * every scavenge and into the old generation. On the proxy's path that cost
 * more in garbage collection than all the rest of recording a call. Here
 * the decimal digits are carried along as a string instead: the last digit
 * from a table, the others rewritten once every ten ids.
 *
 * @module
 */

const DIGITS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'] as const;
const NINE = 0x39;

/** `text` with its decimal number (the digits after `from`, none meaning 0) plus one. */
function incremented(text: string, from: number): string {
  let i = text.length - 1;
  while (i >= from && text.charCodeAt(i) === NINE) i--;
  const zeros = '0'.repeat(text.length - 1 - i);
  if (i < from) return `${text.slice(0, from)}1${zeros}`;
  return `${text.slice(0, i)}${DIGITS[text.charCodeAt(i) - 0x2f] as string}${zeros}`;
}

/** A counter that hands out `<prefix>1`, `<prefix>2`, … */
export class IdSequence {
  readonly #prefixLength: number;
  /** The prefix and the decimal digits of the count without its last one. */
  #head: string;
  /** The last digit of the count. */
  #unit = 0;

  constructor(prefix: string) {
    this.#prefixLength = prefix.length;
    this.#head = prefix;
  }

  /** The next id. */
  next(): string {
    this.skip();
    return this.#head + (DIGITS[this.#unit] as string);
  }

  /** Count the next id without spelling it (it is never used). */
  skip(): void {
    let unit = this.#unit + 1;
    if (unit === 10) {
      unit = 0;
      this.#head = incremented(this.#head, this.#prefixLength);
    }
    this.#unit = unit;
  }
}
