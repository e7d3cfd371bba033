// Issue 29, "retention that speaks": what `--max-runs` deletes, at start or
// while runs are recorded, is said on the server's stderr (one line: how
// many, and that --max-runs did it; not a line per run) and to the viewers
// (a `runs.trimmed` live-feed message, and the snapshot's `trimmed` for a
// page opened later). Through the real CLI, a real reporter socket and a
// real live feed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { api, fakeReporter, freshDataDir, liveClient, RunEvents, startServe, eventually } from './helpers/serve.js';
import { waitFor } from './helpers/cli.js';
import type { RunEvent } from '../src/protocol/ingest.js';

const LINE = /^graphmind: deleted (\d+) oldest runs? to keep --max-runs (\d+)$/gm;

/** The retention lines on `stderr`: [deleted, maxRuns] each. */
function said(stderr: string): Array<[number, number]> {
  return [...stderr.matchAll(LINE)].map((m) => [Number(m[1]), Number(m[2])]);
}

/** A finished run's events. */
function finishedRun(runId: string, t: number): RunEvent[] {
  const run = new RunEvents(runId, t);
  return [run.started(runId), run.next({ type: 'run.finished', status: 'ok' })];
}

t.test('at start: the logs over --max-runs are deleted, and it is said on stderr and to a viewer', async (t) => {
  const { root, dataDir } = freshDataDir();
  mkdirSync(join(dataDir, 'runs'), { recursive: true, mode: 0o700 });
  const t0 = Date.now() - 100_000;
  for (let i = 0; i < 30; i++) {
    const runId = `run_old_${String(i).padStart(2, '0')}`;
    writeFileSync(join(dataDir, 'runs', `${runId}.jsonl`), `${finishedRun(runId, t0 + i * 1000).map((e) => JSON.stringify(e)).join('\n')}\n`);
  }
  const serve = await startServe(['--max-runs', '10'], {}, { dataDir });
  t.teardown(async () => {
    await serve.stop();
    const { rmSync } = await import('node:fs');
    rmSync(root, { recursive: true, force: true });
  });
  await waitFor(() => said(serve.stderr()).length > 0, 10_000, 'the retention line');
  t.strictSame(said(serve.stderr()), [[20, 10]], 'one line: 20 deleted to keep --max-runs 10');
  t.match(serve.stderr(), /^graphmind: deleted 20 oldest runs to keep --max-runs 10$/m);
  const runs = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  t.strictSame(
    runs.map((run) => run.runId),
    Array.from({ length: 10 }, (_, i) => `run_old_${29 - i}`),
    'the newest 10 kept',
  );
  const viewer = await liveClient(serve.port, serve.token);
  t.teardown(() => viewer.close());
  await waitFor(() => viewer.messages.length > 0, 5000, 'the snapshot');
  t.match(viewer.messages[0], { type: 'snapshot', trimmed: { deleted: 20, maxRuns: 10 } }, 'a page opened afterwards hears of it');
  t.notOk('loading' in (viewer.messages[0] as object), 'the load is over');
});

t.test('while recording: coalesced, one line and one message for a burst, not one per run', async (t) => {
  const serve = await startServe(['--max-runs', '3']);
  t.teardown(() => serve.stop());
  const viewer = await liveClient(serve.port, serve.token);
  t.teardown(() => viewer.close());
  const reporter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => reporter.close());
  // 50 runs in one message: 47 deleted, in one turn.
  const t0 = Date.now();
  reporter.send(Array.from({ length: 50 }, (_, i) => finishedRun(`run_burst_${String(i).padStart(2, '0')}`, t0 + i)).flat());
  await waitFor(() => said(serve.stderr()).length > 0, 10_000, 'the retention line');
  t.strictSame(said(serve.stderr()), [[47, 3]], 'one line for the burst');
  const trimmed = await eventually(async () => viewer.messages.find((m) => (m as { type: string }).type === 'runs.trimmed'), 5000, 'runs.trimmed');
  t.strictSame(trimmed, { type: 'runs.trimmed', deleted: 47, maxRuns: 3 }, 'and one message to the viewer');
  const deletedFirst = viewer.messages.filter((m) => (m as { type: string }).type === 'run.deleted').length;
  t.equal(deletedFirst, 47, 'after each run\'s own run.deleted');

  // More, one message each, within the next second: said together once that second is over.
  for (let i = 0; i < 5; i++) reporter.send(finishedRun(`run_more_${i}`, Date.now()));
  const total = (): number => said(serve.stderr()).slice(1).reduce((sum, [n]) => sum + n, 0);
  await waitFor(() => total() === 5, 10_000, 'the five said');
  const more = said(serve.stderr()).slice(1);
  // Sent within the second after the first line: said together when it is over (two lines if this machine
  // was slow enough for the first of them to come after that second).
  t.ok(more.length <= 2, `the five in ${more.length} line(s), not one per run: ${JSON.stringify(more)}`);
  t.ok(more.every(([, maxRuns]) => maxRuns === 3));
  const list = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as unknown[];
  t.equal(list.length, 3, '--max-runs kept');
});
