/**
 * A run as a trace, in plain objects: the run's root (a proxy's session,
 * an adapter's server node) as the parent span, one span per call with
 * OpenTelemetry's MCP attributes, and GraphMind's own facts (holds,
 * decisions, retries, stdout noise, spawn failures, early exits, restarts,
 * log lines) as `graphmind.*` attributes and span events. Nothing here
 * loads OpenTelemetry: `otel-spans.ts` turns these records into the SDK's
 * spans for its exporters.
 *
 * Ids are derived from the run (its id, and each call's instance id), so
 * a run streamed while it was recorded and the same run exported later
 * from its log are the same trace.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { Instance, LogLine, RunSummary } from '../protocol/run-model.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import {
  interventionOf,
  isNotification,
  jsonText,
  methodOf,
  msOf,
  outcomeOf,
  plain,
  PROTOCOL_CARD,
  remoteParentOf,
  serverInitiated,
  serverNameOf,
  STDOUT_NOISE,
  targetOf,
  transportOf,
} from './call-shape.js';
import { decisionsOf, type DecisionRecord, type RunFacts } from './run-facts.js';

/** An attribute's value (the types OTLP carries that we use). */
export type AttributeValue = string | number | boolean | string[];
/** Attributes by name. */
export type Attributes = Record<string, AttributeValue>;

/** A span event. */
export interface SpanEventRecord {
  name: string;
  /** Milliseconds since the epoch. */
  timeMs: number;
  attributes: Attributes;
}

/** One span, ready to be handed to an exporter. */
export interface SpanRecord {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId?: string;
  /** The parent came from the client (`params._meta.traceparent`). */
  parentIsRemote?: boolean;
  /** The W3C `tracestate` the client sent with that parent. */
  traceState?: string;
  name: string;
  kind: 'internal' | 'server' | 'client';
  startMs: number;
  endMs: number;
  attributes: Attributes;
  events: SpanEventRecord[];
  links: Array<{ traceId: string; spanId: string; attributes: Attributes }>;
  status: { code: 'unset' | 'error'; message?: string };
}

/** What the mapping reads of a run: a `RunState`'s parts, or a `Run`'s. */
export interface TraceRun {
  summary: RunSummary;
  meta: Record<string, unknown>;
  instances: readonly Instance[];
  logs: readonly LogLine[];
  droppedEvents: number;
  node(nodeId: string): NodeDeclaration | undefined;
}

/** Log lines kept as events on the root span; more are counted. */
export const MAX_LOG_EVENTS = 100;
/** Characters of an injected value kept in a decision event. */
export const MAX_VALUE_CHARS = 4096;

function hex(text: string, digits: number): string {
  const digest = createHash('sha256').update(text).digest('hex').slice(0, digits);
  // An all-zero id is invalid; a digest that starts with that many zeros does not happen, but costs nothing to rule out.
  return /^0+$/.test(digest) ? `${digest.slice(0, -1)}1` : digest;
}

/** The trace id of a run. */
export function traceIdOf(runId: string): string {
  return hex(`graphmind trace ${runId}`, 32);
}

/** The span id of a call (or of the run's root, by its instance id). */
export function spanIdOf(runId: string, instanceId: string): string {
  return hex(`graphmind span ${runId} ${instanceId}`, 16);
}

