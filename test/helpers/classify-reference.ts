/**
 * The classifier as it was before the single-pass scanner: a verbatim copy
 * of the former envelope scanner, `classify` and correlator, kept only as
 * the oracle that test/classify-equivalence.test.ts compares the real
 * classifier with. Not used by the product. Since issue 29 both read any
 * depth (the former one refused a frame nested more than 256 levels).
 */
import type { Direction, Frame, JsonRpcId } from '../../src/streams/frame.js';
import { STDOUT_NOISE_NODE, namingParam, nodeFor } from '../../src/streams/node-naming.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 256;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(buf: Buffer, i: number, end: number): number {
  while (i < end && isSpace(buf[i] as number)) i++;
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

function isNumberByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;
}

function skipLiteral(buf: Buffer, i: number, end: number, word: string): number {
  if (i + word.length > end) return -1;
  for (let k = 0; k < word.length; k++) if (buf[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

const shared = new Uint8Array(MAX_DEPTH);

/** The same closers in a stack twice as large: no depth limit (issue 29). */
function deeper(stack: Uint8Array): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(stack.length * 2);
  next.set(stack);
  return next;
}

/**
 * End of the object or array starting at `i`, in one pass: strings are
 * skipped whole, brackets must balance and match. Inner commas and colons
 * are not checked: the envelope only needs to know where a value ends.
 */
function skipNested(buf: Buffer, i: number, end: number): number {
  let stack = shared;
  let depth = 0;
  for (let k = i; k < end; k++) {
    const byte = buf[k] as number;
    if (byte === QUOTE) {
      const after = skipString(buf, k, end);
      if (after === -1) return -1;
      k = after - 1;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (depth === stack.length) stack = deeper(stack);
      stack[depth++] = byte === 0x7b ? 0x7d : 0x5d;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (depth === 0 || stack[--depth] !== byte) return -1;
      if (depth === 0) return k + 1;
    }
  }
  return -1;
}

/** End of the value starting at `i` (no leading space); -1 if malformed. */
function skipValue(buf: Buffer, i: number, end: number): number {
  if (i >= end) return -1;
  const byte = buf[i] as number;
  if (byte === QUOTE) return skipString(buf, i, end);
  if (byte === 0x7b || byte === 0x5b) return skipNested(buf, i, end);
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

/** True if the bytes `[start, end)` spell `word` (ASCII). */
function bytesAre(buf: Buffer, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (buf[start + k] !== word.charCodeAt(k)) return false;
  return true;
}

/**
 * The envelope of a JSON-RPC message: where the values of its top-level
 * members are, as byte ranges (`-1` when absent). Offsets, not strings, so
 * reading an envelope allocates one small object.
 */
class Envelope {
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
}

/**
 * The envelope of a line that holds exactly one JSON object (with optional
 * surrounding whitespace), or undefined if it does not.
 */
function scanEnvelope(buf: Buffer): Envelope | undefined {
  const length = buf.length;
  let at = skipSpace(buf, 0, length);
  if (buf[at] !== 0x7b) return undefined;
  const env = new Envelope();
  // The top level of scanObject, unrolled so that recording the six members
  // we care about costs no closure and no allocation per key.
  at = skipSpace(buf, at + 1, length);
  if (buf[at] !== 0x7d) {
    for (;;) {
      if (buf[at] !== QUOTE) return undefined;
      const keyEnd = skipString(buf, at, length);
      if (keyEnd === -1) return undefined;
      const ks = at + 1;
      const ke = keyEnd - 1;
      at = skipSpace(buf, keyEnd, length);
      if (buf[at] !== 0x3a) return undefined;
      at = skipSpace(buf, at + 1, length);
      const vs = at;
      at = skipValue(buf, at, length);
      if (at === -1) return undefined;
      switch (ke - ks) {
        case 2:
          if (buf[ks] === 0x69 && buf[ks + 1] === 0x64) {
            env.id = vs;
            env.idEnd = at;
          }
          break;
        case 5:
          if (bytesAre(buf, ks, ke, 'error')) {
            env.error = vs;
            env.errorEnd = at;
          }
          break;
        case 6:
          if (bytesAre(buf, ks, ke, 'method')) {
            env.method = vs;
            env.methodEnd = at;
          } else if (bytesAre(buf, ks, ke, 'params')) {
            env.params = vs;
            env.paramsEnd = at;
          } else if (bytesAre(buf, ks, ke, 'result')) {
            env.result = vs;
            env.resultEnd = at;
          }
          break;
        case 7:
          if (bytesAre(buf, ks, ke, 'jsonrpc')) {
            env.jsonrpc = vs;
            env.jsonrpcEnd = at;
          }
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
function memberRange(buf: Buffer, start: number, end: number, key: string): [number, number] | undefined {
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
function valueAt(buf: Buffer, start: number, end: number): unknown {
  if (start < 0) return undefined;
  const first = buf[start] as number;
  if (first === QUOTE) {
    const close = end - 1;
    if (buf.indexOf(BACKSLASH, start + 1) === -1 || buf.indexOf(BACKSLASH, start + 1) >= close) {
      return buf.toString('utf8', start + 1, close);
    }
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

/** True if the value in `[start, end)` is exactly the given ASCII text (e.g. `"2.0"`, `true`). */
function valueIs(buf: Buffer, start: number, end: number, text: string): boolean {
  return start >= 0 && bytesAre(buf, start, end, text);
}

export class ReferenceCorrelator {
  readonly #pending: Record<Direction, Map<JsonRpcId, Frame>> = {
    'client-to-server': new Map(),
    'server-to-client': new Map(),
  };

  /** Remember a request until its answer comes back. */
  track(request: Frame): void {
    if (request.id === undefined) return;
    this.#pending[request.direction].set(request.id, request);
  }

  /**
   * Find (and forget) the request that a response travelling in `direction`
   * answers. Returns undefined for an answer to nothing we saw.
   */
  take(direction: Direction, id: JsonRpcId): Frame | undefined {
    const table = this.#pending[direction === 'client-to-server' ? 'server-to-client' : 'client-to-server'];
    const request = table.get(id);
    if (request !== undefined) table.delete(id);
    return request;
  }

  /** Requests still waiting for an answer, oldest first. */
  outstanding(direction: Direction): Frame[] {
    return [...this.#pending[direction].values()];
  }
}

function isJsonRpcArray(raw: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return (
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((item: unknown) => item !== null && typeof item === 'object' && (item as { jsonrpc?: unknown }).jsonrpc === '2.0')
    );
  } catch {
    return false;
  }
}

/**
 * Classify one frame in place (the function behind {@link Classifier}), for
 * transports that frame messages themselves.
 */
export function referenceClassify(frame: Frame, correlator: ReferenceCorrelator): Frame {
  const raw = frame.raw;
  const env = scanEnvelope(raw);
  if (env === undefined) {
    let first = 0;
    while (first < raw.length && (raw[first] === 0x20 || raw[first] === 0x09)) first++;
    if (raw[first] === 0x5b && isJsonRpcArray(raw)) {
      frame.type = 'batch';
      return frame;
    }
    return markNoise(frame);
  }
  if (!valueIs(raw, env.jsonrpc, env.jsonrpcEnd, '"2.0"')) return markNoise(frame);
  if (env.method !== -1) {
    const method = valueAt(raw, env.method, env.methodEnd);
    if (typeof method !== 'string') return markNoise(frame);
    frame.method = method;
    const key = namingParam(method, frame.direction);
    let field: string | undefined;
    if (key !== undefined) {
      const range = memberRange(raw, env.params, env.paramsEnd, key);
      const value = range === undefined ? undefined : valueAt(raw, range[0], range[1]);
      if (typeof value === 'string') field = value;
    }
    frame.node = nodeFor(method, frame.direction, field);
    if (env.id === -1) {
      frame.type = 'notification';
    } else {
      frame.type = 'request';
      frame.id = valueAt(raw, env.id, env.idEnd) as JsonRpcId;
      correlator.track(frame);
    }
    return frame;
  }
  const hasResult = env.result !== -1;
  if (env.id !== -1 && (hasResult || env.error !== -1)) {
    const id = valueAt(raw, env.id, env.idEnd) as JsonRpcId;
    frame.type = hasResult ? 'response' : 'error';
    frame.id = id;
    const request = correlator.take(frame.direction, id);
    if (request !== undefined) {
      frame.request = request;
      frame.method = request.method;
      frame.node = request.node;
      if (hasResult && request.method === 'tools/call') {
        const isError = memberRange(raw, env.result, env.resultEnd, 'isError');
        if (isError !== undefined && valueIs(raw, isError[0], isError[1], 'true')) frame.isError = true;
      }
    }
    return frame;
  }
  return markNoise(frame);
}

function markNoise(frame: Frame): Frame {
  frame.type = 'noise';
  if (frame.direction === 'server-to-client') frame.node = STDOUT_NOISE_NODE;
  return frame;
}
