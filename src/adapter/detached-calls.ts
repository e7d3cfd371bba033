import { recordResult, recordThrown, type AnswerRecord } from '../report/answer-record.js';
import { CallRun } from './call-run.js';
import type { CallSite, ServerState } from './server-state.js';

/** The most calls kept while no debugger is attached (the newest), replayed as runs when one attaches. */
export const MAX_DETACHED_CALLS = 256;

/** A call made while no debugger was attached: what its run will say, kept until one attaches. */
interface DetachedCall {
  state: ServerState;
  site: CallSite;
  input: unknown;
  requestId: string | number | undefined;
  connection: string;
  sessionId: string | undefined;
  startedAt: number;
  endedAt: number;
  threw: boolean;
  /** The result, or what was thrown. */
  value: unknown;
}

/**
 * The fast path of a handler while no debugger is attached: nothing can
 * hold, so the handler runs as it would unwrapped, and the adapter only
 * notes the call in a ring of the newest {@link MAX_DETACHED_CALLS}, with
 * references to its input and answer (no copy, no event, no run id). When a
 * debugger attaches, {@link DetachedCalls.replay} turns them into the runs
 * they would have been, in order. Older calls are counted as lost.
 */
export class DetachedCalls {
  readonly #ring: Array<DetachedCall | undefined> = new Array<DetachedCall | undefined>(MAX_DETACHED_CALLS).fill(undefined);
  #head = 0;
  #count = 0;
  /** Calls pushed out of the ring since the last replay. */
  lost = 0;

  /** Calls waiting for a debugger. */
  get size(): number {
    return this.#count;
  }

  /** Keep a finished call. */
  push(call: DetachedCall): void {
    const ring = this.#ring;
    if (this.#count === ring.length) {
      ring[this.#head] = undefined;
      this.#head = (this.#head + 1) % ring.length;
      this.#count--;
      this.lost++;
    }
    ring[(this.#head + this.#count) % ring.length] = call;
    this.#count++;
  }

  /** Record every kept call as its run, oldest first, and forget them. */
  replay(): void {
    const ring = this.#ring;
    while (this.#count > 0) {
      const call = ring[this.#head] as DetachedCall;
      ring[this.#head] = undefined;
      this.#head = (this.#head + 1) % ring.length;
      this.#count--;
      try {
        replayOne(call);
      } catch {
        // Observation is best-effort.
      }
    }
  }
}

function replayOne(call: DetachedCall): void {
  const { state, site } = call;
  const runtime = state.runtime;
  const instanceId = `${call.connection}:${call.requestId ?? `call${runtime.stats.calls}`}`;
  const run = new CallRun(
    runtime,
    state,
    `${site.method}:${site.node.label}`,
    { connection: call.connection, sessionId: call.sessionId },
    { instanceId, node: site.node, input: runtime.recordedInput(call.input) },
    call.startedAt,
  );
  const answer: AnswerRecord = call.threw
    ? { failed: true, error: recordThrown(site.method, call.value, runtime.hide) }
    : recordResult(site.method, call.value, runtime.hide);
  if (answer.failed) runtime.stats.errors++;
  run.complete(answer, call.endedAt);
}

/**
 * Run a handler on the fast path (see {@link DetachedCalls}): as unwrapped,
 * its answer or its error untouched, the call noted when it settles.
 */
export function detachedCall(
  state: ServerState,
  site: CallSite,
  input: unknown,
  requestId: string | number | undefined,
  sessionId: string | undefined,
  handler: (...args: unknown[]) => unknown,
  thisArg: unknown,
  args: unknown[],
): unknown {
  const runtime = state.runtime;
  runtime.stats.calls++;
  const startedAt = Date.now();
  const note = (threw: boolean, value: unknown): void => {
    runtime.noteDetached({ state, site, input, requestId, connection: state.connection, sessionId, startedAt, endedAt: Date.now(), threw, value });
  };
  let result: unknown;
  try {
    result = handler.apply(thisArg, args);
  } catch (error) {
    note(true, error);
    throw error;
  }
  if (result === null || typeof result !== 'object' || typeof (result as { then?: unknown }).then !== 'function') {
    note(false, result);
    return result;
  }
  // Noted on the side: the caller gets the handler's own promise, with no extra turn before it settles.
  (result as Promise<unknown>).then(
    (value) => note(false, value),
    (error: unknown) => note(true, error),
  );
  return result;
}

export type { DetachedCall };
