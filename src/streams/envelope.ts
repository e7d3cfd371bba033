/**
 * A JSON scanner that reads the envelope of a JSON-RPC frame (its top-level
 * keys and a few small values) straight from the bytes, without decoding
 * the frame to a string or building the values it skips.
 *
 * Parsing every frame with `JSON.parse` is the single largest cost of a
 * classifying relay; most frames only need `jsonrpc`, `id`, `method` and
 * whether there is a `result` or an `error`. The scanner checks structure as
 * it skips (strings closed, brackets balanced, literals and numbers made of
 * the right characters, nothing after the closing brace), so a line it
 * accepts is JSON in all but the finest points (escape sequences and number
 * grammar are not checked).
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 256;

/** Byte ranges `[start, end)` of the values of an object's top-level keys. */
export type KeyRanges = Map<string, [number, number]>;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(buf: Buffer, i: number, end: number): number {
  while (i < end && isSpace(buf[i] as number)) i++;
  return i;
}

/** End of the string starting at `i` (a quote), just past its closing quote; -1 if unterminated. */
function skipString(buf: Buffer, i: number, end: number): number {
  let at = i + 1;
  for (;;) {
    const quote = buf.indexOf(QUOTE, at);
    if (quote === -1 || quote >= end) return -1;
    let slashes = 0;
    for (let k = quote - 1; k > i && buf[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

function isNumberByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;
}

function skipLiteral(buf: Buffer, i: number, end: number, word: string): number {
  if (i + word.length > end) return -1;
  for (let k = 0; k < word.length; k++) if (buf[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

/** End of the value starting at `i` (no leading space); -1 if malformed. */
export function skipValue(buf: Buffer, i: number, end: number, depth = 0): number {
  if (i >= end) return -1;
  const byte = buf[i] as number;
  if (byte === QUOTE) return skipString(buf, i, end);
  if (byte === 0x7b) return scanObject(buf, i, end, undefined, depth + 1);
  if (byte === 0x5b) {
    if (depth >= MAX_DEPTH) return -1;
    let at = skipSpace(buf, i + 1, end);
    if (buf[at] === 0x5d) return at + 1;
    for (;;) {
      at = skipValue(buf, at, end, depth + 1);
      if (at === -1) return -1;
      at = skipSpace(buf, at, end);
      if (buf[at] === 0x5d) return at + 1;
      if (buf[at] !== 0x2c) return -1;
      at = skipSpace(buf, at + 1, end);
    }
  }
  if (byte === 0x74) return skipLiteral(buf, i, end, 'true');
  if (byte === 0x66) return skipLiteral(buf, i, end, 'false');
  if (byte === 0x6e) return skipLiteral(buf, i, end, 'null');
  if (isNumberByte(byte)) {
    let at = i + 1;
    while (at < end && isNumberByte(buf[at] as number)) at++;
    return at;
  }
  return -1;
}

/**
 * Scan the object starting at `i` (an opening brace). When `keys` is given,
 * record the value range of each top-level key in it. Returns the index just
 * past the closing brace, or -1 if malformed. A key written with escapes is
 * recorded under its raw spelling, so it never matches a plain name.
 */
export function scanObject(buf: Buffer, i: number, end: number, keys: KeyRanges | undefined, depth = 0): number {
  if (depth >= MAX_DEPTH) return -1;
  let at = skipSpace(buf, i + 1, end);
  if (buf[at] === 0x7d) return at + 1;
  for (;;) {
    if (buf[at] !== QUOTE) return -1;
    const keyEnd = skipString(buf, at, end);
    if (keyEnd === -1) return -1;
    const keyStart = at + 1;
    at = skipSpace(buf, keyEnd, end);
    if (buf[at] !== 0x3a) return -1;
    at = skipSpace(buf, at + 1, end);
    const valueStart = at;
    at = skipValue(buf, at, end, depth);
    if (at === -1) return -1;
    if (keys !== undefined) keys.set(buf.toString('latin1', keyStart, keyEnd - 1), [valueStart, at]);
    at = skipSpace(buf, at, end);
    if (buf[at] === 0x7d) return at + 1;
    if (buf[at] !== 0x2c) return -1;
    at = skipSpace(buf, at + 1, end);
  }
}

/**
 * The top-level keys of a line that holds exactly one JSON object (with
 * optional surrounding whitespace), or undefined if it does not.
 */
export function scanEnvelope(buf: Buffer): KeyRanges | undefined {
  const start = skipSpace(buf, 0, buf.length);
  if (buf[start] !== 0x7b) return undefined;
  const keys: KeyRanges = new Map();
  const after = scanObject(buf, start, buf.length, keys);
  if (after === -1 || skipSpace(buf, after, buf.length) !== buf.length) return undefined;
  return keys;
}

/** Parse the value in `range` (a small one: an id, a method, a flag). */
export function valueAt(buf: Buffer, range: [number, number] | undefined): unknown {
  if (range === undefined) return undefined;
  try {
    return JSON.parse(buf.toString('utf8', range[0], range[1]));
  } catch {
    return undefined;
  }
}

/** True if the value in `range` is exactly the given ASCII text (e.g. `"2.0"`, `true`). */
export function valueIs(buf: Buffer, range: [number, number] | undefined, text: string): boolean {
  if (range === undefined || range[1] - range[0] !== text.length) return false;
  for (let k = 0; k < text.length; k++) if (buf[range[0] + k] !== text.charCodeAt(k)) return false;
  return true;
}

/** The value ranges of the keys of the object in `range`, if it is one. */
export function keysAt(buf: Buffer, range: [number, number] | undefined): KeyRanges | undefined {
  if (range === undefined || buf[range[0]] !== 0x7b) return undefined;
  const keys: KeyRanges = new Map();
  return scanObject(buf, range[0], range[1], keys) === -1 ? undefined : keys;
}
