/**
 * A JSON scanner that reads the envelope of a JSON-RPC frame (its top-level
 * keys and a few small values) straight from the bytes, without decoding
 * the frame to a string or building the values it skips.
 *
 * Parsing every frame with `JSON.parse` is the single largest cost of a
 * classifying relay; most frames only need `jsonrpc`, `id`, `method` and
 * whether there is a `result` or an `error`. The scanner checks the top
 * level fully (keys, colons, commas, literals, nothing after the closing
 * brace) and nested values by shape only (strings closed, brackets balanced
 * and matched); escape sequences and number grammar are not checked. That is
 * enough to tell a JSON-RPC frame from noise without building it.
 *
 * It is one pass: the first level of `params` and `result` is walked while
 * they are skipped, to find the members that name a call (`name`, `uri`)
 * and flag a failed one (`isError`), so nothing is read twice.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 256;

/** JSON whitespace. */
export function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Past the whitespace from `i` on (at most `end`). */
export function skipSpace(buf: Uint8Array, i: number, end: number): number {
  // Every space byte is at most 0x20: most calls stop at the first test.
  while (i < end) {
    const byte = buf[i] as number;
    if (byte > 0x20 || !isSpace(byte)) break;
    i++;
  }
  return i;
}

/** End of the string starting at `i` (a quote), just past its closing quote; -1 if unterminated. */
function skipString(buf: Buffer, i: number, end: number): number {
  // Short strings (keys, ids, methods) are cheaper to walk than to search.
  const near = Math.min(end, i + 48);
  for (let k = i + 1; k < near; k++) {
    const byte = buf[k];
    if (byte === QUOTE) return k + 1;
    if (byte === BACKSLASH) break;
  }
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

/** A byte that may appear in a JSON number (the scanners check shape, not grammar). */
export function isNumberByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;
}

/** The bytes of an ASCII word, to compare with: cheaper than a string's char codes. */
function ascii(word: string): Uint8Array {
  return Uint8Array.from(word, (char) => char.charCodeAt(0));
}

const TRUE = ascii('true');
const FALSE = ascii('false');
const NULL = ascii('null');

/** True if the bytes `[start, end)` are `word`. */
function matches(buf: Buffer, start: number, end: number, word: Uint8Array): boolean {
  const n = word.length;
  if (end - start !== n) return false;
  for (let k = 0; k < n; k++) if (buf[start + k] !== word[k]) return false;
  return true;
}

function skipLiteral(buf: Uint8Array, i: number, end: number, word: Uint8Array): number {
  const n = word.length;
  if (i + n > end) return -1;
  for (let k = 0; k < n; k++) if (buf[i + k] !== word[k]) return -1;
  return i + n;
}

/** End of the `true`, `false` or `null` at `i`; -1 if there is none. */
export function literalEnd(buf: Uint8Array, i: number, end: number): number {
  switch (buf[i]) {
    case 0x74:
      return skipLiteral(buf, i, end, TRUE);
    case 0x66:
      return skipLiteral(buf, i, end, FALSE);
    case 0x6e:
      return skipLiteral(buf, i, end, NULL);
  }
  return -1;
}

const stack = new Uint8Array(MAX_DEPTH + 1);

// What skipNested looks for, by byte: most bytes are none of these.
const NESTED_OTHER = 0;
const NESTED_QUOTE = 1;
const NESTED_OPEN = 2;
const NESTED_CLOSE = 3;
const nestedClass = new Uint8Array(256);
nestedClass[QUOTE] = NESTED_QUOTE;
nestedClass[0x7b] = NESTED_OPEN;
nestedClass[0x5b] = NESTED_OPEN;
nestedClass[0x7d] = NESTED_CLOSE;
nestedClass[0x5d] = NESTED_CLOSE;

/**
 * End of the object or array starting at `i`, in one pass: strings are
 * skipped whole, brackets must balance and match. Inner commas and colons
 * are not checked: the envelope only needs to know where a value ends.
 * `maxDepth` is the nesting allowed, the value itself included.
 */
function skipNested(buf: Buffer, i: number, end: number, maxDepth: number): number {
  let depth = 0;
  for (let k = i; k < end; k++) {
    const byte = buf[k] as number;
    const kind = nestedClass[byte];
    if (kind === NESTED_OTHER) continue;
    if (kind === NESTED_QUOTE) {
      const after = skipString(buf, k, end);
      if (after === -1) return -1;
      k = after - 1;
    } else if (kind === NESTED_OPEN) {
      if (depth === maxDepth) return -1;
      // The matching closer: `}` is `{` + 2, `]` is `[` + 2.
      stack[depth++] = byte + 2;
    } else {
      if (depth === 0 || stack[--depth] !== byte) return -1;
      if (depth === 0) return k + 1;
    }
  }
  return -1;
}

