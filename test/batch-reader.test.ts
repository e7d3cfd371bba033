// The server reads a reporter's batches from their bytes: execution events in
// the reporter's own layout field by field, anything else parsed in full. What
// it reads must be exactly what JSON.parse of the message gives, checked by
// validateEvent the same way, and a message it cannot take must be left to
// the plain path (which parses it, or rejects it) rather than half read.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { JsonSlice, KnownJson } from '../src/report/deferred.js';
import { COMPLETED_RUN, type CompletedRun } from '../src/report/completed-run.js';
import { expandCompletedGroup } from '../src/report/completed-group.js';
import { encodeBatch } from '../src/report/encode-batch.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { arrayElementEnds } from '../src/json/element-ends.js';
import { BatchText } from '../src/server/batch-text.js';
import { RunState } from '../src/protocol/run-state.js';
import { RunStore } from '../src/server/run-store.js';
import { BatchReader } from '../src/server/batch-reader.js';
import { RawJson } from '../src/server/raw-json.js';
import { validateEvent } from '../src/protocol/validate-event.js';
import { ownBytes } from '../src/server/ingest.js';
import { prng } from './helpers/random.js';

const NODES = [
  Object.freeze({ nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' }),
  Object.freeze({ nodeId: 'tool:ünï "quoted"', kind: 'tool', parent: 'mcp:session', label: 'ünï' }),
  Object.freeze({ nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.js' }),
];
const VALUES = ['{"name":"echo","arguments":{"text":"hi"}}', '{ "b" : 1.50, "a":[1e3,-0,"\\u00e9\\n"], "a":2 }', '"😀"', '[]', 'null', '{"content":[{"type":"text","text":"ünï"}]}'];

function slice(json: string): JsonSlice<null> {
  const line = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${json}}`);
  return new JsonSlice(line.length, () => JSON.parse(json), null, line, line.indexOf(':', 27) + 1, line.length - 1);
}

function pick<T>(rand: () => number, values: readonly T[]): T {
  return values[Math.floor(rand() * values.length)] as T;
}

/** An event as the graph recorder builds it (its field order), with a slice or no value. */
function execution(rand: () => number, seq: number): RunEvent {
  const instanceId = rand() < 0.9 ? `mcp_${seq}` : 'mcp_"odd"';
  const value = rand() < 0.8 ? slice(pick(rand, VALUES)) : undefined;
  const runId = 'run_mx4h9oal_Fw4YmDF7ikrrx51q';
  const t0 = 1_796_116_296_765 + seq;
  switch (Math.floor(rand() * 5)) {
    case 0:
      return { type: 'instance.started', instanceId, node: pick(rand, NODES), input: value, runId, seq, t: t0 } as RunEvent;
    case 1:
      return { type: 'instance.finished', instanceId, output: value, runId, seq, t: t0 } as RunEvent;
    case 2:
      return { type: 'instance.error', instanceId, output: value, error: { name: 'ToolError', message: 'it "failed"' }, runId, seq, t: t0 } as RunEvent;
    case 3:
      return { type: 'instance.completed', instanceId, node: pick(rand, NODES), input: value, output: slice(pick(rand, VALUES)), endT: t0 + 3, runId, seq, t: t0 } as RunEvent;
    default:
      return { type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'a "line"\n', runId, seq, t: t0 } as RunEvent;
  }
}

t.test('what the reporter writes reads as JSON.parse reads it', async (t) => {
  const rand = prng(7);
  const reader = new BatchReader();
  let fast = 0;
  for (let round = 0; round < 100; round++) {
    const events = Array.from({ length: 1 + Math.floor(rand() * 40) }, (_, i) => execution(rand, round * 100 + i + 1));
    const bytes = encodeBatch(events);
    const text = bytes.toString('utf8');
    const read = reader.read(Buffer.from(bytes));
    if (read === undefined) {
      t.fail(`round ${round}: not read`);
      continue;
    }
    t.same(JSON.parse(JSON.stringify(read.events)), JSON.parse(text), `round ${round}: ${events.length} events`);
    // Each end is the byte offset of the `,` or `]` after its event.
    const starts = [1, ...read.ends.slice(0, -1).map((end) => end + 1)];
    t.same(
      read.ends.map((end, i) => JSON.parse(bytes.subarray(starts[i], end).toString('utf8'))),
      JSON.parse(text),
      `round ${round}: each event's bytes`,
    );
    for (const event of read.events) {
      const e = event as { input?: unknown; output?: unknown };
      if (e.input instanceof RawJson || e.output instanceof RawJson) fast++;
      t.equal(validateEvent(event), event);
    }
  }
  t.ok(fast > 500, `values kept as text on the fast path (${fast})`);
});

