/**
 * The tokenizer of the condition language: text in, tokens out, each with
 * the 0-based offset where it starts (error positions come from there).
 * No I/O.
 *
 * @module
 */

/** A comparison operator. */
export type Operator = '~' | '==' | '!=' | '<' | '>' | '<=' | '>=';

/** One token. `start` is the offset of its first character in the expression. */
export type Token =
  | { kind: '(' | ')' | 'end'; start: number }
  | { kind: 'op'; op: Operator; start: number }
  /** `and`, `or`, `not`, `text`, `exists`, `dur`, `bytes`, `true`, `false`, `null` (lower-cased). */
  | { kind: 'word'; word: string; start: number }
  /** `key:value`; `valueStart` is where the value starts (after a quote when quoted). */
  | { kind: 'atom'; key: string; value: string; start: number; valueStart: number }
  | { kind: 'string'; value: string; start: number }
  /** A number with the letters that follow it (`500ms`: 500 and `ms`). */
  | { kind: 'number'; value: number; unit: string; start: number }
  | { kind: 'path'; text: string; start: number };

/** The tokens of a text, or the first place it cannot be read. */
export type Tokens = { ok: true; tokens: Token[] } | { ok: false; error: string; position: number };

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?([A-Za-z]*)/y;
const SPACE = /\s/;
/** Where an unquoted atom value or a path stops. */
const VALUE_END = /[\s()]/;
const PATH_END = /[\s()~=!<>]/;

/** Read `text` into tokens (the last one is `end`). */
export function tokenize(text: string): Tokens {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at] as string;
    if (SPACE.test(char)) {
      at++;
      continue;
    }
    const read = readToken(text, at);
    if ('error' in read) return { ok: false, error: read.error, position: read.position };
    tokens.push(read.token);
    at = read.next;
  }
  tokens.push({ kind: 'end', start: text.length });
  return { ok: true, tokens };
}

type Read = { token: Token; next: number } | { error: string; position: number };

function readToken(text: string, at: number): Read {
  const char = text[at] as string;
  if (char === '(' || char === ')') return { token: { kind: char, start: at }, next: at + 1 };
  const op = operatorAt(text, at);
  if (op !== undefined) return { token: { kind: 'op', op, start: at }, next: at + op.length };
  if (char === '"' || char === "'") {
    const string = readString(text, at);
    if ('error' in string) return string;
    return { token: { kind: 'string', value: string.value, start: at }, next: string.next };
  }
  if (char === '$') {
    const end = pathEnd(text, at);
    return { token: { kind: 'path', text: text.slice(at, end), start: at }, next: end };
  }
  NUMBER.lastIndex = at;
  const number = NUMBER.exec(text);
  if (number !== null) {
    const unit = number[1] as string;
    const value = Number(number[0].slice(0, number[0].length - unit.length));
    return { token: { kind: 'number', value, unit, start: at }, next: at + number[0].length };
  }
  WORD.lastIndex = at;
  const word = WORD.exec(text)?.[0];
  if (word === undefined) return { error: `unexpected ${JSON.stringify(char)}`, position: at };
  const after = at + word.length;
  if (text[after] === ':') return readAtom(text, at, word, after + 1);
  return { token: { kind: 'word', word: word.toLowerCase(), start: at }, next: after };
}

function operatorAt(text: string, at: number): Operator | undefined {
  const two = text.slice(at, at + 2);
  if (two === '==' || two === '!=' || two === '<=' || two === '>=') return two;
  const one = text[at];
  if (one === '~' || one === '<' || one === '>') return one;
  if (one === '=') return '=='; // a lone `=` means what everybody means by it
  return undefined;
}

function readAtom(text: string, start: number, key: string, valueAt: number): Read {
  const quote = text[valueAt];
  if (quote === '"' || quote === "'") {
    const string = readString(text, valueAt);
    if ('error' in string) return string;
    return { token: { kind: 'atom', key: key.toLowerCase(), value: string.value, start, valueStart: valueAt + 1 }, next: string.next };
  }
  let end = valueAt;
  while (end < text.length && !VALUE_END.test(text[end] as string)) end++;
  return { token: { kind: 'atom', key: key.toLowerCase(), value: text.slice(valueAt, end), start, valueStart: valueAt }, next: end };
}

/**
 * A quoted string: `\"` (or `\'`) is the quote and `\\` a backslash; any
 * other backslash stays as written, so a regular expression reads as typed
 * (`"\d+"` is the regex `\d+`).
 */
function readString(text: string, start: number): { value: string; next: number } | { error: string; position: number } {
  const quote = text[start] as string;
  let value = '';
  let at = start + 1;
  while (at < text.length) {
    const char = text[at] as string;
    if (char === quote) return { value, next: at + 1 };
    if (char === '\\' && (text[at + 1] === quote || text[at + 1] === '\\')) {
      value += text[at + 1];
      at += 2;
      continue;
    }
    value += char;
    at++;
  }
  return { error: `the string that starts here is not closed (a ${quote} is missing)`, position: start };
}

/** Where the path that starts at `start` ends: at a space, a parenthesis or an operator outside brackets. */
function pathEnd(text: string, start: number): number {
  let at = start;
  while (at < text.length) {
    const char = text[at] as string;
    if (char === '[') {
      const close = bracketClose(text, at);
      // An unclosed bracket: the path ends as if it were a character like any other, and the path parser says where.
      at = close === -1 ? at + 1 : close;
      continue;
    }
    if (PATH_END.test(char)) return at;
    at++;
  }
  return at;
}

/** Just after the `]` that closes the bracket at `open` (a quoted key may hold spaces and brackets); -1 when none does. */
function bracketClose(text: string, open: number): number {
  let at = open + 1;
  const quote = text[at];
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, at + 1);
    if (close === -1) return -1;
    at = close + 1;
  }
  const end = text.indexOf(']', at);
  return end === -1 ? -1 : end + 1;
}
