/**
 * How the answer to a call is recorded, with the hide switches applied: one
 * rule for every integration (the proxy's frames, the adapter's handler
 * results and thrown errors, and answers injected in the debugger).
 *
 * @module
 */
import { recordable } from '../json/depth.js';
import { isObject } from '../json/is-object.js';
import type { InstanceError } from '../protocol/run-model.js';
import { HIDDEN, type HideSettings } from './hide.js';

/** What a failed tool result's error says when `GRAPHMIND_HIDE_TOOL_RESULTS` keeps its content out. */
export const HIDDEN_TOOL_ERROR = 'the tool reported an error (content hidden)';

/** What a JSON-RPC error answering a tool call is recorded as when `GRAPHMIND_HIDE_TOOL_RESULTS` keeps its words out. */
export const HIDDEN_RPC_ERROR = 'the server answered with a JSON-RPC error (message hidden)';

/** What a thrown error's message is recorded as when `GRAPHMIND_HIDE_TOOL_RESULTS` keeps a tool's words out. */
export const HIDDEN_THROWN_ERROR = 'the handler threw (message hidden)';

/** How an answer is recorded: an output, or an error (with the output that carried it, if any). */
export type AnswerRecord = { failed: false; output: unknown } | { failed: true; output?: unknown; error: InstanceError };

/** `GRAPHMIND_HIDE_TOOL_RESULTS` keeps what answers a call of `method` out of the record: it is a tool call. */
export function hidesResult(method: string | undefined, hide: HideSettings): boolean {
  return hide.toolResults && method === 'tools/call';
}

/**
 * The recorded error of a JSON-RPC error answer, from its `error` member;
 * with `hide`, only its code (as `hiddenRpcError` keeps of a held one).
 */
export function rpcError(rpc: { code?: unknown; message?: unknown; data?: unknown }, hide = false): InstanceError {
  const code = typeof rpc.code === 'number' ? rpc.code : undefined;
  return hide ? { name: 'JsonRpcError', message: HIDDEN_RPC_ERROR, code } : { name: 'JsonRpcError', message: String(rpc.message ?? 'error'), code, data: recordable(rpc.data) };
}

/** The text of a result's content blocks, for a failed tool's error message (at most 4,000 characters). */
export function contentText(result: Record<string, unknown>): string {
  const content = result.content;
  if (!Array.isArray(content)) return 'the tool reported an error';
  const texts = content.filter((block) => isObject(block) && typeof block.text === 'string').map((block) => (block as { text: string }).text);
  const text = texts.length > 0 ? texts.join('\n') : 'the tool reported an error';
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
}

/** True for a tool result that reports a failure (`isError: true`). */
export function isToolError(method: string | undefined, result: unknown): result is Record<string, unknown> {
  return method === 'tools/call' && isObject(result) && result.isError === true;
}

/**
 * A `result` answering a call of `method`: its output, or, for a tool
 * result with `isError`, a `ToolError` carrying the content's text. A
 * result nested deeper than a recorded value may is still an answer: its
 * output is the too-deep note (json/depth.ts).
 */
export function recordResult(method: string | undefined, result: unknown, hide: HideSettings): AnswerRecord {
  const hidden = hidesResult(method, hide);
  if (isToolError(method, result)) {
    return { failed: true, output: hidden ? HIDDEN : recordable(result), error: { name: 'ToolError', message: hidden ? HIDDEN_TOOL_ERROR : contentText(result) } };
  }
  return { failed: false, output: hidden ? HIDDEN : recordable(result) };
}

/**
 * An answer made in the debugger, recorded as a real one would be: a whole
 * frame with `error` is a JSON-RPC error, a whole frame with `result` is
 * recorded by its result, anything else (a lifted value, a replacement
 * notification) as it is, a tool result with `isError` as a tool error.
 */
export function recordInjected(method: string | undefined, value: unknown, hide: HideSettings): AnswerRecord {
  const whole = isObject(value) && 'jsonrpc' in value;
  if (whole && isObject(value.error)) return { failed: true, error: rpcError(value.error, hidesResult(method, hide)) };
  return recordResult(method, whole && 'result' in value ? value.result : value, hide);
}

/**
 * An error thrown by a handler (in process), as a `HandlerError`: the
 * thrown error's message, and in `data` its class name, numeric `code`,
 * `data` and stack. Anything thrown that is not an Error (a string,
 * `undefined`) is described instead.
 */
export function recordThrown(method: string | undefined, thrown: unknown, hide: HideSettings): InstanceError {
  const hidden = hidesResult(method, hide);
  if (thrown instanceof Error) {
    const { code, data } = thrown as Error & { code?: unknown; data?: unknown };
    const error: InstanceError = { name: 'HandlerError', message: hidden ? HIDDEN_THROWN_ERROR : thrown.message };
    if (typeof code === 'number') error.code = code;
    error.data = hidden ? { errorName: thrown.name } : { errorName: thrown.name, data: recordable(data), stack: thrown.stack };
    return error;
  }
  let described: string;
  try {
    described = typeof thrown === 'string' ? thrown : `a value that is not an Error was thrown: ${String(JSON.stringify(thrown) ?? thrown)}`;
  } catch {
    described = 'a value that is not an Error was thrown';
  }
  return { name: 'HandlerError', message: hidden ? HIDDEN_THROWN_ERROR : described, data: { errorName: typeof thrown } };
}
