import type { Frame } from '../streams/frame.js';

/**
 * The two things a decision asks of the transport that carries the frames
 * (a stdio relay, an HTTP exchange): everything else a decision does is a
 * list of frames to pass on in place of the held one.
 */
export interface HoldWire {
  /**
   * A request held before it reached its receiver is answered here
   * (inject or abort): `answer`, a made frame travelling back towards the
   * request's sender, must reach it. The request itself is not forwarded.
   */
  answerSender(request: Frame, answer: Frame): void;
  /**
   * Retry: send `request` to its receiver again, the same bytes, so that a
   * new answer comes. False when it cannot be sent again (the held answer
   * then goes on, as after continue).
   */
  resend(request: Frame): boolean;
}