/** End of the value starting at `i` (no leading space); -1 if malformed. */
export function skipValue(buf: Buffer, i: number, end: number): number {
  return skipValueWithin(buf, i, end, MAX_DEPTH);
}

function skipValueWithin(buf: Buffer, i: number, end: number, maxDepth: number): number {
  if (i >= end) return -1;
  const byte = buf[i] as number;
  if (byte === QUOTE) return skipString(buf, i, end);
  if (byte === 0x7b || byte === 0x5b) return skipNested(buf, i, end, maxDepth);
  if (byte === 0x74 || byte === 0x66 || byte === 0x6e) return literalEnd(buf, i, end);
  if (isNumberByte(byte)) {
    let at = i + 1;
    while (at < end && isNumberByte(buf[at] as number)) at++;
    return at;
  }
  return -1;
}

/** True if the bytes `[start, end)` spell `word` (ASCII). */
function bytesAre(buf: Buffer, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (buf[start + k] !== word.charCodeAt(k)) return false;
  return true;
}

/**
 * The envelope of a JSON-RPC message: where the values of its top-level
 * members are, as byte ranges (`-1` when absent). Offsets, not strings, so
 * reading an envelope allocates nothing (the classifier reuses one).
 *
 * The scan also records, in the same pass, the members that name a request
 * and flag a failed tool call: `name` and `uri` are the first members of
 * those names in `params`, `isError` the first in `result`, exactly as
 * {@link memberRange} would find them there (-1 when it would not: the
 * value is not an object, has no such member, or is malformed before it).
 */
export class Envelope {
  jsonrpc = -1;
  jsonrpcEnd = -1;
  id = -1;
  idEnd = -1;
  method = -1;
  methodEnd = -1;
  params = -1;
  paramsEnd = -1;
  result = -1;
  resultEnd = -1;
  error = -1;
  errorEnd = -1;
  /** `params.name`. */
  name = -1;
  nameEnd = -1;
  /** `params.uri`. */
  uri = -1;
  uriEnd = -1;
  /** `result.isError`. */
  isError = -1;
  isErrorEnd = -1;

  /** Forget everything, for reuse. */
  reset(): this {
    this.jsonrpc = -1;
    this.jsonrpcEnd = -1;
    this.id = -1;
    this.idEnd = -1;
    this.method = -1;
    this.methodEnd = -1;
    this.params = -1;
    this.paramsEnd = -1;
    this.result = -1;
    this.resultEnd = -1;
    this.error = -1;
    this.errorEnd = -1;
    this.name = -1;
    this.nameEnd = -1;
    this.uri = -1;
    this.uriEnd = -1;
    this.isError = -1;
    this.isErrorEnd = -1;
    return this;
  }
}

// What a top-level key is, by its bytes.
const OTHER = 0;
const ID = 1;
const ERROR = 2;
const METHOD = 3;
const PARAMS = 4;
const RESULT = 5;
const JSONRPC = 6;

const K_ERROR = ascii('error');
const K_METHOD = ascii('method');
const K_PARAMS = ascii('params');
const K_RESULT = ascii('result');
const K_JSONRPC = ascii('jsonrpc');
const K_NAME = ascii('name');
const K_URI = ascii('uri');
const K_IS_ERROR = ascii('isError');

/** What the top-level key in `[ks, ke)` (between its quotes) is. */
function keyKind(buf: Buffer, ks: number, ke: number): number {
  switch (ke - ks) {
    case 2:
      return buf[ks] === 0x69 && buf[ks + 1] === 0x64 ? ID : OTHER;
    case 5:
      return matches(buf, ks, ke, K_ERROR) ? ERROR : OTHER;
    case 6:
      switch (buf[ks]) {
        case 0x6d:
          return matches(buf, ks, ke, K_METHOD) ? METHOD : OTHER;
        case 0x70:
          return matches(buf, ks, ke, K_PARAMS) ? PARAMS : OTHER;
        case 0x72:
          return matches(buf, ks, ke, K_RESULT) ? RESULT : OTHER;
      }
      return OTHER;
    case 7:
      return matches(buf, ks, ke, K_JSONRPC) ? JSONRPC : OTHER;
  }
  return OTHER;
}

