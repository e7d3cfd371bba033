/**
 * The root span of a run: the proxy's session or the adapter's server
 * node, with the run's own facts: who the client was, the calls and the
 * stdout noise counted, the restarts, the log lines (the first
 * {@link MAX_LOG_EVENTS}), and how the server ended (a spawn failure, an
 * early exit, an exit) or that its reporter went away.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { Instance } from '../protocol/run-model.js';
import { msOf, plain, PROTOCOL_CARD, serverNameOf, STDOUT_NOISE } from './call-shape.js';
import {
  isCall,
  MAX_LOG_EVENTS,
  nonEmpty,
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

/** The calls and stdout lines counted (as attributes), the lines kept as events. */
function callsAndNoise(run: TraceRun, attributes: Attributes, events: SpanEventRecord[]): void {
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
  const counted = isObject(cardOutput) && typeof cardOutput.stdoutNoise === 'number' ? cardOutput.stdoutNoise : noise;
  if (counted > 0) attributes['graphmind.stdout_noise.count'] = counted;
}

/** The restarts (`meta.restarts`) and log lines, counted and as events. */
function restartsAndLogs(run: TraceRun, attributes: Attributes, events: SpanEventRecord[]): void {
  const { meta, summary } = run;
  const restarts = Array.isArray(meta.restarts) ? meta.restarts.filter(isObject) : [];
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
  const logCount = run.logCount ?? logs.length;
  if (logCount > 0) attributes['graphmind.log.count'] = logCount;
  for (const log of logs.slice(0, MAX_LOG_EVENTS)) {
    events.push({ name: 'graphmind.log', timeMs: msOf(log.at), attributes: { 'graphmind.log.stream': log.stream, 'graphmind.log.text': log.text, 'graphmind.node.id': log.nodeId } });
  }
  if (logCount > MAX_LOG_EVENTS) attributes['graphmind.log.dropped'] = logCount - MAX_LOG_EVENTS;
}

/** How the run ended: the server's end as an event, and the span's status (an error when the run is one). */
function endOf(run: TraceRun, root: Instance | undefined, attributes: Attributes, events: SpanEventRecord[], now: number): SpanRecord['status'] {
  const { summary } = run;
  const error = root?.error;
  if (error !== undefined) {
    const errorData = plain(error.data);
    const data = isObject(errorData) ? errorData : {};
    const ended: Attributes = { 'graphmind.error.name': error.name, 'graphmind.error.message': error.message };
    if (typeof data.code === 'string') ended['graphmind.spawn.error_code'] = data.code;
    if (typeof data.exitCode === 'number') ended['graphmind.exit.code'] = data.exitCode;
    if (typeof data.signal === 'string') ended['graphmind.exit.signal'] = data.signal;
    if (Array.isArray(data.stderr)) ended['graphmind.stderr_tail'] = data.stderr.filter((line): line is string => typeof line === 'string').join('\n');
    const name = error.name === 'SpawnError' ? 'graphmind.spawn_failure' : error.name === 'McpServerExitedEarly' ? 'graphmind.early_exit' : 'graphmind.server_exit';
    events.push({ name, timeMs: root?.endedAt != null ? msOf(root.endedAt) : runEndMs(run, now), attributes: ended });
    if (summary.status === 'error') {
      attributes['error.type'] = error.name;
      return { code: 'error', message: error.message };
    }
  } else if (summary.status === 'error') {
    // Abandoned: its reporter went away before it ended.
    attributes['error.type'] = 'abandoned';
    return { code: 'error', message: 'the run ended without its reporter saying so (it went away)' };
  }
  return { code: 'unset' };
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
  const client = isObject(meta.clientInfo) ? meta.clientInfo : undefined;
  if (client !== undefined && nonEmpty(client.name) !== undefined) attributes['graphmind.client.name'] = nonEmpty(client.name) as string;
  if (client !== undefined && nonEmpty(client.version) !== undefined) attributes['graphmind.client.version'] = nonEmpty(client.version) as string;
  if (run.droppedEvents > 0) attributes['graphmind.dropped_events'] = run.droppedEvents;
  const events: SpanEventRecord[] = [];
  callsAndNoise(run, attributes, events);
  restartsAndLogs(run, attributes, events);
  const status = endOf(run, root, attributes, events, now);
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
