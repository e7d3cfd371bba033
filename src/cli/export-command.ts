import { createWriteStream, existsSync, rmSync, type WriteStream } from 'node:fs';
import { Transform, Writable, type TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { defaultDataDir } from '../report/config.js';
import { debuggerPort, PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import { parseRedactions } from '../export/redact.js';
import { compileCondition } from '../conditions/index.js';

/** `--where`'s expression compiled, or the one line that says what is wrong with it and where. */
function whereCondition(text: string | undefined): ReturnType<typeof compileCondition> | undefined {
  return text === undefined ? undefined : compileCondition(text);
}

function whereProblem(text: string, error: string, position: number): string {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  return `--where ${JSON.stringify(shown)}: ${error} at position ${position} (docs/conditions.md has the language)`;
}

/** The `--redact` values as a list (yargs makes a repeated flag an array). */
function redactTexts(value: unknown): string[] {
  return [value ?? []].flat().map(String);
}

/** Parsed `export` flags. */
export interface ExportFlags {
  runId: string;
  format: 'jsonl' | 'har' | 'otlp-json' | 'cassette';
  /** `--redact`: one path, or several when repeated. */
  redact?: string | string[];
  /** `--where`: an expression of the condition language; only the calls it matches are written. */
  where?: string;
  output?: string;
  /** Undefined when not given: GRAPHMIND_URL's port, else 4747 (see debugger-port.ts). */
  port?: number;
  'data-dir'?: string;
}

/** The `export` flags, for yargs. */
export function exportFlags(yargs: Argv): Argv<ExportFlags> {
  return yargs
    .positional('runId', { type: 'string', describe: 'The run (its id, as the viewer and GET /api/runs show it)' })
    .option('format', { choices: ['jsonl', 'har', 'otlp-json', 'cassette'] as const, default: 'jsonl' as const, describe: 'What to write (cassette: an mcp-recorder cassette)' })
    // Not an array flag: one would take the run id that follows it as one more path.
    .option('redact', { type: 'string', describe: 'Write "[redacted]" in place of the values this JSONPath selects in each message ($.params.arguments.apiKey), optionally scoped: "tools/call:login $.params…"; repeatable' })
    .option('where', { type: 'string', describe: 'Write only the calls this expression matches, and their session: tool:search, is:error and dur>2s, $.params.arguments.q ~ "PAY-" (docs/conditions.md)' })
    .option('output', { alias: 'o', type: 'string', describe: 'Write to this file (default: standard output)' })
    .option('port', { type: 'number', describe: PORT_FLAG_HELP })
    .option('data-dir', { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' })
    .check((argv) => {
      const runId = argv.runId;
      if (typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId)) throw new Error('give the id of a run (letters, digits, _ and -, up to 64)');
      const portProblem = portFlagProblem(argv.port);
      if (portProblem !== undefined) throw new Error(portProblem);
      if (argv['data-dir'] !== undefined && argv['data-dir'] === '') throw new Error('--data-dir must not be empty');
      const redacted = parseRedactions(redactTexts(argv.redact));
      if (!redacted.ok) throw new Error(redacted.reason);
      const where = argv.where;
      if (Array.isArray(where)) throw new Error('--where is given once (join expressions with and / or)');
      const compiled = whereCondition(where === undefined ? undefined : String(where));
      if (compiled !== undefined && !compiled.ok) throw new Error(whereProblem(String(where), compiled.error, compiled.position));
      return true;
    }) as unknown as Argv<ExportFlags>;
}

/** The file of `-o`, made only at its first byte (a run that is not there leaves no file behind). */
class LazyFile extends Writable {
  readonly #path: string;
  #file: WriteStream | undefined;

  constructor(path: string) {
    super();
    this.#path = path;
  }

  #open(): WriteStream {
    if (this.#file === undefined) {
      this.#file = createWriteStream(this.#path, { mode: 0o600 });
      this.#file.on('error', (error) => this.destroy(error));
    }
    return this.#file;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.#open().write(chunk)) done();
    else this.#file?.once('drain', () => done());
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#open().end(() => done());
  }

  /** Remove what was written (the export failed part way). */
  remove(): void {
    if (this.#file === undefined) return;
    this.#file.destroy();
    rmSync(this.#path, { force: true });
  }
}

/**
 * `graphmind export`: the run from the running debugger's API
 * (`GET /api/runs/:runId/export`), else from the data directory's log,
 * streamed to `-o <file>` or stdout as it comes. Exits 1 with one line
 * when there is no such run, or when the export fails part way (a
 * partial `-o` file is removed).
 */
export async function runExportCommand(parsed: ExportFlags, version: string): Promise<void> {
  const flags = { ...parsed, port: debuggerPort('graphmind export', parsed.port) };
  const { LoopbackClient, DebuggerUnavailable, answerError } = await import('../client/loopback-client.js');
  const dataDir = flags['data-dir'] ?? defaultDataDir();
  const { runId, format } = flags;
  const redactions = redactTexts(flags.redact);
  const parsedRedactions = parseRedactions(redactions);
  const redact = parsedRedactions.ok ? parsedRedactions.paths : [];
  const compiled = whereCondition(flags.where);
  const where = compiled?.ok === true ? compiled.condition : undefined;
  const query = [`format=${format}`, ...redactions.map((path) => `redact=${encodeURIComponent(path)}`), ...(flags.where === undefined ? [] : [`where=${encodeURIComponent(flags.where)}`])].join('&');
  const file = flags.output === undefined ? undefined : new LazyFile(flags.output);
  const fail = (line: string): never => {
    file?.remove();
    process.stderr.write(`graphmind export: ${line}\n`);
    process.exit(1);
  };
  file?.on('error', (error) => fail(`cannot write ${flags.output}: ${error.message}`));
  const counted = new Counter();
  if (file === undefined) counted.pipe(process.stdout, { end: false });
  else counted.pipe(file);
  let from: string;
  try {
    const client = new LoopbackClient({ port: flags.port, dataDir, timeoutMs: 120_000 });
    const answer = await client.request({ method: 'GET', path: `/api/runs/${runId}/export?${query}`, sink: counted });
    if (answer.status === 404) fail(`no run ${runId} in the debugger on 127.0.0.1:${flags.port} (graphmind serve with --data-dir ${dataDir})`);
    if (answer.status !== 200) fail(`the debugger on 127.0.0.1:${flags.port} could not export run ${runId}: ${answerError(answer)}`);
    from = `the debugger on 127.0.0.1:${flags.port}`;
  } catch (error) {
    if (!(error instanceof DebuggerUnavailable)) return fail(error instanceof Error ? error.message : String(error));
    // A debugger of another token answers: its runs are not the data directory's, so that is not read in their place.
    if (error.reason === 'other-token') return fail(error.message);
    // Something that is not the debugger holds the port: said, and it got nothing.
    if (error.impostor) process.stderr.write(`graphmind export: ${error.message}; reading ${dataDir} instead\n`);
    const { exportRun } = await import('../export/export-run.js');
    const log = join(dataDir, 'runs', `${runId}.jsonl`);
    // The adapter's runs are kept in segments (server/segment-rules.ts): one of those is copied to a file first.
    const { segmentedRunCopy } = await import('../server/segment-read.js');
    const copy = existsSync(log) ? undefined : segmentedRunCopy(join(dataDir, 'runs'), runId);
    const exported = await exportRun(copy?.file ?? log, runId, format, { stream: counted }, { version, redact, where }).finally(() => copy?.remove());
    if ('problem' in exported) {
      return fail(exported.problem === 'not-found' ? `no run ${runId} in ${dataDir} (${error.message}, so the data directory was read)` : `cannot read ${log}: ${exported.reason}`);
    }
    from = dataDir;
  }
  counted.end();
  await finished(file ?? counted);
  if (flags.output === undefined) return;
  const redacted = redactions.length === 0 ? '' : `, ${redactions.length === 1 ? 'one path' : `${redactions.length} paths`} redacted`;
  const only = flags.where === undefined ? '' : `, only the calls where ${flags.where}`;
  process.stderr.write(`graphmind export: wrote run ${runId} as ${format} to ${flags.output} (${counted.bytes} bytes, from ${from}${redacted}${only})\n`);
}

/** Passes bytes on, counting them. */
class Counter extends Transform {
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}
