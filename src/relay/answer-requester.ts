import type { Relay } from '../streams/create-relay.js';
import { idKey } from '../streams/exact-id.js';
import type { Frame } from '../streams/frame.js';
import { madeFrame } from '../streams/lifter.js';

/**
 * Answer a request on a stream relay here, instead of its receiver: the
 * request is forgotten (no answer of the receiver's is paired with it any
 * more), and `answer` goes back to the request's sender through the relay's
 * writer on that side. The one way the stdio proxy answers a requester (the
 * debugger's inject and abort, a server that is down or was restarted).
 */
export function answerRequester(relay: Relay, request: Frame, answer: Frame): void {
  const key = idKey(request);
  if (key !== undefined) relay.correlator.take(answer.direction, key);
  (answer.direction === 'server-to-client' ? relay.toClient : relay.toServer).send([answer]);
}

/** A JSON-RPC error answer to `request` (`code`, `message`), made to go back to its sender. */
export function errorAnswer(request: Frame, code: number, message: string): Frame {
  const back = request.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server';
  return madeFrame({ outcome: { kind: 'fail', code, message }, request, lift: {} }, back, request.seq);
}
