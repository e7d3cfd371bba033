/**
 * `replayServer`: a recorded run as the server of a test's MCP client,
 * with the real server gone. On stdio it gives what an SDK client
 * transport needs to spawn `graphmind replay` (`{ command, args, env }`);
 * over HTTP it serves the replay in the test's own process and gives its
 * URL and how to stop it.
 *
 * @module
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replayOverHttp } from '../replay/http-replay.js';
import { readRun, runPath } from './run-file.js';

/** How the replay answers: the `graphmind replay` flags. */
export interface ReplayServerOptions {
  /** Serve Streamable HTTP (`{ url, close }`) rather than give a command for stdio. @default false */
  http?: boolean;
  /** With `http`: the port on 127.0.0.1 (0: a free one). @default 0 */
  port?: number;
  /** How a request finds its recorded call: by method and params (key order and `_meta` ignored), in recorded order, or with `_meta` too. @default 'params' */
  match?: 'params' | 'sequence' | 'strict';
  /** A request whose recorded answers are all used: an error, the last answer again, or the answers again from the first. @default 'error' */
  repeat?: 'error' | 'last' | 'cycle';
  /** A request nothing recorded answers: a `-32096` error, or no answer at all (to test a client's timeout). @default 'error' */
  onMiss?: 'error' | 'hang';
  /** Answer with what the server sent rather than what the host received (before the debugger changed it). @default false */
  asSentByServer?: boolean;
  /** More environment for the stdio replay's process (added to the test's own, without `GRAPHMIND_*`). @default {} */
  env?: Record<string, string>;
}

/** What an SDK's stdio client transport takes to spawn the replay (`new StdioClientTransport(replay)`). */
export interface ReplayCommand {
  /** The Node binary running the test. */
  command: string;
  /** `graphmind replay <run> …` as arguments of {@link ReplayCommand.command}. */
  args: string[];
  /** The replay's environment: the test's own without `GRAPHMIND_*`, and {@link ReplayServerOptions.env}. */
  env: Record<string, string>;
}

/** A replay served over Streamable HTTP in the test's process. */
export interface ReplayUrl {
  /** `http://127.0.0.1:<port>/mcp`: give it to the SDK's Streamable HTTP client transport. */
  url: string;
  /** Stop listening and end every session. */
  close(): Promise<void>;
}

/** The CLI the stdio replay runs: beside this file in dist/. */
const CLI = fileURLToPath(new URL('../cli/graphmind.js', import.meta.url));

function flagsOf(options: ReplayServerOptions): string[] {
  const flags: string[] = [];
  if (options.match !== undefined) flags.push('--match', options.match);
  if (options.repeat !== undefined) flags.push('--repeat', options.repeat);
  if (options.onMiss !== undefined) flags.push('--on-miss', options.onMiss);
  if (options.asSentByServer === true) flags.push('--as-sent-by-server');
  return flags;
}

/** The test's environment without `GRAPHMIND_*` (a developer's own debugger settings stay out of the replay). */
function replayEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) env[key] = value;
  return { ...env, ...extra };
}

/**
 * Serve the recorded run `run` (a run log or an mcp-recorder cassette, by
 * path or `file:` URL) as an MCP server for a test's client.
 *
 * The run is read first: a file that is not a run, or one recorded with
 * hidden values, throws a {@link CannotRunError} here rather than failing
 * inside the client's connect.
 *
 * @example Stdio, with the SDK's client
 * ```ts
 * const transport = new StdioClientTransport(await replayServer(new URL('./fixtures/search.jsonl', import.meta.url)));
 * await client.connect(transport);
 * ```
 * @example Streamable HTTP
 * ```ts
 * const replay = await replayServer('test/fixtures/search.jsonl', { http: true });
 * await client.connect(new StreamableHTTPClientTransport(new URL(replay.url)));
 * // …
 * await replay.close();
 * ```
 */
export async function replayServer(run: string | URL, options: ReplayServerOptions & { http: true }): Promise<ReplayUrl>;
/** Stdio (see the overload above): the command to spawn. */
export async function replayServer(run: string | URL, options?: ReplayServerOptions & { http?: false }): Promise<ReplayCommand>;
/** Either, as `options.http` says. */
export async function replayServer(run: string | URL, options?: ReplayServerOptions): Promise<ReplayCommand | ReplayUrl>;
export async function replayServer(run: string | URL, options: ReplayServerOptions = {}): Promise<ReplayCommand | ReplayUrl> {
  // Absolute: `graphmind replay` takes a bare name for a run id.
  const path = resolve(runPath(run));
  const recorded = readRun(path, 'replay');
  if (options.http !== true) return { command: process.execPath, args: [CLI, 'replay', path, ...flagsOf(options)], env: replayEnv(options.env) };
  const replayOptions = {
    ...(options.match === undefined ? {} : { match: options.match }),
    ...(options.repeat === undefined ? {} : { repeat: options.repeat }),
    ...(options.onMiss === undefined ? {} : { onMiss: options.onMiss }),
    asSentByServer: options.asSentByServer === true,
  };
  const served = await replayOverHttp(recorded, replayOptions, options.port ?? 0);
  return { url: served.url, close: () => served.close() };
}
