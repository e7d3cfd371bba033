/**
 * A run exported as an mcp-recorder cassette (devhelmhq/mcp-recorder, its
 * JSON format version 1.0), written as the log is read
 * ({@link RunStreamer}): `{ version, metadata, interactions }`, one
 * interaction per request or notification the host sent, in start order,
 * with the answer the host received (after an inject, an abort or a retry
 * in the debugger), as mcp-recorder records what its client received.
 * What the server sent the client inside a call (sampling, progress) has
 * no place in a cassette and is left out; a request that was never
 * answered has a `null` response, so a replay leaves it unanswered.
 * `graphmind replay` and `verify` read the file back (replay/cassette.ts),
 * and so does mcp-recorder.
 *
 * @module
 */
import type { Instance, InstanceError } from '../protocol/run-model.js';
import { isNotification, methodOf, msOf, serverInitiated, transportOf } from './call-shape.js';
import { answerOf, idValue } from './har.js';
import type { RunFacts } from './run-facts.js';
import type { CallFormat, SnapshotEnd } from './run-streamer.js';
import { isCall, type TraceRun } from './trace-model.js';

/** The cassette format version written (mcp-recorder's `CASSETTE_FORMAT_VERSION`). */
export const CASSETTE_VERSION = '1.0';

/** One interaction, with the fields mcp-recorder's model has. */
export interface CassetteInteraction {
  type: 'jsonrpc_request' | 'notification';
  request: Record<string, unknown>;
  response: Record<string, unknown> | null;
  response_is_sse: boolean;
  response_status: number;
  latency_ms: number;
  http_method: null;
  http_path: null;
}

/** An interaction's indentation in the whole file. */
const INDENT = '\n    ';

/** Did the call end with no answer at all (the server went, nothing came)? */
function unanswered(instance: Instance): boolean {
  if (instance.endedAt === null) return true;
  const error: InstanceError | undefined = instance.error;
  // As replay reads a run log: an end with no JSON-RPC code (and not a failed tool result) answered nothing.
  return error !== undefined && error.name !== 'ToolError' && typeof error.code !== 'number' && instance.output === undefined;
}

/** The interaction of one call; undefined for what a cassette has no place for. */
export function interactionOf(run: TraceRun, facts: RunFacts, instance: Instance, nextId: () => number): CassetteInteraction | undefined {
  const node = run.node(instance.nodeId);
  if (node === undefined || !isCall(run, instance)) return undefined;
  const method = methodOf(node);
  if (serverInitiated(method)) return undefined;
  const notification = isNotification(method);
  const request: Record<string, unknown> = { jsonrpc: '2.0' };
  // The id the host used when it was recorded; a made-up one otherwise (mcp-recorder answers with the new request's id either way).
  const id = notification ? undefined : (idValue(facts.requestIdOf(instance.instanceId)) ?? nextId());
  if (id !== undefined) request.id = id;
  request.method = method;
  if (instance.input !== undefined) request.params = instance.input;
  const latency = instance.endedAt === null ? 0 : Math.max(0, Math.round(msOf(instance.deliveredAt ?? instance.endedAt) - msOf(instance.startedAt)));
  const none = notification || unanswered(instance);
  return {
    type: notification ? 'notification' : 'jsonrpc_request',
    request,
    response: none ? null : answerOf(instance, id),
    response_is_sse: false,
    response_status: notification ? 202 : 200,
    latency_ms: latency,
    http_method: null,
    http_path: null,
  };
}

/** The cassette's metadata: when, which server, and what its `initialize` answered (when it is known by the first call). */
export function cassetteMetadata(run: TraceRun): Record<string, unknown> {
  const { summary, meta } = run;
  const { transport } = transportOf(summary.source, meta);
  const url = typeof meta.url === 'string' ? meta.url : typeof meta.upstream === 'string' ? meta.upstream : undefined;
  const metadata: Record<string, unknown> = {
    recorded_at: summary.startedAt,
    server_url: transport === 'pipe' || url === undefined ? `stdio://${summary.name}` : url,
    transport_type: transport === 'tcp' ? 'http' : transport === 'pipe' ? 'stdio' : null,
    protocol_version: null,
    server_info: null,
  };
  const init = run.instances.slice(0, 8).find((instance) => run.node(instance.nodeId)?.nodeId === 'mcp:initialize');
  const result = init?.output;
  if (result !== null && typeof result === 'object') {
    const { protocolVersion, serverInfo } = result as Record<string, unknown>;
    if (typeof protocolVersion === 'string') metadata.protocol_version = protocolVersion;
    if (serverInfo !== null && typeof serverInfo === 'object') metadata.server_info = serverInfo;
  }
  return metadata;
}

/** The cassette format for {@link RunStreamer}. */
export function cassetteFormat(): CallFormat {
  let ids = 0;
  const nextId = (): number => ids++;
  return {
    head(run: TraceRun): string {
      const metadata = JSON.stringify(cassetteMetadata(run), null, 2).replace(/\n/g, '\n  ');
      return `{\n  "version": ${JSON.stringify(CASSETTE_VERSION)},\n  "metadata": ${metadata},\n  "interactions": [`;
    },
    call(run: TraceRun, facts: RunFacts, instance: Instance, _now: number, first: boolean): string {
      const interaction = interactionOf(run, facts, instance, nextId);
      if (interaction === undefined) return '';
      return `${first ? '' : ','}${INDENT}${JSON.stringify(interaction, null, 2).replace(/\n/g, INDENT)}`;
    },
    tail(_run: TraceRun, _facts: RunFacts, _end: SnapshotEnd, _now: number, wroteAny: boolean): string {
      return `${wroteAny ? '\n  ' : ''}]\n}\n`;
    },
  };
}
