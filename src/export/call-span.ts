/**
 * The span of one call: OpenTelemetry's MCP attributes (method, tool,
 * prompt, resource, request id, outcome), GraphMind's facts about it
 * (holds, decisions, retries) as attributes and span events, and its
 * parent: the client's context from `params._meta` when it sent one (the
 * session then a link), else the enclosing call or the run's root.
 *
 * @module
 */
import type { NodeDeclaration } from '../protocol/ingest.js';
import { callTimes } from '../protocol/call-times.js';
import type { Instance } from '../protocol/run-model.js';
import {
  interventionOf,
  isNotification,
  jsonText,
  methodOf,
  msOf,
  outcomeOf,
  PROTOCOL_CARD,
  remoteParentOf,
  serverInitiated,
  targetOf,
  type CallTarget,
  type Intervention,
} from './call-shape.js';
import { decisionsOf, type DecisionRecord, type HoldRecord, type RunFacts } from './run-facts.js';
import {
  isCall,
  MAX_VALUE_CHARS,
  rootInstanceOf,
  runEndMs,
  sessionAttributes,
  spanIdOf,
  traceIdOf,
  type Attributes,
  type SpanEventRecord,
  type SpanOptions,
  type SpanRecord,
  type TraceRun,
} from './trace-model.js';

/** Options for {@link callSpan}: what {@link runSpans} works out once for every call of a run. */
export interface CallSpanOptions extends SpanOptions {
  /** The run's root call. @default found in the run */
  root?: Instance;
  /** The run's instances per node, for calls nested in calls. @default found in the run */
  byNode?: Map<string, Instance[]>;
  /** Who decided each hold. @default read from the run's meta */
  decisions?: ReadonlyMap<string, DecisionRecord>;
}

/** Where a call's span hangs: the span of the enclosing call of its parent node, else the root. */
function parentSpanOf(run: TraceRun, instance: Instance, node: NodeDeclaration, root: Instance | undefined, byNode: Map<string, Instance[]> | undefined): string | undefined {
  const runId = run.summary.runId;
  const parent = node.parent === null ? undefined : run.node(node.parent);
  if (parent !== undefined && parent.parent !== null && parent.nodeId !== PROTOCOL_CARD) {
    const start = msOf(instance.startedAt);
    const candidates = byNode?.get(parent.nodeId) ?? run.instances.filter((other) => other.nodeId === parent.nodeId);
    for (const candidate of candidates) {
      const from = msOf(candidate.startedAt);
      const to = candidate.endedAt === null ? Number.POSITIVE_INFINITY : msOf(candidate.deliveredAt ?? candidate.endedAt);
      if (from <= start && start <= to) return spanIdOf(runId, candidate.instanceId);
    }
  }
  return root === undefined ? undefined : spanIdOf(runId, root.instanceId);
}

