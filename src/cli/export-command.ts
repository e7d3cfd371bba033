import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { DEFAULT_PORT, defaultDataDir } from '../report/config.js';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';

/** Parsed `export` flags. */
export interface ExportFlags {
  runId: string;
  format: 'jsonl' | 'har' | 'otlp-json';
  output?: string;
  port: number;
  'data-dir'?: string;
}

/** The `export` flags, for yargs. */
export function exportFlags(yargs: Argv): Argv<ExportFlags> {
  return yargs
    .positional('runId', { type: 'string', describe: 'The run (its id, as the viewer and GET /api/runs show it)' })
    .option('format', { choices: ['jsonl', 'har', 'otlp-json'] as const, default: 'jsonl' as const, describe: 'What to write' })
    .option('output', { alias: 'o', type: 'string', describe: 'Write to this file (default: standard output)' })
    .option('port', { type: 'number', default: DEFAULT_PORT, describe: 'Port of the graphmind serve to read from (when one runs)' })
    .option('data-dir', { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' })
    .check((argv) => {
      const runId = argv.runId;
      if (typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId)) throw new Error('give the id of a run (letters, digits, _ and -, up to 64)');
      if (!Number.isInteger(argv.port) || argv.port < 1 || argv.port > 65535) throw new Error('--port must be a port number (1-65535)');
      if (argv['data-dir'] !== undefined && argv['data-dir'] === '') throw new Error('--data-dir must not be empty');
      return true;
    }) as unknown as Argv<ExportFlags>;
}

/**
 * `graphmind export`: the run from the running debugger's API
 * (`GET /api/runs/:runId/export`), else from the data directory's log.
 * Exits 1 with one line when there is no such run.
 */
export async function runExportCommand(flags: ExportFlags, version: string): Promise<void> {
  const { LoopbackClient, DebuggerUnavailable, answerError } = await import('../client/loopback-client.js');
  const dataDir = flags['data-dir'] ?? defaultDataDir();
  const { runId, format } = flags;
  const fail = (line: string): never => {
    process.stderr.write(`graphmind export: ${line}\n`);
    process.exit(1);
  };
  let body: Buffer;
  let from: string;
  try {
    const client = new LoopbackClient({ port: flags.port, dataDir, timeoutMs: 120_000 });
    const answer = await client.request({ method: 'GET', path: `/api/runs/${runId}/export?format=${format}` });
    if (answer.status === 404) fail(`no run ${runId} in the debugger on 127.0.0.1:${flags.port} (graphmind serve with --data-dir ${dataDir})`);
    if (answer.status !== 200) fail(`the debugger on 127.0.0.1:${flags.port} could not export run ${runId}: ${answerError(answer)}`);
    body = answer.body;
    from = `the debugger on 127.0.0.1:${flags.port}`;
  } catch (error) {
    if (!(error instanceof DebuggerUnavailable)) return fail(error instanceof Error ? error.message : String(error));
    // Something that is not the debugger holds the port: said, and it got nothing.
    if (error.impostor) process.stderr.write(`graphmind export: ${error.message}; reading ${dataDir} instead\n`);
    const { exportRunLog } = await import('../export/export-run.js');
    const file = join(dataDir, 'runs', `${runId}.jsonl`);
    const exported = await exportRunLog(file, runId, format, { version });
    if ('problem' in exported) {
      return fail(exported.problem === 'not-found' ? `no run ${runId} in ${dataDir} (${error.message}, so the data directory was read)` : `cannot read ${file}: ${exported.reason}`);
    }
    body = exported.body;
    from = dataDir;
  }
  if (flags.output === undefined) {
    process.stdout.write(body);
    return;
  }
  try {
    writeFileSync(flags.output, body, { mode: 0o600 });
  } catch (error) {
    fail(`cannot write ${flags.output}: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.stderr.write(`graphmind export: wrote run ${runId} as ${format} to ${flags.output} (${body.length} bytes, from ${from})\n`);
}