t.test('an ASCII batch: the same ends as the text scanner finds', async (t) => {
  const events = [
    { type: 'instance.completed', instanceId: 'mcp_2', node: NODES[0], input: slice(VALUES[0] as string), output: slice('{"ok":true}'), endT: 9, runId: 'run_a', seq: 2, t: 5 },
    { type: 'instance.finished', instanceId: 'mcp_1', runId: 'run_a', seq: 3, t: 10 },
  ] as RunEvent[];
  const bytes = encodeBatch(events);
  const read = new BatchReader().read(Buffer.from(bytes));
  t.same(read?.ends, arrayElementEnds(bytes.toString('latin1'), 2));
  const completed = read?.events[0] as { input: RawJson; node: unknown; endT: number };
  t.ok(completed.input instanceof RawJson);
  t.equal(completed.input.json, VALUES[0], 'the input is its own bytes, not parsed');
  t.equal(completed.endT, 9);
});

t.test('one node object per declaration met, whatever comes between', async (t) => {
  const reader = new BatchReader();
  const batch = (node: object, seq: number): Buffer =>
    encodeBatch([{ type: 'instance.started', instanceId: `mcp_${seq}`, node, runId: 'run_a', seq, t: 1 } as RunEvent]);
  const nodeOf = (bytes: Buffer): unknown => (reader.read(bytes)?.events[0] as { node: unknown }).node;
  const a = nodeOf(batch(NODES[0] as object, 1));
  const b = nodeOf(batch(NODES[1] as object, 2));
  t.same(a, NODES[0]);
  t.same(b, NODES[1]);
  t.equal(nodeOf(batch(NODES[0] as object, 3)), a, 'the first again: the same object');
  t.equal(nodeOf(batch(NODES[0] as object, 4)), a, 'and again');
  t.equal(nodeOf(batch(NODES[1] as object, 5)), b);
});

t.test('written another way: read in full, with JSON.parse semantics', async (t) => {
  const cases = [
    // Keys in another order (an adapter, say).
    '[{"runId":"run_a","type":"instance.started","seq":1,"t":1,"instanceId":"mcp_1","node":{"nodeId":"n","kind":"tool","parent":null,"label":"n"}}]',
    // A duplicate key: the last one wins, as in JSON.parse.
    '[{"type":"instance.finished","instanceId":"mcp_1","runId":"run_a","seq":2,"t":5,"t":6}]',
    // An escape in an id, a fractional time, an exponent in seq.
    '[{"type":"instance.finished","instanceId":"mcp_\\u0031","runId":"run_a","seq":3,"t":1.5}]',
    '[{"type":"instance.finished","instanceId":"mcp_1","runId":"run_a","seq":4e0,"t":1}]',
    // Spaces inside an event.
    '[{"type": "instance.finished", "instanceId": "mcp_1", "runId": "run_a", "seq": 5, "t": 1}]',
    // An extra field the reporter does not write.
    '[{"type":"instance.finished","instanceId":"mcp_1","extra":{"x":[1]},"runId":"run_a","seq":6,"t":1}]',
    // Other kinds, mixed with the reporter's layout.
    '[{"type":"run.meta","meta":{"a":1},"runId":"run_a","seq":7,"t":1},{"type":"instance.finished","instanceId":"mcp_1","output":{"a":"é"},"runId":"run_a","seq":8,"t":1}]',
    '[]',
  ];
  for (const text of cases) {
    const read = new BatchReader().read(Buffer.from(text));
    t.same(read === undefined ? undefined : JSON.parse(JSON.stringify(read.events)), JSON.parse(text), text);
  }
});

