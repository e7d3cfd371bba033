/**
 * Reading small JSON values straight from their bytes: strings without
 * escapes and plain integers need no `JSON.parse` and no intermediate
 * string. Anything else is parsed as usual.
 *
 * @module
 */
import * as bytes from './bytes.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs per frame).
const { BACKSLASH, MINUS, QUOTE, TRUE, ZERO, bytesAre, isDigit } = bytes;

/** End of the run of decimal digits from `at` (at most `end`); `at` itself if there is none. */
export function digitsEnd(buf: Uint8Array, at: number, end: number): number {
  let k = at;
  while (k < end && isDigit(buf[k] as number)) k++;
  return k;
}

/** The value of the digits `[at, end)` (which {@link digitsEnd} found; at most 15 of them, so exact). */
export function digitsValue(buf: Uint8Array, at: number, end: number): number {
  let value = 0;
  for (let k = at; k < end; k++) value = value * 10 + ((buf[k] as number) - ZERO);
  return value;
}

/**
 * End of a plain non-negative integer at `at`: 1 to 15 digits (always a
 * safe integer), no leading zero, no sign, fraction or exponent; -1 if
 * there is none.
 */
export function plainIntegerEnd(buf: Uint8Array, at: number, end: number): number {
  // Its own loop, capped at 16 digits: the ingest reader reads three or four per event.
  let k = at;
  while (k < end && k - at <= 15 && isDigit(buf[k] as number)) k++;
  return k === at || k - at > 15 || (buf[at] === ZERO && k - at > 1) ? -1 : k;
}

/**
 * The closing quote of a plain string whose text starts at `at` (just past
 * its opening quote): printable ASCII, no escapes. -1 if it is not one.
 */
export function plainStringEnd(buf: Uint8Array, at: number, end: number): number {
  for (let k = at; k < end; k++) {
    const byte = buf[k] as number;
    if (byte === QUOTE) return k;
    if (byte === BACKSLASH || byte < 0x20 || byte >= 0x80) return -1;
  }
  return -1;
}

/**
 * Decode a small value: a string without escapes and a plain integer are
 * read straight from the bytes; anything else goes through JSON.parse.
 */
export function valueAt(buf: Buffer, start: number, end: number): unknown {
  if (start < 0) return undefined;
  const first = buf[start] as number;
  if (first === QUOTE) {
    const close = end - 1;
    let k = start + 1;
    while (k < close && buf[k] !== BACKSLASH) k++;
    if (k >= close) return buf.toString('utf8', start + 1, close);
  } else if (end - start <= 15 && (isDigit(first) || first === MINUS)) {
    const from = first === MINUS ? start + 1 : start;
    if (from < end && digitsEnd(buf, from, end) === end) {
      const value = digitsValue(buf, from, end);
      return first === MINUS ? -value : value;
    }
  }
  try {
    return JSON.parse(buf.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}

/** True if the value in `[start, end)` is exactly `true` (`start` -1: there is no value). */
export function isTrue(buf: Buffer, start: number, end: number): boolean {
  return start >= 0 && bytesAre(buf, start, end, TRUE);
}
