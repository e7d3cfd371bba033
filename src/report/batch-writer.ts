import { isUtf8 } from 'node:buffer';

/** Up to this many bytes, a piece is written in JavaScript rather than by a native call. */
const SHORT = 64;

/**
 * The JSON of a batch of events, written straight into bytes: what a
 * reporter sends to `/ingest`. Building a string and then encoding it to
 * UTF-8 decoded every recorded frame's bytes only to encode them again; a
 * batch of small calls took about twice as long that way.
 */
export class BatchWriter {
  /** Where the bytes go (replaced by a larger one as they grow). */
  buf = Buffer.allocUnsafe(16 * 1024);
  /** How many bytes are written: where the next goes. Set back to undo a write. */
  at = 0;

  /** Make room for `bytes` more. */
  room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  /** One byte. */
  byte(value: number): void {
    this.room(1);
    this.buf[this.at++] = value;
  }

  /**
   * Text that is ASCII (our own keys and ids). Short pieces are stored a
   * byte at a time: a call into the native encoder costs more than that.
   */
  ascii(text: string): void {
    const length = text.length;
    this.room(length);
    if (length > SHORT) {
      this.at += this.buf.write(text, this.at, 'latin1');
      return;
    }
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < length; i++) buf[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /** A string's JSON: short ones with nothing to escape a byte at a time, others through JSON.stringify. */
  string(value: string): void {
    const length = value.length;
    if (length <= SHORT) {
      this.room(length + 2);
      const buf = this.buf;
      let at = this.at;
      buf[at++] = 0x22;
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code < 0x20 || code === 0x22 || code === 0x5c || code >= 0x7f) break;
        buf[at++] = code;
      }
      if (i === length) {
        buf[at++] = 0x22;
        this.at = at;
        return;
      }
    }
    this.text(JSON.stringify(value));
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    this.room(text.length * 3);
    this.at += this.buf.write(text, this.at, 'utf8');
  }

  /** A non-negative safe integer, in digits: in 32-bit arithmetic, eight digits at a time beyond the first. */
  digits(value: number): void {
    if (value < 1e8) return this.#smallDigits(value | 0, 0);
    const high = Math.floor(value / 1e8);
    if (high < 1e8) this.#smallDigits(high | 0, 0);
    else this.digits(high);
    this.#smallDigits((value - high * 1e8) | 0, 8);
  }

  /** `value` (below 1e8) in digits, zero-padded to `width`. */
  #smallDigits(value: number, width: number): void {
    let length = 1;
    for (let power = 10; power <= value; power *= 10) length++;
    if (length < width) length = width;
    this.room(length);
    const buf = this.buf;
    let at = (this.at += length);
    let rest = value;
    for (let i = 0; i < length; i++) {
      const next = (rest / 10) | 0;
      buf[--at] = 0x30 + rest - next * 10;
      rest = next;
    }
  }

  /** Bytes of our own (known to be UTF-8), copied as they are. */
  raw(source: Buffer, start: number, end: number): void {
    const length = end - start;
    this.room(length);
    if (length > SHORT) {
      source.copy(this.buf, this.at, start, end);
      this.at += length;
      return;
    }
    const buf = this.buf;
    let at = this.at;
    for (let i = start; i < end; i++) buf[at++] = source[i] as number;
    this.at = at;
  }

  /** Bytes copied as they are. False (nothing written) if they are not valid UTF-8. */
  utf8(source: Buffer, start: number, end: number): boolean {
    if (end - start > SHORT) return this.checked(source, start, end);
    this.room(end - start);
    const buf = this.buf;
    let at = this.at;
    for (let i = start; i < end; i++) {
      const byte = source[i] as number;
      // Not ASCII: the check decides.
      if (byte >= 0x80) return this.checked(source, start, end);
      buf[at++] = byte;
    }
    this.at = at;
    return true;
  }

  /** Bytes copied as they are if they are valid UTF-8 (checked natively); false (nothing written) if not. */
  checked(source: Buffer, start: number, end: number): boolean {
    if (!isUtf8(source.subarray(start, end))) return false;
    this.raw(source, start, end);
    return true;
  }

  /** The batch written so far (a fresh buffer each time: the socket may still hold the last one). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.at);
    // The next batch is likely about as long as this one.
    this.buf = Buffer.allocUnsafe(Math.max(16 * 1024, this.at + 1024));
    this.at = 0;
    return out;
  }
}
