/**
 * Send again, on the stdio proxy: the debugger asks (a `send` message, after
 * `POST /api/runs/:runId/instances/:instanceId/send`) and the proxy writes
 * the request to the server that runs now, between the host's frames,
 * under an id of its own; records it as a new call marked `sentBy`; and
 * drops its answer before it reaches the host (see `RestartGate.sent`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { DebugSession } from '../relay/debug-session.js';
import { SENT_ID_PREFIX, sentRequestLine } from '../relay/sent-call.js';
import type { SendMessage } from '../report/server-message.js';
import { classify } from '../streams/classifier.js';
import type { Relay } from '../streams/create-relay.js';
import { idKey } from '../streams/exact-id.js';
import { newFrame, type Frame } from '../streams/frame.js';
import type { RestartGate } from './restart-gate.js';

// The rules of the proxy's own requests are shared with the HTTP proxy's Send again.
export { SENT_ID_PREFIX, sentRequestLine, withoutProgressToken } from '../relay/sent-call.js';

/** A request the debugger sent is answered here (the server is down, or was restarted under it): recorded only, nothing goes to the host. */
export function forgetSent(relay: Relay, request: Frame): void {
  const key = idKey(request);
  if (key !== undefined) relay.correlator.take('server-to-client', key);
}

/** What {@link startSendAgain} works with. */
export interface SendAgainOptions {
  /** The session reported to the debugger: its `send` messages, and the recorder of the calls sent. */
  report: DebugSession;
  /** The relay whose server side the requests are written to (switched over by restarts). */
  relay: Relay;
  /** The gate that drops the answers (and holds a request while a restart is under way). */
  gate: RestartGate;
}

/** Send the debugger's requests for this session's run (see the module). */
export function startSendAgain(o: SendAgainOptions): void {
  const tag = randomBytes(6).toString('hex');
  let count = 0;
  const write = (request: Frame): void => o.relay.toServer.writer.writeBytes(request.raw);
  o.report.reporter.on('send', (send: SendMessage) => {
    if (send.runId !== o.report.recorder.runId) return;
    const line = sentRequestLine(`${SENT_ID_PREFIX}${tag}-${++count}`, send.method, send.params);
    // Classified as the host's requests are, and tracked, so that its answer is paired with it.
    const request = classify(newFrame(line, 'client-to-server', 0, true), o.relay.correlator);
    if (request.type !== 'request') return;
    try {
      o.report.recorder.onSent(request, send.by);
    } catch {
      // Observation is best-effort; the request is still sent.
    }
    void o.gate.sendOwn(request, write);
  });
}
