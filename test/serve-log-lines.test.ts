// How the server logs what it ingests without stringifying it again: the
// element scanner that finds each event's text in a batch, the batch that
// hands those lines to the log (as bytes, when the message is ASCII), the
// run store that writes them once per batch, and the ISO times the reducer
// formats from a cache. Each checked against the plain way of doing it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Run } from '../src/protocol/run-model.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { arrayElementEnds } from '../src/json/element-ends.js';
import { BatchText } from '../src/server/batch-text.js';
import { RunState } from '../src/protocol/run-state.js';
import { RunStore } from '../src/server/run-store.js';
import { prng } from './helpers/random.js';

const STRINGS = ['', 'a', '"', '\\', '\\"', '"\\', '},{', '{"type":"x"}', ']', '[', ',', '\n', '\t', 'é', '😀', '\u2028', '\\\\"', 'a\\\\', '\ud800'];

/** A random JSON value, with strings made to trip a scanner (quotes, backslashes, brackets). */
function randomValue(rand: () => number, depth: number): unknown {
  const roll = rand();
  if (depth > 3 || roll < 0.3) {
    const pick = Math.floor(rand() * 6);
    if (pick === 0) return STRINGS[Math.floor(rand() * STRINGS.length)];
    if (pick === 1) return (STRINGS[Math.floor(rand() * STRINGS.length)] as string) + (STRINGS[Math.floor(rand() * STRINGS.length)] as string);
    if (pick === 2) return Math.floor(rand() * 1e6) - 5e5;
    if (pick === 3) return rand() * 1e-3;
    if (pick === 4) return rand() < 0.5;
    return null;
  }
  if (roll < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  return randomObject(rand, depth + 1);
}

function randomObject(rand: () => number, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const keys = Math.floor(rand() * 5);
  for (let k = 0; k < keys; k++) object[`${STRINGS[Math.floor(rand() * STRINGS.length)]}${k}`] = randomValue(rand, depth);
  return object;
}

t.test('arrayElementEnds finds each element of a compact array of objects', async (t) => {
  const rand = prng(20260611);
  for (let round = 0; round < 2000; round++) {
    const elements = Array.from({ length: Math.floor(rand() * 6) }, () => randomObject(rand, 0));
    const text = JSON.stringify(elements);
    const ends = arrayElementEnds(text, elements.length);
    if (ends === undefined) {
      t.fail(`round ${round}: not split: ${text}`);
      return;
    }
    const slices = ends.map((end, i) => text.slice(i === 0 ? 1 : (ends[i - 1] as number) + 1, end));
    const expected = elements.map((e) => JSON.stringify(e));
    if (slices.join('\u0000') !== expected.join('\u0000')) {
      t.same(slices, expected, `round ${round}`);
      return;
    }
  }
  t.pass('2000 random batches split exactly as JSON.stringify writes each element');
});

t.test('arrayElementEnds declines anything it cannot take as is', async (t) => {
  const declined: Array<[string, string, number]> = [
    ['whitespace between elements', '[{"a":1}, {"b":2}]', 2],
    ['a newline inside an element', '[{"a":\n1}]', 1],
    ['leading whitespace', ' [{"a":1}]', 1],
    ['trailing whitespace', '[{"a":1}]\n', 1],
    ['a single object', '{"a":1}', 1],
    ['a number element', '[{"a":1},2]', 2],
    ['an array element', '[[1]]', 1],
    ['a count that differs', '[{"a":1},{"b":2}]', 3],
  ];
  for (const [what, text, count] of declined) t.equal(arrayElementEnds(text, count), undefined, what);
  t.same(arrayElementEnds('[]', 0), [], 'an empty batch has no elements');
  t.same(arrayElementEnds('[{"a":"x\\\\"},{"b":"\\"}"}]', 2), [12, 24], 'escaped backslashes and quotes');
});

t.test('BatchText: the same lines from the text and from the bytes', async (t) => {
  const events = [{ a: 1 }, { b: 'é' }, { c: [1, { d: '},{' }] }];
  for (const ascii of [true, false]) {
    const elements = ascii ? events.filter((e) => !('b' in e)) : events;
    const text = JSON.stringify(elements);
    const bytes = Buffer.from(text);
    const batch = new BatchText(text, arrayElementEnds(text, elements.length) as number[], bytes);
    const lines = batch.lines(0, elements.length - 1);
    t.equal(Buffer.isBuffer(lines), ascii, ascii ? 'ASCII: a slice of the bytes' : 'not ASCII: text');
    t.equal(lines.toString(), elements.map((e) => `${JSON.stringify(e)}\n`).join(''), `ascii=${ascii}: every line`);
    t.equal(batch.line(1), JSON.stringify(elements[1]), `ascii=${ascii}: one line`);
    t.equal(batch.lines(1, 1).toString(), `${JSON.stringify(elements[1])}\n`, `ascii=${ascii}: a range of one`);
  }
});

t.test('RunState formats times exactly as Date does', async (t) => {
  const rand = prng(7);
  const times = [-1, -0.5, -1001, -1000.5, 0, -0, 1, 999, 1000, 1001, -1, -999, -1000, -1001, 0.5, -0.5, 1.999, -1.5, 8.64e15, -8.64e15, 253402300799999, 253402300800000];
  let base = Date.UTC(2031, 5, 1, 12, 0, 0);
  for (let i = 0; i < 3000; i++) {
    base += Math.floor(rand() * 1500);
    times.push(base, base + 0.25);
    if (rand() < 0.1) times.push(-base, Math.floor(rand() * 8.64e15) * (rand() < 0.5 ? -1 : 1));
  }
  const state = new RunState('r', 0);
  let seq = 0;
  for (const time of times) {
    seq++;
    state.apply({ type: 'instance.started', runId: 'r', seq, t: time, instanceId: `i${seq}`, node: { nodeId: 'n', kind: 'tool', parent: null, label: 'n' } } as RunEvent);
  }
  const got = state.toRun().instances.map((i) => i.startedAt);
  const want = times.map((time) => new Date(time).toISOString());
  const wrong = got.findIndex((text, i) => text !== want[i]);
  t.equal(wrong, -1, wrong === -1 ? `${times.length} times` : `t=${times[wrong]}: ${got[wrong]} ≠ ${want[wrong]}`);
});

t.test('RunStore: one write per batch, lines in order, as JSON.stringify would write them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-log-lines-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = new RunStore({ dir });
  const node = { nodeId: 'tool:echo', kind: 'tool', parent: null, label: 'echo' } as const;
  const ids = ['run_a', 'run_b'];
  const seqs: Record<string, number> = { run_a: 0, run_b: 0 };
  const next = (runId: string, fields: Record<string, unknown>): RunEvent => ({ ...fields, runId, seq: ++(seqs[runId] as number), t: 1_800_000_000_000 + (seqs[runId] as number) }) as unknown as RunEvent;
  const logged: Record<string, RunEvent[]> = { run_a: [], run_b: [] };
  const rand = prng(99);
  for (let round = 0; round < 200; round++) {
    const events: RunEvent[] = [];
    for (let k = 0; k < 1 + Math.floor(rand() * 8); k++) {
      const runId = ids[Math.floor(rand() * 2)] as string;
      if (seqs[runId] === 0) {
        events.push(next(runId, { type: 'run.started', name: runId, source: 'test', meta: {} }));
        continue;
      }
      const unicode = rand() < 0.2 ? 'é😀' : '';
      events.push(next(runId, { type: 'instance.started', instanceId: `i${round}_${k}`, node, input: { text: `${unicode}"\\},{` } }));
    }
    // A repeat (ignored, not logged) now and then.
    const repeat = rand() < 0.3 ? events[0] : undefined;
    if (repeat !== undefined && repeat.type !== 'run.started') events.push(repeat);
    const text = JSON.stringify(events);
    const batch = new BatchText(text, arrayElementEnds(text, events.length) as number[], Buffer.from(text));
    events.forEach((event, i) => {
      if (store.append(event, batch, i) !== undefined) logged[event.runId]?.push(event);
    });
    // Now and then an event that is stringified, between batch lines.
    if (rand() < 0.2) {
      const event = next('run_a', { type: 'log', nodeId: 'n', stream: 'stderr', text: 'from elsewhere' });
      if (store.append(event) !== undefined) logged.run_a?.push(event);
    }
    if (rand() < 0.5) await new Promise((resolve) => setImmediate(resolve));
  }
  await store.close();
  for (const runId of ids) {
    const text = readFileSync(join(dir, `${runId}.jsonl`), 'utf8');
    t.equal(text, (logged[runId] as RunEvent[]).map((e) => `${JSON.stringify(e)}\n`).join(''), `${runId}: every applied event, in order, one per line`);
  }
  const reloaded = new RunStore({ dir });
  reloaded.load();
  for (const runId of ids) {
    const before = store.get(runId)?.toRun() as Run;
    const after = reloaded.get(runId)?.toRun() as Run;
    t.same({ ...after, status: before.status, endedAt: before.endedAt }, before, `${runId}: rebuilt the same from its log`);
  }
});
