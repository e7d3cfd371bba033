/**
 * The checks on one answer to a call the check made for a scenario (a
 * `--script` step or a call of `--run`): `tool-error` (it failed, and was
 * not expected to), `expectation-failed`, `output-schema-mismatch` and the
 * result's `context-budget`. Pure but for recording findings.
 *
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { isObject } from '../json/is-object.js';
import type { JsonRpcMessage } from '../streams/frame.js';
import type { CheckContext } from './check-context.js';
import type { FindingCall } from './findings.js';
import type { StepExpect } from './script.js';
import { outputMismatch } from './schemas.js';

/** How a result's cost is measured, and the budget (`--max-result-tokens`). */
export interface ResultBudget {
  maxTokens: number;
  /** Bytes and (estimated) tokens of a result as the model reads it. */
  cost(result: unknown): { bytes: number; tokens: number };
}

/** What to check an answer against. */
export interface AnswerRules {
  expect?: StepExpect;
  /** A failure is no finding (a call of `--run` that failed when recorded). */
  allowError?: boolean;
  /** The output validator of the tool called, if it declares an outputSchema. */
  output?: ValidateFunction;
  budget?: ResultBudget;
}

/** Every `text` a model reads in a result (content, contents, messages), and structuredContent as JSON. */
export function answerText(result: unknown): string {
  const out: string[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 16) return;
    if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key === 'text' && typeof item === 'string') out.push(item);
        else if (key === 'structuredContent') out.push(JSON.stringify(item));
        else if (key !== '_meta') walk(item, depth + 1);
      }
    }
  };
  walk(result, 0);
  return out.join('\n');
}

/** Why the answer failed, in words, or undefined when it did not. */
export function failureOf(message: JsonRpcMessage): string | undefined {
  if ('error' in message) {
    const error: unknown = message.error;
    return isObject(error) ? `a JSON-RPC error ${String(error.code)}: ${String(error.message)}` : 'a JSON-RPC error';
  }
  if (isObject(message.result) && message.result.isError === true) {
    const text = answerText({ content: message.result.content });
    return `isError: true${text === '' ? '' : `: ${JSON.stringify(text.length > 200 ? `${text.slice(0, 199)}…` : text)}`}`;
  }
  return undefined;
}

/** Check one answer (see the module). */
export function checkAnswer(context: CheckContext, check: string, call: FindingCall, message: JsonRpcMessage, rules: AnswerRules): void {
  const what = `${call.method}${call.name === undefined ? '' : ` ${call.name}`}`;
  const failure = failureOf(message);
  const expectError = rules.expect?.isError === true;
  const unexpected = failure !== undefined && !expectError && rules.allowError !== true;
  if (unexpected) context.report('tool-error', check, `${what} failed: ${failure}`, { call });
  if (failure === undefined && expectError) context.report('expectation-failed', check, `${what} succeeded, and the step expects it to fail (expect.isError: true)`, { call });
  const result = message.result;
  const wanted = rules.expect?.text;
  // A call that failed unexpectedly is one finding, not also a text it lacks.
  if (wanted !== undefined && !unexpected) {
    const text = answerText(result ?? message.error);
    if (!text.includes(wanted)) context.report('expectation-failed', check, `${what}: the answer does not contain ${JSON.stringify(wanted)}${text === '' ? '' : `; it reads ${JSON.stringify(text.length > 200 ? `${text.slice(0, 199)}…` : text)}`}`, { call });
  }
  if (result === undefined || call.method !== 'tools/call') return;
  if (rules.output !== undefined) {
    const mismatch = outputMismatch(result, rules.output);
    if (mismatch !== undefined) context.report('output-schema-mismatch', check, `${what}: ${mismatch}`, { call });
  }
  if (rules.budget !== undefined) {
    const cost = rules.budget.cost(result);
    if (cost.tokens > rules.budget.maxTokens) context.report('context-budget', check, `${what}: the result costs ≈ ${cost.tokens} tokens (an estimate; ${cost.bytes} bytes), over --max-result-tokens ${rules.budget.maxTokens}`, { call });
  }
}
