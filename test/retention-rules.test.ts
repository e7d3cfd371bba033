// The rules behind "start at once" and "retention that speaks", as
// playbooks: the order retention and the run list read (RunOrder), how the
// deletions are coalesced into lines (RetentionNotice, with a clock of the
// test's own), the words said, the background loader's claims, and what
// the viewer's state does with `runs.loaded`, `runs.trimmed` and a
// snapshot's `loading` and `trimmed`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { RunSummary } from '../src/protocol/run-model.js';
import { RunState } from '../src/protocol/run-state.js';
import { RetentionNotice, retentionLine } from '../src/server/retention-notice.js';
import { RunLoader } from '../src/server/run-loader.js';
import { RunOrder } from '../src/server/run-order.js';
import { RunStore } from '../src/server/run-store.js';
import { receive } from '../src/viewer/live-reducer.js';
import { count, loadingText, trimmedText } from '../src/viewer/run-notes-text.js';
import { ViewState } from '../src/viewer/view-state.js';

function run(runId: string, t: number, finished = true): RunState {
  const state = new RunState(runId, t);
  state.apply({ type: 'run.started', runId, seq: 1, t, name: runId, source: 'test', meta: {} });
  if (finished) state.apply({ type: 'run.finished', runId, seq: 2, t: t + 1, status: 'ok' });
  return state;
}
const ids = (states: readonly RunState[]): string[] => states.map((state) => state.summary.runId);

t.test('RunOrder: newest first, ties to the one added later, oldest finished for retention', async (t) => {
  const order = new RunOrder();
  const [a, b, c, d] = [run('a', 1000), run('b', 3000), run('c', 2000), run('d', 3000)];
  for (const state of [a, b, c, d]) order.add(state);
  t.strictSame(ids(order.newestFirst()), ['d', 'b', 'c', 'a'], 'out of order: sorted; a tie goes to the one added later');
  const live = run('e', 500, false);
  order.add(live);
  t.strictSame(ids(order.oldestFinished(2, undefined)), ['a', 'c'], 'a running run is never among them');
  t.strictSame(ids(order.oldestFinished(2, 'a')), ['c', 'b'], 'nor the one kept');
  t.strictSame(ids(order.oldestFinished(0, undefined)), [], 'none asked, none given');
  order.removeAll([a, c]);
  t.strictSame(ids(order.newestFirst()), ['d', 'b', 'e'], 'removed');
  const many = Array.from({ length: 20 }, (_, i) => run(`m${i}`, 10_000 + i));
  for (const state of many) order.add(state);
  order.removeAll(many.slice(0, 15));
  t.strictSame(ids(order.newestFirst()), ['m19', 'm18', 'm17', 'm16', 'm15', 'd', 'b', 'e'], 'many at once: one filter');
  order.remove(b);
  t.equal(order.size, 7);
});

t.test('RunOrder: retention at run time, a live run at the front, many runs through', async (t) => {
  // As the adapter records: its connection's run stays live at the front, each call a run of its own.
  const order = new RunOrder();
  const connection = run('conn', 0, false);
  order.add(connection);
  const kept: RunState[] = [];
  for (let i = 0; i < 1000; i++) {
    const state = run(`r${i}`, 10 + i);
    order.add(state);
    kept.push(state);
    if (order.size > 5) {
      const [oldest] = order.oldestFinished(order.size - 5, state.summary.runId);
      order.removeAll(oldest === undefined ? [] : [oldest]);
      kept.shift();
    }
    if (i % 97 === 0) t.strictSame(ids(order.newestFirst()), [...ids(kept).reverse(), 'conn'], `after ${i + 1} runs`);
  }
  t.equal(order.size, 5);
  // A run out of order, and one removed from the middle (a delete through the API).
  const early = run('early', 5);
  order.add(early);
  order.remove(kept[2] as RunState);
  t.strictSame(ids(order.newestFirst()), ['r999', 'r997', 'r996', 'early', 'conn']);
  t.strictSame(ids(order.oldestFinished(2, undefined)), ['early', 'r996'], 'sorted again, holes skipped');
});

t.test('the words said', async (t) => {
  const table: Array<[number, number, string]> = [
    [1, 200, 'deleted 1 oldest run to keep --max-runs 200'],
    [12, 200, 'deleted 12 oldest runs to keep --max-runs 200'],
    [9800, 200, 'deleted 9800 oldest runs to keep --max-runs 200'],
  ];
  for (const [deleted, maxRuns, line] of table) t.equal(retentionLine(deleted, maxRuns), line);
  t.equal(count(4210), '4,210');
  t.equal(loadingText({ loaded: 4210, total: 10_000 }), 'loading 4,210 of 10,000');
  t.equal(loadingText({ loaded: 0, total: 0 }), 'loading runs…', 'while the directory is still being listed');
  t.equal(trimmedText(12, 20_000), 'deleted 12 oldest runs to keep --max-runs 20,000');
});

