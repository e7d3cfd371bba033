/**
 * The check of one ingest event from a reporter (or a run log's line): the
 * fields its type needs, of the right shape. The server's ingest, its
 * start-up load and the exports' log reading all check events here.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { RunEvent } from './ingest.js';
import { RUN_ID_PATTERN } from './run-model.js';

const KINDS = new Set(['server', 'tool', 'resource', 'prompt', 'llm', 'custom']);
const GATES = new Set(['before', 'after', 'error']);
const ACTIONS = new Set(['continue', 'inject', 'retry', 'abort']);
const MAX_ID = 1024;
/** The longest `givenUp` reason of a `hold.updated` (words for people). */
const MAX_REASON = 1024;
/** The longest `sentBy` of an `instance.started` (who had the debugger send a call: a short name). */
const MAX_SENT_BY = 64;
/** The range of a `Date`, in ms either side of the epoch: beyond it an event's time cannot be shown (and `toISOString` throws). */
const MAX_T = 8.64e15;

const isText = (v: unknown, max = MAX_ID): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/** The longest rule id (as `PUT /api/breakpoints` takes one). */
const MAX_RULE_ID = 64;
/** The most values a logpoint's line carries (an expression looks at few). */
const MAX_VALUES = 64;

/** A logpoint's `values`: `[{ at, value }]`, each `at` a short text. */
function validValues(values: unknown): boolean {
  if (!Array.isArray(values) || values.length > MAX_VALUES) return false;
  return values.every((entry) => isObject(entry) && isText(entry.at, MAX_CONDITION_TEXT));
}
/** The longest `at` of a logpoint value: a path of an expression, at most as long as one. */
const MAX_CONDITION_TEXT = 4096;

function validNode(node: unknown): boolean {
  if (!isObject(node)) return false;
  return (
    isText(node.nodeId) &&
    typeof node.kind === 'string' &&
    KINDS.has(node.kind) &&
    (node.parent === null || isText(node.parent)) &&
    typeof node.label === 'string'
  );
}

/** The last run id that matched {@link RUN_ID_PATTERN}: a batch is nearly always one run. */
let lastRunId = '';

const validRunId = (v: unknown): v is string => {
  if (v === lastRunId && v !== '') return true;
  if (typeof v !== 'string' || !RUN_ID_PATTERN.test(v)) return false;
  lastRunId = v;
  return true;
};

/**
 * Check one event from a reporter. Returns it typed, or undefined if any
 * field is missing or of the wrong shape (the connection is then closed).
 */
export function validateEvent(value: unknown): RunEvent | undefined {
  if (!isObject(value)) return undefined;
  const e = value;
  if (typeof e.type !== 'string' || !validRunId(e.runId)) return undefined;
  if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 0) return undefined;
  if (typeof e.t !== 'number' || !(Math.abs(e.t) <= MAX_T)) return undefined;
  let ok: boolean;
  switch (e.type) {
    case 'run.started':
      ok = typeof e.name === 'string' && typeof e.source === 'string' && isObject(e.meta);
      break;
    case 'run.meta':
      ok = isObject(e.meta);
      break;
    case 'run.finished':
      ok = e.status === 'ok' || e.status === 'error';
      break;
    case 'instance.started':
      ok = isText(e.instanceId) && validNode(e.node) && (e.sentBy === undefined || isText(e.sentBy, MAX_SENT_BY));
      break;
    case 'instance.completed':
      ok = isText(e.instanceId) && validNode(e.node) && typeof e.endT === 'number' && Math.abs(e.endT) <= MAX_T;
      break;
    case 'instance.finished':
    case 'instance.reopened':
      ok = isText(e.instanceId);
      break;
    case 'instance.error':
      ok = isText(e.instanceId) && isObject(e.error) && typeof e.error.name === 'string' && typeof e.error.message === 'string';
      break;
    case 'log':
      ok =
        isText(e.nodeId) &&
        typeof e.stream === 'string' &&
        typeof e.text === 'string' &&
        (e.instanceId === undefined || isText(e.instanceId)) &&
        (e.ruleId === undefined || isText(e.ruleId, MAX_RULE_ID)) &&
        (e.values === undefined || validValues(e.values));
      break;
    case 'events.dropped':
      ok = Number.isSafeInteger(e.count) && (e.count as number) >= 0;
      break;
    case 'hold.opened':
      ok =
        typeof e.holdId === 'string' &&
        RUN_ID_PATTERN.test(e.holdId) &&
        isText(e.nodeId) &&
        isText(e.instanceId) &&
        typeof e.gate === 'string' &&
        GATES.has(e.gate) &&
        typeof e.method === 'string' &&
        (e.ruleId === undefined || isText(e.ruleId, MAX_RULE_ID));
      break;
    case 'hold.updated':
      ok = typeof e.holdId === 'string' && RUN_ID_PATTERN.test(e.holdId) && isText(e.givenUp, MAX_REASON);
      break;
    case 'hold.released':
      ok = typeof e.holdId === 'string' && typeof e.action === 'string' && ACTIONS.has(e.action);
      break;
    default:
      ok = false;
  }
  return ok ? (value as unknown as RunEvent) : undefined;
}
