// Playbook of a run's summary from the two ends of its log (src/mcp/log-ends.ts): for each log,
// whether its ends settle the summary, and when they do, that it is the summary the whole
// replay gives (export/read-run-log.ts, as the server's load and the data-dir reader replay).
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readRunLog } from '../src/export/read-run-log.js';
import { END_BYTES, summaryFromEnds } from '../src/mcp/log-ends.js';

const RUN = 'run_ends';
const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const node = { nodeId: 'tool:echo', kind: 'tool', parent: null, label: 'echo' };

const line = (fields: Record<string, unknown>): string => JSON.stringify({ runId: RUN, ...fields });
const started = (seq = 1, t = T0, name = 'server'): string => line({ type: 'run.started', seq, t, name, source: 'mcp-proxy', meta: {} });
const call = (seq: number, pad = ''): string => line({ type: 'instance.completed', seq, t: T0 + seq, instanceId: `i${seq}`, node, input: { pad }, output: {}, endT: T0 + seq + 1 });
const finished = (seq: number, status = 'ok', t = T0 + 100): string => line({ type: 'run.finished', seq, t, status });
const whole = (error: boolean): string =>
  line({ type: 'run.completed', seq: 1, t: T0, endT: T0 + 5, name: 'tools/call:echo', source: 'mcp-adapter', meta: {}, root: { instanceId: 'r', node: { ...node, nodeId: 'mcp:session', kind: 'server' } }, instanceId: 'c', node, input: {}, output: {}, ...(error ? { error: { name: 'ToolError', message: 'no' } } : {}) });

const CASES: ReadonlyArray<{ name: string; text: string; settled: boolean }> = [
  { name: 'started, calls, finished', text: `${started()}\n${call(2)}\n${call(3)}\n${finished(4)}\n`, settled: true },
  { name: 'finished in error', text: `${started()}\n${call(2)}\n${finished(3, 'error')}\n`, settled: true },
  { name: 'ended by the server when its reporter went (seq 0)', text: `${started()}\n${call(2)}\n${finished(0, 'error', T0 + 50)}\n`, settled: true },
  { name: 'no newline at the end', text: `${started()}\n${call(2)}\n${finished(3)}`, settled: true },
  { name: 'empty lines around', text: `\n\n${started()}\n\n${call(2)}\n${finished(3)}\n\n\n`, settled: true },
  { name: 'a whole adapter run on one line', text: `${whole(false)}\n`, settled: true },
  { name: 'a whole adapter run that failed', text: `${whole(true)}\n`, settled: true },
  { name: 'longer than both ends', text: `${started()}\n${Array.from({ length: 200 }, (_, i) => call(i + 2, 'x'.repeat(200))).join('\n')}\n${finished(202)}\n`, settled: true },
  { name: 'never finished: replayed whole', text: `${started()}\n${call(2)}\n${call(3)}\n`, settled: false },
  { name: 'a torn last line: replayed whole', text: `${started()}\n${call(2)}\n${finished(3)}\n{"type":"log","runId":"${RUN}","se`, settled: false },
  { name: 'reclaimed after it finished, never finished again', text: `${started()}\n${finished(2)}\n${started(1, T0 + 200)}\n${call(3)}\n`, settled: false },
  { name: 'a damaged first line: replayed whole', text: `{"type":"run.sta\n${started()}\n${finished(2)}\n`, settled: false },
  { name: 'a first line that is not the start: replayed whole', text: `${call(2)}\n${started()}\n${finished(3)}\n`, settled: false },
  { name: 'a start out of sequence (seq 0): replayed whole', text: `${started(0)}\n${started(1, T0 + 5, 'later')}\n${finished(2)}\n`, settled: false },
  { name: "another run's end: replayed whole", text: `${started()}\n${JSON.stringify({ type: 'run.finished', runId: 'other', seq: 2, t: T0, status: 'ok' })}\n`, settled: false },
  { name: 'a first line longer than the end read: replayed whole', text: `${line({ type: 'run.started', seq: 1, t: T0, name: 'n'.repeat(END_BYTES), source: 'mcp-proxy', meta: {} })}\n${finished(2)}\n`, settled: false },
  { name: 'a last line longer than the end read: replayed whole', text: `${started()}\n${line({ type: 'run.finished', seq: 2, t: T0 + 9, status: 'ok', pad: 'p'.repeat(END_BYTES * 2) })}\n`, settled: false },
  { name: 'an empty file', text: '', settled: false },
];

const dir = mkdtempSync(join(tmpdir(), 'graphmind-log-ends-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

for (const [index, { name, text, settled }] of CASES.entries()) {
  t.test(name, async (t) => {
    const file = join(dir, `${index}.jsonl`);
    writeFileSync(file, text);
    const fd = openSync(file, 'r');
    let fromEnds;
    try {
      fromEnds = summaryFromEnds(fd, statSync(file).size, RUN);
    } finally {
      closeSync(fd);
    }
    t.equal(fromEnds !== undefined, settled, settled ? 'settled by its ends' : 'left to the replay');
    if (fromEnds === undefined) return;
    const read = readRunLog(file, RUN);
    if (!read.ok || read.state === undefined) throw new Error(`the replay could not read case ${name}`);
    const { runId, name: runName, source, status, startedAt, endedAt } = read.state.toRun();
    t.same(fromEnds, { runId, name: runName, source, status, startedAt, endedAt }, 'the summary the whole replay gives');
  });
}
