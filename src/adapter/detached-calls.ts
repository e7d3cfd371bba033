import { recordResult, recordThrown, type AnswerRecord } from '../report/answer-record.js';
import type { HideSettings } from '../report/hide.js';
import type { AdapterStats } from './adapter-stats.js';
import { CallRun, type RunHost } from './call-run.js';
import { callShape } from './call-shape.js';
import { requestIdOf, sessionIdOf, type HandlerContext } from './sdk-shape.js';
import type { CallSite, ServerState } from './server-state.js';

/**
 * The most calls kept while no debugger is attached (the newest), replayed
 * as runs when one attaches. Few on purpose: what a ring keeps alive costs
 * every call the garbage collector's time (with 256 kept, a detached tool
 * call cost about 10% more than an unwrapped one; with 16, a few percent).
 */
export const MAX_DETACHED_CALLS = 16;

/** What {@link DetachedCalls} needs of the adapter to replay calls as runs. */
export interface DetachedHost extends RunHost {
  /** Counts `errors` (and `runs`); `calls` names a call with no request id. */
  readonly stats: Pick<AdapterStats, 'runs' | 'calls' | 'errors'>;
  /** The hide switches, applied to the recorded answers. */
  readonly hide: HideSettings;
  /** An input as the record keeps it (hidden under `GRAPHMIND_HIDE_INPUTS`). */
  recordedInput(input: unknown): unknown;
}

/** Where the fast path notes its calls: the count of calls, and the keeper of calls made while detached. */
export interface DetachedSink {
  /** Counts `calls`. */
  readonly stats: Pick<AdapterStats, 'calls'>;
  /** A call made on the fast path has settled. */
  noteDetached(call: DetachedCall): void;
}

/** A call made while no debugger was attached: what its run will say, kept until one attaches. */
export interface DetachedCall {
  state: ServerState;
  site: CallSite;
  /** The handler's arguments (read only when the run is made: nothing is worked out on the fast path). */
  args: unknown[];
  /** What the arguments mean, when the caller already knew (a low-level handler's, read from the request). */
  shape: { context: HandlerContext | undefined; input: unknown } | undefined;
  connection: string;
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
 * references to its arguments and answer (no copy, no event, no run id). When a
 * debugger attaches, {@link DetachedCalls.replay} turns them into the runs
 * they would have been, in order. Older calls are counted as lost.
 */
export class DetachedCalls {
  readonly #host: DetachedHost;
  readonly #ring: Array<DetachedCall | undefined> = new Array<DetachedCall | undefined>(MAX_DETACHED_CALLS).fill(undefined);
  #head = 0;
  #count = 0;
  /** Calls pushed out of the ring since the last replay. */
  lost = 0;

  /** `host`: what a replayed call's run goes out through. */
  constructor(host: DetachedHost) {
    this.#host = host;
  }

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
        replayOne(this.#host, call);
      } catch {
        // Observation is best-effort.
      }
    }
  }
}

function replayOne(host: DetachedHost, call: DetachedCall): void {
  const { state, site } = call;
  const { context, input } = call.shape ?? callShape(site, call.args);
  const requestId = requestIdOf(context);
  const instanceId = `${call.connection}:${requestId ?? `call${host.stats.calls}`}`;
  const run = new CallRun(
    host,
    state,
    `${site.method}:${site.node.label}`,
    { connection: call.connection, sessionId: sessionIdOf(context) },
    { instanceId, node: site.node, input: host.recordedInput(input), requestId },
    call.startedAt,
  );
  const answer: AnswerRecord = call.threw
    ? { failed: true, error: recordThrown(site.method, call.value, host.hide) }
    : recordResult(site.method, call.value, host.hide);
  if (answer.failed) host.stats.errors++;
  run.complete(answer, call.endedAt);
}

/**
 * Run a handler on the fast path (see {@link DetachedCalls}): as unwrapped,
 * its answer or its error untouched, the call noted when it settles.
 */
export function detachedCall(
  sink: DetachedSink,
  state: ServerState,
  site: CallSite,
  handler: (...args: unknown[]) => unknown,
  thisArg: unknown,
  args: unknown[],
  shape?: { context: HandlerContext | undefined; input: unknown },
): unknown {
  sink.stats.calls++;
  const call: DetachedCall = { state, site, args, shape, connection: state.connection, startedAt: Date.now(), endedAt: 0, threw: false, value: undefined };
  let result: unknown;
  try {
    result = handler.apply(thisArg, args);
  } catch (error) {
    settle(sink, call, true, error);
    throw error;
  }
  if (result === null || typeof result !== 'object' || typeof (result as { then?: unknown }).then !== 'function') {
    settle(sink, call, false, result);
    return result;
  }
  // Noted on the side: the caller gets the handler's own promise, with no extra turn before it settles.
  (result as Promise<unknown>).then(
    (value) => settle(sink, call, false, value),
    (error: unknown) => settle(sink, call, true, error),
  );
  return result;
}

function settle(sink: DetachedSink, call: DetachedCall, threw: boolean, value: unknown): void {
  call.endedAt = Date.now();
  call.threw = threw;
  call.value = value;
  sink.noteDetached(call);
}
