/**
 * Where a command finds a run by its id, as `graphmind export` does: the
 * running debugger's API (`GET /api/runs/:runId/export?format=jsonl`),
 * else, when no debugger answers, the data directory's log of that run.
 * Replay reads it so (and verify will).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

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
    if (!existsSync(file)) return { ok: false, line: `no run ${runId} in ${dataDir} (${error.message}, so the data directory was read)` };
    return { ok: true, file, from: dataDir };
  }
}
