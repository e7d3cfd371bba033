// The adapter's runs in segment files, end to end (issue 29, "a run costs
// the debugger little"): a real `graphmind serve`, a real SDK client
// calling a wrapped SDK server in this process, thousands of runs. Killed
// with SIGKILL while it records, the next start reads back every run the
// first one listed before the kill; a run exports as its own JSONL log; a
// deleted run stays deleted; --max-runs drops whole segments, and a
// restart keeps the same runs.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import * as z from 'zod';
import { adapter, connectInMemory, kit, runList, text, waitFor, waitForAsync } from './helpers/adapter.js';
import { api, startServe, type ServeProcess } from './helpers/serve.js';

type Summary = { runId: string; name: string; source: string; status: string };

function dataDirOf(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-segserve-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return join(root, 'data');
}

/** The runs once the start's load is done. */
async function loadedRuns(serve: ServeProcess): Promise<Summary[]> {
  await waitForAsync(async () => ((await api(serve.port, serve.token, 'GET', '/api/health')).json as { loading?: unknown }).loading === undefined, 60_000, "the start's load");
  return runList(serve);
}

/** A wrapped SDK server with one tool, and a client of it, reporting to `serve`. */
async function echoClient(t: Test, serve: ServeProcess): Promise<(i: number) => Promise<unknown>> {
  const gm = await adapter(t, serve);
  const k = kit('1.32.2');
  const server = gm.wrapServer(k.mcpServer('segments'));
  server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(value));
  const client = await connectInMemory(t, k, server);
  return (i) => client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
}

const adapterRuns = (runs: Summary[]): Summary[] => runs.filter((run) => run.source === 'mcp-adapter');
const files = (dir: string, ending: string): string[] => readdirSync(dir).filter((name) => name.endsWith(ending));

t.test('thousands of adapter runs; SIGKILL while recording; the restart reads every run listed before the kill', async (t) => {
  const dataDir = dataDirOf(t);
  const first = await startServe(['--max-runs', '100000'], {}, { dataDir });
  t.teardown(() => first.stop('SIGKILL'));
  const call = await echoClient(t, first);
  const CALLS = 3000;
  const KILL_AT = 2000;
  let listed: Summary[] = [];
  for (let i = 0; i < CALLS; i++) {
    await call(i);
    if (i !== KILL_AT) continue;
    // What the debugger lists is on disk: the turn that recorded it wrote it before the list was answered.
    listed = adapterRuns(await runList(first)).filter((run) => run.status !== 'running');
    // Killed while the calls go on: the reporter is sending, the debugger recording.
    first.child.kill('SIGKILL');
  }
  await first.exited;
  const done = CALLS;
  t.ok(listed.length > 0 && listed.length < CALLS, 'killed mid-way');
  const runsDir = join(dataDir, 'runs');
  t.ok(files(runsDir, '.jsonl').length <= 2, `no log file per adapter run (${files(runsDir, '.jsonl').length} in runs/)`);
  const segments = files(join(runsDir, 'segments'), '.seg');
  t.ok(segments.length >= 1, 'segments instead');

  const second = await startServe(['--max-runs', '100000'], {}, { dataDir });
  t.teardown(() => second.stop('SIGKILL'));
  const after = adapterRuns(await loadedRuns(second));
  const byId = new Map(after.map((run) => [run.runId, run]));
  t.equal(byId.size, after.length, 'no run listed twice');
  const missing = listed.filter((run) => byId.get(run.runId)?.status !== run.status);
  t.strictSame(missing, [], 'every run listed before the kill is read back, as it was');
  const skipped = Number(/skipped (\d+) unreadable line/.exec(second.stdout())?.[1] ?? 0);
  t.ok(skipped <= 1, `at most a torn last line skipped (${skipped})`);
  t.comment(`${done} calls; ${listed.length} runs listed at the kill, ${after.length} read back after it, from ${segments.length} segment(s); ${skipped} line(s) skipped`);

  // A run exports as its own JSONL log.
  const exported = listed[10] as Summary;
  const answer = await api(second.port, second.token, 'GET', `/api/runs/${exported.runId}/export?format=jsonl`);
  t.equal(answer.status, 200);
  const lines = answer.text.trim().split('\n').map((line) => JSON.parse(line) as { runId: string });
  t.ok(lines.length >= 1 && lines.every((line) => line.runId === exported.runId), `its ${lines.length} line(s), all its own`);
  // A deleted run stays deleted after a restart.
  const deleted = listed[11] as Summary;
  t.equal((await api(second.port, second.token, 'DELETE', `/api/runs/${deleted.runId}`)).status, 204);
  const before = await runList(second);
  await second.stop();
  const third = await startServe(['--max-runs', '100000'], {}, { dataDir });
  t.teardown(() => third.stop());
  const afterDelete = await loadedRuns(third);
  t.notOk(afterDelete.some((run) => run.runId === deleted.runId), 'the deleted run stays deleted');
  // Sorted: runs that started in the same millisecond may list in another order after a restart.
  const byRunId = (runs: Summary[]): Summary[] => [...runs].sort((x, y) => x.runId.localeCompare(y.runId));
  t.same(byRunId(afterDelete), byRunId(before), 'the rest as they were, the exported run among them');
});

t.test('--max-runs drops whole segments; a restart keeps the same runs', async (t) => {
  const dataDir = dataDirOf(t);
  const first = await startServe(['--max-runs', '200'], {}, { dataDir });
  t.teardown(() => first.stop('SIGKILL'));
  const call = await echoClient(t, first);
  const CALLS = 2500;
  for (let i = 0; i < CALLS; i++) await call(i);
  let kept: Summary[] = [];
  await waitForAsync(async () => (kept = adapterRuns(await runList(first))).length === 200 && kept.every((run) => run.status !== 'running'), 20_000, '200 adapter runs kept');
  const segmentsDir = join(dataDir, 'runs', 'segments');
  const segments = files(segmentsDir, '.seg');
  // 2,500 small runs fill about two segments; those that keep no run are gone.
  t.ok(segments.length <= 3, `the segments that keep no run are deleted (${segments.length} left)`);
  await first.stop();
  t.match(first.stderr(), /deleted \d+ oldest runs? to keep --max-runs 200/, 'and that was said');
  const second = await startServe(['--max-runs', '200'], {}, { dataDir });
  t.teardown(() => second.stop());
  const after = adapterRuns(await loadedRuns(second));
  t.strictSame(after.map((run) => run.runId), kept.map((run) => run.runId), 'the same 200 runs after a restart');
  t.notMatch(second.stderr(), /deleted/, 'nothing more to delete');
});
