/**
 * The compiler: a parsed expression turned once into a tree of closures,
 * so evaluating it per frame walks no syntax, compiles nothing and
 * allocates nothing (except the JSON text of an object a `~` is asked to
 * match). No I/O.
 *
 * @module
 */
import type { AtomKey, Expr, NumberOperator, PathTest } from './ast.js';
import { globMatches } from './glob.js';
import { NONE, PASSED, SEEN, walkPath, type Found } from './path-walk.js';
import { answerIsError, methodOf, nameOf, someText, statusOf, type ConditionSubject } from './subject.js';
import type { PathStep } from '../json/json-path.js';
import type { RE2JS } from 're2js';

/** An expression compiled: true when the subject matches. */
export type Predicate = (subject: ConditionSubject) => boolean;

/** Compile `expr` into a predicate. */
export function compileExpr(expr: Expr): Predicate {
  switch (expr.kind) {
    case 'and':
      return allOf(expr.items.map(compileExpr));
    case 'or':
      return anyOf(expr.items.map(compileExpr));
    case 'not': {
      const inner = compileExpr(expr.item);
      return (subject) => !inner(subject);
    }
    case 'atom':
      return atomPredicate(expr.key, expr.value);
    case 'measure':
      return measurePredicate(expr.field, expr.op, expr.amount);
    case 'path':
      return pathPredicate(expr.steps, expr.test);
    case 'text': {
      const test = regexTest(expr.regex);
      return (subject) => someText(subject, test);
    }
  }
}

function allOf(items: Predicate[]): Predicate {
  return (subject) => {
    for (const item of items) if (!item(subject)) return false;
    return true;
  };
}

function anyOf(items: Predicate[]): Predicate {
  return (subject) => {
    for (const item of items) if (item(subject)) return true;
    return false;
  };
}

const PREFIXES: Partial<Record<AtomKey, string>> = { tool: 'tool:', resource: 'resource:', prompt: 'prompt:' };

function atomPredicate(key: AtomKey, value: string): Predicate {
  switch (key) {
    case 'method':
      return (subject) => {
        const method = methodOf(subject);
        return method !== undefined && globMatches(value, method);
      };
    case 'node':
      return (subject) => subject.nodeId !== undefined && globMatches(value, subject.nodeId);
    case 'from':
      return (subject) => subject.from === value;
    case 'is':
      return value === 'error' ? (subject) => subject.answer !== undefined && answerIsError(subject.answer) : (subject) => subject.kind === value;
    case 'status':
      return (subject) => statusOf(subject) === value;
    default: {
      const prefix = PREFIXES[key] as string;
      return (subject) => {
        const name = nameOf(subject, prefix);
        return name !== undefined && globMatches(value, name.text, name.offset);
      };
    }
  }
}

/** `a op b` for numbers. */
export function compare(a: number, op: NumberOperator, b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
  }
}

function measurePredicate(field: 'dur' | 'bytes', op: NumberOperator, amount: number): Predicate {
  // A duration is the answer's: a request (or a call not yet answered) has none.
  if (field === 'dur') return (subject) => subject.kind === 'answer' && subject.durationMs !== undefined && compare(subject.durationMs, op, amount);
  return (subject) => subject.bytes !== undefined && compare(subject.bytes, op, amount);
}

/** Look the path up in the request; only where it selects nothing there, in the answer. */
export function lookUp(subject: ConditionSubject, steps: readonly PathStep[], test: (value: unknown) => boolean): Found {
  const inRequest = subject.request === undefined ? NONE : walkPath(subject.request, steps, test);
  if (inRequest !== NONE || subject.answer === undefined) return inRequest;
  return walkPath(subject.answer, steps, test);
}

function pathPredicate(steps: readonly PathStep[], test: PathTest): Predicate {
  switch (test.op) {
    case 'exists':
      return (subject) => lookUp(subject, steps, always) !== NONE;
    case '~': {
      const matches = regexTest(test.regex);
      const valueMatches = (value: unknown): boolean => matches(textOf(value));
      return (subject) => lookUp(subject, steps, valueMatches) === PASSED;
    }
    case '==': {
      const literal = test.literal;
      const equals = (value: unknown): boolean => value === literal;
      return (subject) => lookUp(subject, steps, equals) === PASSED;
    }
    case '!=': {
      // Selected, and none equal: a missing value is not "different", it is missing (use not exists(…)).
      const literal = test.literal;
      const equals = (value: unknown): boolean => value === literal;
      return (subject) => lookUp(subject, steps, equals) === SEEN;
    }
    default: {
      const { op, number } = test;
      const passes = (value: unknown): boolean => typeof value === 'number' && compare(value, op, number);
      return (subject) => lookUp(subject, steps, passes) === PASSED;
    }
  }
}

function always(): boolean {
  return true;
}

function regexTest(regex: RE2JS): (text: string) => boolean {
  return (text) => regex.test(text);
}

/** What a `~` matches a value as: a string as itself, anything else as its JSON text. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}
