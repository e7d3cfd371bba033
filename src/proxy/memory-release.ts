import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * 16 MiB: how much the proxy relays between two requests for a young-generation
 * garbage collection (see {@link MemoryRelease}).
 */
export const DEFAULT_RELEASE_EVERY_BYTES = 16 * 1024 * 1024;

type MinorCollection = (options: { type: 'minor' }) => void;

let collector: MinorCollection | null | undefined;

/**
 * V8's collector, obtained once: `--expose-gc` is switched on just long
 * enough to create one context that has `gc`, then off again, so nothing
 * else in the process sees it. Null if this V8 does not allow it.
 */
function minorCollection(): MinorCollection | null {
  if (collector !== undefined) return collector;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collector = typeof gc === 'function' ? (gc as MinorCollection) : null;
  } catch {
    collector = null;
  } finally {
    try {
      setFlagsFromString('--no-expose-gc');
    } catch {
      // Left on: it only concerns contexts created from now on.
    }
  }
  return collector;
}

/**
 * Gives the memory of relayed bytes back promptly.
 *
 * Every chunk read from a pipe is a fresh 64 KiB buffer outside the
 * JavaScript heap, garbage as soon as it has been written on. A relay
 * allocates almost nothing else, so V8's young generation fills slowly and
 * collects rarely, and those buffers pile up: a plain `pipe()` relaying
 * 1 MiB answers peaks about 37 MiB above its idle size. Asking for a
 * young-generation collection (a scavenge: it only visits what is still
 * alive, a few frames) after every `every` bytes keeps that pile bounded
 * by `every`.
 *
 * For a process that is a relay and nothing else (the proxy); a library
 * embedded in someone's program should leave their collector alone.
 */
export class MemoryRelease {
  readonly #every: number;
  readonly #collect: MinorCollection | null;
  #bytes = 0;

  constructor(every: number = DEFAULT_RELEASE_EVERY_BYTES) {
    this.#every = every;
    this.#collect = minorCollection();
  }

  /** Count `bytes` relayed; collects once `every` bytes have gone by since the last time. */
  relayed(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes < this.#every) return;
    this.#bytes = 0;
    try {
      this.#collect?.({ type: 'minor' });
    } catch {
      // Only memory is at stake, never the relay.
    }
  }
}