t.test('anything it cannot take whole is left to the plain path', async (t) => {
  const cases: Array<[string, string]> = [
    ['not an array', '{"type":"instance.finished","instanceId":"mcp_1","runId":"run_a","seq":1,"t":1}'],
    ['space between events', '[{"type":"instance.finished","instanceId":"mcp_1","runId":"run_a","seq":1,"t":1}, {"type":"instance.finished","instanceId":"mcp_2","runId":"run_a","seq":2,"t":1}]'],
    ['an input that is not JSON', '[{"type":"instance.started","instanceId":"mcp_1","node":{"nodeId":"n","kind":"tool","parent":null,"label":"n"},"input":{"a":1,},"runId":"run_a","seq":1,"t":1}]'],
    ['a node of the wrong shape', '[{"type":"instance.started","instanceId":"mcp_1","node":{"nodeId":"n","kind":"nope","parent":null,"label":"n"},"runId":"run_a","seq":1,"t":1}]'],
    ['no node', '[{"type":"instance.started","instanceId":"mcp_1","runId":"run_a","seq":1,"t":1}]'],
    ['a completed call with no end time', '[{"type":"instance.completed","instanceId":"mcp_1","node":{"nodeId":"n","kind":"tool","parent":null,"label":"n"},"runId":"run_a","seq":1,"t":1}]'],
    ['a negative seq', '[{"type":"instance.finished","instanceId":"mcp_1","runId":"run_a","seq":-1,"t":1}]'],
    ['a bad run id', '[{"type":"instance.finished","instanceId":"mcp_1","runId":"../etc","seq":1,"t":1}]'],
    ['cut short', '[{"type":"instance.finished","instanceId":"mcp_1","runId":"run_a","seq":1,"t":1'],
    ['trailing bytes', '[{"type":"instance.finished","instanceId":"mcp_1","runId":"run_a","seq":1,"t":1}]x'],
    ['an error that is not an object', '[{"type":"instance.error","instanceId":"mcp_1","error":"x","runId":"run_a","seq":1,"t":1}]'],
    ['not an event', '[1]'],
  ];
  for (const [what, text] of cases) t.equal(new BatchReader().read(Buffer.from(text)), undefined, what);
});

t.test('a kept value serialises as the value it holds', async (t) => {
  const text = Buffer.from('x{"b":1.50,"a":[1e3,"\\u00e9"]}y');
  const value = new RawJson(text, 1, text.length - 1);
  t.equal(JSON.stringify({ input: value }), '{"input":{"b":1.5,"a":[1000,"é"]}}');
});

t.test('instance.completed replays as its start and then its end', async (t) => {
  const node = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' } as const;
  const base = { runId: 'run_a' };
  const one = new RunState('run_a', 1000);
  const two = new RunState('run_a', 1000);
  one.apply({ ...base, type: 'instance.completed', instanceId: 'mcp_1', node, input: { a: 1 }, output: { b: 2 }, endT: 1_800_000_000_250, seq: 1, t: 1_800_000_000_000 });
  two.apply({ ...base, type: 'instance.started', instanceId: 'mcp_1', node, input: { a: 1 }, seq: 1, t: 1_800_000_000_000 });
  two.apply({ ...base, type: 'instance.finished', instanceId: 'mcp_1', output: { b: 2 }, seq: 2, t: 1_800_000_000_250 });
  t.same({ ...one.toRun(), lastSeq: 0 }, { ...two.toRun(), lastSeq: 0 });
  const instance = one.toRun().instances[0];
  t.match(instance, { status: 'ok', startedAt: '2027-01-15T08:00:00.000Z', endedAt: '2027-01-15T08:00:00.250Z', output: { b: 2 } });
  t.equal(one.lastT, 1_800_000_000_250, 'its end is the latest time the run has seen');
  t.notOk(one.apply({ ...base, type: 'instance.completed', instanceId: 'mcp_1', node, endT: 5, seq: 3, t: 4 }), 'an instance that exists is not started again');
});

