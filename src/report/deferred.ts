/**
 * A value whose JSON is computed only when it is sent. Reporters record
 * frames as they pass; parsing each frame right away would put a full
 * `JSON.parse` on the relay's hot path even when nobody is watching. A
 * deferred value keeps a reference instead and is parsed by
 * `JSON.stringify` (through `toJSON`) when the event actually goes out.
 */
export class DeferredValue {
  /** Approximate memory the value holds on to, for the reporter's buffer bound. */
  readonly bytes: number;
  readonly #compute: () => unknown;

  constructor(bytes: number, compute: () => unknown) {
    this.bytes = bytes;
    this.#compute = compute;
  }

  /** Called by `JSON.stringify`. */
  toJSON(): unknown {
    try {
      return this.#compute();
    } catch {
      return '[graphmind: value could not be recorded]';
    }
  }
}

/** Bytes held by the deferred values directly inside an event's fields. */
export function deferredBytes(event: object): number {
  let bytes = 0;
  for (const value of Object.values(event)) {
    if (value instanceof DeferredValue) bytes += value.bytes;
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner of Object.values(value as Record<string, unknown>)) if (inner instanceof DeferredValue) bytes += inner.bytes;
    }
  }
  return bytes;
}
