/**
 * The record of a call the debugger sent to the server itself (Send
 * again): a new call of the session, its `instance.started` marked
 * `sentBy`. Its answer comes through the relay and ends it as any call's
 * does (the call waits among the session's open calls); the proxy keeps
 * that answer from the host. With the rules of the request itself (its
 * own id, no progress token), shared by the stdio and the HTTP proxies.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { HIDDEN, type HideSettings } from '../report/hide.js';
import { declared } from '../report/node-declaration.js';
import type { RunEventSink } from '../report/run-events.js';
import { messageOf, type Frame } from '../streams/frame.js';
import type { OpenCalls } from './open-calls.js';

/** Where {@link recordSent} records. */
export interface SentCallRecord {
  /** Where the event goes (the reporter). */
  sink: RunEventSink;
  /** The session's run. */
  runId: string;
  /** The session's instance ids (`mcp_1`, `mcp_2`, …): the call takes the next. */
  ids: { nextId(): string };
  /** The calls awaiting answers, which the recorder of the session's frames ends when an answer comes. */
  open: OpenCalls;
  /** What the record hides: hidden inputs keep the params out, as for any call. */
  hide: HideSettings;
}

/**
 * Record `request` (a classified request frame the proxy made) as a new
 * call sent by `sentBy`: its instance id is set on the frame, and it waits
 * for its answer among the session's open calls. Not counted in the
 * protocol card's totals, which are the host's traffic.
 */
export function recordSent(record: SentCallRecord, request: Frame, sentBy: string): void {
  const node = request.node;
  if (node === undefined || request.type !== 'request') return;
  const instanceId = record.ids.nextId();
  request.instanceId = instanceId;
  const { sink, runId } = record;
  const input = record.hide.inputs ? HIDDEN : messageOf(request)?.params;
  // A plain event rather than the relay's template: it is rare, and carries `sentBy`.
  const event = { type: 'instance.started' as const, instanceId, node: declared(node), input, requestId: request.id ?? undefined, sentBy, runId, seq: sink.nextSeq(runId), t: request.at };
  sink.sendComplete(runId, event, 0);
  record.open.add(request);
}

/**
 * How the proxy's own request ids begin. The rest is random per session
 * and then counts (`graphmind-send-3f9a0c1b7e22-1`): a host's ids (numbers,
 * or strings of its own) cannot take it, so no answer meant for the host
 * is ever taken for ours, or ours for the host's.
 */
export const SENT_ID_PREFIX = 'graphmind-send-';

/**
 * `params` without `_meta.progressToken`: a token belongs to the host's
 * request it came with, and the server's progress notifications about it
 * would go to the host, which no longer waits for that request.
 */
export function withoutProgressToken(params: unknown): unknown {
  if (!isObject(params) || !isObject(params._meta) || !('progressToken' in params._meta)) return params;
  const { progressToken: _token, ...meta } = params._meta;
  const { _meta: _dropped, ...rest } = params;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

/** The line of a request the proxy sends: JSON-RPC 2.0, its own `id`, the method, and the params (none when undefined). */
export function sentRequestLine(id: string, method: string, params: unknown): Buffer {
  const message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
  const sent = withoutProgressToken(params);
  if (sent !== undefined) message.params = sent;
  return Buffer.from(`${JSON.stringify(message)}\n`);
}
