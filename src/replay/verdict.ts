/**
 * One call's verdict: the answer expected (what the host received in the
 * recording, or the server's own answer) against the answer received now.
 * Before comparing, `_meta` is left out, JSON inside a `content[].text`
 * is compared as JSON when both sides parse, the normalisers and the
 * ignores apply. An `isError` that flips is a difference whatever is
 * ignored. No I/O.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { canonicalJson } from './canonical.js';
import { differencesOf, type Difference } from './differences.js';
import { removeAt } from '../json/json-path.js';
import type { RecordedAnswer } from './recorded-run.js';
import { normaliseValue, ruleApplies, type VerifyRules } from './verify-rules.js';

/** What came of one call: the same answer, a different one, none (expected one), one not expected. */
export type Verdict = 'same' | 'different' | 'missing' | 'extra';

/** A verdict and where the answers differ. */
export interface CallVerdict {
  verdict: Verdict;
  /** For `different`: where (`$.result.content[0].text`). */
  differences: Difference[];
}

/** The call a verdict is for: what ignores scoped to a method and name look at. */
export interface VerdictCall {
  method: string;
  /** The tool, prompt or resource it names. */
  name?: string;
}

/** JSON text parsed, or undefined when it is not JSON. */
function parsed(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Replace, on both sides, each `content[i].text` that parses on both sides by its value. */
function textsAsJson(expected: unknown, received: unknown): void {
  if (!isObject(expected) || !isObject(received) || !isObject(expected.result) || !isObject(received.result)) return;
  const left = expected.result.content;
  const right = received.result.content;
  if (!Array.isArray(left) || !Array.isArray(right)) return;
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const a: unknown = left[i];
    const b: unknown = right[i];
    if (!isObject(a) || !isObject(b)) continue;
    const x = parsed(a.text);
    const y = parsed(b.text);
    if (x === undefined || y === undefined) continue;
    a.text = x;
    b.text = y;
  }
}

function isErrorOf(answer: RecordedAnswer): boolean {
  return 'result' in answer && isObject(answer.result) && answer.result.isError === true;
}

/** The two answers as they are compared (copies: the recording is left as it is). */
export function comparable(expected: RecordedAnswer, received: RecordedAnswer, call: VerdictCall, rules: VerifyRules): [unknown, unknown] {
  const left = normaliseValue(structuredClone(expected), rules.normalise);
  const right = normaliseValue(structuredClone(received), rules.normalise);
  textsAsJson(left, right);
  for (const rule of rules.ignore) {
    if (!ruleApplies(rule, call.method, call.name)) continue;
    removeAt(left, rule.steps);
    removeAt(right, rule.steps);
  }
  return [left, right];
}

/** The verdict on one call (see the module). */
export function verdictOf(expected: RecordedAnswer | undefined, received: RecordedAnswer | undefined, call: VerdictCall, rules: VerifyRules): CallVerdict {
  if (expected === undefined) return received === undefined ? { verdict: 'same', differences: [] } : { verdict: 'extra', differences: [] };
  if (received === undefined) return { verdict: 'missing', differences: [] };
  // Equal as JSON (key order and `_meta` aside), the two stay equal whatever the rules do to both: no copies, no walk.
  if (canonicalJson(expected, true) === canonicalJson(received, true)) return { verdict: 'same', differences: [] };
  const [left, right] = comparable(expected, received, call, rules);
  const differences = differencesOf(left, right, { dropMeta: true });
  if (isErrorOf(expected) !== isErrorOf(received) && !differences.some((d) => d.path === '$.result.isError')) {
    const flipped: Difference = { path: '$.result.isError', recorded: isErrorOf(expected), received: isErrorOf(received) };
    differences.unshift(flipped);
  }
  return { verdict: differences.length === 0 ? 'same' : 'different', differences };
}
