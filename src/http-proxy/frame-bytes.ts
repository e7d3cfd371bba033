/**
 * Between the bytes HTTP carries and the session's frames, as pure rules:
 * which SSE events carry a message to parse, and what bytes go on in place
 * of a held JSON body or SSE event once the debugger decided (the frames
 * `McpHttpSession.check` promised).
 *
 * A JSON body or an SSE event's data is one frame, its bytes as they came;
 * a frame made by a decision (an injected answer, the abort's error) is one
 * line of JSON.
 *
 * @module
 */
import type { Frame } from '../streams/frame.js';
import { madeBytes } from '../streams/made-frame.js';
import { droppedEventBytes, sseEventBytes, type SseEvent } from './sse.js';

/** The bytes of a frame that goes on: its own, or a made frame's (one line of JSON, without the newline). */
export function jsonOf(frame: Frame): Buffer {
  if (frame.made === undefined) return frame.raw;
  const bytes = madeBytes(frame.made);
  return bytes[bytes.length - 1] === 0x0a ? bytes.subarray(0, bytes.length - 1) : bytes;
}

/**
 * What goes on in place of a held body (a POST's, a JSON answer's):
 * `original` when the frame itself goes on, the first made frame's JSON,
 * or `undefined` (nothing: dropped, answered to its sender, or re-sent).
 */
export function outcomeBytes(frames: readonly Frame[], frame: Frame, original: Buffer): Buffer | undefined {
  if (frames.length === 0) return undefined;
  const next = frames[0] as Frame;
  return next === frame ? original : jsonOf(next);
}

/**
 * Does an SSE event carry a message to make a frame of? Not when it has
 * no data (a comment, a lone `id`, a priming event) or is larger than
 * `maxBytes` (relayed unread).
 */
export function eventIsMessage(event: SseEvent, maxBytes: number): boolean {
  const data = event.data;
  return data !== undefined && data !== '' && event.raw.length <= maxBytes;
}

/**
 * What goes on the stream in place of a held SSE event: its own bytes for
 * the frame itself, each made frame as an event with the held one's other
 * lines (`id`, `event`), and for nothing, the dropped event's stub (its
 * `id`, so the client's last event id moves past it) or nothing at all.
 */
export function eventOutcomeBytes(frames: readonly Frame[], frame: Frame, event: SseEvent): Buffer[] {
  if (frames.length === 0) {
    const stub = droppedEventBytes(event);
    return stub === undefined ? [] : [stub];
  }
  return frames.map((next) => (next === frame ? event.raw : sseEventBytes(jsonOf(next).toString('utf8'), event)));
}
