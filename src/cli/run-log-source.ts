/**
 * Where a command finds a run by its id, as `graphmind export` does: the
 * running debugger's API (`GET /api/runs/:runId/export?format=jsonl`),
 * else, when no debugger answers, the data directory's log of that run.
 * Replay and verify read it so.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import type { RecordedRun } from '../replay/recorded-run.js';

/** Where a run's log was found, or one line saying why not. */
export type RunLogSource =
  /** The debugger sent the log. */
  | { ok: true; body: Buffer; from: string }
  /** No debugger answered: the log file in the data directory. */
  | { ok: true; file: string; from: string }
  | { ok: false; line: string };

/** Find run `runId` (see the module). */
export async function findRunLog(runId: string, port: number, dataDir: string): Promise<RunLogSource> {
  const { LoopbackClient, DebuggerUnavailable, answerError } = await import('../client/loopback-client.js');
  try {
    const client = new LoopbackClient({ port, dataDir, timeoutMs: 120_000 });
    const answer = await client.request({ method: 'GET', path: `/api/runs/${runId}/export?format=jsonl` });
    if (answer.status === 404) return { ok: false, line: `no run ${runId} in the debugger on 127.0.0.1:${port} (graphmind serve with --data-dir ${dataDir})` };
    if (answer.status !== 200) return { ok: false, line: `the debugger on 127.0.0.1:${port} could not give run ${runId}: ${answerError(answer)}` };
    return { ok: true, body: answer.body, from: `the debugger on 127.0.0.1:${port}` };
  } catch (error) {
    if (!(error instanceof DebuggerUnavailable)) return { ok: false, line: error instanceof Error ? error.message : String(error) };
    // A debugger of another token answers: its runs are not the data directory's.
    if (error.reason === 'other-token') return { ok: false, line: error.message };
    const file = join(dataDir, 'runs', `${runId}.jsonl`);
    if (!existsSync(file)) {
      // The adapter's runs are kept in segments (server/segment-rules.ts).
      const { readSegmentedRunLines } = await import('../server/segment-read.js');
      const lines = readSegmentedRunLines(join(dataDir, 'runs'), runId);
      if (lines !== undefined) return { ok: true, body: lines, from: dataDir };
      return { ok: false, line: `no run ${runId} in ${dataDir} (${error.message}, so the data directory was read)` };
    }
    return { ok: true, file, from: dataDir };
  }
}

/** A run named on the command line (an id, a run log file or a cassette) read as a recorded run, or one line saying why not. */
export async function loadRunArgument(
  run: string,
  port: number,
  dataDir: string,
  verb: string,
): Promise<{ ok: true; run: RecordedRun; what: string; file?: string; body?: Buffer } | { ok: false; line: string }> {
  const { loadRun, loadRunFromBytes } = await import('../replay/load-run.js');
  if (isRunPath(run)) {
    const loaded = loadRun(run);
    return loaded.ok ? { ok: true, run: loaded.run, what: run, file: run } : { ok: false, line: `cannot ${verb} ${run}: ${loaded.reason}` };
  }
  const source = await findRunLog(run, port, dataDir);
  if (!source.ok) return source;
  const loaded = 'body' in source ? loadRunFromBytes(source.body, run) : loadRun(source.file, run);
  const from = 'body' in source ? { body: source.body } : { file: source.file };
  return loaded.ok ? { ok: true, run: loaded.run, what: `run ${run}`, ...from } : { ok: false, line: `cannot ${verb} run ${run}: ${loaded.reason}` };
}

/** Is `run` a file rather than a run id? */
export function isRunPath(run: string): boolean {
  return run.endsWith('.jsonl') || run.endsWith('.json') || run.includes('/') || !RUN_ID_PATTERN.test(run);
}
