/**
 * Copy as command: the shell lines that make one recorded call again
 * outside the host, with the MCP Inspector's CLI (against the server
 * itself, or against `graphmind replay` serving the recording). Pure, and
 * quoted for a POSIX shell by `shellWord`.
 *
 * @module
 */
import { shellWord } from './shell-word.js';

/** The Inspector's CLI, as its docs start it. */
const INSPECTOR = ['npx', '@modelcontextprotocol/inspector', '--cli'];

/** List methods the Inspector's CLI makes with no other flag. */
const LISTS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

/** What {@link callCommands} builds from. */
export interface CallCommandInput {
  /** The run the call is in (`graphmind replay <runId>` serves it). */
  runId: string;
  /** The call's method (see `hostRequestMethod`). */
  method: string;
  /** Its params, as recorded (or edited). */
  params: unknown;
  /** The server's command line as the run recorded it (`meta.command`, `meta.args`, `meta.cwd`); undefined when it has none. */
  server?: { command: string; args: readonly string[]; cwd?: string };
}

/** The lines, each ready to paste into a POSIX shell. */
export interface CallCommands {
  /** The call made by the Inspector's CLI against the server, started afresh from the run's command line. */
  inspector?: string;
  /** The same call answered from the recording: the Inspector's CLI against `graphmind replay <runId>`. */
  replayCall?: string;
  /** `graphmind replay <runId>`: the recorded server without the server, for any client. */
  replay: string;
  /** Why there is no Inspector line, when there is none (its flags cannot say these params, or the run has no command line). */
  why?: string;
}

type Words = string[];

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `key=value` for the Inspector's `--tool-arg`/`--prompt-args`, when it
 * reads back as the same string: it splits at the first `=`, refuses an
 * empty value, and parses a value that is JSON (`42`, `true`, `"x"`) as
 * JSON, so such a value needs the JSON form instead.
 */
function pairFor(key: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '' || key === '' || key.includes('=')) return undefined;
  try {
    JSON.parse(value);
    return undefined;
  } catch {
    return `${key}=${value}`;
  }
}

/** `flag k=v` for each argument, when every one reads back as the same string; undefined otherwise. */
function pairs(flag: string, args: Record<string, unknown>): Words | undefined {
  const words: Words = [];
  for (const [key, value] of Object.entries(args)) {
    const pair = pairFor(key, value);
    if (pair === undefined) return undefined;
    words.push(flag, pair);
  }
  return words;
}

/** Keys other than `allowed` and `_meta` (a progress token or a trace belongs to the host's session, not to the call). */
function extraKeys(params: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(params).some((key) => key !== '_meta' && !allowed.includes(key));
}

/** The Inspector's flags for `tools/call`. */
function toolFlags(params: Record<string, unknown>): Words | undefined {
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || name === '' || extraKeys(params, ['name', 'arguments'])) return undefined;
  const words = ['--method', 'tools/call', '--tool-name', name];
  if (args === undefined) return words;
  if (!isObject(args)) return undefined;
  // Plain strings as the readable key=value pairs; anything else exactly, as one JSON object.
  return [...words, ...(pairs('--tool-arg', args) ?? ['--tool-args-json', JSON.stringify(args)])];
}

/**
 * The Inspector's flags for the call, or undefined when they cannot say
 * it exactly (a method its CLI does not make, a param it has no flag for).
 */
export function inspectorFlags(method: string, params: unknown): Words | undefined {
  if (params !== undefined && !isObject(params)) return undefined;
  const p = params ?? {};
  if (LISTS.has(method)) return extraKeys(p, []) ? undefined : ['--method', method];
  switch (method) {
    case 'tools/call':
      return toolFlags(p);
    case 'resources/read':
      return typeof p.uri === 'string' && !extraKeys(p, ['uri']) ? ['--method', method, '--uri', p.uri] : undefined;
    case 'prompts/get': {
      if (typeof p.name !== 'string' || p.name === '' || extraKeys(p, ['name', 'arguments'])) return undefined;
      const words = ['--method', method, '--prompt-name', p.name];
      if (p.arguments === undefined) return words;
      const args = isObject(p.arguments) ? pairs('--prompt-args', p.arguments) : undefined;
      return args === undefined ? undefined : [...words, ...args];
    }
    case 'logging/setLevel':
      return typeof p.level === 'string' && !extraKeys(p, ['level']) ? ['--method', method, '--log-level', p.level] : undefined;
    default:
      return undefined;
  }
}

/** Words as one line for a POSIX shell. */
function line(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/**
 * The lines for one call (see {@link CallCommands}). The Inspector starts
 * the server afresh, so a call that depends on earlier calls of the
 * session may answer differently there than in the session.
 */
export function callCommands(input: CallCommandInput): CallCommands {
  const replay = ['graphmind', 'replay', input.runId];
  const out: CallCommands = { replay: line(replay) };
  const flags = inspectorFlags(input.method, input.params);
  if (flags === undefined) {
    out.why = `the Inspector's CLI has no flags that say this ${input.method} call exactly`;
    return out;
  }
  out.replayCall = line([...INSPECTOR, ...replay, ...flags]);
  const server = input.server;
  if (server === undefined || server.command === '') {
    out.why = 'the run did not record the server’s command line (hidden, or not a proxy run)';
    return out;
  }
  const cwd = server.cwd === undefined || server.cwd === '' ? [] : ['--cwd', server.cwd];
  out.inspector = line([...INSPECTOR, server.command, ...server.args, ...flags, ...cwd]);
  return out;
}