t.test('RetentionNotice: one saying a second, the first at the end of its turn', async (t) => {
  let now = 0;
  const said: number[] = [];
  const notice = new RetentionNotice({ say: (deleted) => said.push(deleted), now: () => now, intervalMs: 1000 });
  notice.add(1);
  notice.add(2);
  t.strictSame(said, [], 'not within the turn');
  await new Promise((resolve) => setImmediate(resolve));
  t.strictSame(said, [3], 'the turn over: one saying for all of it');
  now = 100;
  notice.add(1);
  notice.add(1);
  await new Promise((resolve) => setImmediate(resolve));
  t.strictSame(said, [3], 'within the second: held');
  now = 1000;
  notice.flush();
  t.strictSame(said, [3, 2], 'said when the second is over (or on close)');
  notice.flush();
  t.strictSame(said, [3, 2], 'nothing more to say: nothing said');
  now = 5000;
  notice.add(7);
  await new Promise((resolve) => setImmediate(resolve));
  t.strictSame(said, [3, 2, 7], 'after a quiet second: at the end of the turn again');
});

t.test('RetentionNotice: a held count is said by its timer', async (t) => {
  const said: number[] = [];
  const notice = new RetentionNotice({ say: (deleted) => said.push(deleted), intervalMs: 50 });
  notice.add(1);
  await new Promise((resolve) => setImmediate(resolve));
  notice.add(4);
  const started = Date.now();
  while (said.length < 2 && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 10));
  t.strictSame(said, [1, 4]);
});

t.test('RunLoader: slices, claims out of turn, progress', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-loader-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (let i = 0; i < 30; i++) writeFileSync(join(dir, `run_${i}.jsonl`), '');
  writeFileSync(join(dir, 'not a log.txt'), '');
  const loaded: string[] = [];
  const slices: Array<{ size: number; loaded: number; total: number }> = [];
  const loader = new RunLoader({
    dir,
    sliceMs: 0,
    loadOne: (runId) => {
      loaded.push(runId);
      return runId === 'run_3' ? 2 : 0;
    },
    onSlice: (runIds, progress) => slices.push({ size: runIds.length, ...progress }),
  });
  t.equal(loader.claim('run_7'), true, 'before the listing: looked for on disk, loaded');
  t.equal(loader.claim('run_7'), false, 'once');
  t.equal(loader.claim('run_404'), false, 'no such log');
  const started = loader.start();
  t.strictSame(loader.progress, { loaded: 0, total: 0 }, 'listing');
  await new Promise((resolve) => setImmediate(resolve));
  const done = await started;
  t.equal(done, true);
  t.equal(loaded.length, 30, 'each log once');
  t.equal(new Set(loaded).size, 30);
  t.equal(loaded[0], 'run_7', 'the claimed one first');
  t.equal(loader.skippedLines, 2);
  t.ok(slices.length >= 29, 'a slice per log at 0 ms a slice');
  t.strictSame(slices.at(-1), { size: 1, loaded: 30, total: 30 });
  t.equal(loader.done, true);
  t.equal(loader.claim('run_8'), false, 'done: nothing to claim');
});

t.test('retention kinds: the adapter\'s runs and sessions are counted apart', async (t) => {
  const { retentionKind } = await import('../src/server/run-order.js');
  const table: Array<[string, string]> = [
    ['mcp-adapter', 'adapter'],
    ['mcp-proxy', 'session'],
    ['mcp-http-proxy', 'session'],
    ['import', 'session'],
    ['unknown', 'session'],
    ['', 'session'],
  ];
  for (const [source, kind] of table) t.equal(retentionKind(source), kind, `${JSON.stringify(source)} is a ${kind}`);
});

t.test('RunStore: a busy adapter does not push the sessions out', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const deleted: string[] = [];
  const store = new RunStore({ dir, maxRuns: 3, onRetentionDelete: (id) => deleted.push(id), onWarning: () => {} });
  t.teardown(() => store.close());
  await store.loadInBackground();
  let time = 1000;
  const record = (runId: string, source: string): void => {
    store.append({ type: 'run.started', runId, seq: 1, t: time++, name: runId, source, meta: {} });
    store.append({ type: 'run.finished', runId, seq: 2, t: time++, status: 'ok' });
  };
  for (let i = 0; i < 3; i++) record(`run_session_${i}`, 'mcp-proxy');
  for (let i = 0; i < 50; i++) record(`run_adapter_${String(i).padStart(2, '0')}`, 'mcp-adapter');
  await new Promise((resolve) => setImmediate(resolve));
  const kept = store.list().map((run: RunSummary) => run.runId);
  t.strictSame(kept.filter((id) => id.startsWith('run_session_')).sort(), ['run_session_0', 'run_session_1', 'run_session_2'], 'every session kept');
  t.strictSame(kept.filter((id) => id.startsWith('run_adapter_')), ['run_adapter_49', 'run_adapter_48', 'run_adapter_47'], 'the newest 3 adapter runs kept');
  t.equal(deleted.length, 47, 'the 47 oldest adapter runs deleted');
  t.ok(deleted.every((id) => id.startsWith('run_adapter_')), 'and no session');
  // One more session: now the sessions are over the limit, and their oldest goes.
  record('run_session_3', 'mcp-proxy');
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(store.has('run_session_0'), 'the oldest session goes once sessions pass --max-runs');
  t.ok(store.has('run_adapter_47'), 'the adapter runs stay');
});

