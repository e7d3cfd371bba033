// The segment files the adapter's runs are kept in (issue 29, "a run costs
// the debugger little"): the pure rules as playbooks (where a run's next
// line goes, when a segment can go, the files' names), the index's counts,
// and a RunStore with segments on, in process: runs recorded, dropped by
// retention and by a delete, read again by the next start, moved to a log
// of their own (an export, a reclaim), a torn last line, a full disk.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { RunEvent } from '../src/protocol/ingest.js';
import { RunStore } from '../src/server/run-store.js';
import { SegmentIndex } from '../src/server/segment-index.js';
import { readSegmentedRunLines, readSegmentedRuns } from '../src/server/segment-read.js';
import {
  droppedFileName,
  firstSegment,
  MOVE_SPAN_BYTES,
  nextLineGoes,
  segmentDeletable,
  segmentFileName,
  segmentFull,
  segmentOfFileName,
  SEGMENT_BYTES,
  startsInSegment,
} from '../src/server/segment-rules.js';

t.test('where a run\'s next line goes', async (t) => {
  const table: Array<[string, { segment: number; span: number }, number, 'segment' | 'move']> = [
    ['a small run in the current segment stays', { segment: 3, span: 900 }, 3, 'segment'],
    ['just at the bound it stays', { segment: 3, span: MOVE_SPAN_BYTES }, 3, 'segment'],
    ['spread past the bound it moves', { segment: 3, span: MOVE_SPAN_BYTES + 1 }, 3, 'move'],
    ['its segment was closed: it moves', { segment: 2, span: 10 }, 3, 'move'],
    ['a segment of an earlier start (a reclaim): it moves', { segment: 7, span: 10 }, 9, 'move'],
  ];
  for (const [what, run, current, expected] of table) t.equal(nextLineGoes(run, current), expected, what);
});

t.test('which runs start in a segment, when one is full, when one goes', async (t) => {
  t.equal(startsInSegment('adapter'), true, 'the adapter\'s runs');
  t.equal(startsInSegment('session'), false, 'a session gets a log of its own');
  t.equal(segmentFull(SEGMENT_BYTES - 1), false);
  t.equal(segmentFull(SEGMENT_BYTES), true);
  const deletable: Array<[string, number, number, number, boolean]> = [
    ['keeps none, closed', 0, 4, 5, true],
    ['keeps one', 1, 4, 5, false],
    ['keeps none but is being written', 0, 5, 5, false],
  ];
  for (const [what, kept, segment, current, expected] of deletable) t.equal(segmentDeletable(kept, segment, current), expected, what);
});

t.test('segment file names', async (t) => {
  t.equal(segmentFileName(12), '00000012.seg');
  t.equal(droppedFileName(12), '00000012.dropped');
  const names: Array<[string, number | undefined]> = [
    ['00000012.seg', 12],
    ['7.seg', 7],
    ['00000012.dropped', undefined],
    ['run_a.jsonl', undefined],
    ['x.seg', undefined],
    ['12.seg.tmp', undefined],
  ];
  for (const [name, expected] of names) t.equal(segmentOfFileName(name), expected, name);
  t.equal(firstSegment([]), 1, 'none yet: the first is 1');
  t.equal(firstSegment([3, 9, 4]), 10, 'after the last there is');
});

t.test('the index counts the runs each segment keeps', async (t) => {
  const index = new SegmentIndex();
  index.place('a', 1, 0, 10);
  index.place('b', 1, 10, 20);
  index.place('c', 2, 0, 5);
  t.equal(index.place('a', 2, 0, 0).segment, 1, 'a run placed twice keeps its place');
  t.equal(index.kept(1), 2);
  t.equal(index.remove('a')?.segment, 1);
  t.equal(index.remove('a'), undefined, 'removed once');
  t.equal(index.kept(1), 1);
  index.remove('b');
  t.equal(index.kept(1), 0, 'segment 1 keeps none');
  t.strictSame([...index.segments()], [[1, 0], [2, 1]]);
  index.forget(1);
  t.strictSame([...index.segments()], [[2, 1]]);
  t.equal(index.size, 1);
});

const T0 = Date.UTC(2031, 0, 1);

/** One adapter run's events: its start, a call, its end. */
function adapterRun(runId: string, t: number, finished = true): RunEvent[] {
  const node = { nodeId: 'tool:echo', kind: 'tool', parent: null, label: 'echo' };
  const events: RunEvent[] = [
    { type: 'run.started', runId, seq: 1, t, name: 'tools/call:echo', source: 'mcp-adapter', meta: {} } as RunEvent,
    { type: 'instance.completed', runId, seq: 2, t, endT: t + 1, instanceId: 'i1', node, input: { text: runId }, output: { ok: true } } as unknown as RunEvent,
  ];
  if (finished) events.push({ type: 'run.finished', runId, seq: 3, t: t + 2, status: 'ok' } as RunEvent);
  return events;
}