t.test('a batch read from its bytes goes to the log as those bytes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gm-reader-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = new RunStore({ dir });
  const events = [
    { type: 'run.started', runId: 'run_a', seq: 1, t: 1, name: 'ünï', source: 'test', meta: {} },
    { type: 'instance.completed', instanceId: 'mcp_1', node: NODES[1], input: slice('{"text":"😀"}'), output: slice('{ "spaced" : 1.0 }'), endT: 3, runId: 'run_a', seq: 2, t: 2 },
  ] as RunEvent[];
  const bytes = Buffer.from(encodeBatch(events));
  const expected = bytes.toString('utf8');
  const read = new BatchReader().read(bytes);
  if (read === undefined) throw new Error('not read');
  const batch = new BatchText(bytes, read.ends);
  t.equal(batch.line(1), Buffer.from(expected).subarray((read.ends[0] as number) + 1, read.ends[1]).toString('utf8'), 'an event is its own text');
  t.match(batch.line(1), '"output":{ "spaced" : 1.0 }');
  read.events.forEach((event, i) => store.append(event, batch, i));
  await store.close();
  const log = readFileSync(join(dir, 'run_a.jsonl'), 'utf8');
  t.equal(log, `${expected.slice(1, -1).replace('},{"type":"instance.completed"', '}\n{"type":"instance.completed"')}\n`, 'the bytes that came, one event a line');
  const reloaded = new RunStore({ dir });
  reloaded.load();
  t.same(JSON.parse(JSON.stringify(reloaded.get('run_a')?.toRun().instances)), JSON.parse(JSON.stringify(store.get('run_a')?.toRun().instances)), 'and the log replays to the same run');
});

t.test('a message that is a small part of a larger block is copied out before values in it are kept', async (t) => {
  const block = Buffer.alloc(64 * 1024, 0x20);
  const message = block.subarray(1000, 1500);
  const own = ownBytes(message);
  t.not(own.buffer, block.buffer, 'a copy');
  t.equal(own.buffer.byteLength, 500, 'of its own size, outside any pool');
  t.same(own, message);
  const alone = Buffer.allocUnsafeSlow(2000).fill(1);
  t.equal(ownBytes(alone), alone, 'a message in memory of its own is kept as it is');
  const most = alone.subarray(0, 1500);
  t.equal(ownBytes(most), most, 'as is a view of most of its block');
});

// A whole run of one call, as an in-process adapter sends it (report/completed-run.ts).

const ROOT_NODE = Object.freeze({ nodeId: 'server:bench', kind: 'server', parent: null, label: 'bench 1.0.0' });
const META = new KnownJson({ adapter: 'graphmind', server: 'bench', connection: 'conn_1', serverInfo: { name: 'bench', version: '1.0.0' } });
const ROOT = new KnownJson({ instanceId: 'server', node: ROOT_NODE, input: { name: 'bench', version: '1.0.0' } });
const CALL_NODE = new KnownJson(NODES[0]);

/** A run as adapter/call-run.ts builds it: its fields in that order, the parts made once per connection as KnownJson. */
function completedRun(n: number, change: Partial<Record<keyof CompletedRun, unknown>> = {}): RunEvent {
  const run = {
    type: COMPLETED_RUN,
    runId: `run_mx4h9oal_Fw4YmDF7ikrrx51q${n.toString(36)}`,
    seq: 1,
    t: 1_796_116_296_765 + n,
    endT: 1_796_116_296_767 + n,
    name: 'tools/call:echo',
    source: 'mcp-adapter',
    meta: META,
    root: ROOT,
    instanceId: `mcp_${n}`,
    node: CALL_NODE,
    input: slice(VALUES[0] as string),
    requestId: n,
    output: slice(VALUES[5] as string),
    error: undefined,
    ...change,
  };
  return run as unknown as RunEvent;
}

