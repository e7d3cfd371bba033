import { AsyncLocalStorage } from 'node:async_hooks';
import type { RunningCall } from './running-call.js';

/**
 * What the adapter knows about the request being handled, carried through
 * the handler's async work: which call a `createMessage` issued from inside
 * it belongs to (it carries no request id of its own), and an answer the
 * debugger decided that must reach the client as a JSON-RPC error although
 * the SDK would turn a thrown error into a tool result.
 */
export interface RequestScope {
  /** The gated call running in this request, once its handler was entered. */
  call: RunningCall | undefined;
  /** An error to answer the request with, whatever the handler's result became. */
  escape: Error | undefined;
  /**
   * Made by the SDK's dispatch of the request (see `inScope`): the answer the
   * client gets is known only once the SDK's own handler around the call has
   * settled (it validates the call's result, and may turn it into an error).
   */
  dispatch: boolean;
  /**
   * Set by the call when it has its answer, called by the dispatch with what
   * the SDK finally answered (`undefined`: nothing to add), so that the run
   * records what the client got.
   */
  settled: ((final: FinalAnswer | undefined) => void) | undefined;
}

/** What the SDK's handler for the request finally did: returned `value`, or threw it. */
export interface FinalAnswer {
  threw: boolean;
  value: unknown;
}

/**
 * The request scope of the code running now (see {@link RequestScope}),
 * carried through async work. Used only once a handler has called the
 * server's `createMessage` directly (see {@link ScopeTracking.async}): on
 * Node 20 async context puts a hook on every promise the process makes,
 * about a quarter of what the adapter cost per call.
 */
export const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * Scopes by the SDK's context object of their request (`extra` in 1.x,
 * `ctx` in 2.x): the SDK hands the same object to its dispatch and to the
 * handler, which is how a handler finds its request's scope without async
 * context.
 */
export const scopeOfContext = new WeakMap<object, RequestScope>();

/** A fresh scope for one request (`dispatch`: made by the SDK's dispatch of it, see {@link RequestScope.dispatch}). */
export function newScope(dispatch = false): RequestScope {
  return { call: undefined, escape: undefined, dispatch, settled: undefined };
}

/** Tell the call of `scope` what the SDK finally answered (once); never throws. */
export function settleScope(scope: RequestScope, final: FinalAnswer | undefined): void {
  const settled = scope.settled;
  if (settled === undefined) return;
  scope.settled = undefined;
  try {
    settled(final);
  } catch {
    // Observation is best-effort.
  }
}

/**
 * How one adapter finds the request that code runs in, beyond the SDK's
 * context object: async context (off until it is needed), and the
 * sampling requests the adapter is sending itself.
 */
export class ScopeTracking {
  #async = false;
  #samplingDepth = 0;

  /**
   * Request scopes are carried through async context ({@link requestScope}):
   * off until a handler calls the server's `createMessage` directly, the one
   * thing that needs it (it names no request). Until then a handler finds
   * its request through the SDK's context object ({@link scopeOfContext}).
   */
  get async(): boolean {
    return this.#async;
  }

  /** Carry request scopes through async context from now on. */
  startAsync(): void {
    this.#async = true;
  }

  /** The scope of the code running now, by async context (none while that is off). */
  current(): RequestScope | undefined {
    return this.#async ? requestScope.getStore() : undefined;
  }

  /** Inside the synchronous start of a sampling request the adapter sends itself: a nested `createMessage` is that request. */
  get inSampling(): boolean {
    return this.#samplingDepth > 0;
  }

  /** Start a sampling request the adapter sends (see {@link ScopeTracking.inSampling}). */
  sending<T>(send: () => T): T {
    this.#samplingDepth++;
    try {
      return send();
    } finally {
      this.#samplingDepth--;
    }
  }
}