function storeIn(t: Test, dir: string, maxRuns = 1000, warnings: string[] = []): RunStore {
  const store = new RunStore({ dir, maxRuns, segments: true, onWarning: (line) => warnings.push(line) });
  t.teardown(() => store.close());
  return store;
}

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-segment-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

t.test('RunStore: the adapter\'s runs share a segment, sessions keep a log each, a restart reads both', async (t) => {
  const dir = tempDir(t);
  const store = storeIn(t, dir);
  for (let i = 0; i < 50; i++) for (const event of adapterRun(`run_a${i}`, T0 + i)) store.append(event);
  store.append({ type: 'run.started', runId: 'run_session', seq: 1, t: T0 + 100, name: 'session', source: 'mcp-proxy', meta: {} } as RunEvent);
  store.append({ type: 'run.finished', runId: 'run_session', seq: 2, t: T0 + 101, status: 'ok' } as RunEvent);
  await tick();
  await store.close();
  t.strictSame(readdirSync(dir).sort(), ['run_session.jsonl', 'segments'], 'no file per adapter run');
  t.strictSame(readdirSync(join(dir, 'segments')), [segmentFileName(1)], 'one segment');
  const before = store.list();
  const again = storeIn(t, dir);
  t.same(again.load(), { runs: 51, skippedLines: 0 });
  t.same(again.list(), before, 'the same runs after a restart');
  t.same(again.get('run_a7')?.toRun(), store.get('run_a7')?.toRun(), 'each whole');
  // What the commands reading a data directory with no server see.
  t.equal(readSegmentedRuns(dir, () => false).runs.size, 50);
  t.equal(readSegmentedRunLines(dir, 'run_a7')?.toString().trim().split('\n').length, 3, 'a run\'s own lines');
});

t.test('RunStore: retention and a delete drop runs; a segment that keeps none goes; the next start agrees', async (t) => {
  const dir = tempDir(t);
  const store = storeIn(t, dir, 5);
  // A line is about 300 bytes: 1 MiB fills after a few thousand runs; write enough for two segments.
  const payload = 'x'.repeat(600);
  let time = T0;
  for (let i = 0; i < 3000; i++) {
    const runId = `run_r${i}`;
    store.append({ type: 'run.started', runId, seq: 1, t: time++, name: payload, source: 'mcp-adapter', meta: {} } as RunEvent);
    store.append({ type: 'run.finished', runId, seq: 2, t: time++, status: 'ok' } as RunEvent);
    if (i % 100 === 0) await tick();
  }
  await tick();
  t.equal(store.list().length, 5, '--max-runs 5');
  t.ok(store.delete('run_r2998', true), 'a delete');
  await tick();
  store.flush();
  const segments = readdirSync(join(dir, 'segments')).filter((name) => name.endsWith('.seg'));
  t.ok(segments.length <= 2, `the segments that keep no run are deleted (${segments.length} left)`);
  t.notOk(segments.includes(segmentFileName(1)), 'the first is gone');
  const kept = store.list().map((run) => run.runId);
  await store.close();
  const again = storeIn(t, dir, 5);
  await again.loadInBackground();
  t.strictSame(again.list().map((run) => run.runId), kept, 'the kept runs, and not the dropped or deleted');
});

t.test('RunStore: an export, a reclaim and a large run move a run to a log of its own', async (t) => {
  const dir = tempDir(t);
  const store = storeIn(t, dir);
  for (const event of adapterRun('run_exported', T0)) store.append(event);
  for (const event of adapterRun('run_reclaimed', T0 + 1, false)) store.append(event);
  const big = adapterRun('run_big', T0 + 2, false);
  for (const event of big) store.append(event);
  await tick();
  const file = store.logFile('run_exported');
  t.equal(file, join(dir, 'run_exported.jsonl'), 'an export reads a log of its own');
  t.equal(readFileSync(file, 'utf8').trim().split('\n').length, 3, 'with the run\'s lines, and only them');
  // The big one grows past the bound: its later lines go to its own log.
  for (let seq = 3; seq < 400; seq++) store.append({ type: 'log', runId: 'run_big', seq, t: T0 + 3, nodeId: 'tool:echo', stream: 'stderr', text: 'y'.repeat(1000) } as RunEvent);
  await tick();
  store.append({ type: 'log', runId: 'run_big', seq: 400, t: T0 + 4, nodeId: 'tool:echo', stream: 'stderr', text: 'last' } as RunEvent);
  await store.close();
  t.ok(existsSync(join(dir, 'run_big.jsonl')), 'the big run has a log of its own');
  const again = storeIn(t, dir);
  again.load();
  t.equal(again.get('run_big')?.lastSeq, 400, 'every line of it, once');
  t.equal(again.get('run_exported')?.summary.status, 'ok');
  t.equal(again.get('run_reclaimed')?.summary.status, 'error', 'a run live at the stop ends in error');
  // Its reporter comes back: the run leaves the old segment for a log of its own, whole.
  again.append({ ...(adapterRun('run_reclaimed', T0 + 1)[0] as RunEvent) });
  again.append({ type: 'run.finished', runId: 'run_reclaimed', seq: 3, t: T0 + 9, status: 'ok' } as RunEvent);
  await again.close();
  const log = readFileSync(join(dir, 'run_reclaimed.jsonl'), 'utf8');
  t.equal(log.match(/"type":"run\.started"/g)?.length, 1, 'its log starts once');
  t.equal(log.trim().split('\n').length, 3, 'the lines before and the end after');
  const third = storeIn(t, dir);
  third.load();
  t.equal(third.get('run_reclaimed')?.summary.status, 'ok');
  t.equal(third.list().length, 3, 'no run twice');
});

