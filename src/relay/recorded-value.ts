/**
 * What the recorder keeps of a frame's values: read lazily, when the event
 * that carries them is sent, from the frame (or only its bytes), and a note
 * instead of a value too large to record, or nested too deep (see
 * json/depth.ts). Pure functions, no state.
 *
 * @module
 */

import { recordable } from '../json/depth.js';
import { isObject } from '../json/is-object.js';
import { contentText } from '../report/answer-record.js';
import { DeferredValue, JsonSlice } from '../report/deferred.js';
import { messageOf, type Frame, type JsonRpcMessage } from '../streams/frame.js';

/**
 * Frames above this size are relayed in full but not recorded in full: the
 * record keeps a note of the size instead, so one huge result cannot bloat
 * the debugger or slow the relay.
 */
export const MAX_RECORDED_FRAME_BYTES = 1024 * 1024;

/** Bytes of a stdout-noise line kept as its input. */
export const NOISE_INPUT_BYTES = 200;

/**
 * Where a recorded field is read from when its event is sent: the frame
 * itself while a debugger is attached (the event goes out at once, and
 * shares the frame's parse with the gate), or only the frame's bytes while
 * none is (the event may wait in the buffer for a long time, and a frame
 * kept alive for it would cost the garbage collector more than its bytes).
 */
export type FrameSource = Frame | Buffer;

/** What a value recorded from `frame` reads from (see {@link FrameSource}). */
export function sourceOf(frame: Frame, attached: boolean): FrameSource {
  return attached || frame.message !== undefined ? frame : frame.raw;
}

/** The JSON-RPC message behind a {@link FrameSource}, as {@link messageOf} reads it. */
function messageFrom(source: FrameSource): JsonRpcMessage | undefined {
  if (!Buffer.isBuffer(source)) return messageOf(source);
  try {
    return JSON.parse(source.toString('utf8')) as JsonRpcMessage;
  } catch {
    return undefined;
  }
}

/** The `params` of a recorded frame's message (the too-deep note if it nests deeper than a recorded value may). */
export function paramsOf(source: FrameSource): unknown {
  const message = messageFrom(source);
  return message === undefined ? undefined : recordable(message.params);
}

/** The `result` of a recorded frame's message (the too-deep note if it nests deeper than a recorded value may). */
export function resultOf(source: FrameSource): unknown {
  const message = messageFrom(source);
  return message === undefined ? undefined : recordable(message.result);
}

/** A failed tool result's text. */
export function toolErrorText(source: FrameSource): string {
  const result = messageFrom(source)?.result;
  return isObject(result) ? contentText(result) : 'the tool reported an error';
}

/**
 * What is recorded for one field of `frame`'s message (`read` picks it from
 * `source`, the frame or its bytes): parsed only when the event is sent, or
 * a note instead when the line is too large. {@link recordedBytes} is what
 * it holds on to.
 */
export function recorded(frame: Frame, source: FrameSource, read: (source: FrameSource) => unknown): unknown {
  // `size`, not `raw.length`: of a long line relayed in pieces only the head may have been kept.
  const size = frame.size;
  if (size > MAX_RECORDED_FRAME_BYTES) return { '[graphmind]': 'not recorded: the frame is larger than 1 MiB', bytes: size };
  // The classifier found where the value is: its bytes go out as they are (once checked).
  if (frame.payloadStart !== -1) return new JsonSlice(frame.raw.length, read, source, frame.raw, frame.payloadStart, frame.payloadEnd);
  return new DeferredValue(frame.raw.length, read, source);
}

/** The bytes a value from {@link recorded} holds on to. */
export function recordedBytes(frame: Frame): number {
  return frame.size > MAX_RECORDED_FRAME_BYTES ? 0 : frame.raw.length;
}

/**
 * A stdout-noise line as its execution's input: its text without the line
 * end, cut to {@link NOISE_INPUT_BYTES} on a character boundary (a split
 * UTF-8 sequence would decode to U+FFFD, 3 bytes, and push it past its bound).
 */
export function noiseText(raw: Buffer): string {
  let end = raw.length;
  while (end > 0 && (raw[end - 1] === 0x0a || raw[end - 1] === 0x0d)) end--;
  let cut = Math.min(end, NOISE_INPUT_BYTES);
  if (cut < end) while (cut > 0 && ((raw[cut] as number) & 0xc0) === 0x80) cut--;
  return raw.subarray(0, cut).toString('utf8');
}
