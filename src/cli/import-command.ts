import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { DEFAULT_PORT, defaultDataDir } from '../report/config.js';

/** Parsed `import` flags. */
export interface ImportFlags {
  file: string;
  'new-id': boolean;
  port: number;
  'data-dir'?: string;
}

/** The `import` flags, for yargs. */
export function importFlags(yargs: Argv): Argv<ImportFlags> {
  return yargs
    .positional('file', { type: 'string', describe: 'A run log: what graphmind export --format jsonl wrote (or a <runId>.jsonl from a data directory)' })
    .option('new-id', { type: 'boolean', default: false, describe: 'Load it under a new run id (to keep a run of the same id that is here already)' })
    .option('port', { type: 'number', default: DEFAULT_PORT, describe: 'Port of the graphmind serve to load it into (when one runs)' })
    .option('data-dir', { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' })
    .check((argv) => {
      if (typeof argv.file !== 'string' || argv.file === '') throw new Error('give the file of a run log');
      if (!Number.isInteger(argv.port) || argv.port < 1 || argv.port > 65535) throw new Error('--port must be a port number (1-65535)');
      if (argv['data-dir'] !== undefined && argv['data-dir'] === '') throw new Error('--data-dir must not be empty');
      return true;
    }) as unknown as Argv<ImportFlags>;
}

/**
 * `graphmind import`: load a run log into the running debugger
 * (`POST /api/runs/import`), where the viewer shows it at once; with no
 * debugger running, write it into the data directory's runs, where the
 * next `graphmind serve` loads it. Exits 1 with one line when it cannot.
 */
export async function runImportCommand(flags: ImportFlags): Promise<void> {
  const [{ LoopbackClient, DebuggerUnavailable, answerError }, { readImport, renamed, newImportId }] = await Promise.all([
    import('../client/loopback-client.js'),
    import('../export/import-run.js'),
  ]);
  const fail = (line: string): never => {
    process.stderr.write(`graphmind import: ${line}\n`);
    process.exit(1);
  };
  const dataDir = flags['data-dir'] ?? defaultDataDir();
  let bytes: Buffer;
  try {
    bytes = readFileSync(flags.file);
  } catch (error) {
    return fail(`cannot read ${flags.file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const read = readImport(bytes);
  if (typeof read === 'string') return fail(`${flags.file}: ${read}`);
  const skipped = read.skippedLines > 0 ? `; ${read.skippedLines} line(s) that are not events of the run were left out` : '';
  try {
    const client = new LoopbackClient({ port: flags.port, dataDir, timeoutMs: 120_000 });
    const answer = await client.request({
      method: 'POST',
      path: `/api/runs/import${flags['new-id'] ? '?newId=1' : ''}`,
      body: bytes,
      contentType: 'application/x-ndjson',
    });
    if (answer.status !== 201) return fail(`the debugger on 127.0.0.1:${flags.port} did not load it: ${answerError(answer)}`);
    const { runId } = JSON.parse(answer.body.toString('utf8')) as { runId: string };
    process.stdout.write(`graphmind import: loaded run ${runId} into the debugger: http://127.0.0.1:${flags.port}/#run=${encodeURIComponent(runId)}${skipped}\n`);
    return;
  } catch (error) {
    if (!(error instanceof DebuggerUnavailable)) return fail(error instanceof Error ? error.message : String(error));
  }
  // No debugger of this data directory runs: the log goes where the next one loads it from.
  const log = flags['new-id'] ? renamed(read, newImportId()) : read;
  const dir = join(dataDir, 'runs');
  const file = join(dir, `${log.runId}.jsonl`);
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
  process.stdout.write(`graphmind import: no debugger answers on 127.0.0.1:${flags.port}; wrote run ${log.runId} to ${file}: graphmind serve --data-dir ${dataDir} shows it${skipped}\n`);
}
