/**
 * What an expression looked at for a subject, for a logpoint's line: one
 * entry per field or path the expression names, in the order written,
 * each once. Runs only when a logpoint fires, so it may allocate. No I/O.
 *
 * @module
 */
import type { Expr } from './ast.js';
import { MAX_VALUE_TEXT } from './limits.js';
import { selectAll, walkSteps } from './path-walk.js';
import type { PathStep } from '../json/json-path.js';
import { methodOf, someText, statusOf, type ConditionSubject } from './subject.js';

/** One value an expression looked at: where (`$.params.arguments.q`, `dur`, `text`, `node`…) and what it was (undefined: not there). */
export interface ConditionValue {
  at: string;
  value: unknown;
}

/** The values `expr` looked at in `subject`. */
export function valuesOf(expr: Expr, subject: ConditionSubject): ConditionValue[] {
  const values: ConditionValue[] = [];
  const seen = new Set<string>();
  const add = (at: string, value: () => unknown): void => {
    if (seen.has(at)) return;
    seen.add(at);
    values.push({ at, value: value() });
  };
  collect(expr, subject, add);
  return values;
}

function collect(expr: Expr, subject: ConditionSubject, add: (at: string, value: () => unknown) => void): void {
  switch (expr.kind) {
    case 'and':
    case 'or':
      for (const item of expr.items) collect(item, subject, add);
      return;
    case 'not':
      collect(expr.item, subject, add);
      return;
    case 'atom':
      add(atomField(expr.key), () => atomValue(expr.key, subject));
      return;
    case 'measure':
      add(expr.field, () => (expr.field === 'dur' ? (subject.kind === 'answer' ? subject.durationMs : undefined) : subject.bytes));
      return;
    case 'path':
      add(expr.path, () => pathValue(expr.steps, subject));
      return;
    case 'text':
      add('text', () => textValue(subject));
      return;
  }
}

function atomField(key: string): string {
  return key === 'tool' || key === 'resource' || key === 'prompt' ? 'node' : key;
}

function atomValue(key: string, subject: ConditionSubject): unknown {
  switch (key) {
    case 'method':
      return methodOf(subject);
    case 'from':
      return subject.from;
    case 'is':
      return subject.kind;
    case 'status':
      return statusOf(subject);
    default:
      return subject.nodeId;
  }
}

/** One value as itself, several as a list, none as undefined; looked up as the evaluator does (request, then answer). */
function pathValue(path: readonly PathStep[], subject: ConditionSubject): unknown {
  const steps = walkSteps(path);
  let found = subject.request === undefined ? [] : selectAll(subject.request, steps);
  if (found.length === 0 && subject.answer !== undefined) found = selectAll(subject.answer, steps);
  if (found.length === 0) return undefined;
  return found.length === 1 ? found[0] : found;
}

function textValue(subject: ConditionSubject): string | undefined {
  const pieces: string[] = [];
  someText(subject, (text) => {
    pieces.push(text);
    return false;
  });
  if (pieces.length === 0) return undefined;
  const text = pieces.join('\n');
  return text.length > MAX_VALUE_TEXT ? `${text.slice(0, MAX_VALUE_TEXT)}…` : text;
}