t.test('RunStore: a torn last line of a segment is skipped; a log of its own wins over a segment', async (t) => {
  const dir = tempDir(t);
  const store = storeIn(t, dir);
  for (const event of adapterRun('run_one', T0)) store.append(event);
  for (const event of adapterRun('run_two', T0 + 1)) store.append(event);
  await store.close();
  const segment = join(dir, 'segments', segmentFileName(1));
  appendFileSync(segment, '{"type":"log","runId":"run_one","se');
  // A log of its own for run_two (as a move leaves it): that one is the run's.
  writeFileSync(join(dir, 'run_two.jsonl'), `${adapterRun('run_two', T0 + 1, false).map((event) => JSON.stringify(event)).join('\n')}\n`);
  const warnings: string[] = [];
  const again = storeIn(t, dir, 1000, warnings);
  t.same(again.load(), { runs: 2, skippedLines: 1 }, 'the torn line skipped, counted');
  t.equal(again.get('run_one')?.summary.status, 'ok', 'the rest read');
  t.equal(again.get('run_two')?.summary.status, 'error', 'run_two read from its own log');
  // The next segment starts after the old ones: the torn one is never appended to.
  for (const event of adapterRun('run_three', T0 + 2)) again.append(event);
  await again.close();
  t.ok(existsSync(join(dir, 'segments', segmentFileName(2))), 'a new segment');
});

t.test('RunStore: a segment on a full disk stops its runs\' recording, said once', { skip: !existsSync('/dev/full') }, async (t) => {
  const dir = tempDir(t);
  const warnings: string[] = [];
  const store = storeIn(t, dir, 1000, warnings);
  // The segment the store is about to begin is the full disk.
  mkdirSync(join(dir, 'segments'));
  symlinkSync('/dev/full', join(dir, 'segments', segmentFileName(1)));
  const stopped: string[] = [];
  store.onRecordingStopped = (state) => stopped.push(state.summary.runId);
  for (const event of adapterRun('run_full_a', T0)) store.append(event);
  for (const event of adapterRun('run_full_b', T0 + 1)) store.append(event);
  await tick();
  t.strictSame(stopped.sort(), ['run_full_a', 'run_full_b'], 'both runs of the write');
  t.equal(warnings.length, 1, 'one line');
  t.match(warnings[0], /the logs of 2 runs \(run_full_a, run_full_b\) stopped: the disk is full: could not write .*00000001\.seg \(ENOSPC\)/);
  t.match(store.get('run_full_a')?.summary.recordingStopped, /the disk is full/);
  // The next runs go to the next segment, which the disk takes.
  for (const event of adapterRun('run_after', T0 + 2)) store.append(event);
  await tick();
  t.equal(store.get('run_after')?.summary.recordingStopped, undefined, 'a later run records');
  await store.close();
  t.ok(readFileSync(join(dir, 'segments', segmentFileName(2)), 'utf8').includes('run_after'));
});

t.test('RunStore: a segment that cannot be read is said, and never deleted', { skip: process.platform === 'win32' ? 'POSIX files' : false }, async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'segments'));
  const fifo = join(dir, 'segments', segmentFileName(1));
  execFileSync('mkfifo', [fifo]);
  const warnings: string[] = [];
  const store = storeIn(t, dir, 1000, warnings);
  t.same(store.load(), { runs: 0, skippedLines: 0 }, 'the start does not wait for it');
  t.equal(warnings.length, 1, 'one line');
  t.match(warnings[0], /skipped .*00000001\.seg: cannot read it/);
  t.ok(existsSync(fifo), 'left where it is');
});
