// The `mcp-proxy` flags without yargs. An MCP host starts one proxy per
// server and passes the same few flags every time; loading yargs for them
// costs about 13 MiB of memory and a slower start. This module reads the
// plain forms of those flags and answers "not mine" for everything else, so
// that yargs still handles help, version, odd forms and every error message.
import { DEFAULT_MAX_FRAME_BYTES } from '../streams/line-framer.js';
import { portFlagProblem } from './debugger-port.js';

/** Exit code for a usage problem (no command, a bad flag value). */
export const EXIT_USAGE = 2;

/** Parsed `mcp-proxy` flags. */
export interface ProxyFlags {
  trace: boolean;
  'wait-for-attach': boolean;
  'inherit-stderr': boolean;
  'max-frame-bytes': number;
  /** Undefined when not given: the reporter's rule decides (GRAPHMIND_URL, else 4747; see debugger-port.ts). */
  port?: number;
  /** Where the debugger's token is (`graphmind serve --data-dir`); undefined: GRAPHMIND_DATA_DIR, else ~/.graphmind. */
  'data-dir': string | undefined;
  /** Files and folders whose change restarts the server, comma-separated; undefined: none. */
  watch: string | undefined;
  /** A surface file (`graphmind surface -o`): list answers are compared with it for live drift; undefined: with the session's first answers. */
  lock?: string;
}

/** The value of each `mcp-proxy` flag when it is not given (used by both parsers). */
export const PROXY_FLAG_DEFAULTS: Readonly<ProxyFlags> = Object.freeze({
  trace: false,
  'wait-for-attach': false,
  'inherit-stderr': false,
  'max-frame-bytes': DEFAULT_MAX_FRAME_BYTES,
  port: undefined,
  'data-dir': undefined,
  watch: undefined,
  lock: undefined,
});

/**
 * What is wrong with parsed `mcp-proxy` flag values, in one line without the
 * `graphmind mcp-proxy: ` prefix, or `undefined` when they are fine. Both the
 * yargs parser and {@link parseProxyFlags} use it, so the messages match.
 */
export function proxyFlagsProblem(flags: Pick<ProxyFlags, 'max-frame-bytes' | 'port'> & { 'data-dir'?: string; watch?: string; lock?: string }): string | undefined {
  if (flags['data-dir'] === '') return '--data-dir must name a directory';
  if (flags.lock === '') return '--lock must name a surface file';
  if (flags.watch !== undefined && watchList(flags.watch).length === 0) return '--watch must name a file or folder';
  const size = flags['max-frame-bytes'];
  if (!Number.isSafeInteger(size) || size < 1) return '--max-frame-bytes must be a positive whole number of bytes';
  return portFlagProblem(flags.port);
}

type BooleanFlag = 'trace' | 'wait-for-attach' | 'inherit-stderr';
type NumberFlag = 'max-frame-bytes' | 'port';
const isBooleanFlag = (name: string): name is BooleanFlag =>
  name === 'trace' || name === 'wait-for-attach' || name === 'inherit-stderr';
const isNumberFlag = (name: string): name is NumberFlag => name === 'max-frame-bytes' || name === 'port';
const DIGITS = /^[0-9]+$/;

/** The result of {@link parseProxyFlags} when it understood every argument. */
export interface ParsedProxyFlags {
  /** The flag values, defaults filled in. */
  flags: ProxyFlags;
  /** What is wrong with them (see {@link proxyFlagsProblem}), or `undefined`. */
  problem: string | undefined;
}

/**
 * Read the proxy's own arguments (those before the server command) without
 * yargs. It knows only the forms a host config uses: `--trace`,
 * `--no-trace` (and the same for `--wait-for-attach` and `--inherit-stderr`),
 * `--port 4748`, `--port=4748` (and the same for `--max-frame-bytes`), with
 * a value made of digits only, `--data-dir <dir>`, `--data-dir=<dir>` (and
 * the same for `--watch` and `--lock`) with a value that does not start with `-`, and
 * each flag at most once.
 *
 * Anything else (help, version, an unknown or camelCase flag, a missing or
 * unusual value, a repeated flag, a positional argument) gives `undefined`:
 * the caller then parses with yargs, which produces exactly the values or
 * messages it always has. For the forms read here the values are the ones
 * yargs gives.
 */
export function parseProxyFlags(args: readonly string[]): ParsedProxyFlags | undefined {
  const flags: ProxyFlags = { ...PROXY_FLAG_DEFAULTS };
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) return undefined;
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    const negated = name.startsWith('no-') ? name.slice(3) : '';
    if (equals === -1 && isBooleanFlag(name) && !seen.has(name)) {
      seen.add(name);
      flags[name] = true;
    } else if (equals === -1 && isBooleanFlag(negated) && !seen.has(negated)) {
      seen.add(negated);
      flags[negated] = false;
    } else if ((name === 'data-dir' || name === 'watch' || name === 'lock') && !seen.has(name)) {
      seen.add(name);
      const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
      if (value === undefined || value === '' || value.startsWith('-')) return undefined;
      flags[name] = value;
    } else if (isNumberFlag(name) && !seen.has(name)) {
      seen.add(name);
      const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
      if (value === undefined || !DIGITS.test(value)) return undefined;
      flags[name] = Number(value);
    } else {
      return undefined;
    }
  }
  return { flags, problem: proxyFlagsProblem(flags) };
}

/** The paths a `--watch` value names: comma-separated, blanks dropped. */
export function watchList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '');
}
