import { basename } from 'node:path';

/** What `GRAPHMIND_HIDE_*` asks to keep out of the record. */
export interface HideSettings {
  /** `GRAPHMIND_HIDE_INPUTS`: request params and the server's arguments. */
  inputs: boolean;
  /** `GRAPHMIND_HIDE_TOOL_RESULTS`: results, and a failed result's text in its error. */
  toolResults: boolean;
}

/** The placeholder recorded instead of a hidden value. */
export const HIDDEN = '[hidden]';

function on(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Read the hide switches from the environment. */
export function hideSettings(env: NodeJS.ProcessEnv = process.env): HideSettings {
  return { inputs: on(env.GRAPHMIND_HIDE_INPUTS), toolResults: on(env.GRAPHMIND_HIDE_TOOL_RESULTS) };
}

/** An argument that names a file: it has a path separator or a file extension. */
function isPathLike(arg: string): boolean {
  if (arg.startsWith('-')) return false;
  return /[\\/]/.test(arg) || /^[^=:]+\.[A-Za-z0-9]{1,8}$/.test(arg);
}

/**
 * A command line with everything but the command's name and the file names
 * of path arguments removed: `node /home/me/srv/server.js --key=abc` becomes
 * `['node', 'server.js']`.
 */
export function redactCommandLine(command: string, args: readonly string[]): string[] {
  return [basename(command), ...args.filter(isPathLike).map((arg) => basename(arg))];
}
