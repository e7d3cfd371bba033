// The ingest batch layout (src/protocol/ingest-batch-layout.ts) is the one
// description of how the reporter lays out the events it sends most and how
// the server reads them without parsing. Playbooks: events in -> the bytes
// the layout's pieces spell; bytes spelled from the pieces (not by the
// encoder) -> the events the reader finds on its fast path.
import t from 'tap';
import * as layout from '../src/protocol/ingest-batch-layout.js';
import { JsonSlice } from '../src/report/deferred.js';
import { encodeBatch } from '../src/report/encode-batch.js';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import { CompletedEvent, FinishedEvent, StartedEvent } from '../src/report/execution-events.js';
import { expandCompletedGroup } from '../src/report/completed-group.js';
import { BatchReader } from '../src/server/batch-reader.js';
import { RawJson } from '../src/server/raw-json.js';

const NODE = Object.freeze({ nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' }) as NodeDeclaration;
const NODE_JSON = JSON.stringify(NODE);
const INPUT = '{"name":"echo","arguments":{"text":"hi"}}';
const OUTPUT = '{"content":[{"type":"text","text":"hi"}]}';

function slice(json: string): JsonSlice<undefined> {
  const buf = Buffer.from(json);
  return new JsonSlice(buf.length, () => JSON.parse(json) as unknown, undefined, buf, 0, buf.length);
}

/** Bytes spelled from pieces: layout buffers, byte codes and text. */
function spell(...pieces: Array<Buffer | number | string>): Buffer {
  return Buffer.concat(pieces.map((piece) => (typeof piece === 'number' ? Buffer.from([piece]) : typeof piece === 'string' ? Buffer.from(piece) : piece)));
}

const L = layout;
const started = spell(L.STARTED_HEAD, '"i1"', L.NODE_KEY, NODE_JSON, L.INPUT_KEY, INPUT, L.RUN_ID_KEY, '"run_a"', L.SEQ_KEY, '3', L.T_KEY, '100}');
const finished = spell(L.FINISHED_HEAD, '"i1"', L.OUTPUT_KEY, OUTPUT, L.RUN_ID_KEY, '"run_a"', L.SEQ_KEY, '4', L.T_KEY, '105}');
const completed = spell(L.COMPLETED_HEAD, '"i2"', L.NODE_KEY, NODE_JSON, L.INPUT_KEY, INPUT, L.OUTPUT_KEY, OUTPUT, L.END_T_KEY, '112', L.RUN_ID_KEY, '"run_a"', L.SEQ_KEY, '5', L.T_KEY, '110}');
const call = (id: string, tAt: number, endT: number): Buffer =>
  spell(L.CALL_OPEN, `"${id}"`, L.CALL_SEPARATOR, `${tAt}`, L.CALL_SEPARATOR, `${endT}`, L.CALL_SEPARATOR, INPUT, L.CALL_SEPARATOR, OUTPUT, L.CALL_CLOSE);
const group = spell(L.GROUP_HEAD, NODE_JSON, L.RUN_ID_KEY, '"run_a"', L.SEQ_KEY, '6', L.CALLS_KEY, call('i3', 120, 121), L.CALL_SEPARATOR, call('i4', 122, 124), L.CALLS_CLOSE, L.GROUP_CLOSE);
const batchOf = (...elements: Buffer[]): Buffer =>
  spell(L.BATCH_OPEN, ...elements.flatMap((element, i) => (i === 0 ? [element] : [L.BATCH_SEPARATOR, element])), L.BATCH_CLOSE);

t.test('the encoder writes what the layout spells', async (t) => {
  // [what is sent, the layout's bytes for it]
  const table: Array<[string, RunEvent[], Buffer]> = [
    ['a call starts', [new StartedEvent('i1', NODE, slice(INPUT), 'run_a', 3, 100)], batchOf(started)],
    ['a call ends', [new FinishedEvent('i1', slice(OUTPUT), 'run_a', 4, 105)], batchOf(finished)],
    ['a call in one event', [new CompletedEvent('i2', NODE, slice(INPUT), slice(OUTPUT), 112, 'run_a', 5, 110)], batchOf(completed)],
    [
      'two calls in a row: one group',
      [new CompletedEvent('i3', NODE, slice(INPUT), slice(OUTPUT), 121, 'run_a', 6, 120), new CompletedEvent('i4', NODE, slice(INPUT), slice(OUTPUT), 124, 'run_a', 7, 122)],
      batchOf(group),
    ],
    ['nothing', [], batchOf()],
  ];
  for (const [name, events, bytes] of table) t.equal(encodeBatch(events).toString(), bytes.toString(), name);
});

t.test('the reader reads what the layout spells, on its fast path', async (t) => {
  const read = new BatchReader().read(batchOf(started, finished, completed, group));
  t.ok(read, 'read without the plain path');
  if (read === undefined) return;
  t.same(
    read.events.map((event) => [event.type, (event as { instanceId: string }).instanceId, event.seq, event.t]),
    [
      ['instance.started', 'i1', 3, 100],
      ['instance.finished', 'i1', 4, 105],
      ['instance.completed', 'i2', 5, 110],
      ['instance.completed', 'i3', 6, 120],
      ['instance.completed', 'i4', 7, 122],
    ],
  );
  t.same(read.elements, [0, 1, 2, 3, 3], 'the group is one element');
  t.same([...(read.groups ?? [])], [3]);
  const first = read.events[0] as { input: unknown; node: unknown };
  t.ok(first.input instanceof RawJson, 'values kept as their bytes (the fast path)');
  t.same(first.node, NODE);
});

t.test('the heads differ first where the layout says', async (t) => {
  const heads = [L.STARTED_HEAD, L.COMPLETED_HEAD, L.FINISHED_HEAD, L.ERROR_HEAD];
  const letters = heads.map((head) => String.fromCharCode(head[L.TYPE_LETTER_AT] as number));
  t.same(letters, ['s', 'c', 'f', 'e']);
  for (const head of heads) t.equal(head.subarray(0, L.TYPE_LETTER_AT).toString(), '{"type":"instance.');
  for (const head of heads) t.ok(head.toString().endsWith(L.INSTANCE_ID_KEY.toString()), 'every head ends with the id key');
  t.equal(L.COMPLETED_GROUP, 'instances.completed');
});

// The JSON-RPC id of each call (requestId): after the input of a start, after
// endT of a completed call, and as a sixth slot of a group's call. A call
// without one is written as before, so a group of five-slot calls (what
// reporters wrote before the id was recorded) still reads.
const startedWith = (id: string): Buffer =>
  spell(L.STARTED_HEAD, '"i1"', L.NODE_KEY, NODE_JSON, L.INPUT_KEY, INPUT, L.REQUEST_ID_KEY, id, L.RUN_ID_KEY, '"run_a"', L.SEQ_KEY, '3', L.T_KEY, '100}');
const completedWith = (id: string): Buffer =>
  spell(L.COMPLETED_HEAD, '"i2"', L.NODE_KEY, NODE_JSON, L.INPUT_KEY, INPUT, L.OUTPUT_KEY, OUTPUT, L.END_T_KEY, '112', L.REQUEST_ID_KEY, id, L.RUN_ID_KEY, '"run_a"', L.SEQ_KEY, '5', L.T_KEY, '110}');
const callWith = (id: string, tAt: number, endT: number, requestId: string): Buffer =>
  spell(L.CALL_OPEN, `"${id}"`, L.CALL_SEPARATOR, `${tAt}`, L.CALL_SEPARATOR, `${endT}`, L.CALL_SEPARATOR, INPUT, L.CALL_SEPARATOR, OUTPUT, L.CALL_SEPARATOR, requestId, L.CALL_CLOSE);
const groupOf = (...calls: Buffer[]): Buffer =>
  spell(L.GROUP_HEAD, NODE_JSON, L.RUN_ID_KEY, '"run_a"', L.SEQ_KEY, '6', L.CALLS_KEY, ...calls.flatMap((c, i) => (i === 0 ? [c] : [L.CALL_SEPARATOR, c])), L.CALLS_CLOSE, L.GROUP_CLOSE);
const withIds = groupOf(callWith('i3', 120, 121, '7'), callWith('i4', 122, 124, '"req-8"'));
const mixed = groupOf(callWith('i3', 120, 121, '7'), call('i4', 122, 124));

t.test('request ids: the encoder writes what the layout spells', async (t) => {
  const table: Array<[string, RunEvent[], Buffer]> = [
    ['a start with a numeric id', [new StartedEvent('i1', NODE, slice(INPUT), 'run_a', 3, 100, 7)], batchOf(startedWith('7'))],
    ['a start with a string id', [new StartedEvent('i1', NODE, slice(INPUT), 'run_a', 3, 100, 'req-1')], batchOf(startedWith('"req-1"'))],
    ['a call in one event, id 0', [new CompletedEvent('i2', NODE, slice(INPUT), slice(OUTPUT), 112, 'run_a', 5, 110, 0)], batchOf(completedWith('0'))],
    [
      'a group whose calls have ids: a sixth slot each',
      [new CompletedEvent('i3', NODE, slice(INPUT), slice(OUTPUT), 121, 'run_a', 6, 120, 7), new CompletedEvent('i4', NODE, slice(INPUT), slice(OUTPUT), 124, 'run_a', 7, 122, 'req-8')],
      batchOf(withIds),
    ],
    [
      'a call without an id in the same group: five slots, no null',
      [new CompletedEvent('i3', NODE, slice(INPUT), slice(OUTPUT), 121, 'run_a', 6, 120, 7), new CompletedEvent('i4', NODE, slice(INPUT), slice(OUTPUT), 124, 'run_a', 7, 122)],
      batchOf(mixed),
    ],
  ];
  for (const [name, events, bytes] of table) t.equal(encodeBatch(events).toString(), bytes.toString(), name);
});

t.test('request ids: the reader reads what the layout spells, on its fast path', async (t) => {
  // [what is read, its bytes, each event's [instanceId, requestId]]
  const table: Array<[string, Buffer, Array<[string, unknown]>]> = [
    ['a start, a numeric id', startedWith('7'), [['i1', 7]]],
    ['a start, a string id', startedWith('"req-1"'), [['i1', 'req-1']]],
    ['a call in one event', completedWith('0'), [['i2', 0]]],
    ['a group with ids', withIds, [['i3', 7], ['i4', 'req-8']]],
    ['a group, one call with an id and one without', mixed, [['i3', 7], ['i4', undefined]]],
    ['an old group: five slots each', group, [['i3', undefined], ['i4', undefined]]],
  ];
  for (const [name, element, expected] of table) {
    const bytes = batchOf(element);
    const read = new BatchReader().read(Buffer.from(bytes));
    t.ok(read !== undefined && (read.events[0] as { input?: unknown }).input instanceof RawJson, `${name}: the fast path`);
    t.strictSame(read?.events.map((e) => [(e as { instanceId: string }).instanceId, (e as { requestId?: unknown }).requestId]), expected, name);
    // Exactly what JSON.parse and the groups' expansion give.
    const parsed = (JSON.parse(bytes.toString()) as unknown[]).flatMap((e) => expandCompletedGroup(e) ?? []);
    t.same(JSON.parse(JSON.stringify(read?.events)), parsed, `${name}: as JSON.parse reads it`);
  }
});

t.test('request ids: encode -> read -> the events JSON.parse gives, whatever the id', async (t) => {
  // Ids the fast path takes, and ids it leaves to the plain path (escapes, signs, fractions, 16 digits and more, not ASCII).
  const ids: Array<string | number | undefined> = [undefined, 0, 1, 42, 999_999_999_999_999, 'a', 'req-1', '', 'q"uote', 'line\n', 'ünï', -1, 1.5, 1e21, 9_007_199_254_740_991];
  const reader = new BatchReader();
  let fast = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const next = ids[(i + 1) % ids.length];
    const events: RunEvent[] = [
      new StartedEvent('i1', NODE, slice(INPUT), 'run_a', 1, 100, id),
      new CompletedEvent('i2', NODE, slice(INPUT), slice(OUTPUT), 112, 'run_a', 2, 110, id),
      // Two in a row: a group, when both ids can be spelled in one.
      new CompletedEvent('i3', NODE, slice(INPUT), slice(OUTPUT), 121, 'run_a', 3, 120, id),
      new CompletedEvent('i4', NODE, slice(INPUT), slice(OUTPUT), 124, 'run_a', 4, 122, next),
    ];
    const bytes = encodeBatch(events);
    const expected = JSON.parse(JSON.stringify(events)) as unknown[];
    const parsed = (JSON.parse(bytes.toString()) as unknown[]).flatMap((e) => expandCompletedGroup(e) ?? []);
    t.same(parsed, expected, `${JSON.stringify(id)}: the bytes parse (and expand) to the events`);
    const read = reader.read(Buffer.from(bytes));
    t.same(JSON.parse(JSON.stringify(read?.events)), expected, `${JSON.stringify(id)}: the reader reads the same events`);
    if ((read?.events[0] as { input?: unknown } | undefined)?.input instanceof RawJson) fast++;
  }
  t.ok(fast >= 6, `the plain ids read on the fast path (${fast} of ${ids.length})`);
});