/** The kind found by the last {@link plainKeyEnd} that matched. */
let plainKind = OTHER;

/** True if `word` is at `i`, followed by a closing quote, within `end`. */
function plainWordAt(buf: Buffer, i: number, end: number, word: Uint8Array): boolean {
  const n = word.length;
  return i + n < end && buf[i + n] === QUOTE && matches(buf, i, i + n, word);
}

/**
 * Just past the key starting at `i` (a quote) if it is one of the envelope's
 * keys, written plainly, with its kind in `plainKind`; -1 otherwise, and the
 * key is read the general way ({@link skipString}, {@link keyKind}), which
 * finds the same end and kind for these. Compact JSON is what nearly every
 * frame is, so most keys are known by a glance at their first letter.
 */
function plainKeyEnd(buf: Buffer, i: number, end: number): number {
  let word: Uint8Array;
  switch (buf[i + 1]) {
    case 0x69:
      if (i + 3 < end && buf[i + 2] === 0x64 && buf[i + 3] === QUOTE) {
        plainKind = ID;
        return i + 4;
      }
      return -1;
    case 0x6a:
      word = K_JSONRPC;
      plainKind = JSONRPC;
      break;
    case 0x6d:
      word = K_METHOD;
      plainKind = METHOD;
      break;
    case 0x70:
      word = K_PARAMS;
      plainKind = PARAMS;
      break;
    case 0x72:
      word = K_RESULT;
      plainKind = RESULT;
      break;
    case 0x65:
      word = K_ERROR;
      plainKind = ERROR;
      break;
    default:
      return -1;
  }
  return plainWordAt(buf, i + 1, end, word) ? i + word.length + 2 : -1;
}

/**
 * End of the object starting at `start` (a `{`, one level below the top),
 * as {@link skipNested} finds it, while recording in `env` the first
 * `name` and `uri` members (`kind` PARAMS) or the first `isError` member
 * (`kind` RESULT) that {@link memberRange} would find.
 *
 * The members are walked one by one, with memberRange's checks (key,
 * colon, value, comma). Where that walk meets something memberRange would
 * stop at, recording stops and the object is skipped again by shape from
 * its start, so that what is accepted stays exactly what skipNested accepts.
 */
function scanMembers(buf: Buffer, start: number, end: number, env: Envelope, kind: number): number {
  let at = skipSpace(buf, start + 1, end);
  if (buf[at] === 0x7d) return at + 1;
  for (;;) {
    if (buf[at] !== QUOTE) break;
    const keyEnd = skipString(buf, at, end);
    if (keyEnd === -1) break;
    const ks = at + 1;
    const ke = keyEnd - 1;
    at = skipSpace(buf, keyEnd, end);
    if (buf[at] !== 0x3a) break;
    at = skipSpace(buf, at + 1, end);
    const vs = at;
    // One level is taken by the object itself.
    at = skipValueWithin(buf, at, end, MAX_DEPTH - 1);
    if (at === -1) break;
    const length = ke - ks;
    if (kind === PARAMS) {
      if (length === 4) {
        if (env.name === -1 && matches(buf, ks, ke, K_NAME)) {
          env.name = vs;
          env.nameEnd = at;
        }
      } else if (length === 3) {
        if (env.uri === -1 && matches(buf, ks, ke, K_URI)) {
          env.uri = vs;
          env.uriEnd = at;
        }
      }
    } else if (length === 7 && env.isError === -1 && matches(buf, ks, ke, K_IS_ERROR)) {
      env.isError = vs;
      env.isErrorEnd = at;
    }
    at = skipSpace(buf, at, end);
    const byte = buf[at];
    if (byte === 0x7d) return at + 1;
    if (byte !== 0x2c) break;
    at = skipSpace(buf, at + 1, end);
  }
  return skipNested(buf, start, end, MAX_DEPTH);
}

/**
 * The envelope of a line that holds exactly one JSON object (with optional
 * surrounding whitespace), or undefined if it does not. The result is
 * written to `into` (reset first) when given, so a caller that consumes it
 * at once can reuse one object.
 */
