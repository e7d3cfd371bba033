// A burst of completed calls to one tool goes to the debugger as one group
// (report/completed-group.ts): written by the reporter's encoder, read by the
// server's batch reader (or its plain path), logged as one line and loaded
// back. Whichever way it travels, the run must read exactly as if each call
// had been sent as its own instance.completed event.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { COMPLETED_GROUP, expandCompletedGroup } from '../src/report/completed-group.js';
import { JsonSlice } from '../src/report/deferred.js';
import { encodeBatch, encodeEvent } from '../src/report/encode-batch.js';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import { CompletedEvent, FinishedEvent } from '../src/report/execution-events.js';
import { BatchReader } from '../src/server/batch-reader.js';
import { BatchText } from '../src/server/batch-text.js';
import { RawJson } from '../src/server/raw-json.js';
import { RunStore } from '../src/server/run-store.js';
import { validateEvent } from '../src/protocol/validate-event.js';
import { api, fakeReporter, freshDataDir, liveClient, runId as newRunId, runWhen, startServe } from './helpers/serve.js';

const ECHO = Object.freeze({ nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' }) as NodeDeclaration;
const OTHER = Object.freeze({ nodeId: 'tool:ünï "q"', kind: 'tool', parent: 'mcp:session', label: 'ünï' }) as NodeDeclaration;
const T0 = 1_796_116_296_765;

/** A slice of a frame at its value, with the parse-based fallback a recorder gives it. */
function slice(json: string): JsonSlice<string> {
  const line = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${json}}\n`);
  const start = line.indexOf('"result":') + '"result":'.length;
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };
  return new JsonSlice(line.length, parse, json, line, start, line.length - 2);
}

function completed(id: number, seq: number, node = ECHO, input = slice(`{"name":"echo","arguments":{"text":"call ${id}"}}`), runId = 'run_a'): CompletedEvent {
  return new CompletedEvent(`mcp_${id}`, node, input, slice(`{"content":[{"type":"text","text":"ünï ${id}"}]}`), T0 + id + 2, runId, seq, T0 + id);
}

/** Every element of a batch, parsed, with groups expanded into their events. */
function expanded(bytes: Buffer): unknown[] {
  return (JSON.parse(bytes.toString('utf8')) as unknown[]).flatMap((element) => expandCompletedGroup(element) ?? ['not a group of the right shape']);
}

/** The kinds of a batch's elements, a group as `group×<calls>`. */
function layout(bytes: Buffer): string[] {
  return (JSON.parse(bytes.toString('utf8')) as Array<{ type: string; calls?: unknown[] }>).map((e) => (e.type === COMPLETED_GROUP ? `group×${e.calls?.length}` : e.type));
}

// A batch as a proxy sends it: a run of calls to one tool, an end, calls to
// another, a call whose input fails the strict check, and a gap in seq.
function mixedBatch(): RunEvent[] {
  return [
    completed(1, 1),
    completed(2, 2),
    completed(3, 3),
    new FinishedEvent('mcp_0', slice('{"ok":true}'), 'run_a', 4, T0 + 4),
    completed(5, 5, OTHER),
    completed(6, 6, OTHER),
    completed(7, 7, ECHO),
    completed(8, 8),
    completed(9, 9, ECHO, slice('{"a":1,}')),
    completed(10, 10),
    completed(11, 11),
    completed(13, 13),
    completed(14, 14),
    completed(15, 16),
  ];
}

t.test('consecutive completed calls of one run and node go as one group and expand to their events', async (t) => {
  const events = mixedBatch();
  const bytes = encodeBatch(events);
  t.same(
    layout(bytes),
    ['group×3', 'instance.finished', 'group×2', 'group×2', 'instance.completed', 'group×2', 'group×2', 'instance.completed'],
    'split at another kind, another node, a value that fails its check, and a gap in seq',
  );
  t.same(expanded(bytes), JSON.parse(JSON.stringify(events)), 'expanded, exactly the events JSON.stringify gives');
  const separate = events.reduce((sum, event) => sum + Buffer.byteLength(encodeEvent(event)) + 1, 1);
  t.ok(bytes.length < separate * 0.75, `${bytes.length} bytes against ${separate} as separate events`);
});

t.test('no group of one, nor of calls without both values, nor of a node that is not frozen', async (t) => {
  const open = { nodeId: 'tool:open', kind: 'tool', parent: 'mcp:session', label: 'open' } as NodeDeclaration;
  const plain = (events: RunEvent[]): void => {
    const bytes = encodeBatch(events);
    t.same(layout(bytes), events.map((e) => e.type));
    t.equal(bytes.toString('utf8'), JSON.stringify(events));
  };
  plain([completed(1, 1)]);
  plain([completed(1, 1, open), completed(2, 2, open)]);
  const noInput = new CompletedEvent('mcp_2', ECHO, undefined, slice('1'), T0 + 3, 'run_a', 2, T0 + 2);
  plain([noInput, new CompletedEvent('mcp_3', ECHO, slice('2'), slice('{"x":"hidden"}'), T0 + 4, 'run_a', 3, T0 + 3)]);
  plain([completed(1, 1, ECHO, slice('1'), 'run_a'), completed(2, 2, ECHO, slice('1'), 'run_b')]);
});

t.test('the server reads a group from its bytes as it reads each of its events', async (t) => {
  const events = mixedBatch();
  const bytes = encodeBatch(events);
  const text = bytes.toString('utf8');
  const read = new BatchReader().read(Buffer.from(bytes));
  if (read === undefined) throw new Error('not read');
  t.same(JSON.parse(JSON.stringify(read.events)), expanded(bytes), 'every event, as JSON.parse and the expansion read them');
  for (const event of read.events) t.equal(validateEvent(event), event);
  const first = read.events[0] as { input: unknown; output: unknown };
  t.ok(first.input instanceof RawJson && first.output instanceof RawJson, "a group's values are kept as their text, as an event's are");
  t.equal(read.ends.length, 8, 'one end per element');
  t.same(read.elements, [0, 0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 7], 'each event knows its element');
  t.same([...(read.groups ?? [])], [0, 2, 3, 5, 6], 'and which elements are groups');
  const batch = new BatchText(Buffer.from(text), read.ends, read.groups);
  t.equal(batch.eventText(0), undefined, "a group's text is not one event's");
  t.same(JSON.parse(batch.eventText(1) ?? ''), JSON.parse(JSON.stringify(events[3])), 'an event element is its own text');
});

t.test('a group of one call is still a group: its text is not an event', async (t) => {
  const one = `[{"type":"${COMPLETED_GROUP}","node":${JSON.stringify(ECHO)},"runId":"run_a","seq":2,"calls":[["mcp_1",1,2,{},{}]]}]`;
  for (const [what, text] of [
    ['the reporter layout', one],
    ['another layout', one.replace('"calls":[[', '"calls": [[')],
  ] as const) {
    const read = new BatchReader().read(Buffer.from(text));
    t.same(read?.events.map((e) => e.type), ['instance.completed'], what);
    t.same([...(read?.groups ?? [])], [0], `${what}: marked as a group`);
    t.equal(new BatchText(Buffer.from(text), read?.ends ?? [], read?.groups).eventText(0), undefined, `${what}: no event text`);
  }
});

t.test('a group written another way is read in full; one of the wrong shape is refused', async (t) => {
  const head = `{"type":"${COMPLETED_GROUP}","node":${JSON.stringify(ECHO)},"runId":"run_a","seq":1,"calls":`;
  const calls = '[["mcp_1",1,2,{"a":1},{"b":2}],["mcp_2",3,4,[],null]]';
  const expected = [
    { type: 'instance.completed', instanceId: 'mcp_1', node: ECHO, input: { a: 1 }, output: { b: 2 }, endT: 2, runId: 'run_a', seq: 1, t: 1 },
    { type: 'instance.completed', instanceId: 'mcp_2', node: ECHO, input: [], output: null, endT: 4, runId: 'run_a', seq: 2, t: 3 },
  ];
  const readAs = (element: string): unknown => {
    const read = new BatchReader().read(Buffer.from(`[${element}]`));
    return read === undefined ? undefined : JSON.parse(JSON.stringify(read.events));
  };
  t.same(readAs(`${head}${calls}}`), expected, 'the layout the reporter writes');
  t.same(readAs(`${head}${calls.replaceAll(',', ', ')}}`), expected, 'with spaces');
  t.same(readAs(`{"calls":${calls},"seq":1,"runId":"run_a","node":${JSON.stringify(ECHO)},"type":"${COMPLETED_GROUP}"}`), expected, 'keys in another order');
  t.same(readAs(`${head}${calls.replace('1,2,', '1.5,2,')}}`), [{ ...expected[0], t: 1.5 }, expected[1]], 'a fractional time');
  const refused: Array<[string, string]> = [
    ['no calls', `${head}[]}`],
    ['a call of four items', `${head}[["mcp_1",1,2,{}]]}`],
    ['a call that is not an array', `${head}[{"instanceId":"mcp_1"}]}`],
    ['a seq that is not an integer', `${head.replace('"seq":1', '"seq":"1"')}${calls}}`],
    ['a bad run id', `${head.replace('run_a', '../etc')}${calls}}`],
    ['a node of the wrong shape', `${head.replace('"kind":"tool"', '"kind":"nope"')}${calls}}`],
    ['an id that is not a string', `${head}[[1,1,2,{},{}]]}`],
    ['a value that is not JSON', `${head}[["mcp_1",1,2,{"a":1,},{}]]}`],
    ['cut short', `${head}${calls}`],
  ];
  for (const [what, element] of refused) t.equal(new BatchReader().read(Buffer.from(`[${element}]`)), undefined, what);
});

t.test('a group is logged as one line and loads back to the same run as separate events', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gm-group-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const start = { type: 'run.started', runId: 'run_a', seq: 0, t: T0, name: 'group', source: 'test', meta: {} } as RunEvent;
  const events = mixedBatch();
  const bytes = Buffer.from(encodeBatch([start, ...events]));
  const read = new BatchReader().read(bytes);
  if (read === undefined) throw new Error('not read');
  const grouped = new RunStore({ dir: join(dir, 'grouped') });
  const batch = new BatchText(bytes, read.ends, read.groups);
  read.events.forEach((event, i) => grouped.append(event, batch, read.elements[i]));
  // The same events, each sent on its own.
  const separate = new RunStore({ dir: join(dir, 'separate') });
  for (const event of [start, ...events]) separate.append(JSON.parse(JSON.stringify(event)) as RunEvent);
  await grouped.close();
  await separate.close();
  const lines = readFileSync(join(dir, 'grouped', 'run_a.jsonl'), 'utf8').split('\n').filter(Boolean);
  // The end of mcp_0, an instance the run never had, changes nothing: it is not logged.
  t.equal(lines.length, 8, 'one line per element that changed the run: the start and seven');
  t.equal(lines.filter((line) => line.includes(`"type":"${COMPLETED_GROUP}"`)).length, 5, 'five of them groups');
  const runOf = (store: RunStore): unknown => JSON.parse(JSON.stringify(store.get('run_a')?.toRun()));
  t.same(runOf(grouped), runOf(separate), 'in memory, the same run');
  const reloaded = new RunStore({ dir: join(dir, 'grouped') });
  t.same(reloaded.load(), { runs: 1, skippedLines: 0 });
  const reloadedRun = JSON.parse(JSON.stringify(reloaded.get('run_a')?.toRun())) as { instances: unknown[]; status: string };
  const separateRun = runOf(separate) as { instances: unknown[] };
  t.same(reloadedRun.instances, separateRun.instances, 'loaded from its log, the same instances');
  t.equal(reloadedRun.instances.length, 13);
});

t.test('a damaged group line in a log is skipped, like any bad line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gm-group-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = new RunStore({ dir });
  store.append({ type: 'run.started', runId: 'run_a', seq: 1, t: T0, name: 'x', source: 'test', meta: {} } as RunEvent);
  await store.close();
  const file = join(dir, 'run_a.jsonl');
  // Each line with values of its own: what a line that was skipped would have left shows.
  const line = (n: number): string =>
    `{"type":"${COMPLETED_GROUP}","node":${JSON.stringify(ECHO)},"runId":"run_a","seq":${n * 10},"calls":[["mcp_1",${T0 + n},${T0 + n + 1},{"line":${n}},{"line":${n}}],["mcp_2",${T0 + n},${T0 + n + 1},${n},${n}]]}`;
  const lines = [
    line(1).replace('"mcp_2"', '2'),
    line(2).replaceAll('run_a', 'run_b'),
    line(3).replace('"calls":[', '"calls":[[],'),
    line(4),
  ];
  appendFileSync(file, `${lines.join('\n')}\n`);
  const reloaded = new RunStore({ dir });
  t.same(reloaded.load(), { runs: 1, skippedLines: 3 }, 'a bad call, another run, a call of the wrong shape: the whole line');
  const instances = JSON.parse(JSON.stringify(reloaded.get('run_a')?.toRun().instances ?? [])) as Array<Record<string, unknown>>;
  t.strictSame(
    instances.map((i) => [i.instanceId, i.input, i.output, i.startedAt]),
    [
      ['mcp_1', { line: 4 }, { line: 4 }, new Date(T0 + 4).toISOString()],
      ['mcp_2', 4, 4, new Date(T0 + 4).toISOString()],
    ],
    'only the good line applied, nothing of the others (not even their good calls)',
  );
});

t.test('through a real debugger: a group reaches the run, the live feed and the log', async (t) => {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const serve = await startServe([], {}, { dataDir });
  t.teardown(() => serve.stop());
  const live = await liveClient(serve.port, serve.token);
  t.teardown(() => live.close());
  const reporter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => reporter.close());
  const id = newRunId('group');
  const start = { type: 'run.started', runId: id, seq: 1, t: Date.now(), name: 'group', source: 'test', meta: {} } as RunEvent;
  const calls = Array.from({ length: 50 }, (_, i) => completed(i + 1, i + 2, ECHO, slice(`{"i":${i}}`), id));
  const bytes = encodeBatch([start, ...calls]);
  t.same(layout(bytes), ['run.started', 'group×50']);
  reporter.ws.send(bytes);
  const run = await runWhen(serve, id, (r) => (r.instances as unknown[]).length === 50);
  const instances = run.instances as Array<{ instanceId: string; status: string; input: unknown; output: unknown; startedAt: string; endedAt: string }>;
  t.same(
    instances.map((i) => i.instanceId),
    calls.map((c) => c.instanceId),
  );
  t.same(instances[7], {
    instanceId: 'mcp_8',
    nodeId: 'tool:echo',
    status: 'ok',
    input: { i: 7 },
    output: { content: [{ type: 'text', text: 'ünï 8' }] },
    startedAt: new Date(T0 + 8).toISOString(),
    endedAt: new Date(T0 + 10).toISOString(),
  });
  type Fed = { type: string; instanceId: string; input?: unknown };
  const fedEvent = (m: Record<string, unknown>): Fed | undefined => (m.type === 'run.event' && m.runId === id ? (m.event as Fed) : undefined);
  await live.next((m) => fedEvent(m)?.instanceId === 'mcp_50', 5000, 'the last call on the live feed');
  const fed = live.messages.map(fedEvent).filter((e) => e?.type === 'instance.completed');
  t.equal(fed.length, 50, 'the live feed tells of each call');
  t.same(fed[7]?.input, { i: 7 });
  // Written another way (spaces, even between the elements: the server parses the whole message), it counts the same.
  const spaced = JSON.stringify({ type: COMPLETED_GROUP, node: ECHO, runId: id, seq: 52, calls: [['mcp_51', T0 + 51, T0 + 53, { i: 50 }, { ok: 1 }], ['mcp_52', T0 + 52, T0 + 54, { i: 51 }, { ok: 2 }]] }, null, 1);
  reporter.sendRaw(`[ ${spaced.replaceAll("\n", " ")} ]`);
  const more = await runWhen(serve, id, (r) => (r.instances as unknown[]).length === 52);
  t.same((more.instances as Array<{ output: unknown }>).slice(50).map((i) => i.output), [{ ok: 1 }, { ok: 2 }], 'the plain way too');
  instances.push(...(more.instances as typeof instances).slice(50));
  // A group of one call, the plain way: the live feed still tells of a call, not of a group.
  const single = JSON.stringify({ type: COMPLETED_GROUP, node: ECHO, runId: id, seq: 54, calls: [['mcp_53', T0 + 53, T0 + 55, { i: 52 }, { ok: 3 }]] });
  reporter.sendRaw(`[ ${single} ]`);
  await live.next((m) => fedEvent(m)?.instanceId === 'mcp_53', 5000, 'the single call on the live feed');
  t.notOk(
    live.messages.some((m) => fedEvent(m)?.type === COMPLETED_GROUP),
    'no group on the live feed',
  );
  const last = await runWhen(serve, id, (r) => (r.instances as unknown[]).length === 53);
  instances.push(...(last.instances as typeof instances).slice(52));
  // A restart reads the group back from the log.
  reporter.close();
  await serve.stop();
  const again = await startServe([], {}, { dataDir });
  t.teardown(() => again.stop());
  const reloaded = await api(again.port, again.token, 'GET', `/api/runs/${id}`);
  t.same((reloaded.json as { instances: unknown[] }).instances, instances, 'after a restart, the same instances');
});
