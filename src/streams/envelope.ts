/**
 * Reads the envelope of a JSON-RPC frame (its top-level keys and a few
 * small values) straight from the bytes, without decoding the frame to a
 * string or building the values it skips. The JSON rules it scans by are
 * the shared ones of `src/json/` (bytes.ts, skip.ts); what is here is which
 * members a JSON-RPC frame is read for.
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

import * as bytes from '../json/bytes.js';
import * as skip from '../json/skip.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs per frame).
const { QUOTE, ascii, bytesAre, skipSpace } = bytes;
const { skipNested, skipString, skipValue } = skip;

/**
 * The envelope of a JSON-RPC message: where the values of its top-level
 * members are, as byte ranges (`-1` when absent). Offsets, not strings, so
 * reading an envelope allocates nothing (the classifier reuses one).
 *
 * The scan also records, in the same pass, the members that name a request
 * and flag a failed tool call: `name` and `uri` are the first members of
 * those names in `params`, `isError` the first in `result`, exactly as
 * `memberRange` (json/skip.ts) would find them there (-1 when it would not: the
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
      return bytesAre(buf, ks, ke, K_ERROR) ? ERROR : OTHER;
    case 6:
      switch (buf[ks]) {
        case 0x6d:
          return bytesAre(buf, ks, ke, K_METHOD) ? METHOD : OTHER;
        case 0x70:
          return bytesAre(buf, ks, ke, K_PARAMS) ? PARAMS : OTHER;
        case 0x72:
          return bytesAre(buf, ks, ke, K_RESULT) ? RESULT : OTHER;
      }
      return OTHER;
    case 7:
      return bytesAre(buf, ks, ke, K_JSONRPC) ? JSONRPC : OTHER;
  }
  return OTHER;
}

/** The kind found by the last {@link plainKeyEnd} that matched. */
let plainKind = OTHER;

/** True if `word` is at `i`, followed by a closing quote, within `end`. */
function plainWordAt(buf: Buffer, i: number, end: number, word: Uint8Array): boolean {
  const n = word.length;
  return i + n < end && buf[i + n] === QUOTE && bytesAre(buf, i, i + n, word);
}

/**
 * Just past the key starting at `i` (a quote) if it is one of the envelope's
 * keys, written plainly, with its kind in `plainKind`; -1 otherwise, and the
 * key is read the general way (`skipString`, {@link keyKind}), which
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
 * (`kind` RESULT) that `memberRange` (json/skip.ts) would find.
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
    at = skipValue(buf, at, end);
    if (at === -1) break;
    const length = ke - ks;
    if (kind === PARAMS) {
      if (length === 4) {
        if (env.name === -1 && bytesAre(buf, ks, ke, K_NAME)) {
          env.name = vs;
          env.nameEnd = at;
        }
      } else if (length === 3) {
        if (env.uri === -1 && bytesAre(buf, ks, ke, K_URI)) {
          env.uri = vs;
          env.uriEnd = at;
        }
      }
    } else if (length === 7 && env.isError === -1 && bytesAre(buf, ks, ke, K_IS_ERROR)) {
      env.isError = vs;
      env.isErrorEnd = at;
    }
    at = skipSpace(buf, at, end);
    const byte = buf[at];
    if (byte === 0x7d) return at + 1;
    if (byte !== 0x2c) break;
    at = skipSpace(buf, at + 1, end);
  }
  return skipNested(buf, start, end);
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
        at = buf[at] === 0x7b ? scanMembers(buf, at, length, env, PARAMS) : skipValue(buf, at, length);
      } else if (kind === RESULT) {
        env.isError = env.isErrorEnd = -1;
        at = buf[at] === 0x7b ? scanMembers(buf, at, length, env, RESULT) : skipValue(buf, at, length);
      } else {
        at = skipValue(buf, at, length);
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

const VERSION_2 = ascii('"2.0"');

/** True if the value in `[start, end)` is exactly `"2.0"`. */
export function isVersion2(buf: Buffer, start: number, end: number): boolean {
  return start >= 0 && bytesAre(buf, start, end, VERSION_2);
}
