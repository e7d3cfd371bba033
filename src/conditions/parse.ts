/**
 * The parser of the condition language, by recursive descent over the
 * tokens: `or` binds loosest, then `and` (also written as nothing: two
 * terms side by side), then `not`; parentheses group. Nesting is counted
 * and bounded ({@link MAX_DEPTH}), so a 1,000-deep expression is an error
 * with a position, never a stack overflow. No I/O.
 *
 * @module
 */
import { parseJsonPath } from '../json/json-path.js';
import type { AtomKey, Expr, Literal, NumberOperator, PathTest } from './ast.js';
import { MAX_CONDITION_LENGTH, MAX_DEPTH } from './limits.js';
import { compileRegex } from './regex.js';
import { tokenize, type Token } from './tokens.js';
import type { TextTest } from './regex.js';

/** The tree of an expression, or the first error and its 0-based position. */
export type Parsed = { ok: true; expr: Expr } | { ok: false; error: string; position: number };

/** Thrown inside the parser only, caught by {@link parseCondition}. */
class ParseError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

const ATOMS: readonly AtomKey[] = ['method', 'tool', 'resource', 'prompt', 'node', 'from', 'is', 'status'];
const WORDS: Record<string, readonly string[]> = {
  from: ['host', 'server'],
  is: ['request', 'answer', 'notification', 'error'],
  status: ['ok', 'error', 'open', 'held'],
};

/** Parse `text` (see the module). */
export function parseCondition(text: string): Parsed {
  if (text.length > MAX_CONDITION_LENGTH) return { ok: false, error: `the expression is ${text.length} characters long; at most ${MAX_CONDITION_LENGTH} are read`, position: MAX_CONDITION_LENGTH };
  const tokens = tokenize(text);
  if (!tokens.ok) return tokens;
  const first = tokens.tokens[0] as Token;
  if (first.kind === 'end') return { ok: false, error: 'the expression is empty', position: 0 };
  try {
    const parser = new Parser(tokens.tokens);
    const expr = parser.or(0);
    const rest = parser.peek();
    if (rest.kind !== 'end') throw new ParseError(rest.kind === ')' ? 'this ) closes nothing' : `unexpected ${describe(rest)}`, rest.start);
    return { ok: true, expr };
  } catch (error) {
    if (error instanceof ParseError) return { ok: false, error: error.message, position: error.position };
    throw error;
  }
}

class Parser {
  private at = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  peek(): Token {
    return this.tokens[this.at] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.at++;
    return token;
  }

  or(depth: number): Expr {
    const items = [this.and(depth)];
    while (isWord(this.peek(), 'or')) {
      this.next();
      items.push(this.and(depth));
    }
    return items.length === 1 ? (items[0] as Expr) : { kind: 'or', items };
  }

  private and(depth: number): Expr {
    const items = [this.unary(depth)];
    for (;;) {
      const token = this.peek();
      if (isWord(token, 'and')) this.next();
      else if (!startsTerm(token)) break;
      items.push(this.unary(depth));
    }
    return items.length === 1 ? (items[0] as Expr) : { kind: 'and', items };
  }

  private unary(depth: number): Expr {
    const token = this.peek();
    if (depth >= MAX_DEPTH && (isWord(token, 'not') || token.kind === '(')) throw new ParseError(`nested more than ${MAX_DEPTH} deep`, token.start);
    if (isWord(token, 'not')) {
      this.next();
      return { kind: 'not', item: this.unary(depth + 1) };
    }
    if (token.kind === '(') {
      this.next();
      const inner = this.or(depth + 1);
      const close = this.next();
      if (close.kind !== ')') throw new ParseError(`expected ) to close the ( at ${token.start}, found ${describe(close)}`, close.start);
      return inner;
    }
    return this.term();
  }

  private term(): Expr {
    const token = this.next();
    switch (token.kind) {
      case 'atom':
        return atom(token);
      case 'path':
        return this.pathTest(token);
      case 'word':
        return this.wordTerm(token);
      default:
        throw new ParseError(`expected a condition (an atom such as tool:search, a $ path, text ~ "…", dur>500ms…), found ${describe(token)}`, token.start);
    }
  }

  private wordTerm(token: Token & { kind: 'word' }): Expr {
    if (token.word === 'dur' || token.word === 'bytes') {
      const op = this.numberOperator(token.word);
      const amount = this.next();
      if (amount.kind !== 'number') throw new ParseError(`expected an amount after ${token.word}${op} (such as ${token.word === 'dur' ? '500ms or 2s' : '8k or 1m'}), found ${describe(amount)}`, amount.start);
      return { kind: 'measure', field: token.word, op, amount: measure(token.word, amount) };
    }
    if (token.word === 'text') {
      const op = this.next();
      if (op.kind !== 'op' || op.op !== '~') throw new ParseError(`expected ~ after text (text ~ "rate limit"), found ${describe(op)}`, op.start);
      return { kind: 'text', regex: this.regex() };
    }
    if (token.word === 'exists') {
      const open = this.next();
      if (open.kind !== '(') throw new ParseError(`expected ( after exists, as in exists($.params.cursor), found ${describe(open)}`, open.start);
      const path = this.next();
      if (path.kind !== 'path') throw new ParseError(`expected a $ path inside exists(…), found ${describe(path)}`, path.start);
      const close = this.next();
      if (close.kind !== ')') throw new ParseError(`expected ) to close exists(, found ${describe(close)}`, close.start);
      return pathNode(path, { op: 'exists' });
    }
    if (token.word === 'and' || token.word === 'or') throw new ParseError(`expected a condition before and after ${token.word}, found ${describe(token)}`, token.start);
    throw new ParseError(`unknown word ${JSON.stringify(token.word)} (the language takes atoms such as tool:search, $ paths, text ~ "…", dur and bytes; quote plain words for text ~ "…")`, token.start);
  }

