import { closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { defaultDataDir } from '../report/config.js';
import { debuggerPort, PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';
import type { ImportedLog } from '../export/import-run.js';
import { DEFAULT_IMPORT_MAX_BYTES, openImportSource, readImportSource } from './import-source.js';
import { DEFAULT_MAX_RUNS, importedKind, retentionNotice, runsByKind } from './import-retention.js';

/** Parsed `import` flags. */
export interface ImportFlags {
  file: string;
  'new-id': boolean;
  /** Undefined when not given: GRAPHMIND_URL's port, else 4747 (see debugger-port.ts). */
  port?: number;
  'data-dir'?: string;
  'max-bytes': number;
  'max-runs': number;
  'allow-trim': boolean;
}

/** The `import` flags, for yargs. */
export function importFlags(yargs: Argv): Argv<ImportFlags> {
  return yargs
    .positional('file', { type: 'string', describe: 'A run log: what graphmind export --format jsonl wrote (or a <runId>.jsonl from a data directory); - reads standard input' })
    .option('new-id', { type: 'boolean', default: false, describe: 'Load it under a new run id (to keep a run of the same id that is here already)' })
    .option('port', { type: 'number', describe: PORT_FLAG_HELP })
    .option('data-dir', { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' })
    .option('max-bytes', { type: 'number', default: DEFAULT_IMPORT_MAX_BYTES, describe: 'The largest log read, in bytes (default 268435456, 256 MiB)' })
    .option('max-runs', { type: 'number', default: DEFAULT_MAX_RUNS, describe: 'With no debugger running: the --max-runs the next graphmind serve starts with (an import it would trim is refused)' })
    .option('allow-trim', { type: 'boolean', default: false, describe: 'Write it into the data directory even when the next start would trim runs to --max-runs' })
    .check((argv) => {
      if (typeof argv.file !== 'string' || argv.file === '') throw new Error('give the file of a run log (or - for standard input)');
      const portProblem = portFlagProblem(argv.port);
      if (portProblem !== undefined) throw new Error(portProblem);
      if (argv['data-dir'] !== undefined && argv['data-dir'] === '') throw new Error('--data-dir must not be empty');
      if (!Number.isSafeInteger(argv['max-bytes']) || argv['max-bytes'] < 1) throw new Error('--max-bytes must be a positive whole number of bytes');
      if (!Number.isSafeInteger(argv['max-runs']) || argv['max-runs'] < 1) throw new Error('--max-runs must be a positive whole number');
      return true;
    }) as unknown as Argv<ImportFlags>;
}

/** Stands for `-` (standard input) while yargs parses: no path can hold a NUL. */
const STDIN_ARGUMENT = '\u0000-';

/** The command's arguments for yargs, with a bare `-` (which yargs would turn into '' or true) carried as {@link STDIN_ARGUMENT}. */
export function importArguments(args: readonly string[]): string[] {
  return args.map((arg) => (arg === '-' ? STDIN_ARGUMENT : arg));
}

/** Say why the import failed, in one line, and exit 1. */
function fail(line: string): never {
  process.stderr.write(`graphmind import: ${line}\n`);
  process.exit(1);
}

/** The log's bytes (a regular file, or standard input for `-`), read up to `--max-bytes`; exits 1 with one line when refused. */
async function readSource(flags: ImportFlags): Promise<Buffer> {
  const maxBytes = flags['max-bytes'];
  const label = flags.file === '-' ? 'standard input' : flags.file;
  const source = openImportSource(flags.file, maxBytes);
  if (typeof source === 'string') return fail(source);
  try {
    const bytes = await readImportSource(source, label, maxBytes);
    return typeof bytes === 'string' ? fail(bytes) : bytes;
  } finally {
    source.close();
  }
}

/**
 * `graphmind import`: load a run log into the running debugger
 * (`POST /api/runs/import`), where the viewer shows it at once; with no
 * debugger running, write it into the data directory's runs, where the
 * next `graphmind serve` loads it. Exits 1 with one line when it cannot.
 */
export async function runImportCommand(parsed: ImportFlags): Promise<void> {
  const port = debuggerPort('graphmind import', parsed.port);
  const flags = { ...parsed, file: parsed.file === STDIN_ARGUMENT ? '-' : parsed.file, port };
  const [{ LoopbackClient, DebuggerUnavailable, answerError }, { readImport }] = await Promise.all([import('../client/loopback-client.js'), import('../export/import-run.js')]);
  const dataDir = flags['data-dir'] ?? defaultDataDir();
  const bytes = await readSource(flags);
  const read = readImport(bytes);
  const label = flags.file === '-' ? 'standard input' : flags.file;
  if (typeof read === 'string') return fail(`${label}: ${read}`);
  const skipped = read.skippedLines > 0 ? `; ${read.skippedLines} line(s) that are not events of the run were left out` : '';
  let unavailable: InstanceType<typeof DebuggerUnavailable>;
  try {
    const client = new LoopbackClient({ port: flags.port, dataDir, timeoutMs: 120_000 });
    const answer = await client.request({
      method: 'POST',
      path: `/api/runs/import${flags['new-id'] ? '?newId=1' : ''}`,
      body: bytes,
      contentType: 'application/x-ndjson',
    });
    if (answer.status === 413) {
      return fail(`the debugger on 127.0.0.1:${flags.port} did not load it: the log is ${bytes.length} bytes, more than that graphmind serve takes in one request (its --max-body, 64 MiB unless it was started with a larger one)`);
    }
    if (answer.status === 409) return fail(`the debugger on 127.0.0.1:${flags.port} did not load it: ${conflict(answerError(answer), read.runId)}`);
    if (answer.status !== 201) return fail(`the debugger on 127.0.0.1:${flags.port} did not load it: ${answerError(answer)}`);
    const { runId } = JSON.parse(answer.body.toString('utf8')) as { runId: string };
    process.stdout.write(`graphmind import: loaded run ${runId} into the debugger: http://127.0.0.1:${flags.port}/#run=${encodeURIComponent(runId)}${skipped}\n`);
    return;
  } catch (error) {
    if (!(error instanceof DebuggerUnavailable)) return fail(error instanceof Error ? error.message : String(error));
    unavailable = error;
  }
  // A debugger of another token answers: the run belongs there or nowhere, never in a data directory it does not read.
  if (unavailable.reason === 'other-token') return fail(`${unavailable.message}; nothing was written`);
  // Something that is not the debugger holds the port: said, and it got nothing.
  if (unavailable.impostor) process.stderr.write(`graphmind import: ${unavailable.message}\n`);
  const named = namedDataDir(flags);
  if (named === undefined) {
    return fail(`no debugger answers on 127.0.0.1:${flags.port}, and no data directory was named: start graphmind serve and import again, or give --data-dir (or GRAPHMIND_DATA_DIR) to write the run where graphmind serve with that data directory loads it; nothing was written`);
  }
  const why = unavailable.impostor ? `no debugger on 127.0.0.1:${flags.port}` : unavailable.message;
  await writeIntoDataDir(flags, named, read, why, skipped);
}

/** The data directory the user named (`--data-dir`, else `GRAPHMIND_DATA_DIR`), the only one an import writes into. */
function namedDataDir(flags: ImportFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flags['data-dir'] !== undefined) return flags['data-dir'];
  return env.GRAPHMIND_DATA_DIR !== undefined && env.GRAPHMIND_DATA_DIR !== '' ? env.GRAPHMIND_DATA_DIR : undefined;
}

/** The debugger's 409, told with this command's flag (`--new-id`) rather than the API's query. */
function conflict(error: string, runId: string): string {
  if (/trim/.test(error)) return error;
  const what = /deleted/.test(error) ? `a run ${runId} was deleted in this debugger's life` : `a run ${runId} is there already`;
  return `${what}: import it with --new-id to keep both`;
}

/** No debugger of this data directory answers: the log goes where the next one loads it from, unless that start would trim runs. */
async function writeIntoDataDir(flags: ImportFlags, dataDir: string, read: ImportedLog, why: string, skipped: string): Promise<void> {
  const { renamed, newImportId } = await import('../export/import-run.js');
  const log = flags['new-id'] ? renamed(read, newImportId()) : read;
  const dir = join(dataDir, 'runs');
  const file = join(dir, `${log.runId}.jsonl`);
  if (existsSync(file)) return fail(`${file} exists: a run with this id is in ${dataDir} already (use --new-id to keep both)`);
  // Counted per kind, as serve's --max-runs counts them: the adapter's runs apart from sessions.
  const notice = retentionNotice(dataDir, runsByKind(dataDir, log.runId), importedKind(log.events), flags['max-runs'], flags['allow-trim']);
  if (notice?.refuse === true) return fail(notice.line);
  let fd: number;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(code === 'EEXIST' ? `${file} exists: a run with this id is in ${dataDir} already (use --new-id to keep both)` : `cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    for (const line of log.lines) {
      writeSync(fd, line);
      writeSync(fd, '\n');
    }
  } finally {
    closeSync(fd);
  }
  if (notice !== undefined) process.stderr.write(`graphmind import: ${notice.line}\n`);
  process.stdout.write(`graphmind import: ${why}; wrote run ${log.runId} to ${file}: graphmind serve --data-dir ${dataDir} shows it${skipped}\n`);
}
