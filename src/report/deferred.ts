import { RECORD_MAX_DEPTH, tooDeepNote } from '../json/depth.js';
import { NESTED_TOO_DEEP, STRICT, strictJson } from '../json/strict-json.js';

/**
 * A value whose JSON is computed only when it is sent. Reporters record
 * frames as they pass; parsing each frame right away would put a full
 * `JSON.parse` on the relay's hot path even when nobody is watching. A
 * deferred value keeps a reference instead and is parsed by
 * `JSON.stringify` (through `toJSON`) when the event actually goes out.
 *
 * `compute` is called with `source`: a caller that records many values
 * passes one shared function and the thing to read (a frame, say) rather
 * than a fresh closure per value.
 */
export class DeferredValue<S = unknown> {
  /** Approximate memory the value holds on to, for the reporter's buffer bound. */
  readonly bytes: number;
  readonly #compute: (source: S) => unknown;
  readonly #source: S;

  constructor(bytes: number, compute: (source: S) => unknown, source?: S) {
    this.bytes = bytes;
    this.#compute = compute;
    this.#source = source as S;
  }

  /** Called by `JSON.stringify`. */
  toJSON(): unknown {
    try {
      return this.#compute(this.#source);
    } catch {
      return '[graphmind: value could not be recorded]';
    }
  }
}

/** Bytes held by the deferred values of an event (in `input`, `output`, `frame` or `error.message`). */
export function deferredBytes(event: object): number {
  const e = event as { input?: unknown; output?: unknown; frame?: unknown; error?: { message?: unknown } };
  let bytes = 0;
  if (e.input instanceof DeferredValue) bytes += e.input.bytes;
  if (e.output instanceof DeferredValue) bytes += e.output.bytes;
  if (e.frame instanceof DeferredValue) bytes += e.frame.bytes;
  const message = e.error?.message;
  if (message instanceof DeferredValue) bytes += message.bytes;
  return bytes;
}

/**
 * A deferred value whose JSON text is already at hand: a range of a frame's
 * bytes (a request's `params`, say). {@link encodeBatch} copies those bytes
 * into the batch as they are, instead of parsing the frame and serialising
 * the value again, once it has checked that they are JSON that
 * `JSON.parse` accepts. Bytes that fail the check are parsed by `compute`,
 * like any deferred value. Invalid UTF-8 is decoded to U+FFFD either way,
 * as it is when the whole frame is parsed.
 */
export class JsonSlice<S = unknown> extends DeferredValue<S> {
  /** The bytes the value's JSON is in, from `start` to `end`. */
  readonly buf: Buffer;
  readonly start: number;
  readonly end: number;

  constructor(bytes: number, compute: (source: S) => unknown, source: S, buf: Buffer, start: number, end: number) {
    super(bytes, compute, source);
    this.buf = buf;
    this.start = start;
    this.end = end;
  }

  /**
   * True if the bytes are strictly valid JSON nested at most
   * `RECORD_MAX_DEPTH` deep (their UTF-8 is the writer's to check). False
   * for deeper ones too: those are recorded as the too-deep note (see
   * {@link JsonSlice.toJSON}), and never parsed.
   */
  isStrict(): boolean {
    return strictJson(this.buf, this.start, this.end, RECORD_MAX_DEPTH) === STRICT;
  }

  /**
   * Called by `JSON.stringify` (when the bytes could not be copied as they
   * are): the value parsed, or the too-deep note for bytes that nest deeper
   * than a recorded value may. The check stops at the first level past the
   * bound, so a deep value costs little to refuse.
   */
  override toJSON(): unknown {
    if (strictJson(this.buf, this.start, this.end, RECORD_MAX_DEPTH) === NESTED_TOO_DEEP) return tooDeepNote();
    return super.toJSON();
  }
}

/**
 * The JSON of a value made here with `JSON.stringify` and kept, to be
 * written again and again as it is (what every run of one connection
 * shares: its metadata, its root node): it needs none of the checks a
 * slice of a peer's frame does.
 */
export class KnownJson extends JsonSlice<undefined> {
  constructor(value: unknown) {
    const buf = Buffer.from(JSON.stringify(value) ?? 'null');
    super(0, () => value, undefined, buf, 0, buf.length);
  }

  override isStrict(): boolean {
    return true;
  }
}
