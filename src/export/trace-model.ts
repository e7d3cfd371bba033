/**
 * A run as a trace, in plain objects: the run's root (a proxy's session,
 * an adapter's server node) as the parent span, one span per call with
 * OpenTelemetry's MCP attributes, and GraphMind's own facts (holds,
 * decisions, retries, stdout noise, spawn failures, early exits, restarts,
 * log lines) as `graphmind.*` attributes and span events. Nothing here
 * loads OpenTelemetry: `otel-spans.ts` turns these records into the SDK's
 * spans for its exporters. Here: the records and what every span of a run
 * shares; a call's span is built in call-span.ts, the root's in
 * root-span.ts, a run's spans in run-spans.ts.
 *
 * Ids are derived from the run (its id, and each call's instance id), so
 * a run streamed while it was recorded and the same run exported later
 * from its log are the same trace.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { isObject } from '../json/is-object.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import type { Instance, LogLine, RunSummary } from '../protocol/run-model.js';
import { msOf, PROTOCOL_CARD, serverNameOf, STDOUT_NOISE, transportOf } from './call-shape.js';

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
  /** Log lines in all, when `logs` keeps only the first of them (a run exported as it is read). @default logs.length */
  logCount?: number;
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

/** A non-empty string, else undefined. */
export function nonEmpty(value: unknown): string | undefined {
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
  const version = run.summary.server?.version ?? (isObject(run.meta.serverInfo) ? nonEmpty(run.meta.serverInfo.version) : undefined);
  if (version !== undefined) attributes['service.version'] = version;
  return attributes;
}

/** Attributes every span of a run shares: the protocol version, the session, the transport. */
export function sessionAttributes(run: TraceRun): Attributes {
  const attributes: Attributes = {};
  const protocol = nonEmpty(run.meta.protocolVersion);
  if (protocol !== undefined) attributes['mcp.protocol.version'] = protocol;
  // The conventions' session is the one an Mcp-Session-Id header carries (Streamable HTTP), and
  // none exists from the 2026-07-28 revision on; stdio has no such id (the run id says which session).
  const sessionId = nonEmpty(run.meta.sessionId);
  if (sessionId !== undefined && (protocol === undefined || protocol < '2026-07-28')) attributes['mcp.session.id'] = sessionId;
  const { transport, protocol: network } = transportOf(run.summary.source, run.meta);
  if (transport !== undefined) attributes['network.transport'] = transport;
  if (network !== undefined) attributes['network.protocol.name'] = network;
  return attributes;
}

/** When the run's record ends: its end, else its last call's, else `now`. */
export function runEndMs(run: TraceRun, now: number): number {
  if (run.summary.endedAt !== null) return msOf(run.summary.endedAt);
  return now;
}

/** Options for the spans of a run (`callSpan`, `rootSpan`, `runSpans`). */
export interface SpanOptions {
  /** The time taken as "now" for anything still open. @default Date.now() */
  now?: number;
}