export function scanEnvelope(buf: Buffer, into?: Envelope): Envelope | undefined {
  const length = buf.length;
  let at = skipSpace(buf, 0, length);
  if (buf[at] !== 0x7b) return undefined;
  const env = into === undefined ? new Envelope() : into.reset();
  // The top level of an object scan, unrolled so that recording the members
  // we care about costs no closure and no allocation per key.
  at = skipSpace(buf, at + 1, length);
  if (buf[at] !== 0x7d) {
    for (;;) {
      if (buf[at] !== QUOTE) return undefined;
      let keyEnd = plainKeyEnd(buf, at, length);
      let kind: number;
      if (keyEnd !== -1) {
        kind = plainKind;
      } else {
        keyEnd = skipString(buf, at, length);
        if (keyEnd === -1) return undefined;
        kind = keyKind(buf, at + 1, keyEnd - 1);
      }
      at = skipSpace(buf, keyEnd, length);
      if (buf[at] !== 0x3a) return undefined;
      at = skipSpace(buf, at + 1, length);
      const vs = at;
      // The last of duplicate members wins, with what was found inside it.
      if (kind === PARAMS) {
        env.name = env.nameEnd = env.uri = env.uriEnd = -1;
        at = buf[at] === 0x7b ? scanMembers(buf, at, length, env, PARAMS) : skipValueWithin(buf, at, length, MAX_DEPTH);
      } else if (kind === RESULT) {
        env.isError = env.isErrorEnd = -1;
        at = buf[at] === 0x7b ? scanMembers(buf, at, length, env, RESULT) : skipValueWithin(buf, at, length, MAX_DEPTH);
      } else {
        at = skipValueWithin(buf, at, length, MAX_DEPTH);
      }
      if (at === -1) return undefined;
      switch (kind) {
        case ID:
          env.id = vs;
          env.idEnd = at;
          break;
        case ERROR:
          env.error = vs;
          env.errorEnd = at;
          break;
        case METHOD:
          env.method = vs;
          env.methodEnd = at;
          break;
        case PARAMS:
          env.params = vs;
          env.paramsEnd = at;
          break;
        case RESULT:
          env.result = vs;
          env.resultEnd = at;
          break;
        case JSONRPC:
          env.jsonrpc = vs;
          env.jsonrpcEnd = at;
          break;
      }
      at = skipSpace(buf, at, length);
      if (buf[at] === 0x7d) break;
      if (buf[at] !== 0x2c) return undefined;
      at = skipSpace(buf, at + 1, length);
    }
  }
  return skipSpace(buf, at + 1, length) === length ? env : undefined;
}

/**
 * Within the object whose value spans `[start, end)`, the range of the value
 * of `key` (the first one); undefined if it is not an object or has no such key.
 */
export function memberRange(buf: Buffer, start: number, end: number, key: string): [number, number] | undefined {
  if (start < 0 || buf[start] !== 0x7b) return undefined;
  let at = skipSpace(buf, start + 1, end);
  if (buf[at] === 0x7d) return undefined;
  for (;;) {
    if (buf[at] !== QUOTE) return undefined;
    const keyEnd = skipString(buf, at, end);
    if (keyEnd === -1) return undefined;
    const ks = at + 1;
    at = skipSpace(buf, keyEnd, end);
    if (buf[at] !== 0x3a) return undefined;
    at = skipSpace(buf, at + 1, end);
    const vs = at;
    at = skipValue(buf, at, end);
    if (at === -1) return undefined;
    if (bytesAre(buf, ks, keyEnd - 1, key)) return [vs, at];
    at = skipSpace(buf, at, end);
    if (buf[at] !== 0x2c) return undefined;
    at = skipSpace(buf, at + 1, end);
  }
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
  } else if (end - start <= 15 && ((first >= 0x30 && first <= 0x39) || first === 0x2d)) {
    let value = 0;
    let k = first === 0x2d ? start + 1 : start;
    let plain = k < end;
    for (; k < end; k++) {
      const digit = (buf[k] as number) - 0x30;
      if (digit < 0 || digit > 9) {
        plain = false;
        break;
      }
      value = value * 10 + digit;
    }
    if (plain) return first === 0x2d ? -value : value;
  }
  try {
    return JSON.parse(buf.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}

const VERSION_2 = ascii('"2.0"');

/** True if the value in `[start, end)` is exactly `"2.0"`. */
export function isVersion2(buf: Buffer, start: number, end: number): boolean {
  return start >= 0 && matches(buf, start, end, VERSION_2);
}

/** True if the value in `[start, end)` is exactly `true`. */
export function isTrue(buf: Buffer, start: number, end: number): boolean {
  return start >= 0 && matches(buf, start, end, TRUE);
}

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