/** The call's own attributes: what it called, its request id, its outcome, what the debugger did to it. */
function callAttributes(run: TraceRun, facts: RunFacts, instance: Instance, method: string, target: CallTarget, holds: readonly HoldRecord[], intervention: Intervention): Attributes {
  const attributes: Attributes = { 'mcp.method.name': method };
  if (target.tool !== undefined) {
    attributes['gen_ai.tool.name'] = target.tool;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (target.prompt !== undefined) attributes['gen_ai.prompt.name'] = target.prompt;
  if (target.resourceUri !== undefined) attributes['mcp.resource.uri'] = target.resourceUri;
  Object.assign(attributes, sessionAttributes(run));
  const requestId = isNotification(method) ? undefined : facts.requestIdOf(instance.instanceId);
  if (requestId !== undefined) attributes['jsonrpc.request.id'] = requestId;

  const outcome = outcomeOf(instance.error, !serverInitiated(method));
  if (outcome.statusCode !== undefined) attributes['rpc.response.status_code'] = outcome.statusCode;
  if (outcome.errorType !== undefined) attributes['error.type'] = outcome.errorType;

  attributes['graphmind.instance.id'] = instance.instanceId;
  attributes['graphmind.node.id'] = instance.nodeId;
  attributes['graphmind.changed_by_debugger'] = intervention.changed;
  if (intervention.change !== undefined) {
    attributes['graphmind.change.action'] = intervention.change.action;
    attributes['graphmind.change.by'] = intervention.change.by;
  }
  if (holds.length > 0) {
    attributes['graphmind.hold.count'] = holds.length;
    attributes['graphmind.held_ms'] = intervention.heldMs;
  }
  // The server's part of the span's time, the held time apart (absent: still open, or the debugger answered before the server did).
  const serverMs = instance.endedAt === null ? null : callTimes(instance).serverMs;
  if (serverMs !== null) attributes['graphmind.server_ms'] = serverMs;
  if ((instance.attempts?.length ?? 0) > 0) attributes['graphmind.retry.count'] = instance.attempts?.length ?? 0;
  return attributes;
}

/** A `graphmind.hold` event per hold, and a `graphmind.decision` for each one decided. */
function holdEvents(instance: Instance, holds: readonly HoldRecord[], decisions: ReadonlyMap<string, DecisionRecord>, serverSide: boolean, now: number): SpanEventRecord[] {
  const events: SpanEventRecord[] = [];
  for (const hold of holds) {
    const held: Attributes = { 'graphmind.hold.id': hold.holdId, 'graphmind.hold.gate': hold.gate };
    if (hold.reason !== undefined) held['graphmind.hold.reason'] = hold.reason;
    if (hold.releasedAt !== undefined) held['graphmind.hold.held_ms'] = Math.max(0, hold.releasedAt - hold.openedAt);
    if (hold.givenUp !== undefined) held['graphmind.hold.given_up'] = hold.givenUp;
    if (hold.heldOutcome !== undefined) {
      held['graphmind.hold.answer_status'] = hold.heldOutcome.status;
      const original = outcomeOf(hold.heldOutcome.error, serverSide).errorType;
      if (original !== undefined) held['graphmind.hold.answer_error.type'] = original;
    }
    events.push({ name: 'graphmind.hold', timeMs: hold.openedAt, attributes: held });
    if (hold.action === undefined) continue;
    const decision = decisions.get(hold.holdId);
    const decided: Attributes = {
      'graphmind.hold.id': hold.holdId,
      'graphmind.decision.action': hold.action,
      'graphmind.decision.by': decision?.by ?? 'unknown',
      'graphmind.changed_by_debugger': hold.action !== 'continue',
    };
    if (hold.action === 'inject') {
      // What the call answered after the inject, as recorded (so as the hide switches left it).
      const value = jsonText(instance.error !== undefined ? { error: instance.error } : instance.output, MAX_VALUE_CHARS);
      if (value !== undefined) decided['graphmind.decision.value'] = value;
    }
    events.push({ name: 'graphmind.decision', timeMs: hold.releasedAt ?? now, attributes: decided });
  }
  return events;
}

/** A `graphmind.retry` event per answer a Retry dropped. */
function retryEvents(instance: Instance, serverSide: boolean): SpanEventRecord[] {
  return (instance.attempts ?? []).map((attempt) => {
    const dropped: Attributes = { 'graphmind.retry.dropped_status': attempt.status };
    const type = outcomeOf(attempt.error, serverSide).errorType;
    if (type !== undefined) dropped['graphmind.retry.dropped_error.type'] = type;
    dropped['graphmind.retry.answered_at'] = attempt.endedAt;
    return { name: 'graphmind.retry', timeMs: msOf(attempt.retriedAt), attributes: dropped };
  });
}

/**
 * The span of one call, or undefined for what is not a call (the root,
 * the protocol card, a stdout line). `byNode` lists the run's instances
 * per node, for calls nested in calls (the adapter's sampling in a tool).
 */
export function callSpan(run: TraceRun, facts: RunFacts, instance: Instance, options: CallSpanOptions = {}): SpanRecord | undefined {
  const node = run.node(instance.nodeId);
  if (node === undefined || !isCall(run, instance)) return undefined;
  const now = options.now ?? Date.now();
  const runId = run.summary.runId;
  const method = methodOf(node);
  const clientSide = serverInitiated(method);
  const target = targetOf(method, node, instance.input, run.summary.source);
  const name = target.tool !== undefined ? `${method} ${target.tool}` : target.prompt !== undefined ? `${method} ${target.prompt}` : method;
  const decisions = options.decisions ?? decisionsOf(run.meta);
  const holds = facts.holdsOf(instance.instanceId);
  const intervention = interventionOf(instance, holds, decisions, now);
  const attributes = callAttributes(run, facts, instance, method, target, holds, intervention);
  const events = [...holdEvents(instance, holds, decisions, !clientSide, now), ...retryEvents(instance, !clientSide)];
  events.sort((a, b) => a.timeMs - b.timeMs);

  const startMs = msOf(instance.startedAt);
  let endMs: number;
  if (instance.endedAt === null) {
    attributes['graphmind.unfinished'] = true;
    endMs = Math.max(startMs, runEndMs(run, now));
  } else {
    // As the requester saw it: an answer held and continued reached it then.
    endMs = msOf(instance.deliveredAt ?? instance.endedAt);
  }
  const outcome = outcomeOf(instance.error, !clientSide);
  const span: SpanRecord = {
    traceId: traceIdOf(runId),
    spanId: spanIdOf(runId, instance.instanceId),
    name,
    kind: clientSide ? 'client' : 'server',
    startMs,
    endMs: Math.max(startMs, endMs),
    attributes,
    events,
    links: [],
    status: outcome.errorType === undefined ? { code: 'unset' } : outcome.message === undefined ? { code: 'error' } : { code: 'error', message: outcome.message },
  };
  const ownParent = parentSpanOf(run, instance, node, options.root ?? rootInstanceOf(run), options.byNode);
  const remote = remoteParentOf(instance.input);
  if (remote !== undefined) {
    // The conventions: the context from params._meta is the parent, and the session (our ambient context) a link.
    span.traceId = remote.traceId;
    span.parentSpanId = remote.spanId;
    span.parentIsRemote = true;
    if (remote.traceState !== undefined) span.traceState = remote.traceState;
    if (ownParent !== undefined) span.links.push({ traceId: traceIdOf(runId), spanId: ownParent, attributes: { 'graphmind.link': 'session' } });
  } else if (ownParent !== undefined) {
    span.parentSpanId = ownParent;
  }
  return span;
}
