import type { Argv } from 'yargs';
import { defaultDataDir } from '../report/config.js';
import { debuggerPort, PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';
import { plainFlags, type FlagOptions } from './plain-flags.js';
import { EXIT_USAGE } from './proxy-flags.js';
import type { RepeatMode } from '../replay/answer-queue.js';
import type { MatchMode } from '../replay/match.js';

/** Parsed `replay` flags. */
export interface ReplayFlags {
  run: string;
  http?: number;
  match: MatchMode;
  repeat: RepeatMode;
  'on-miss': 'error' | 'hang';
  'as-sent-by-server': boolean;
  /** Undefined when not given: GRAPHMIND_URL's port, else 4747 (see debugger-port.ts). */
  port?: number;
  'data-dir'?: string;
}

/** The `replay` flags, in the order its help lists them: yargs and {@link plainFlags} read this one table. */
export const REPLAY_OPTIONS = {
  http: { type: 'number', describe: 'Serve Streamable HTTP at http://127.0.0.1:<port>/mcp (0: a free port) instead of stdio' },
  match: { choices: ['params', 'sequence', 'strict'], default: 'params', describe: 'How a request finds its recorded call' },
  repeat: { choices: ['error', 'last', 'cycle'], default: 'error', describe: 'What answers a request whose recorded answers were all used' },
  'on-miss': { choices: ['error', 'hang'], default: 'error', describe: 'A request with no recorded answer: a -32096 error, or no answer at all' },
  'as-sent-by-server': { type: 'boolean', default: false, describe: 'Answer with what the server sent, not what the host received (before the debugger changed it)' },
  port: { type: 'number', describe: PORT_FLAG_HELP },
  'data-dir': { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' },
} as const satisfies FlagOptions;

/** What is wrong with parsed `replay` flags, in one line without the prefix, or undefined (yargs' check and the plain path alike). */
export function replayFlagsProblem(argv: Record<string, unknown>): string | undefined {
  if (typeof argv.run !== 'string' || argv.run === '') return 'give a run id, a run log file or a cassette';
  const http = argv.http;
  if (http !== undefined && (typeof http !== 'number' || !Number.isInteger(http) || http < 0 || http > 65535)) return '--http must be a port number (0-65535, 0 for a free one)';
  const portProblem = portFlagProblem(argv.port as number | undefined);
  if (portProblem !== undefined) return portProblem;
  if (argv['data-dir'] !== undefined && argv['data-dir'] === '') return '--data-dir must not be empty';
  return undefined;
}

/** The `replay` flags, for yargs. */
export function replayFlags(yargs: Argv): Argv<ReplayFlags> {
  let parser: Argv = yargs.positional('run', { type: 'string', describe: 'A run id, a run log file (.jsonl, or any path with a /), or an mcp-recorder cassette' });
  for (const [name, option] of Object.entries(REPLAY_OPTIONS)) parser = parser.option(name, option);
  return parser.check((argv) => {
    const problem = replayFlagsProblem(argv);
    if (problem !== undefined) throw new Error(problem);
    return true;
  }) as unknown as Argv<ReplayFlags>;
}

/** `replay`'s arguments (after the command name) read without yargs when they are plain, else undefined (see {@link plainFlags}). */
export function plainReplayFlags(args: readonly string[]): ReplayFlags | undefined {
  const flags = plainFlags(args, 'run', REPLAY_OPTIONS);
  return flags === undefined || replayFlagsProblem(flags) !== undefined ? undefined : (flags as unknown as ReplayFlags);
}

export { isRunPath } from './run-log-source.js';

/** The line of a run that lacks values. */
function missingLine(what: string, missing: readonly string[]): string {
  return `cannot replay ${what}: the recording lacks ${missing.join('; ')} (recorded with GRAPHMIND_HIDE_* or too large); record it again without them`;
}

/**
 * `graphmind replay`: the recorded server without the server, on stdio
 * (stdout is the wire) or over Streamable HTTP. Exits 2 with one line when
 * the run cannot be read or replayed.
 */
export async function runReplayCommand(flags: ReplayFlags): Promise<void> {
  const fail = (line: string): never => {
    process.stderr.write(`graphmind replay: ${line}\n`);
    process.exit(EXIT_USAGE);
  };
  const options = { match: flags.match, repeat: flags.repeat, onMiss: flags['on-miss'], asSentByServer: flags['as-sent-by-server'] };
  const { loadRunArgument, isRunPath } = await import('./run-log-source.js');
  if (flags.http === undefined && isRunPath(flags.run)) {
    // A run log file on stdio answers while it is still read (a large run is ready at once).
    const { startLoadRun } = await import('../replay/load-run.js');
    const started = startLoadRun(flags.run);
    if (!started.ok) return fail(`cannot replay ${flags.run}: ${started.reason}`);
    const reading = 'reading' in started ? started.reading : { run: started.run, readRest: (told: (complete: boolean) => void) => told(true) };
    if (reading.run.missing.length > 0) return fail(missingLine(flags.run, reading.run.missing));
    const { replayOverStdio } = await import('../replay/stdio-replay.js');
    const told = reading.readRest;
    reading.readRest = (slice) =>
      told((complete) => {
        slice(complete);
        if (complete) process.stderr.write(`graphmind replay: replaying ${flags.run} (${reading.run.calls.filter((call) => !call.notification).length} recorded requests) on stdio\n`);
      });
    await replayOverStdio(reading.run, options, process.stdin, process.stdout, reading);
    process.exit(0);
  }
  const loaded = await loadRunArgument(flags.run, debuggerPort('graphmind replay', flags.port), flags['data-dir'] ?? defaultDataDir(), 'replay');
  if (!loaded.ok) return fail(loaded.line);
  const what = loaded.what;
  const run = loaded.run;
  if (run.missing.length > 0) return fail(missingLine(what, run.missing));
  const requests = run.calls.filter((call) => !call.notification).length;
  if (flags.http === undefined) {
    const { replayOverStdio } = await import('../replay/stdio-replay.js');
    process.stderr.write(`graphmind replay: replaying ${what} (${requests} recorded requests) on stdio\n`);
    await replayOverStdio(run, options, process.stdin, process.stdout);
    process.exit(0);
  }
  const { replayOverHttp } = await import('../replay/http-replay.js');
  let replay: Awaited<ReturnType<typeof replayOverHttp>>;
  try {
    replay = await replayOverHttp(run, options, flags.http);
  } catch (error) {
    return fail(`cannot listen on 127.0.0.1:${flags.http}: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.stderr.write(`graphmind replay: replaying ${what} (${requests} recorded requests) at ${replay.url}\n`);
  const stop = (): void => {
    void replay.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
