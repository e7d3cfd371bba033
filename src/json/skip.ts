/**
 * Where a JSON value ends, found by its shape: strings closed, brackets
 * balanced and matched, literals spelled out, numbers made of number
 * bytes. Escape sequences, number grammar and the commas and colons inside
 * nested values are not checked (strict-json.ts checks all of it); this is
 * what a relay needs to find a member's value without building it, fast.
 *
 * @module
 */
import * as bytes from './bytes.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs per frame).
const { BACKSLASH, QUOTE, STACK_START, closingQuote, deeperStack, isNumberByte, literalEnd, skipSpace } = bytes;

/** End of the string starting at `i` (a quote), just past its closing quote; -1 if unterminated. */
export function skipString(buf: Buffer, i: number, end: number): number {
  // Short strings (keys, ids, methods) are cheaper to walk than to search.
  const near = Math.min(end, i + 48);
  for (let k = i + 1; k < near; k++) {
    const byte = buf[k];
    if (byte === QUOTE) return k + 1;
    if (byte === BACKSLASH) break;
  }
  const quote = closingQuote(buf, i + 1, end);
  return quote === -1 ? -1 : quote + 1;
}

// The closers of the open brackets: shared by every call, and replaced by
// a larger one only for the length of a call that nests deeper.
const shared = new Uint8Array(STACK_START);

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
 * are not checked: a scanner only needs to know where a value ends. Any
 * depth is read: the stack grows (for this call only) past
 * `STACK_START` (bytes.ts) levels.
 */
export function skipNested(buf: Buffer, i: number, end: number): number {
  let stack = shared;
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
      if (depth === stack.length) stack = deeperStack(stack);
      // The matching closer: `}` is `{` + 2, `]` is `[` + 2 (closerOf).
      stack[depth++] = byte + 2;
    } else {
      if (depth === 0 || stack[--depth] !== byte) return -1;
      if (depth === 0) return k + 1;
    }
  }
  return -1;
}

/** End of the value starting at `i` (no leading space), nested to any depth; -1 if malformed. */
export function skipValue(buf: Buffer, i: number, end: number): number {
  if (i >= end) return -1;
  const byte = buf[i] as number;
  if (byte === QUOTE) return skipString(buf, i, end);
  if (byte === 0x7b || byte === 0x5b) return skipNested(buf, i, end);
  if (byte === 0x74 || byte === 0x66 || byte === 0x6e) return literalEnd(buf, i, end);
  if (isNumberByte(byte)) {
    let at = i + 1;
    while (at < end && isNumberByte(buf[at] as number)) at++;
    return at;
  }
  return -1;
}

/** True if the text of a scalar (no string, nothing nested) is what {@link skipValue} accepts: a literal or a run of number bytes. */
export function isScalarText(text: string): boolean {
  if (text === 'true' || text === 'false' || text === 'null') return true;
  if (text.length === 0) return false;
  for (let k = 0; k < text.length; k++) if (!isNumberByte(text.charCodeAt(k))) return false;
  return true;
}

/** True if the bytes `[start, end)` spell `word` (ASCII). */
function spells(buf: Buffer, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (buf[start + k] !== word.charCodeAt(k)) return false;
  return true;
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
    if (spells(buf, ks, keyEnd - 1, key)) return [vs, at];
    at = skipSpace(buf, at, end);
    if (buf[at] !== 0x2c) return undefined;
    at = skipSpace(buf, at + 1, end);
  }
}
