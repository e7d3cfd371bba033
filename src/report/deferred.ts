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
