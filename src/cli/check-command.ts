import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Argv } from 'yargs';
import type { FailOn } from '../check/fail-on.js';
import type { CheckReporterName } from '../check/report-format.js';
import type { CheckOptions } from '../check/runner.js';
import { defaultDataDir } from '../report/config.js';
import { debuggerPort, PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';
import type { FlagOptions } from './plain-flags.js';
import { EXIT_USAGE } from './proxy-flags.js';

/** Parsed `check` flags. */
export interface CheckFlags {
  url?: string;
  'protocol-version': string;
  script?: string;
  run?: string;
  timeout: number;
  'max-duration'?: number;
  lock?: string;
  'max-surface-tokens'?: number;
  'max-result-tokens'?: number;
  'fail-on': string;
  reporter: CheckReporterName;
  output?: string;
  port: number | undefined;
  'data-dir'?: string;
}

/** Exit code: no finding fails the check. */
export const EXIT_PASS = 0;
/** Exit code: a finding fails it (see `--fail-on`). */
export const EXIT_FINDINGS = 1;

/** The `check` flags, in the order its help lists them. */
export const CHECK_OPTIONS = {
  url: { type: 'string', describe: 'Check the Streamable HTTP server at this URL (http://127.0.0.1:3000/mcp) instead of starting one' },
  'protocol-version': { type: 'string', default: '2025-11-25', describe: 'The protocol version the handshake asks for (2026-07-28 opens with server/discover)' },
  script: { type: 'string', describe: 'A scenario: a JSON (or .yaml) array of steps such as { "call": "search", "arguments": {…}, "expect": { "isError": false, "text": "…" } }' },
  run: { type: 'string', describe: "Send the host's requests of a recorded run (a run id or a run log file), without comparing answers" },
  timeout: { type: 'number', default: 10_000, describe: 'How long one request may wait for its answer, in milliseconds' },
  'max-duration': { type: 'number', describe: 'An answer slower than this many milliseconds is a "slow" finding' },
  lock: { type: 'string', describe: 'A surface file (graphmind surface -o): each change from it is a "drift" finding' },
  'max-surface-tokens': { type: 'number', describe: 'Budget for the tool definitions, in (estimated) tokens' },
  'max-result-tokens': { type: 'number', describe: 'Budget for one tool result, in (estimated) tokens' },
  'fail-on': { type: 'string', default: 'error', describe: 'What fails the check: a severity (error, warning, note) and/or finding codes, comma-separated' },
  reporter: { choices: ['text', 'json', 'junit', 'sarif'], default: 'text', describe: 'How the report is written' },
  output: { alias: 'o', type: 'string', describe: 'Write the report to this file instead of stdout' },
  port: { type: 'number', requiresArg: true, describe: PORT_FLAG_HELP },
  'data-dir': { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' },
} as const satisfies FlagOptions;

function whole(value: unknown, min: number): boolean {
  return value === undefined || (Number.isInteger(value) && (value as number) >= min);
}

/** What is wrong with parsed `check` flags, in one line without the prefix, or undefined. */
export function checkFlagsProblem(argv: Record<string, unknown>): string | undefined {
  if (!whole(argv.timeout, 1)) return '--timeout must be a whole number of milliseconds (1 or more)';
  if (!whole(argv['max-duration'], 0)) return '--max-duration must be a whole number of milliseconds';
  if (!whole(argv['max-surface-tokens'], 0)) return '--max-surface-tokens must be a whole number of tokens';
  if (!whole(argv['max-result-tokens'], 0)) return '--max-result-tokens must be a whole number of tokens';
  if (typeof argv['protocol-version'] !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(argv['protocol-version'])) return '--protocol-version must be a date such as 2025-11-25';
  if (argv.script !== undefined && argv.run !== undefined) return 'give either --script or --run, not both';
  return portFlagProblem(argv.port as number | undefined);
}

/** The `check` flags, for yargs. */
export function checkFlags(yargs: Argv): Argv<CheckFlags> {
  let parser: Argv = yargs;
  for (const [name, option] of Object.entries(CHECK_OPTIONS)) parser = parser.option(name, option);
  return parser.check((argv) => {
    const problem = checkFlagsProblem(argv);
    if (problem !== undefined) throw new Error(problem);
    return true;
  }) as unknown as Argv<CheckFlags>;
}

/** Exit 2 with one line on stderr. */
function fail(line: string): never {
  process.stderr.write(`graphmind check: ${line}\n`);
  process.exit(EXIT_USAGE);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The lock file read, or exit 2 saying why it is not one. */
async function readLock(file: string): Promise<NonNullable<CheckOptions['lock']>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return fail(`cannot read --lock ${file}: ${errorText(error)}`);
  }
  const { parseSurfaceFile } = await import('../surface/index.js');
  const surface = parseSurfaceFile(text);
  if ('error' in surface) return fail(`--lock ${file} is not a surface file: ${surface.error} (write one with graphmind surface -o ${file} -- <server command…>)`);
  return { surface, file };
}

/** The server's entry file, for SARIF locations: the first argument of the command that is a file here. */
function serverFile(command: readonly string[]): string | undefined {
  const file = command.slice(1).find((arg) => !arg.startsWith('-') && existsSync(arg));
  return file === undefined ? undefined : relative(process.cwd(), file) || file;
}

/** The options the check runs with, or exit 2 on one that cannot be used. */
async function checkOptions(flags: CheckFlags): Promise<CheckOptions> {
  const options: CheckOptions = { protocolVersion: flags['protocol-version'], timeoutMs: flags.timeout };
  if (flags['max-duration'] !== undefined) options.maxDurationMs = flags['max-duration'];
  if (flags['max-surface-tokens'] !== undefined) options.maxSurfaceTokens = flags['max-surface-tokens'];
  if (flags['max-result-tokens'] !== undefined) options.maxResultTokens = flags['max-result-tokens'];
  if (flags.lock !== undefined) options.lock = await readLock(flags.lock);
  if (flags.script !== undefined) {
    const { loadScript } = await import('../check/script.js');
    const script = await loadScript(flags.script);
    if (!script.ok) fail(script.reason);
    options.script = script.steps;
  }
  const port = debuggerPort('graphmind check', flags.port);
  const dataDir = flags['data-dir'] ?? defaultDataDir();
  if (flags.run !== undefined) {
    const { loadRunArgument } = await import('./run-log-source.js');
    const loaded = await loadRunArgument(flags.run, port, dataDir, 'check');
    if (!loaded.ok) fail(loaded.line);
    if (loaded.run.missing.length > 0) fail(`cannot send the requests of ${loaded.what}: the recording lacks ${loaded.run.missing.join('; ')} (recorded with GRAPHMIND_HIDE_* or too large)`);
    options.run = loaded.run;
  }
  // With a debugger running the check is recorded there (none: nothing happens).
  options.record = { port, ...(flags['data-dir'] === undefined ? {} : { dataDir }) };
  return options;
}

/** Write `text` to `file` whole (a temporary file renamed over it), or exit 2. */
function writeOutput(file: string, text: string): void {
  const temporary = `${file}.graphmind-check-${process.pid}`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch (error) {
    fail(`cannot write -o ${file}: ${errorText(error)}`);
  }
}

/**
 * `graphmind check [options] -- <server command…>` (or `--url <http url>`):
 * the server started behind our relay, handshake, every list, the
 * scenario; findings written by the reporter. Exit 0 pass, 1 findings, 2
 * could not run.
 */
export async function runCheckCommand(flags: CheckFlags, command: readonly string[], version: string): Promise<void> {
  if (flags.url !== undefined && command.length > 0) fail('give either --url <http url> or -- <server command…>, not both');
  if (flags.url === undefined && command.length === 0) fail('give the server command after -- (graphmind check -- <server command…>) or --url <http url>');
  const { parseFailOn } = await import('../check/fail-on.js');
  const parsedFailOn = parseFailOn(flags['fail-on']);
  if (!parsedFailOn.ok) fail(parsedFailOn.reason);
  const failOn: FailOn = parsedFailOn.failOn;
  const options = await checkOptions(flags);
  const [{ runCheck }, { formatCheckReport, verdictOf }] = await Promise.all([import('../check/runner.js'), import('../check/report.js')]);
  const report = await runCheck(flags.url === undefined ? { command } : { url: flags.url }, options);
  const server = flags.url === undefined ? serverFile(command) : undefined;
  const files = { ...(flags.lock === undefined ? {} : { lock: flags.lock }), ...(flags.script === undefined ? {} : { script: flags.script }), ...(server === undefined ? {} : { server }) };
  const text = formatCheckReport(report, flags.reporter, { failOn, toolVersion: version, files });
  const verdict = verdictOf(report, failOn);
  if (flags.output === undefined) process.stdout.write(text);
  else {
    writeOutput(flags.output, text);
    process.stderr.write(`graphmind check: ${verdict.ok ? 'PASS' : 'FAIL'}, ${report.findings.length} finding(s); the ${flags.reporter} report is in ${flags.output}\n`);
  }
  process.exitCode = verdict.ok ? EXIT_PASS : EXIT_FINDINGS;
}
