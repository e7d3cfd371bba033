/**
 * How a session is named on the debugger: its label (the command line,
 * short), and the run it starts (label, source, input and metadata). Pure
 * functions: the process's working directory and pid are arguments.
 *
 * @module
 */

import { basename } from 'node:path';
import { redactCommandLine, type HideSettings } from '../report/hide.js';

/**
 * Folder names that say nothing about which project a path is in: a path
 * that ends in one of them keeps one folder more in a session label.
 */
const GENERIC_FOLDERS = new Set(['dist', 'build', 'out', 'lib', 'src', 'bin', '.bin', 'esm', 'cjs', 'target', 'release', 'debug', 'node_modules', 'app', 'server', 'scripts']);

/** The longest session label; a longer one is cut with `…`. */
const MAX_LABEL = 120;

/**
 * A path argument as a session label shows it: its last two segments
 * (`/x/y/index.js` → `y/index.js`, `./server.js` → `server.js`), and a
 * segment more while the folder kept is a generic one
 * (`/x/proj/dist/index.js` → `proj/dist/index.js`), at most four.
 */
export function labelPath(path: string): string {
  const separator = path.includes('/') ? '/' : '\\';
  const parts = path.split(/[\\/]/).filter((part) => part !== '' && part !== '.');
  let keep = 2;
  while (keep < 4 && keep < parts.length && GENERIC_FOLDERS.has((parts[parts.length - keep] as string).toLowerCase())) keep++;
  return parts.slice(-keep).join(separator);
}

/**
 * A short label for the session: the command's name and its arguments,
 * a path argument shortened to its last segments ({@link labelPath}:
 * `node /x/y/index.js` and `node /a/b/index.js` stay two labels), flags
 * and URLs as they are. `redacted`: the command line as hidden inputs keep
 * it (`redactCommandLine`: the command's name and the file names of
 * path arguments), when they are hidden; it is used as it is.
 */
export function sessionLabel(command: string, args: readonly string[], redacted: readonly string[] | undefined): string {
  const words = redacted ?? [basename(command), ...args.map((arg) => (/[\\/]/.test(arg) && !arg.startsWith('-') && !arg.includes('://') ? labelPath(arg) : arg))];
  const label = words.join(' ');
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}

/** What names a session's run (see {@link sessionRun}). */
export interface SessionNaming {
  /** The server's command, when the relay spawned it. */
  command?: string;
  /** The command's arguments. @default [] */
  args?: readonly string[];
  /** The run's name when there is no command. @default 'relay' */
  name?: string;
  /** The run's source. @default 'mcp-proxy' with a command, else 'mcp-relay' */
  source?: string;
  /** What the record hides: hidden inputs keep the command line's names only, and no working directory. */
  hide: HideSettings;
}

/** The run a session starts, from {@link sessionRun}. */
export interface SessionRun {
  /** The run's name and its session node's label. */
  label: string;
  /** The run's source, as listed. */
  source: string;
  /** The session node's input: the command line, as hidden inputs keep it (none without a command). */
  input: { command: string; args: string[] } | undefined;
  /** The run's first metadata. */
  meta: Record<string, unknown>;
}

/**
 * The run a session is recorded as: with a command (the proxy), named after
 * the command line (as hidden inputs keep it: the command's name and the
 * file names of path arguments) with the command line, working directory
 * and `proxyPid` as metadata; without one, `name` and the `pid`.
 */
export function sessionRun(naming: SessionNaming, cwd: string, pid: number): SessionRun {
  if (naming.command === undefined) return { label: naming.name ?? 'relay', source: naming.source ?? 'mcp-relay', input: undefined, meta: { pid } };
  const args = naming.args ?? [];
  const redacted = naming.hide.inputs ? redactCommandLine(naming.command, args) : undefined;
  const commandLine = redacted !== undefined ? { command: redacted[0] as string, args: redacted.slice(1) } : { command: naming.command, args: [...args] };
  return {
    label: sessionLabel(naming.command, args, redacted),
    source: naming.source ?? 'mcp-proxy',
    input: commandLine,
    meta: { ...commandLine, cwd: naming.hide.inputs ? undefined : cwd, proxyPid: pid },
  };
}
