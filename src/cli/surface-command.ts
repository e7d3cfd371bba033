/**
 * `graphmind surface`: write the canonical snapshot of a server's tool
 * surface (a live server started on stdio, one at a Streamable HTTP URL,
 * or a recorded run), and `graphmind surface diff <a> <b>`: every change
 * from one surface to another, classed, with an exit code a CI job can
 * gate on. docs/surface.md has the format, the classes and the exit codes.
 *
 * @module
 */
import { writeFileSync, renameSync } from 'node:fs';
import type { Argv } from 'yargs';
import { repeatedFlag } from './repeated-flag.js';
import { EXIT_USAGE } from './proxy-flags.js';
import { PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';
import type { FailOn, SurfaceReporter } from './surface-report.js';

/** Exit code: the surface was written; or (diff) nothing at or above `--fail-on` changed. */
export const EXIT_OK = 0;
/** Exit code (diff): something at or above `--fail-on` changed. */
export const EXIT_CHANGED = 1;

/** Parsed `graphmind surface` flags. */
export interface SurfaceFlags {
  run?: string;
  output?: string;
  url?: string;
  timeout: number;
  'protocol-version': string;
  port?: number;
  'data-dir'?: string;
}

/** Parsed `graphmind surface diff` flags. */
export interface SurfaceDiffFlags {
  a: string;
  b: string;
  'fail-on': FailOn;
  reporter: SurfaceReporter;
  port?: number;
  'data-dir'?: string;
}

const COMMON = {
  port: { type: 'number', requiresArg: true, describe: PORT_FLAG_HELP },
  'data-dir': { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' },
} as const;

/** Exit 2 with one line on stderr. */
function fail(line: string): never {
  process.stderr.write(`graphmind surface: ${line}\n`);
  process.exit(EXIT_USAGE);
}

async function parse<T>(name: string, args: string[], usage: string, describe: string, build: (yargs: Argv) => Argv, version: string): Promise<T> {
  const { default: yargs } = await import('yargs');
  const flags = await yargs(args)
    .scriptName(name)
    .command(usage, describe, build)
    .version(version)
    .help()
    .strict()
    // yargs writes some messages over several lines ("Invalid values:\n  Argument: …"): one line it must be.
    .fail((message, error) => fail((message ?? error?.message ?? 'bad arguments').replace(/\s*\n\s*/g, ' ')))
    .parseAsync();
  return flags as unknown as T;
}

function snapshotFlags(yargs: Argv): Argv {
  return yargs
    .positional('run', { type: 'string', describe: 'A recorded run to take the surface from: a run id, a run log file or a cassette' })
    .option('output', { alias: 'o', type: 'string', describe: 'Write the surface here (graphmind.surface.json) instead of on stdout' })
    .option('url', { type: 'string', describe: 'List the Streamable HTTP server at this URL instead of starting one' })
    .option('timeout', { type: 'number', default: 10_000, describe: 'How long one request may take, in milliseconds' })
    .option('protocol-version', { type: 'string', default: '2025-11-25', describe: 'The protocol version initialize asks for' })
    .options(COMMON)
    .check((argv) => {
      if (!Number.isInteger(argv.timeout) || (argv.timeout as number) < 1) throw new Error('--timeout must be a whole number of milliseconds (1 or more)');
      const problem = portFlagProblem(argv.port as number | undefined);
      if (problem !== undefined) throw new Error(problem);
      return true;
    });
}

function diffFlags(yargs: Argv): Argv {
  return yargs
    .positional('a', { type: 'string', describe: 'The earlier surface (the lock): a surface file, or a run (id, log file or cassette)' })
    .positional('b', { type: 'string', describe: 'The later surface: a surface file, or a run' })
    .option('fail-on', { choices: ['breaking', 'risky', 'any'], default: 'risky', describe: 'Exit 1 when a change of this class or a more severe one is found' })
    .option('reporter', { choices: ['text', 'json', 'markdown'], default: 'text', describe: 'How the changes are written on stdout' })
    .options(COMMON)
    .check((argv) => {
      const problem = portFlagProblem(argv.port as number | undefined);
      if (problem !== undefined) throw new Error(problem);
      return true;
    });
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Write `text` to `file` whole or not at all (a temporary file renamed over it). */
function writeWhole(file: string, text: string): void {
  const temporary = `${file}.graphmind-surface-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/** `graphmind surface [<run>] [-o file] [-- <server command…> | --url <url>]`. */
async function snapshot(flags: SurfaceFlags, command: readonly string[], version: string): Promise<void> {
  const given = [flags.run !== undefined, flags.url !== undefined, command.length > 0].filter(Boolean).length;
  if (given !== 1) fail('give one of: a run (graphmind surface <run>), -- <server command…>, or --url <http url>');
  const { surfaceOf, surfaceText } = await import('../surface/index.js');
  let input: import('../surface/index.js').SurfaceInput;
  if (flags.run !== undefined) {
    const { readRunSide } = await import('./surface-side.js');
    const side = await readRunSide(flags.run, flags);
    if (!side.ok) return fail(side.line);
    input = side.input;
  } else {
    const { listServer } = await import('./surface-lister.js');
    const target = flags.url !== undefined ? { url: flags.url } : { command };
    const listed = await listServer({ target, timeoutMs: flags.timeout, protocolVersion: flags['protocol-version'], version });
    if (!listed.ok) return fail(listed.line);
    if (listed.noise.length > 0) {
      process.stderr.write(`graphmind surface: warning: the server wrote ${listed.noise.length} line(s) on stdout that are not JSON-RPC (a host fails on them), first: ${listed.noise[0]}\n`);
    }
    input = listed.input;
  }
  const surface = surfaceOf(input);
  const { costOfSurface, costLine } = await import('./surface-cost.js');
  const cost = await costOfSurface(surface);
  if (cost !== undefined) surface.cost = cost;
  const text = surfaceText(surface);
  const counts = [plural(surface.tools.length, 'tool'), plural(surface.resources.length, 'resource'), plural(surface.resourceTemplates.length, 'resource template'), plural(surface.prompts.length, 'prompt')].join(', ');
  const costText = costLine(cost);
  if (flags.output === undefined) {
    process.stdout.write(text);
  } else {
    try {
      writeWhole(flags.output, text);
    } catch (error) {
      fail(`cannot write ${flags.output}: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.stderr.write(`graphmind surface: wrote ${counts} to ${flags.output}\n`);
  }
  if (costText !== undefined) process.stderr.write(`graphmind surface: ${costText}\n`);
  process.exitCode = EXIT_OK;
}

/** `graphmind surface diff <a> <b>`. */
async function diff(flags: SurfaceDiffFlags): Promise<void> {
  const { readSide } = await import('./surface-side.js');
  const [a, b] = [await readSide(flags.a, flags), await readSide(flags.b, flags)];
  if (!a.ok) return fail(a.line);
  if (!b.ok) return fail(b.line);
  const { diffSurfaces } = await import('../surface/index.js');
  const { formatChanges, failsOn } = await import('./surface-report.js');
  const changes = diffSurfaces(a.surface, b.surface);
  process.stdout.write(formatChanges(changes, flags.reporter, { a: flags.a, b: flags.b, failOn: flags['fail-on'] }));
  process.exitCode = failsOn(changes, flags['fail-on']) ? EXIT_CHANGED : EXIT_OK;
}

/**
 * `graphmind surface …` (its arguments after `surface`): `diff <a> <b>`,
 * or the snapshot. The server's command after `--` is never parsed.
 */
export async function runSurfaceCommand(args: readonly string[], version: string): Promise<void> {
  const dashes = args.indexOf('--');
  const ours = dashes === -1 ? [...args] : args.slice(0, dashes);
  const server = dashes === -1 ? [] : args.slice(dashes + 1);
  const twice = repeatedFlag(ours, { aliases: { output: ['o'] } });
  if (twice !== undefined) fail(`${twice} was given more than once; give each flag once`);
  if (ours[0] === 'diff') {
    if (dashes !== -1) fail('surface diff compares two surfaces: it starts no server (no -- <server command…>)');
    const flags = await parse<SurfaceDiffFlags>('graphmind surface diff', ours.slice(1), '$0 <a> <b>', 'Compare two tool surfaces (surface files or runs) and class every change: breaking, risky, benign', diffFlags, version);
    return diff(flags);
  }
  const flags = await parse<SurfaceFlags>('graphmind surface', ours, '$0 [run]', 'Write the canonical snapshot of a server\'s tool surface (graphmind surface -o graphmind.surface.json -- <server command…>, or --url <http url>, or <run>). Compare two with graphmind surface diff <a> <b> (see graphmind surface diff --help)', snapshotFlags, version);
  return snapshot(flags, server, version);
}
