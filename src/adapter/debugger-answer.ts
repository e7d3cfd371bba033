import { ABORT_CODE, ABORT_MESSAGE } from '../gates/outcome.js';

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

/** The error a request aborted in the debugger ends with (the proxy's -32099). */
export function abortError(): DebuggerAnswer {
  return new DebuggerAnswer(ABORT_CODE, ABORT_MESSAGE);
}