t.test('RunStore: retention waits for the end of the load, then trims once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (let i = 0; i < 12; i++) {
    const runId = `run_${String(i).padStart(2, '0')}`;
    const lines = [
      { type: 'run.started', runId, seq: 1, t: 1000 + i, name: runId, source: 'test', meta: {} },
      { type: 'run.finished', runId, seq: 2, t: 1001 + i, status: 'ok' },
    ];
    writeFileSync(join(dir, `${runId}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  }
  const passes: number[] = [];
  const deleted: string[] = [];
  const store = new RunStore({ dir, maxRuns: 5, onRetention: (n) => passes.push(n), onRetentionDelete: (id) => deleted.push(id) });
  t.teardown(() => store.close());
  const loading = store.loadInBackground();
  t.ok(store.loading !== undefined, 'loading');
  // A new run during the load: recorded at once, nothing trimmed yet.
  store.append({ type: 'run.started', runId: 'run_new', seq: 1, t: 5000, name: 'new', source: 'test', meta: {} });
  t.ok(store.has('run_new'));
  t.equal(store.get('run_03')?.summary.status, 'ok', 'a run asked for by id is loaded at once');
  t.strictSame(passes, [], 'nothing trimmed during the load');
  const done = await loading;
  t.equal(done.runs, 5);
  t.equal(store.loading, undefined, 'loaded');
  t.strictSame(passes, [8], 'one pass, after the load');
  t.strictSame(deleted, ['run_00', 'run_01', 'run_02', 'run_03', 'run_04', 'run_05', 'run_06', 'run_07'], 'the oldest finished');
  t.strictSame(
    store.list().map((run: RunSummary) => run.runId),
    ['run_new', 'run_11', 'run_10', 'run_09', 'run_08'],
  );
});

t.test('the viewer: runs.loaded places runs by start, runs.trimmed adds up, the snapshot says both', async (t) => {
  const state = new ViewState();
  const summary = (runId: string, startedAt: string): RunSummary => ({ runId, name: runId, source: 'test', status: 'ok', startedAt, endedAt: startedAt });
  receive(state, { type: 'snapshot', runs: [summary('live', '2024-05-01T10:00:05.000Z')], breakpoints: { pauseOnError: true, nodes: {} }, holds: [], loading: { loaded: 0, total: 3 } });
  t.strictSame(state.runsLoading, { loaded: 0, total: 3 });
  const step = receive(state, { type: 'runs.loaded', runs: [summary('old', '2024-05-01T10:00:01.000Z'), summary('live', '2024-05-01T10:00:05.000Z'), summary('mid', '2024-05-01T10:00:03.000Z')], loading: { loaded: 3, total: 3 } });
  t.ok(step.dirty !== 0);
  t.strictSame(state.runs.map((r) => r.runId), ['live', 'mid', 'old'], 'placed by start; one it had is not doubled');
  t.strictSame(state.runsLoading, { loaded: 3, total: 3 });
  receive(state, { type: 'runs.loaded', runs: [], loading: null });
  t.equal(state.runsLoading, null, 'done');
  receive(state, { type: 'runs.trimmed', deleted: 2, maxRuns: 3 });
  receive(state, { type: 'runs.trimmed', deleted: 5, maxRuns: 3 });
  t.strictSame(state.trimmed, { deleted: 7, maxRuns: 3 }, 'added up');
  state.trimmed = null;
  receive(state, { type: 'snapshot', runs: state.runs, breakpoints: { pauseOnError: true, nodes: {} }, holds: [], trimmed: { deleted: 7, maxRuns: 3 } });
  t.equal(state.trimmed, null, 'dismissed, and nothing more deleted since: stays dismissed after a reconnect');
  receive(state, { type: 'snapshot', runs: state.runs, breakpoints: { pauseOnError: true, nodes: {} }, holds: [], trimmed: { deleted: 9, maxRuns: 3 } });
  t.strictSame(state.trimmed, { deleted: 9, maxRuns: 3 }, 'more deleted: said again, the total');
  const fresh = new ViewState();
  receive(fresh, { type: 'snapshot', runs: [], breakpoints: { pauseOnError: true, nodes: {} }, holds: [], trimmed: { deleted: 20, maxRuns: 10 } });
  t.strictSame(fresh.trimmed, { deleted: 20, maxRuns: 10 }, 'a page opened after a start that trimmed hears of it');
  t.equal(fresh.runsLoading, null);
});
