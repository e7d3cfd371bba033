/**
 * The lexical rules of JSON, on bytes: what every scanner in `src/json/`
 * (and the relay's envelope and skeleton readers built on them) agrees on.
 * Whitespace, the bytes a number may hold, the three literals, and when a
 * quote closes a string (not after an odd run of backslashes).
 *
 * Plain functions over `Uint8Array`/`Buffer` and offsets: nothing here
 * allocates (but {@link deeperStack}, past {@link STACK_START} open
 * levels), so a scanner on the relay's per-frame path can call them.
 * Such a scanner imports the module as a namespace and binds what it uses
 * to module constants once (`const { skipSpace } = bytes`): V8 checks an
 * imported binding on every use (it could still be uninitialised) but folds
 * a constant away, and in a loop over bytes the check costs.
 *
 * @module
 */

/** `"` */
export const QUOTE = 0x22;
/** `\` */
export const BACKSLASH = 0x5c;
/** `,` */
export const COMMA = 0x2c;
/** `:` */
export const COLON = 0x3a;
/** `{` */
export const OPEN_OBJECT = 0x7b;
/** `}` */
export const CLOSE_OBJECT = 0x7d;
/** `[` */
export const OPEN_ARRAY = 0x5b;
/** `]` */
export const CLOSE_ARRAY = 0x5d;
/** `-` */
export const MINUS = 0x2d;
/** `0` */
export const ZERO = 0x30;
/** `9` */
export const NINE = 0x39;
/** `\n` */
export const NEWLINE = 0x0a;

/**
 * How many open brackets a scanner's stack holds before it grows: deeper
 * than nearly any real message, so growing is for the rare deep one.
 */
export const STACK_START = 256;

/**
 * A scanner's stack of closers, full: the same closers in one twice as
 * large. The scanners have no depth limit (JSON.parse has none that
 * matters: it reads 100,000 levels), so a deep value costs one byte per
 * open level, and only while it is being read.
 */
export function deeperStack(stack: Uint8Array): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(stack.length * 2);
  next.set(stack);
  return next;
}

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

/** A decimal digit. */
export function isDigit(byte: number): boolean {
  return byte >= ZERO && byte <= NINE;
}

/** A byte that may appear in a JSON number (the shape scanners check shape, not grammar). */
export function isNumberByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;
}

/** The first byte of a literal or a number: a value that is neither a string nor nested. */
export function isScalarStart(byte: number): boolean {
  return byte === 0x74 || byte === 0x66 || byte === 0x6e || (byte >= 0x30 && byte <= 0x39) || byte === 0x2d;
}

/** The byte that closes `opener` (`{` or `[`): `}` is `{` + 2, `]` is `[` + 2. */
export function closerOf(opener: number): number {
  return opener + 2;
}

/** The bytes of an ASCII word, to compare with: cheaper than a string's char codes. */
export function ascii(word: string): Uint8Array {
  return Uint8Array.from(word, (char) => char.charCodeAt(0));
}

/** True if the bytes `[start, end)` are `word`. */
export function bytesAre(buf: Uint8Array, start: number, end: number, word: Uint8Array): boolean {
  const n = word.length;
  if (end - start !== n) return false;
  for (let k = 0; k < n; k++) if (buf[start + k] !== word[k]) return false;
  return true;
}

/** True if the bytes from `at` (and before `end`) begin with `word`. */
export function startsWith(buf: Uint8Array, at: number, end: number, word: Uint8Array): boolean {
  if (at + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (buf[at + k] !== word[k]) return false;
  return true;
}

/** `true` */
export const TRUE = ascii('true');
/** `false` */
export const FALSE = ascii('false');
/** `null` */
export const NULL = ascii('null');

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

/** How many backslashes come just before `at`, counting no further back than `floor`. */
export function backslashesBefore(buf: Uint8Array, at: number, floor: number): number {
  let slashes = 0;
  for (let k = at - 1; k >= floor && buf[k] === BACKSLASH; k--) slashes++;
  return slashes;
}

/**
 * Inside a string whose text goes on from `from`: the index of its closing
 * quote before `end` (the first quote not escaped by an odd run of
 * backslashes since `from`), or -1 if there is none there. Escapes are not
 * checked: strict-json.ts does that.
 */
export function closingQuote(buf: Buffer, from: number, end: number): number {
  let at = from;
  for (;;) {
    const quote = at < end ? buf.indexOf(QUOTE, at) : -1;
    if (quote === -1 || quote >= end) return -1;
    if ((backslashesBefore(buf, quote, from) & 1) === 0) return quote;
    at = quote + 1;
  }
}
