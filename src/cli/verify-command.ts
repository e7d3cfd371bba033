import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { defaultDataDir } from '../report/config.js';
import { debuggerPort, PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';
import { plainFlags, type FlagOptions } from './plain-flags.js';
import { EXIT_USAGE } from './proxy-flags.js';
import type { RecordedAnswer, RecordedRun } from '../replay/recorded-run.js';
import type { ReporterName } from '../replay/verify-report.js';
import type { CallResult } from '../replay/verify-session.js';

/** Parsed `verify` flags. */
export interface VerifyFlags {
  run: string;
  url?: string;
  'as-sent-by-server': boolean;
  ignore: string[];
  rules?: string;
  reporter: ReporterName;
  timeout: number;
  update: boolean;
  output?: string;
  port: number | undefined;
  'data-dir'?: string;
}

/** Exit code: every call answered the same. */
export const EXIT_SAME = 0;
/** Exit code: a call answered differently, not at all, or unasked; or stdout noise. */
export const EXIT_DIFFERENT = 1;

/** The `verify` flags, in the order its help lists them: yargs and {@link plainFlags} read this one table. */
export const VERIFY_OPTIONS = {
  url: { type: 'string', describe: 'Verify the Streamable HTTP server at this URL (http://127.0.0.1:3000/mcp) instead of starting one' },
  'as-sent-by-server': { type: 'boolean', default: false, describe: "Compare with the server's recorded answers, not what the host received" },
  ignore: { type: 'string', array: true, default: [], describe: 'A JSONPath left out of the comparison ($.result.structuredContent.timestamp), optionally scoped: "tools/call:search $.result…"; repeatable' },
  rules: { type: 'string', describe: 'A JSON file: { "ignore": [paths], "normalise": ["uuid", "date-time"] }' },
  reporter: { choices: ['text', 'json', 'junit', 'tap'], default: 'text', describe: 'How the results are written on stdout' },
  timeout: { type: 'number', default: 10_000, describe: 'How long one call may take, in milliseconds' },
  update: { type: 'boolean', default: false, describe: 'Write the answers the server gives now into the run file (or -o <file>)' },
  output: { alias: 'o', type: 'string', describe: 'With --update: write the re-blessed run here instead of over the run file' },
  port: { type: 'number', requiresArg: true, describe: PORT_FLAG_HELP },
  'data-dir': { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' },
} as const satisfies FlagOptions;

/** What is wrong with parsed `verify` flags, in one line without the prefix, or undefined (yargs' check and the plain path alike). */
export function verifyFlagsProblem(argv: Record<string, unknown>): string | undefined {
  if (typeof argv.run !== 'string' || argv.run === '') return 'give a run id, a run log file or a cassette';
  if (!Number.isInteger(argv.timeout) || (argv.timeout as number) < 1) return '--timeout must be a whole number of milliseconds (1 or more)';
  const portProblem = portFlagProblem(argv.port as number | undefined);
  if (portProblem !== undefined) return portProblem;
  if (argv.output !== undefined && argv.update !== true) return '-o/--output goes with --update';
  return undefined;
}

/** The `verify` flags, for yargs. */
export function verifyFlags(yargs: Argv): Argv<VerifyFlags> {
  let parser: Argv = yargs.positional('run', { type: 'string', describe: 'A run id, a run log file (.jsonl, or any path with a /), or an mcp-recorder cassette' });
  for (const [name, option] of Object.entries(VERIFY_OPTIONS)) parser = parser.option(name, option);
  return parser.check((argv) => {
    const problem = verifyFlagsProblem(argv);
    if (problem !== undefined) throw new Error(problem);
    return true;
  }) as unknown as Argv<VerifyFlags>;
}

/** `verify`'s own arguments (those before `--`) read without yargs when they are plain, else undefined (see {@link plainFlags}). */
export function plainVerifyFlags(args: readonly string[]): VerifyFlags | undefined {
  const flags = plainFlags(args, 'run', VERIFY_OPTIONS);
  return flags === undefined || verifyFlagsProblem(flags) !== undefined ? undefined : (flags as unknown as VerifyFlags);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Exit 2 with one line on stderr. */
function fail(line: string): never {
  process.stderr.write(`graphmind verify: ${line}\n`);
  process.exit(EXIT_USAGE);
}

/** The rules from --rules and --ignore, or exit 2 saying what is wrong. */
async function rulesOf(flags: VerifyFlags): Promise<import('../replay/verify-rules.js').VerifyRules> {
  const { parseRules } = await import('../replay/verify-rules.js');
  let text: string | undefined;
  if (flags.rules !== undefined) {
    try {
      text = readFileSync(flags.rules, 'utf8');
    } catch (error) {
      return fail(`cannot read --rules ${flags.rules}: ${errorText(error)}`);
    }
  }
  const parsed = parseRules(text, flags.ignore);
  if (!parsed.ok) return fail(flags.rules !== undefined && text !== undefined && !parsed.reason.startsWith('"') ? `--rules ${flags.rules}: ${parsed.reason}` : `--ignore: ${parsed.reason}`);
  return parsed.rules;
}

/** Write the answers received now into the run file (or -o). */
async function update(run: RecordedRun, source: { file?: string; body?: Buffer }, calls: readonly CallResult[], flags: VerifyFlags): Promise<string> {
  const { updateRunLog, updateCassette } = await import('../replay/update-run.js');
  const target = flags.output ?? (source.file as string);
  const text = source.body?.toString('utf8') ?? readFileSync(source.file as string, 'utf8');
  let out: string;
  if (run.calls.some((call) => call.instanceId !== undefined)) {
    const answers = new Map<string, { method: string; answer: RecordedAnswer }>();
    for (const call of calls) {
      const instanceId = run.calls[call.index]?.instanceId;
      if (call.received !== undefined && instanceId !== undefined) answers.set(instanceId, { method: call.method, answer: call.received });
    }
    out = updateRunLog(text, answers);
  } else {
    const answers = new Map<number, RecordedAnswer>();
    for (const call of calls) if (call.received !== undefined && call.index >= 0) answers.set(call.index, call.received);
    out = `${JSON.stringify(updateCassette(JSON.parse(text) as Record<string, unknown>, answers), null, 2)}\n`;
  }
  const temporary = `${target}.graphmind-verify-${process.pid}`;
  writeFileSync(temporary, out);
  renameSync(temporary, target);
  return target;
}

/**
 * `graphmind verify <run> -- <server command…>` (or `--url <http url>`):
 * the run's calls against the server, each answer compared with the
 * recorded one. Exit 0 all the same, 1 differences, 2 could not run.
 */
export async function runVerifyCommand(flags: VerifyFlags, command: readonly string[]): Promise<void> {
  if (flags.url !== undefined && command.length > 0) fail('give either --url <http url> or -- <server command…>, not both');
  if (flags.url === undefined && command.length === 0) fail('give the server command after -- (graphmind verify <run> -- <server command…>) or --url <http url>');
  const target = flags.url === undefined ? { command } : { url: flags.url };
  const { loadRunArgument, isRunPath } = await import('./run-log-source.js');
  if (flags.update && !isRunPath(flags.run) && flags.output === undefined) {
    fail(`--update rewrites a run file, and ${flags.run} is a run id: give -o <file> to write the re-blessed run there`);
  }
  const rules = await rulesOf(flags);
  const port = debuggerPort('graphmind verify', flags.port);
  const dataDir = flags['data-dir'] ?? defaultDataDir();
  const loaded = await loadRunArgument(flags.run, port, dataDir, 'verify');
  if (!loaded.ok) return fail(loaded.line);
  const run = loaded.run;
  if (run.missing.length > 0) fail(`cannot verify ${loaded.what}: the recording lacks ${run.missing.join('; ')} (recorded with GRAPHMIND_HIDE_* or too large); record it again without them`);
  const { verifyAgainst } = await import('../replay/verify-run.js');
  // With a debugger running the session is recorded there, as a proxy session is (none: nothing happens).
  const record = { port, ...(flags['data-dir'] === undefined ? {} : { dataDir }) };
  const outcome = await verifyAgainst(run, target, { rules, asSentByServer: flags['as-sent-by-server'], timeoutMs: flags.timeout, what: loaded.what, record });
  if (!outcome.ok) return fail(outcome.line);
  if (outcome.warning !== undefined) process.stderr.write(`${outcome.warning}\n`);
  const report = outcome.report;
  const { formatReport, reportOk } = await import('../replay/verify-report.js');
  process.stdout.write(formatReport(report, flags.reporter));
  if (flags.update) {
    try {
      const written = await update(run, loaded, report.calls, flags);
      process.stderr.write(`graphmind verify: wrote the answers received now into ${written}\n`);
    } catch (error) {
      fail(`cannot write the re-blessed run: ${errorText(error)}`);
    }
  }
  // Re-blessed: a different answer is the recorded one now; a missing one still is not.
  const blessed = flags.update && report.noise.length === 0 && report.calls.every((call) => call.verdict === 'same' || call.verdict === 'different');
  process.exitCode = reportOk(report) || blessed ? EXIT_SAME : EXIT_DIFFERENT;
}
