/**
 * `GET /api/runs/:runId/instances/:instanceId/cost`: what one recorded
 * call costs a model's context (see docs/context-cost.md), computed here,
 * on the reading side, when someone asks: the viewer cannot carry the
 * tokenizer, and the relay never pays for it.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import { callCost, TOKENIZER } from '../cost/index.js';
import { methodOf } from '../protocol/call-method.js';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import { sendError, sendJson, sendMethodNotAllowed } from './http-util.js';
import type { RunStore } from './run-store.js';

/** The longest instance id a reporter may send (validate-event's bound): any such id is looked up, as data. */
const MAX_INSTANCE_ID = 1024;

/** The route's answer: the call, and its cost where a model reads it (each token figure an estimate). */
export function costAnswer(store: RunStore, runId: string, instanceId: string): Record<string, unknown> | undefined {
  const state = store.get(runId);
  const instance = state?.byId.get(instanceId);
  const node = instance === undefined ? undefined : state?.nodes.get(instance.nodeId)?.node;
  if (instance === undefined || node === undefined) return undefined;
  const method = methodOf(node);
  const cost = callCost(method, instance.output);
  return { runId, instanceId, method, estimate: true, tokenizer: TOKENIZER, ...cost };
}

/** Answer `GET /api/runs/:runId/instances/:instanceId/cost`. */
export function handleCost(res: ServerResponse, method: string, runId: string, pathSegment: string, store: RunStore): void {
  // The segment comes as the address has it: an adapter's instance id may be any text, sent percent-encoded.
  const instanceId = decodedSegment(pathSegment);
  if (!RUN_ID_PATTERN.test(runId) || instanceId === undefined || instanceId.length === 0 || instanceId.length > MAX_INSTANCE_ID) return sendError(res, 404, 'not found');
  if (method !== 'GET') return sendMethodNotAllowed(res, 'GET');
  const answer = costAnswer(store, runId, instanceId);
  if (answer === undefined) return sendError(res, 404, 'not found');
  return sendJson(res, 200, answer);
}

/** A path segment decoded, or undefined when its percent-encoding is broken. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
