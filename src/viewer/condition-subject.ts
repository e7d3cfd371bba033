// A recorded call as the condition language sees it (a "whole call"
// subject, see src/conditions): its method and node, who sent it, the
// request and the answer rebuilt from the recorded params and result, its
// status, the server's time and its size. Built once per call and state,
// and kept, so a find over 10,000 calls does not rebuild them per key.
import type { ConditionSubject } from '../conditions/index.js';
import { callTimes } from '../protocol/call-times.js';
import { isNotification, methodOf, serverInitiated } from '../protocol/call-method.js';
import type { GraphNode, Instance } from '../protocol/run-model.js';

/** What a subject is built from: the call, its node (when the run has it), and whether it is held now. */
export interface SubjectSource {
  instance: Instance;
  node: Pick<GraphNode, 'nodeId' | 'kind' | 'label'> | undefined;
  held: boolean;
}

/** The recorded answer as a JSON-RPC message: the result (a failed tool result too), else the error, else none. */
function answerOf(instance: Instance): unknown {
  if (instance.status === 'open') return undefined;
  if (instance.output !== undefined) return { jsonrpc: '2.0', result: instance.output };
  const error = instance.error;
  if (error === undefined) return undefined;
  return { jsonrpc: '2.0', error: { code: error.code ?? -32603, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
}

/** Characters of `value` as JSON (a size, not exact bytes: UTF-8 of non-ASCII text is larger). */
function jsonSize(value: unknown): number {
  if (value === undefined) return 0;
  try {
    return (JSON.stringify(value) ?? '').length;
  } catch {
    return 0;
  }
}

/**
 * The subject of a recorded call. `kind` is `answer` once answered, else
 * `request` (a notification is a `notification`); `status` is `held` while
 * a frame of it is held; `durationMs` is the server's time (held time left
 * out), answers only.
 */
export function subjectOf(source: SubjectSource): ConditionSubject {
  const { instance, node, held } = source;
  const method = node === undefined ? (instance.nodeId.startsWith('mcp:') ? instance.nodeId.slice(4) : instance.nodeId) : methodOf(node);
  const notification = isNotification(method);
  const request = { jsonrpc: '2.0', method, ...(instance.input === undefined ? {} : { params: instance.input }) };
  const answer = answerOf(instance);
  const subject: ConditionSubject = {
    method,
    nodeId: instance.nodeId,
    from: serverInitiated(method) ? 'server' : 'host',
    kind: notification ? 'notification' : answer === undefined ? 'request' : 'answer',
    request,
    status: held ? 'held' : instance.status,
    bytes: jsonSize(request) + jsonSize(answer),
  };
  if (answer !== undefined) {
    subject.answer = answer;
    const server = callTimes(instance).serverMs;
    if (server !== null) subject.durationMs = server;
  }
  return subject;
}

interface Kept {
  key: string;
  subject: ConditionSubject;
}

const kept = new WeakMap<Instance, Kept>();

/** {@link subjectOf}, kept per call until its state changes. */
export function cachedSubject(source: SubjectSource): ConditionSubject {
  const { instance } = source;
  const key = `${instance.status}|${instance.endedAt}|${instance.deliveredAt}|${instance.attempts?.length ?? 0}|${source.held}|${source.node?.kind ?? ''}`;
  const found = kept.get(instance);
  if (found !== undefined && found.key === key) return found.subject;
  const subject = subjectOf(source);
  kept.set(instance, { key, subject });
  return subject;
}
