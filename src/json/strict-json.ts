/**
 * A strict JSON checker for byte ranges: true exactly when `JSON.parse`
 * would accept the text (given valid UTF-8, which `isUtf8` checks
 * separately). The shape scanners (skip.ts, and the relay's envelope
 * built on it) check nested values by shape only; before bytes of a frame
 * are copied verbatim into JSON of our own, they must pass this full
 * check, or one odd escape in a frame would make the whole document
 * unreadable.
 *
 * @module
 */
import * as bytes from './bytes.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs on every value a
// reporter copies).
const { MAX_DEPTH, isDigit, literalEnd, skipSpace } = bytes;

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46);
}

/** End of the string at `i` (a quote), with every escape checked; -1 if invalid. */
function stringEnd(buf: Uint8Array, i: number, end: number): number {
  for (let k = i + 1; k < end; k++) {
    const byte = buf[k] as number;
    if (byte === 0x22) return k + 1;
    // Raw control characters are not allowed inside a JSON string.
    if (byte < 0x20) return -1;
    if (byte !== 0x5c) continue;
    k++;
    if (k >= end) return -1;
    switch (buf[k]) {
      case 0x22:
      case 0x5c:
      case 0x2f:
      case 0x62:
      case 0x66:
      case 0x6e:
      case 0x72:
      case 0x74:
        break;
      case 0x75:
        if (k + 4 >= end || !isHex(buf[k + 1] as number) || !isHex(buf[k + 2] as number) || !isHex(buf[k + 3] as number) || !isHex(buf[k + 4] as number)) {
          return -1;
        }
        k += 4;
        break;
      default:
        return -1;
    }
  }
  return -1;
}

/** End of the number at `i`, by JSON's grammar; -1 if invalid. */
function numberEnd(buf: Uint8Array, i: number, end: number): number {
  let k = i;
  if (buf[k] === 0x2d) k++;
  if (k >= end) return -1;
  if (buf[k] === 0x30) k++;
  else if (isDigit(buf[k] as number)) while (k < end && isDigit(buf[k] as number)) k++;
  else return -1;
  if (k < end && buf[k] === 0x2e) {
    k++;
    if (k >= end || !isDigit(buf[k] as number)) return -1;
    while (k < end && isDigit(buf[k] as number)) k++;
  }
  if (k < end && (buf[k] === 0x65 || buf[k] === 0x45)) {
    k++;
    if (k < end && (buf[k] === 0x2b || buf[k] === 0x2d)) k++;
    if (k >= end || !isDigit(buf[k] as number)) return -1;
    while (k < end && isDigit(buf[k] as number)) k++;
  }
  return k;
}

/** End of the value at `i` (no leading space); -1 if invalid or nested deeper than MAX_DEPTH. */
function valueEnd(buf: Uint8Array, i: number, end: number, depth: number): number {
  if (i >= end) return -1;
  switch (buf[i]) {
    case 0x22:
      return stringEnd(buf, i, end);
    case 0x7b:
      return depth === MAX_DEPTH ? -1 : objectEnd(buf, i, end, depth + 1);
    case 0x5b:
      return depth === MAX_DEPTH ? -1 : arrayEnd(buf, i, end, depth + 1);
    case 0x74:
    case 0x66:
    case 0x6e:
      return literalEnd(buf, i, end);
    default:
      return numberEnd(buf, i, end);
  }
}

function objectEnd(buf: Uint8Array, i: number, end: number, depth: number): number {
  let k = skipSpace(buf, i + 1, end);
  // Every read is checked against `end`: the bytes beyond it belong to something else.
  if (k < end && buf[k] === 0x7d) return k + 1;
  for (;;) {
    if (k >= end || buf[k] !== 0x22) return -1;
    k = stringEnd(buf, k, end);
    if (k === -1) return -1;
    k = skipSpace(buf, k, end);
    if (k >= end || buf[k] !== 0x3a) return -1;
    k = valueEnd(buf, skipSpace(buf, k + 1, end), end, depth);
    if (k === -1) return -1;
    k = skipSpace(buf, k, end);
    if (k >= end) return -1;
    if (buf[k] === 0x7d) return k + 1;
    if (buf[k] !== 0x2c) return -1;
    k = skipSpace(buf, k + 1, end);
  }
}

function arrayEnd(buf: Uint8Array, i: number, end: number, depth: number): number {
  let k = skipSpace(buf, i + 1, end);
  if (k < end && buf[k] === 0x5d) return k + 1;
  for (;;) {
    k = valueEnd(buf, k, end, depth);
    if (k === -1) return -1;
    k = skipSpace(buf, k, end);
    if (k >= end) return -1;
    if (buf[k] === 0x5d) return k + 1;
    if (buf[k] !== 0x2c) return -1;
    k = skipSpace(buf, k + 1, end);
  }
}

/**
 * True if the bytes `[start, end)` are one complete JSON value (surrounding
 * whitespace allowed) that `JSON.parse` would accept, nested at most 256
 * deep. Bytes of 0x80 and above are accepted inside strings; whether they
 * are valid UTF-8 is for the caller to check.
 */
export function isStrictJson(buf: Uint8Array, start: number, end: number): boolean {
  const at = valueEnd(buf, skipSpace(buf, start, end), end, 0);
  return at !== -1 && skipSpace(buf, at, end) === end;
}

/**
 * The end of the JSON value that starts exactly at `start` (no leading
 * whitespace) and ends at or before `end`, if it is one `JSON.parse` would
 * accept (nested at most 256 deep); -1 otherwise. As with
 * {@link isStrictJson}, bytes of 0x80 and above are the caller's to check.
 */
export function jsonValueEnd(buf: Uint8Array, start: number, end: number): number {
  return valueEnd(buf, start, end, 0);
}

/**
 * `bytes` parsed, if they are strictly valid JSON (see {@link isStrictJson}:
 * nothing nested deeper than a value can later be serialised again), as
 * `{ value }`; undefined otherwise. `text` is the same bytes decoded, when
 * the caller already has them so.
 */
export function parseStrictJson(bytes: Buffer, text?: string): { value: unknown } | undefined {
  if (!isStrictJson(bytes, 0, bytes.length)) return undefined;
  try {
    return { value: JSON.parse(text ?? bytes.toString('utf8')) };
  } catch {
    return undefined;
  }
}