function record(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The run's root call: the instance of its node without a parent (the proxy's session, the adapter's server). */
export function rootInstanceOf(run: TraceRun): Instance | undefined {
  for (const instance of run.instances) {
    if (run.node(instance.nodeId)?.parent === null) return instance;
  }
  return undefined;
}

/** Is this instance a call of its own (a span), rather than the root, the protocol card or a stdout line? */
export function isCall(run: TraceRun, instance: Instance): boolean {
  const node = run.node(instance.nodeId);
  return node !== undefined && node.parent !== null && instance.nodeId !== PROTOCOL_CARD && instance.nodeId !== STDOUT_NOISE;
}

/** Resource attributes of a run's spans: the MCP server as the service. */
export function resourceOf(run: TraceRun): Attributes {
  const attributes: Attributes = { 'service.name': serverNameOf(run.summary, run.meta) };
  const version = run.summary.server?.version ?? (record(run.meta.serverInfo) ? str(run.meta.serverInfo.version) : undefined);
  if (version !== undefined) attributes['service.version'] = version;
  return attributes;
}

/** Attributes every span of a run shares: the protocol version, the session, the transport. */
function sessionAttributes(run: TraceRun): Attributes {
  const attributes: Attributes = {};
  const protocol = str(run.meta.protocolVersion);
  if (protocol !== undefined) attributes['mcp.protocol.version'] = protocol;
  // The conventions' session is the one an Mcp-Session-Id header carries (Streamable HTTP), and
  // none exists from the 2026-07-28 revision on; stdio has no such id (the run id says which session).
  const sessionId = str(run.meta.sessionId);
  if (sessionId !== undefined && (protocol === undefined || protocol < '2026-07-28')) attributes['mcp.session.id'] = sessionId;
  const { transport, protocol: network } = transportOf(run.summary.source, run.meta);
  if (transport !== undefined) attributes['network.transport'] = transport;
  if (network !== undefined) attributes['network.protocol.name'] = network;
  return attributes;
}

/** When the run's record ends: its end, else its last call's, else `now`. */
function runEndMs(run: TraceRun, now: number): number {
  if (run.summary.endedAt !== null) return msOf(run.summary.endedAt);
  return now;
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

/** Options for {@link callSpan} and {@link runSpans}. */
export interface SpanOptions {
  /** The time taken as "now" for anything still open. @default Date.now() */
  now?: number;
}

/**
 * The span of one call, or undefined for what is not a call (the root,
 * the protocol card, a stdout line). `byNode` lists the run's instances
 * per node, for calls nested in calls (the adapter's sampling in a tool).
 */
export function callSpan(run: TraceRun, facts: RunFacts, instance: Instance, options: SpanOptions & { root?: Instance; byNode?: Map<string, Instance[]>; decisions?: ReadonlyMap<string, DecisionRecord> } = {}): SpanRecord | undefined {
  const node = run.node(instance.nodeId);
  if (node === undefined || !isCall(run, instance)) return undefined;
  const now = options.now ?? Date.now();
  const runId = run.summary.runId;
  const method = methodOf(node);
  const clientSide = serverInitiated(method);
  const target = targetOf(method, node, instance.input, run.summary.source);
  const name = target.tool !== undefined ? `${method} ${target.tool}` : target.prompt !== undefined ? `${method} ${target.prompt}` : method;
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

  const outcome = outcomeOf(instance.error, !clientSide);
  if (outcome.statusCode !== undefined) attributes['rpc.response.status_code'] = outcome.statusCode;
  if (outcome.errorType !== undefined) attributes['error.type'] = outcome.errorType;

  attributes['graphmind.instance.id'] = instance.instanceId;
  attributes['graphmind.node.id'] = instance.nodeId;
  const decisions = options.decisions ?? decisionsOf(run.meta);
  const holds = facts.holdsOf(instance.instanceId);
  const intervention = interventionOf(instance, holds, decisions, now);
  attributes['graphmind.changed_by_debugger'] = intervention.changed;
  if (intervention.change !== undefined) {
    attributes['graphmind.change.action'] = intervention.change.action;
    attributes['graphmind.change.by'] = intervention.change.by;
  }
  if (holds.length > 0) {
    attributes['graphmind.hold.count'] = holds.length;
    attributes['graphmind.held_ms'] = intervention.heldMs;
  }
  const events: SpanEventRecord[] = [];
  for (const hold of holds) {
    const held: Attributes = { 'graphmind.hold.id': hold.holdId, 'graphmind.hold.gate': hold.gate };
    if (hold.reason !== undefined) held['graphmind.hold.reason'] = hold.reason;
    if (hold.releasedAt !== undefined) held['graphmind.hold.held_ms'] = Math.max(0, hold.releasedAt - hold.openedAt);
    if (hold.givenUp !== undefined) held['graphmind.hold.given_up'] = hold.givenUp;
    if (hold.heldOutcome !== undefined) {
      held['graphmind.hold.answer_status'] = hold.heldOutcome.status;
      const original = outcomeOf(hold.heldOutcome.error, !clientSide).errorType;
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
  for (const attempt of instance.attempts ?? []) {
    const dropped: Attributes = { 'graphmind.retry.dropped_status': attempt.status };
    const type = outcomeOf(attempt.error, !clientSide).errorType;
    if (type !== undefined) dropped['graphmind.retry.dropped_error.type'] = type;
    dropped['graphmind.retry.answered_at'] = attempt.endedAt;
    events.push({ name: 'graphmind.retry', timeMs: msOf(attempt.retriedAt), attributes: dropped });
  }
  if ((instance.attempts?.length ?? 0) > 0) attributes['graphmind.retry.count'] = instance.attempts?.length ?? 0;
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

/** The root span: the session (proxy) or the server node's run (adapter), with the run's own facts. */
export function rootSpan(run: TraceRun, options: SpanOptions & { root?: Instance } = {}): SpanRecord {
  const now = options.now ?? Date.now();
  const { summary, meta } = run;
  const root = options.root ?? rootInstanceOf(run);
  const runId = summary.runId;
  const attributes: Attributes = {
    ...sessionAttributes(run),
    'graphmind.run.id': runId,
    'graphmind.run.name': summary.name,
    'graphmind.run.source': summary.source,
    'graphmind.run.status': summary.status,
  };
  const client = record(meta.clientInfo) ? meta.clientInfo : undefined;
  if (client !== undefined && str(client.name) !== undefined) attributes['graphmind.client.name'] = str(client.name) as string;
  if (client !== undefined && str(client.version) !== undefined) attributes['graphmind.client.version'] = str(client.version) as string;
  if (run.droppedEvents > 0) attributes['graphmind.dropped_events'] = run.droppedEvents;
  const events: SpanEventRecord[] = [];
  let calls = 0;
  let noise = 0;
  for (const instance of run.instances) {
    if (instance.nodeId === STDOUT_NOISE) {
      noise++;
      const line: Attributes = {};
      const input = plain(instance.input);
      if (typeof input === 'string') line['graphmind.stdout_noise.text'] = input;
      events.push({ name: 'graphmind.stdout_noise', timeMs: msOf(instance.startedAt), attributes: line });
    } else if (isCall(run, instance)) {
      calls++;
    }
  }
  attributes['graphmind.call.count'] = calls;
  // The proxy records the first 25 stdout lines and counts the rest on its protocol card.
  const cardOutput = plain(run.instances.find((instance) => instance.nodeId === PROTOCOL_CARD)?.output);
  const counted = record(cardOutput) && typeof cardOutput.stdoutNoise === 'number' ? cardOutput.stdoutNoise : noise;
  if (counted > 0) attributes['graphmind.stdout_noise.count'] = counted;

  const restarts = Array.isArray(meta.restarts) ? meta.restarts.filter(record) : [];
  if (restarts.length > 0) attributes['graphmind.restart.count'] = restarts.length;
  for (const restart of restarts) {
    const at = typeof restart.at === 'string' ? msOf(restart.at) : Number.NaN;
    const what: Attributes = {};
    for (const key of ['n', 'reason', 'file', 'ok', 'pid', 'ms', 'error'] as const) {
      const value = restart[key];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') what[`graphmind.restart.${key}`] = value;
    }
    events.push({ name: 'graphmind.restart', timeMs: Number.isFinite(at) ? at : msOf(summary.startedAt), attributes: what });
  }

  const logs = run.logs;
  if (logs.length > 0) attributes['graphmind.log.count'] = logs.length;
  for (const log of logs.slice(0, MAX_LOG_EVENTS)) {
    events.push({ name: 'graphmind.log', timeMs: msOf(log.at), attributes: { 'graphmind.log.stream': log.stream, 'graphmind.log.text': log.text, 'graphmind.node.id': log.nodeId } });
  }
  if (logs.length > MAX_LOG_EVENTS) attributes['graphmind.log.dropped'] = logs.length - MAX_LOG_EVENTS;

  let status: SpanRecord['status'] = { code: 'unset' };
  const error = root?.error;
  if (error !== undefined) {
    const errorData = plain(error.data);
    const data = record(errorData) ? errorData : {};
    const ended: Attributes = { 'graphmind.error.name': error.name, 'graphmind.error.message': error.message };
    if (typeof data.code === 'string') ended['graphmind.spawn.error_code'] = data.code;
    if (typeof data.exitCode === 'number') ended['graphmind.exit.code'] = data.exitCode;
    if (typeof data.signal === 'string') ended['graphmind.exit.signal'] = data.signal;
    if (Array.isArray(data.stderr)) ended['graphmind.stderr_tail'] = data.stderr.filter((line): line is string => typeof line === 'string').join('\n');
    const name = error.name === 'SpawnError' ? 'graphmind.spawn_failure' : error.name === 'McpServerExitedEarly' ? 'graphmind.early_exit' : 'graphmind.server_exit';
    events.push({ name, timeMs: root?.endedAt != null ? msOf(root.endedAt) : runEndMs(run, now), attributes: ended });
    if (summary.status === 'error') {
      attributes['error.type'] = error.name;
      status = { code: 'error', message: error.message };
    }
  } else if (summary.status === 'error') {
    // Abandoned: its reporter went away before it ended.
    attributes['error.type'] = 'abandoned';
    status = { code: 'error', message: 'the run ended without its reporter saying so (it went away)' };
  }
  events.sort((a, b) => a.timeMs - b.timeMs);
  const startMs = msOf(root?.startedAt ?? summary.startedAt);
  const endMs = root?.endedAt != null ? msOf(root.endedAt) : runEndMs(run, now);
  return {
    traceId: traceIdOf(runId),
    spanId: spanIdOf(runId, root?.instanceId ?? '(root)'),
    name: `${summary.source} ${serverNameOf(summary, meta)}`,
    kind: 'internal',
    startMs,
    endMs: Math.max(startMs, endMs),
    attributes,
    events,
    links: [],
    status,
  };
}

/** Every span of a run: its root, then its calls in start order. */
export function runSpans(run: TraceRun, facts: RunFacts, options: SpanOptions = {}): SpanRecord[] {
  const now = options.now ?? Date.now();
  const root = rootInstanceOf(run);
  const byNode = new Map<string, Instance[]>();
  for (const instance of run.instances) {
    let list = byNode.get(instance.nodeId);
    if (list === undefined) byNode.set(instance.nodeId, (list = []));
    list.push(instance);
  }
  const decisions = decisionsOf(run.meta);
  const spans = [rootSpan(run, { now, root })];
  for (const instance of run.instances) {
    const span = callSpan(run, facts, instance, { now, root, byNode, decisions });
    if (span !== undefined) spans.push(span);
  }
  return spans;
}
