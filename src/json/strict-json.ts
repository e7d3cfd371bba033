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
import { MESSAGE_MAX_DEPTH } from './depth.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs on every value a
// reporter copies).
const { isDigit, literalEnd, skipSpace } = bytes;

/** The last check stopped at a level past its bound (rather than at a byte JSON does not allow). */
let tooDeep = false;

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

/**
 * End of the value at `i` (no leading space); -1 if invalid, or if it
 * nests more than `left` levels (then {@link tooDeep} is set). Recursive:
 * its bound is what keeps its stack small.
 */
function valueEnd(buf: Uint8Array, i: number, end: number, left: number): number {
  if (i >= end) return -1;
  switch (buf[i]) {
    case 0x22:
      return stringEnd(buf, i, end);
    case 0x7b:
      return left === 0 ? deep() : objectEnd(buf, i, end, left - 1);
    case 0x5b:
      return left === 0 ? deep() : arrayEnd(buf, i, end, left - 1);
    case 0x74:
    case 0x66:
    case 0x6e:
      return literalEnd(buf, i, end);
    default:
      return numberEnd(buf, i, end);
  }
}

/** A level past the bound: -1, noted as such. */
function deep(): number {
  tooDeep = true;
  return -1;
}

function objectEnd(buf: Uint8Array, i: number, end: number, left: number): number {
  let k = skipSpace(buf, i + 1, end);
  // Every read is checked against `end`: the bytes beyond it belong to something else.
  if (k < end && buf[k] === 0x7d) return k + 1;
  for (;;) {
    if (k >= end || buf[k] !== 0x22) return -1;
    k = stringEnd(buf, k, end);
    if (k === -1) return -1;
    k = skipSpace(buf, k, end);
    if (k >= end || buf[k] !== 0x3a) return -1;
    k = valueEnd(buf, skipSpace(buf, k + 1, end), end, left);
    if (k === -1) return -1;
    k = skipSpace(buf, k, end);
    if (k >= end) return -1;
    if (buf[k] === 0x7d) return k + 1;
    if (buf[k] !== 0x2c) return -1;
    k = skipSpace(buf, k + 1, end);
  }
}

function arrayEnd(buf: Uint8Array, i: number, end: number, left: number): number {
  let k = skipSpace(buf, i + 1, end);
  if (k < end && buf[k] === 0x5d) return k + 1;
  for (;;) {
    k = valueEnd(buf, k, end, left);
    if (k === -1) return -1;
    k = skipSpace(buf, k, end);
    if (k >= end) return -1;
    if (buf[k] === 0x5d) return k + 1;
    if (buf[k] !== 0x2c) return -1;
    k = skipSpace(buf, k + 1, end);
  }
}

/** What {@link strictJson} found: JSON that `JSON.parse` accepts, within the depth asked. */
export const STRICT = 0;
/** What {@link strictJson} found: not JSON that `JSON.parse` accepts. */
export const NOT_JSON = 1;
/** What {@link strictJson} found: it nests deeper than the bound asked (whatever comes after that level). */
export const NESTED_TOO_DEEP = 2;

/**
 * Whether the bytes `[start, end)` are one complete JSON value (surrounding
 * whitespace allowed) that `JSON.parse` would accept, nested at most
 * `maxDepth` levels deep: {@link STRICT}, {@link NOT_JSON} or
 * {@link NESTED_TOO_DEEP}. Bytes of 0x80 and above are accepted inside
 * strings; whether they are valid UTF-8 is for the caller to check.
 */
export function strictJson(buf: Uint8Array, start: number, end: number, maxDepth: number): number {
  tooDeep = false;
  const at = valueEnd(buf, skipSpace(buf, start, end), end, maxDepth);
  if (at === -1) return tooDeep ? NESTED_TOO_DEEP : NOT_JSON;
  return skipSpace(buf, at, end) === end ? STRICT : NOT_JSON;
}

/**
 * True if the bytes `[start, end)` are one complete JSON value (surrounding
 * whitespace allowed) that `JSON.parse` would accept, nested at most
 * `maxDepth` levels deep (by default what the debugger accepts,
 * `MESSAGE_MAX_DEPTH`). Bytes of 0x80 and above are accepted inside
 * strings; whether they are valid UTF-8 is for the caller to check.
 */
export function isStrictJson(buf: Uint8Array, start: number, end: number, maxDepth: number = MESSAGE_MAX_DEPTH): boolean {
  const at = valueEnd(buf, skipSpace(buf, start, end), end, maxDepth);
  return at !== -1 && skipSpace(buf, at, end) === end;
}

/**
 * The end of the JSON value that starts exactly at `start` (no leading
 * whitespace) and ends at or before `end`, if it is one `JSON.parse` would
 * accept, nested at most `MESSAGE_MAX_DEPTH` deep (what the debugger can
 * serialise again); -1 otherwise. As with {@link isStrictJson}, bytes of
 * 0x80 and above are the caller's to check.
 */
export function jsonValueEnd(buf: Uint8Array, start: number, end: number): number {
  return valueEnd(buf, start, end, MESSAGE_MAX_DEPTH);
}

/**
 * `bytes` parsed, if they are strictly valid JSON (see {@link isStrictJson}:
 * nothing nested deeper than the debugger can later serialise again), as
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
