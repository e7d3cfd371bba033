/**
 * The record of a call the debugger sent to the server itself (Send
 * again): a new call of the session, its `instance.started` marked
 * `sentBy`. Its answer comes through the relay and ends it as any call's
 * does (the call waits among the session's open calls); the proxy keeps
 * that answer from the host.
 *
 * @module
 */
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
