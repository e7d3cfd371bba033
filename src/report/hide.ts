import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { recordable } from '../json/depth.js';
import { setOwn } from '../json/set-own.js';

/** What `GRAPHMIND_HIDE_*` asks to keep out of the record. */
export interface HideSettings {
  /** `GRAPHMIND_HIDE_INPUTS`: request params and the server's arguments. */
  inputs: boolean;
  /**
   * `GRAPHMIND_HIDE_TOOL_RESULTS`: a tool call's result, a failed result's
   * text in its error, and the message and data of a JSON-RPC error that
   * answers a tool call (its code stays).
   */
  toolResults: boolean;
}

/** The placeholder recorded instead of a hidden value. */
export const HIDDEN = '[hidden]';

/**
 * Whether an on/off environment switch is on: set, and not empty, `0` or
 * `false` (any case).
 */
export function switchOn(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Read the hide switches from the environment. */
export function hideSettings(env: NodeJS.ProcessEnv = process.env): HideSettings {
  return { inputs: switchOn(env.GRAPHMIND_HIDE_INPUTS), toolResults: switchOn(env.GRAPHMIND_HIDE_TOOL_RESULTS) };
}

/**
 * A JSON-RPC `error` member as `GRAPHMIND_HIDE_TOOL_RESULTS` lets it be
 * recorded: its numeric code, and the placeholder for its message. Its
 * message and data are the server's words about the call, and may quote
 * what the tool was working on.
 */
export function hiddenRpcError(error: unknown): { code?: number; message: string } {
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? { code, message: HIDDEN } : { message: HIDDEN };
}

/**
 * An argument that names a file: one with a path separator, or a bare
 * `name.ext` that is a file or directory here (the server is started in
 * this directory). Looks like `example.com`, `3.14` or `sk-abc.def` are
 * not kept unless such a file exists.
 */
function isPathLike(arg: string, exists: (path: string) => boolean): boolean {
  if (arg.startsWith('-')) return false;
  if (/[\\/]/.test(arg)) return true;
  return /^[^=:]+\.[A-Za-z0-9]{1,8}$/.test(arg) && exists(arg);
}

/**
 * A command line with everything but the command's name and the file names
 * of path arguments removed: `node /home/me/srv/server.js --key=abc` becomes
 * `['node', 'server.js']`, and `python3 server.py example.com` becomes
 * `['python3', 'server.py']` where `server.py` is a file in the current
 * directory. `exists` says whether a bare name is a file (default: looked
 * up relative to the current directory).
 */
export function redactCommandLine(command: string, args: readonly string[], exists: (path: string) => boolean = existsSync): string[] {
  return [basename(command), ...args.filter((arg) => isPathLike(arg, exists)).map((arg) => basename(arg))];
}

/**
 * A held message as the hold reports it, with what the hide switches keep
 * out of the record replaced by the placeholder, as the recorders do for
 * the same call: a call's `params` under `GRAPHMIND_HIDE_INPUTS`; a tool
 * call's `result`, and the words of a JSON-RPC error answering one, under
 * `GRAPHMIND_HIDE_TOOL_RESULTS`. `message` is undefined when the held bytes
 * could not be parsed: `unparsed` is shown then, unless it would be hidden.
 * `isCall`: a request or notification (else an answer to a call of `method`).
 * A member nested deeper than a recorded value may (a deep `result`, say)
 * is shown as the too-deep note; the frame itself goes on as it came.
 */
export function heldMessage(message: Record<string, unknown> | undefined, isCall: boolean, method: string | undefined, hide: HideSettings, unparsed: () => unknown): unknown {
  const hidden = isCall
    ? hide.inputs && (message === undefined || 'params' in message)
    : hide.toolResults && method === 'tools/call' && (message === undefined || 'result' in message || 'error' in message);
  if (!hidden) return message === undefined ? unparsed() : recordableMembers(message);
  if (message === undefined) return HIDDEN;
  if (isCall) return recordableMembers({ ...message, params: HIDDEN });
  // A buggy answer may carry both: each is hidden, as the record hides them.
  const shown: Record<string, unknown> = recordableMembers({ ...message });
  if ('result' in message) shown.result = HIDDEN;
  if ('error' in message) shown.error = hiddenRpcError(message.error);
  return shown;
}

/**
 * `message` with each member that nests deeper than a recorded value may
 * replaced by the too-deep note (json/depth.ts): `message` itself when none
 * does, as nearly always.
 */
function recordableMembers(message: Record<string, unknown>): Record<string, unknown> {
  let shown = message;
  for (const key of Object.keys(message)) {
    const value = message[key];
    const kept = recordable(value);
    if (kept === value) continue;
    if (shown === message) shown = { ...message };
    setOwn(shown, key, kept);
  }
  return shown;
}
