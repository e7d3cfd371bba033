/**
 * Bytes collected up to a cap; past it only the fact of overflowing is kept.
 * What the skeleton reader keeps of a long line's keys and small values.
 */
export class Capture {
  #bytes: Buffer;
  readonly #cap: number;
  /** How many bytes are kept. */
  length = 0;
  /** More than the cap was added: what is kept is not all of it. */
  overflow = false;

  /** @param cap the most bytes kept */
  constructor(cap: number) {
    this.#cap = cap;
    this.#bytes = Buffer.allocUnsafe(Math.min(cap, 256));
  }

  /** Room for `more` bytes, growing up to the cap; false past it. */
  #room(more: number): boolean {
    const need = this.length + more;
    if (need <= this.#bytes.length) return true;
    if (need > this.#cap) return false;
    const grown = Buffer.allocUnsafe(Math.min(this.#cap, Math.max(need, this.#bytes.length * 2)));
    this.#bytes.copy(grown, 0, 0, this.length);
    this.#bytes = grown;
    return true;
  }

  /** Empty again, for the next value. */
  reset(): void {
    this.length = 0;
    this.overflow = false;
  }

  /** Keep the bytes `[start, end)` of `source`. */
  add(source: Buffer, start: number, end: number): void {
    if (this.overflow || end <= start) return;
    if (!this.#room(end - start)) {
      this.overflow = true;
      return;
    }
    source.copy(this.#bytes, this.length, start, end);
    this.length += end - start;
  }

  /** Keep one byte. */
  byte(value: number): void {
    if (this.overflow) return;
    if (!this.#room(1)) {
      this.overflow = true;
      return;
    }
    this.#bytes[this.length++] = value;
  }

  /** The bytes kept, as text (one character per byte). */
  text(): string {
    return this.#bytes.toString('latin1', 0, this.length);
  }
}