/** What the plain path makes of a message: its elements parsed and expanded. */
function plainly(text: string): unknown {
  return (JSON.parse(text) as unknown[]).flatMap((element) => expandCompletedGroup(element) ?? ['not a run']);
}

/** Does the plain path refuse the message (JSON.parse, expand, validateEvent)? */
function plainRefuses(text: string): boolean {
  let parsed: unknown[];
  try {
    parsed = JSON.parse(text) as unknown[];
  } catch {
    return true;
  }
  return parsed.some((element) => expandCompletedGroup(element)?.some((event) => validateEvent(event) === undefined) ?? true);
}

t.test("an adapter's completed run is read from its bytes, as the plain path reads it", async (t) => {
  const reader = new BatchReader();
  const cases: Array<[string, RunEvent[]]> = [
    ['a call with a numeric request id', [completedRun(1)]],
    ['a string request id', [completedRun(2, { requestId: 'req-2' })]],
    ['no request id, no input', [completedRun(3, { requestId: undefined, input: undefined })]],
    ['a failed call', [completedRun(4, { error: { name: 'ToolError', message: 'it "failed"' } })]],
    ['no output', [completedRun(5, { output: undefined })]],
    ['several runs, and calls of another run between', [completedRun(6), execution(prng(3), 9), completedRun(7), completedRun(8, { meta: new KnownJson(JSON.parse('{"connection":"conn_2","__proto__":"x"}')) })]],
    ['a name that is not plain ASCII (read in full)', [completedRun(9, { name: 'tools/call:ünï' })]],
  ];
  for (const [what, events] of cases) {
    const bytes = encodeBatch(events);
    const text = bytes.toString('utf8');
    const read = reader.read(Buffer.from(bytes));
    if (read === undefined) {
      t.fail(`${what}: not read`);
      continue;
    }
    t.same(JSON.parse(JSON.stringify(read.events)), JSON.parse(JSON.stringify(plainly(text))), what);
    for (const event of read.events) t.equal(validateEvent(event), event, `${what}: ${event.type} is valid`);
    t.ok(read.groups?.has(0), `${what}: its text is no one event's`);
    const id = (events[0] as { instanceId: string }).instanceId;
    const call = read.events.find((event) => (event as { instanceId?: string }).instanceId === id && event.type !== 'instance.finished') as { input?: unknown };
    if (!what.includes('ASCII')) t.ok(call.input === undefined || call.input instanceof RawJson, `${what}: its values kept as text`);
  }
  // The parts every run of a connection shares are read once.
  const [a, b] = [10, 11].map((n) => reader.read(encodeBatch([completedRun(n)]))?.events ?? []);
  t.equal((a?.[0] as { meta: unknown }).meta, (b?.[0] as { meta: unknown }).meta, 'the same meta object');
  t.equal((a?.[1] as { node: unknown }).node, (b?.[1] as { node: unknown }).node, 'the same root node');
});

t.test('a completed run of the wrong shape is refused, on either path', async (t) => {
  const good = encodeBatch([completedRun(1)]).toString('utf8');
  const cases: Array<[string, string]> = [
    ['meta that is not an object', good.replace(/"meta":\{[^}]*\{[^}]*\}\}/, '"meta":[1]')],
    ['a root with no instance id', good.replace('"root":{"instanceId":"server",', '"root":{')],
    ['a root node of the wrong shape', good.replace('"kind":"server"', '"kind":"nope"')],
    ['an error that is null', `${good.slice(0, -2)},"error":null}]`],
    ['an error with no message', `${good.slice(0, -2)},"error":{"name":"E"}}]`],
    ['a bad run id', good.replace(/"runId":"[^"]*"/, '"runId":"../etc"')],
    ['an input that is not JSON', good.replace('"input":{', '"input":{,')],
    ['no end time', good.replace(/,"endT":\d+/, '')],
  ];
  for (const [what, text] of cases) {
    t.not(text, good, `${what}: the case changes the message`);
    t.equal(new BatchReader().read(Buffer.from(text)), undefined, what);
    t.ok(plainRefuses(text), `${what}: the plain path refuses it too`);
  }
});
