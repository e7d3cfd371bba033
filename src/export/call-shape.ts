/**
 * What a recorded call was, in MCP's terms: its method, which side sent
 * it, what it named (a tool, a prompt, a resource), how it ended, and
 * whether the debugger changed its result. Shared by the OTLP and HAR
 * exports, which say the same things in two formats.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { HIDDEN } from '../report/hide.js';
import type { Instance, InstanceError, RunSummary } from '../protocol/run-model.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import type { DecisionRecord, HoldRecord } from './run-facts.js';

/** Methods whose params name a resource by `uri` (the conventions' `mcp.resource.uri`). */
const RESOURCE_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe', 'notifications/resources/updated']);

/**
 * JSON-RPC error codes that, answered by a server, say the caller asked
 * for something the server could not serve rather than that the server
 * failed: the conventions' server spans do not count them as errors.
 */
const CALLER_ERROR_CODES = new Set([-32700, -32600, -32601, -32602, -32002]);

/**
 * A recorded value as plain JSON data. The server keeps a live run's
 * inputs and outputs as the bytes they came in (`RawJson`, which
 * `JSON.stringify` writes through its `toJSON`); a run read from a log has
 * them parsed already.
 */
export function plain(value: unknown): unknown {
  if (!isObject(value)) return value;
  const toJSON = value.toJSON;
  if (typeof toJSON !== 'function') return value;
  try {
    return toJSON.call(value);
  } catch {
    return undefined;
  }
}

