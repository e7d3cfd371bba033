/**
 * A time limit for synchronous work that user input steers: a regular
 * expression can backtrack for minutes on one line, and JavaScript cannot
 * interrupt a synchronous call from outside. `vm`'s `timeout` can (V8
 * terminates the running script, calls back into this realm included).
 *
 * @module
 */
import { runInNewContext } from 'node:vm';
import { ToolError } from './tool-error.js';

/**
 * Run `work` and return its result, or throw a `search-timeout`
 * {@link ToolError} once it has run for `timeoutMs`.
 */
export function withTimeLimit<T>(work: () => T, timeoutMs: number, what: string): T {
  const box: { work: () => T; result?: T } = { work };
  try {
    runInNewContext('result = work()', box, { timeout: timeoutMs });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new ToolError('search-timeout', `${what} took longer than ${timeoutMs} ms and was stopped: use a simpler pattern`);
    }
    throw error;
  }
  return box.result as T;
}
