/**
 * The compiler: a parsed expression turned once into a tree of closures,
 * so evaluating it per frame walks no syntax, compiles nothing and
 * allocates nothing (except the JSON text of an object a `~` is asked to
 * match). No I/O.
 *
 * @module
 */
import type { AtomKey, Expr, NumberOperator, PathTest } from './ast.js';
import { compileGlob } from './glob.js';
import { NONE, PASSED, SEEN, walkPath, walkSteps, type Found, type WalkStep } from './path-walk.js';
import { answerIsError, methodOf, requestName, someText, statusOf, type ConditionSubject } from './subject.js';
import type { TextTest } from './regex.js';

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
      return pathPredicate(walkSteps(expr.steps), expr.test);
    case 'text': {
      const test = regexTest(expr.regex);
      return (subject) => someText(subject, test);
    }
  }
}

function allOf(items: Predicate[]): Predicate {
  return (subject) => {
    for (let index = 0; index < items.length; index++) if (!(items[index] as Predicate)(subject)) return false;
    return true;
  };
}

function anyOf(items: Predicate[]): Predicate {
  return (subject) => {
    for (let index = 0; index < items.length; index++) if ((items[index] as Predicate)(subject)) return true;
    return false;
  };
}

const PREFIXES: Partial<Record<AtomKey, string>> = { tool: 'tool:', resource: 'resource:', prompt: 'prompt:' };

function atomPredicate(key: AtomKey, value: string): Predicate {
  switch (key) {
    case 'method': {
      const matches = compileGlob(value);
      return (subject) => {
        const method = methodOf(subject);
        return method !== undefined && matches(method, 0);
      };
    }
    case 'node': {
      const matches = compileGlob(value);
      return (subject) => subject.nodeId !== undefined && matches(subject.nodeId, 0);
    }
    case 'from':
      return (subject) => subject.from === value;
    case 'is':
      return value === 'error' ? (subject) => subject.answer !== undefined && answerIsError(subject.answer) : (subject) => subject.kind === value;
    case 'status':
      return (subject) => statusOf(subject) === value;
    default:
      return namePredicate(PREFIXES[key] as string, value);
  }
}

/** `tool:`, `resource:`, `prompt:`: the glob on the name in the node id (`tool:<name>`), else on the request's `name` / `uri`. */
function namePredicate(prefix: string, glob: string): Predicate {
  const matches = compileGlob(glob);
  return (subject) => {
    const nodeId = subject.nodeId;
    if (nodeId !== undefined) return nodeId.startsWith(prefix) && matches(nodeId, prefix.length);
    const name = requestName(subject.request, prefix);
    return name !== undefined && matches(name, 0);
  };
}

/** `value op amount` for numbers, as one closure per operator (no switch per evaluation). */
export function comparison(op: NumberOperator, amount: number): (value: number) => boolean {
  switch (op) {
    case '<':
      return (value) => value < amount;
    case '>':
      return (value) => value > amount;
    case '<=':
      return (value) => value <= amount;
    case '>=':
      return (value) => value >= amount;
  }
}

function measurePredicate(field: 'dur' | 'bytes', op: NumberOperator, amount: number): Predicate {
  // A duration is the answer's: a request (or a call not yet answered) has none.
  const passes = comparison(op, amount);
  if (field === 'dur') return (subject) => subject.kind === 'answer' && subject.durationMs !== undefined && passes(subject.durationMs);
  return (subject) => subject.bytes !== undefined && passes(subject.bytes);
}

/** Look the path up in the request; only where it selects nothing there, in the answer. */
export function lookUp(subject: ConditionSubject, steps: readonly WalkStep[], test: (value: unknown) => boolean): Found {
  const inRequest = subject.request === undefined ? NONE : walkPath(subject.request, steps, test);
  if (inRequest !== NONE || subject.answer === undefined) return inRequest;
  return walkPath(subject.answer, steps, test);
}

function pathPredicate(steps: readonly WalkStep[], test: PathTest): Predicate {
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
      const compared = comparison(test.op, test.number);
      const passes = (value: unknown): boolean => typeof value === 'number' && compared(value);
      return (subject) => lookUp(subject, steps, passes) === PASSED;
    }
  }
}

function always(): boolean {
  return true;
}

function regexTest(regex: TextTest): (text: string) => boolean {
  return (text) => regex.test(text);
}

/** What a `~` matches a value as: a string as itself, anything else as its JSON text. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}
