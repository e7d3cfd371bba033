import { AsyncLocalStorage } from 'node:async_hooks';
import type { GatedCall } from './gated-call.js';

/**
 * What the adapter knows about the request being handled, carried through
 * the handler's async work: which call a `createMessage` issued from inside
 * it belongs to (it carries no request id of its own), and an answer the
 * debugger decided that must reach the client as a JSON-RPC error although
 * the SDK would turn a thrown error into a tool result.
 */
export interface RequestScope {
  /** The gated call running in this request, once its handler was entered. */
  call: GatedCall | undefined;
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
 * server's `createMessage` directly (see `AdapterRuntime.trackAsync`): on
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
 * An answer decided in the debugger that the client must receive as a
 * JSON-RPC error: the SDKs answer a thrown error with its numeric `code`,
 * `message` and `data`.
 */
export class DebuggerAnswer extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'DebuggerAnswer';
    this.code = code;
    this.data = data;
  }
}