  private numberOperator(field: string): NumberOperator {
    const op = this.next();
    if (op.kind === 'op' && (op.op === '<' || op.op === '>' || op.op === '<=' || op.op === '>=')) return op.op;
    throw new ParseError(`expected <, >, <= or >= after ${field}, found ${describe(op)}`, op.start);
  }

  private regex(): TextTest {
    const token = this.next();
    if (token.kind !== 'string') throw new ParseError(`expected a quoted regular expression after ~, found ${describe(token)}`, token.start);
    const compiled = compileRegex(token.value);
    if (!compiled.ok) throw new ParseError(compiled.error, token.start);
    return compiled.regex;
  }

  private pathTest(path: Token & { kind: 'path' }): Expr {
    const op = this.next();
    if (op.kind !== 'op') throw new ParseError(`expected ~, ==, !=, <, >, <= or >= after the path ${path.text} (or write exists(${path.text})), found ${describe(op)}`, op.start);
    if (op.op === '~') return pathNode(path, { op: '~', regex: this.regex() });
    if (op.op === '==' || op.op === '!=') return pathNode(path, { op: op.op, literal: this.literal() });
    const number = this.next();
    if (number.kind !== 'number' || number.unit !== '') throw new ParseError(`expected a number after ${op.op}, found ${describe(number)}`, number.start);
    return pathNode(path, { op: op.op, number: number.value });
  }

  private literal(): Literal {
    const token = this.next();
    if (token.kind === 'string') return token.value;
    if (token.kind === 'number' && token.unit === '') return token.value;
    if (token.kind === 'word' && (token.word === 'true' || token.word === 'false')) return token.word === 'true';
    if (token.kind === 'word' && token.word === 'null') return null;
    throw new ParseError(`expected a value after == or != (a quoted string, a number, true, false or null), found ${describe(token)}`, token.start);
  }
}

function atom(token: Token & { kind: 'atom' }): Expr {
  const key = ATOMS.find((known) => known === token.key);
  if (key === undefined) throw new ParseError(`unknown atom ${token.key}: (the atoms are ${ATOMS.map((known) => `${known}:`).join(', ')})`, token.start);
  if (token.value === '') throw new ParseError(`a value must follow ${key}:`, token.valueStart);
  const words = WORDS[key];
  if (words !== undefined && !words.includes(token.value)) throw new ParseError(`${key}: takes ${words.join(', ')}; not ${JSON.stringify(token.value)}`, token.valueStart);
  return { kind: 'atom', key, value: token.value };
}

function pathNode(token: Token & { kind: 'path' }, test: PathTest): Expr {
  const parsed = parseJsonPath(token.text);
  if (!parsed.ok) throw new ParseError(`bad path: ${parsed.reason}`, token.start + (parsed.at ?? 0));
  return { kind: 'path', path: token.text, steps: parsed.steps, test };
}

const UNITS: Record<'dur' | 'bytes', Record<string, number>> = {
  dur: { '': 1, ms: 1, s: 1000 },
  bytes: { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 * 1024, mb: 1024 * 1024 },
};

function measure(field: 'dur' | 'bytes', amount: Token & { kind: 'number' }): number {
  const scale = UNITS[field][amount.unit.toLowerCase()];
  if (scale === undefined) throw new ParseError(`${field} takes ${field === 'dur' ? 'ms or s' : 'k or m (1024 and 1024²)'} as its unit; not ${JSON.stringify(amount.unit)}`, amount.start);
  return amount.value * scale;
}

function isWord(token: Token, word: string): boolean {
  return token.kind === 'word' && token.word === word;
}

/** Can `token` start a term (so two terms side by side mean `and`)? */
function startsTerm(token: Token): boolean {
  if (token.kind === 'atom' || token.kind === 'path' || token.kind === '(') return true;
  return token.kind === 'word' && token.word !== 'or' && token.word !== 'and';
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end';
    case 'op':
      return token.op;
    case 'word':
      return JSON.stringify(token.word);
    case 'atom':
      return `${token.key}:`;
    case 'string':
      return 'a string';
    case 'number':
      return `the number ${token.value}${token.unit}`;
    case 'path':
      return `the path ${token.text}`;
    default:
      return token.kind;
  }
}