/** Could this recorded value hold `text`? (A value kept as JSON text is looked at before it is parsed.) */
function mayHold(value: unknown, text: string): boolean {
  // An array never holds the `_meta` looked for.
  if (!isObject(value)) return false;
  const json = value.json;
  return typeof json === 'string' ? json.includes(text) : true;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The node ids that are not calls: the proxy's protocol card and its stdout noise. */
export const PROTOCOL_CARD = 'mcp:protocol';
export const STDOUT_NOISE = 'mcp:stdout-noise';

export { isNotification, methodOf, serverInitiated } from '../protocol/call-method.js';

/** What a call is about, read from its node and its recorded params. */
export interface CallTarget {
  /** `gen_ai.tool.name`. */
  tool?: string;
  /** `gen_ai.prompt.name`. */
  prompt?: string;
  /** `mcp.resource.uri`. */
  resourceUri?: string;
}

/** The tool, prompt or resource a call names (params hidden: what the node says). */
export function targetOf(method: string, node: NodeDeclaration, input: unknown, source: string): CallTarget {
  // The node says it (the proxy and the adapter name a tool's or prompt's node by it): the params are read only when it does not.
  const params = (): Record<string, unknown> => {
    const value = plain(input);
    return isObject(value) ? value : {};
  };
  const suffix = (prefix: string): string | undefined => (node.nodeId.startsWith(prefix) ? text(node.nodeId.slice(prefix.length)) : undefined);
  if (method === 'tools/call') return { tool: suffix('tool:') ?? text(params().name) ?? node.label };
  if (method === 'prompts/get') return { prompt: suffix('prompt:') ?? text(params().name) ?? node.label };
  if (RESOURCE_METHODS.has(method)) {
    // The proxy names a resource's node by its URI; the adapter by its registration.
    const uri = (source === 'mcp-proxy' && node.kind === 'resource' ? suffix('resource:') : undefined) ?? text(params().uri);
    return uri === undefined ? {} : { resourceUri: uri };
  }
  return {};
}

/** A W3C trace context a client passed in a request's `params._meta`. */
export interface RemoteParent {
  traceId: string;
  spanId: string;
  sampled: boolean;
  traceState?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * `params._meta.traceparent` (and `tracestate`) of a recorded call, as the
 * conventions propagate trace context in MCP; undefined when absent or not
 * a valid W3C `traceparent` (version `ff`, an all-zero id, a version 00
 * header with more fields).
 */
export function remoteParentOf(recorded: unknown): RemoteParent | undefined {
  if (!mayHold(recorded, 'traceparent')) return undefined;
  const input = plain(recorded);
  if (!isObject(input) || !isObject(input._meta)) return undefined;
  const header = input._meta.traceparent;
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff' || (version === '00' && header.trim().length !== 55)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  const parent: RemoteParent = { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
  const state = input._meta.tracestate;
  if (typeof state === 'string' && state.length <= 512) parent.traceState = state;
  return parent;
}

/** How a call ended, in the conventions' words. */
export interface CallOutcome {
  /** `error.type`, when it failed. */
  errorType?: string;
  /** `rpc.response.status_code`: the JSON-RPC error code, when the answer had one. */
  statusCode?: string;
  /** The error's message, for the span status. */
  message?: string;
}

/**
 * The outcome of a call that ended with `error` (none: it ended well).
 * A JSON-RPC error is its code; an `isError` tool result is `tool_error`;
 * anything GraphMind recorded without a code (no answer, a handler that
 * threw, the server gone) is the error's name. `serverSide`: the span is
 * the server's (the client sent the call), where a caller's mistake
 * (-32700, -32600, -32601, -32602, -32002) is not an error.
 */
export function outcomeOf(error: InstanceError | undefined, serverSide: boolean): CallOutcome {
  if (error === undefined) return {};
  const message = typeof error.message === 'string' && error.message !== HIDDEN ? error.message : undefined;
  if (typeof error.code === 'number') {
    const statusCode = String(error.code);
    if (serverSide && CALLER_ERROR_CODES.has(error.code)) return { statusCode };
    return message === undefined ? { errorType: statusCode, statusCode } : { errorType: statusCode, statusCode, message };
  }
  const errorType = error.name === 'ToolError' ? 'tool_error' : error.name;
  return message === undefined ? { errorType } : { errorType, message };
}

/** What the debugger did to a call: its holds, who decided each, and whether its result was changed. */
export interface Intervention {
  holds: readonly HoldRecord[];
  /** Time held in all, ms: the run model's {@link Instance.heldMs}, and a hold still open counted until `now`. */
  heldMs: number;
  /** True when a decision replaced the answer (inject, abort) or sent the request again (retry). */
  changed: boolean;
  /** The last decision that changed it, and who made it (`unknown` when the server did not record it). */
  change?: { action: 'inject' | 'abort' | 'retry'; by: string; holdId: string };
}

/**
 * The debugger's part in a call, read from the run model's one field for
 * it ({@link Instance.changed}, built by the replay) and its held time
 * ({@link Instance.heldMs}), as the viewer and `graphmind mcp` read them.
 * The holds give only what the model cannot: the time of a hold still
 * open, and, for a call whose model has no `changed` (a copy made by a
 * replay older than it), the change its holds and decisions say.
 */
export function interventionOf(instance: Instance, holds: readonly HoldRecord[], decisions: ReadonlyMap<string, DecisionRecord>, now: number): Intervention {
  let heldMs = instance.heldMs ?? 0;
  for (const hold of holds) if (hold.releasedAt === undefined) heldMs += Math.max(0, now - hold.openedAt);
  const model = instance.changed;
  if (model !== undefined) return { holds, heldMs, changed: true, change: { action: model.action, by: model.by, holdId: model.holdId } };
  let change: Intervention['change'];
  for (const hold of holds) {
    const action = hold.action;
    if (action === 'inject' || action === 'abort' || action === 'retry') change = { action, by: decisions.get(hold.holdId)?.by ?? 'unknown', holdId: hold.holdId };
  }
  if (instance.heldMs === undefined) heldMs = legacyHeldMs(holds, now);
  const retried = (instance.attempts?.length ?? 0) > 0;
  return { holds, heldMs, changed: change !== undefined || retried, change };
}

/** Held time from the holds alone, for a model without {@link Instance.heldMs}. */
function legacyHeldMs(holds: readonly HoldRecord[], now: number): number {
  let heldMs = 0;
  for (const hold of holds) heldMs += Math.max(0, (hold.releasedAt ?? now) - hold.openedAt);
  return heldMs;
}

/** The MCP server's name for a run: `serverInfo.name`, the adapter's `server`, else the run's name. */
export function serverNameOf(summary: RunSummary, meta: Record<string, unknown>): string {
  return summary.server?.name ?? (isObject(meta.serverInfo) ? text(meta.serverInfo.name) : undefined) ?? text(meta.server) ?? summary.name;
}

/**
 * The transport a run's calls came over, as `network.transport` names it:
 * `pipe` for stdio (every `mcp-proxy` run), `tcp` for HTTP (`mcp-http-proxy`
 * runs, an adapter on an HTTP transport); undefined when not
 * known (a relay of your own, an adapter whose transport has no telling name).
 */
export function transportOf(source: string, meta: Record<string, unknown>): { transport?: 'pipe' | 'tcp'; protocol?: 'http' } {
  if (source === 'mcp-proxy') return { transport: 'pipe' };
  if (source === 'mcp-http-proxy') return { transport: 'tcp', protocol: 'http' };
  const name = text(meta.transport);
  if (name === undefined) return {};
  if (/stdio/i.test(name)) return { transport: 'pipe' };
  if (/http|sse/i.test(name)) return { transport: 'tcp', protocol: 'http' };
  return {};
}

/** `value` as JSON text of at most `max` characters (cut ones end in `…`); undefined stays undefined. */
export function jsonText(value: unknown, max: number): string | undefined {
  if (value === undefined) return undefined;
  let json: string | undefined;
  try {
    json = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) return undefined;
  return json.length > max ? `${json.slice(0, max - 1)}…` : json;
}

/** Milliseconds since the epoch of an ISO 8601 time (NaN for a bad one). */
export function msOf(iso: string): number {
  return Date.parse(iso);
}
