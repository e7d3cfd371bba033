/**
 * The condition language: one small language to pick calls, the same text
 * in the viewer's find bar, in breakpoint rules and logpoints, in
 * `graphmind mcp`'s `where` and in `graphmind export --where`. Atoms on the
 * call (`tool:search`, `is:error`, `dur>500ms`…), tests on the parsed
 * message (`$.params.arguments.q ~ "PAY-"`, `text ~ "rate limit"`), `and`,
 * `or`, `not` and parentheses. No user JavaScript is ever run; regular
 * expressions run on re2js, in linear time. docs/conditions.md has the
 * grammar and examples. No I/O.
 *
 * @module
 */
import type { Expr } from './ast.js';
import { compileExpr, type Predicate } from './compile.js';
import { parseCondition } from './parse.js';
import type { ConditionSubject } from './subject.js';
import { valuesOf, type ConditionValue } from './values.js';

export { MAX_CONDITION_LENGTH, MAX_DEPTH, MAX_REGEX_LENGTH, MAX_VALUE_TEXT } from './limits.js';
export { looksLikeCondition } from './looks-like.js';
export type { ConditionSubject } from './subject.js';
export type { ConditionValue } from './values.js';

/** A compiled expression: opaque to callers. */
export interface Condition {
  /** The expression as written. */
  readonly text: string;
}

/** A compiled expression, or the first error and its 0-based offset in the text. */
export type CompileResult = { ok: true; condition: Condition } | { ok: false; error: string; position: number };

/** What {@link Condition} holds behind its opaque face. */
interface Compiled extends Condition {
  readonly expr: Expr;
  readonly test: Predicate;
}

/** Parse and compile `text` once; evaluate the result as often as needed. */
export function compileCondition(text: string): CompileResult {
  const parsed = parseCondition(text);
  if (!parsed.ok) return parsed;
  const compiled: Compiled = { text, expr: parsed.expr, test: compileExpr(parsed.expr) };
  return { ok: true, condition: compiled };
}

/** Does `subject` match `condition`? */
export function evaluateCondition(condition: Condition, subject: ConditionSubject): boolean {
  return (condition as Compiled).test(subject);
}

/** The values the expression looked at for this subject (for logpoints): `[{ at: "$.params.arguments.q", value }]`, `[{ at: "dur", value: 812 }]`… */
export function conditionValues(condition: Condition, subject: ConditionSubject): ConditionValue[] {
  return valuesOf((condition as Compiled).expr, subject);
}
