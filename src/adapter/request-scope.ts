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
  /** Inside a sampling gate: a nested send is the same request, not a new one. */
  sampling: boolean;
}

/** The request scope of the code running now (see {@link RequestScope}). */
export const requestScope = new AsyncLocalStorage<RequestScope>();

/** A fresh scope for one request. */
export function newScope(): RequestScope {
  return { call: undefined, escape: undefined, sampling: false };
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
