// The reporter writes recorded params and results into its batches as the
// frame's own bytes. The batch must still be exactly the JSON that
// JSON.stringify of the same events would give, once parsed, whatever the
// bytes hold: what fails the strict check is parsed and serialised instead.
import t from 'tap';
import { DeferredValue, JsonSlice } from '../src/report/deferred.js';
import { encodeBatch, encodeEvent } from '../src/report/encode-batch.js';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import { COMPLETED_GROUP, expandCompletedGroup } from '../src/report/completed-group.js';
import { CompletedEvent, FinishedEvent, StartedEvent } from '../src/report/execution-events.js';
import { isUtf8 } from 'node:buffer';
import { prng } from './helpers/random.js';

/** A slice of `line` at its first `"params":` value, with the parse-based fallback. */
function paramsSlice(line: Buffer): JsonSlice<Buffer> {
  const start = line.indexOf('"params":') + '"params":'.length;
  const end = line.lastIndexOf('}');
  const parse = (raw: Buffer): unknown => {
    try {
      return (JSON.parse(raw.toString('utf8')) as { params?: unknown }).params;
    } catch {
      return undefined;
    }
  };
  return new JsonSlice(line.length, parse, line, line, start, end);
}

/** A slice of a frame whose value is written compactly: its bytes are exactly what JSON.stringify writes of the value. */
function compactSlice(value: unknown): JsonSlice<null> {
  const line = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(value)}}`);
  const start = line.indexOf('"result":') + '"result":'.length;
  return new JsonSlice(line.length, () => value, null, line, start, line.length - 1);
}

function started(input: unknown, seq: number): RunEvent {
  return {
    type: 'instance.started',
    instanceId: `mcp_${seq}`,
    node: { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' },
    input,
    runId: 'run_x',
    seq,
    t: 1_796_000_000_000 + seq,
  } as RunEvent;
}

const LINES = [
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{ "b" : 1.50, "a":[1e3,-0,"\\u00e9\\n"], "a":2 }}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"text":"ünï😀"}}',
  // Fails the strict check: an escape JSON does not have. The fallback parse fails too.
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"text":"\\q"}}',
  // Fails the strict check: a trailing comma.
  '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"a":1,}}',
];

t.test('a batch with slices parses to what JSON.stringify of it gives', async (t) => {
  const events = LINES.map((line, i) => started(paramsSlice(Buffer.from(line)), i + 1));
  events.push({ type: 'instance.finished', instanceId: 'mcp_1', output: new DeferredValue(0, () => ({ ok: true })), runId: 'run_x', seq: 9, t: 1 } as RunEvent);
  events.push({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'a "quoted" line\n', runId: 'run_x', seq: 10, t: 2 } as RunEvent);
  const text = encodeBatch(events).toString('utf8');
  t.same(JSON.parse(text), JSON.parse(JSON.stringify(events)));
  t.match(text, '"input":{"name":"echo","arguments":{"text":"hi"}}', 'valid bytes are copied as they are');
  t.match(text, '"input":{ "b" : 1.50, "a":[1e3,-0,"\\u00e9\\n"], "a":2 }', 'spacing, number spelling, escapes and duplicates kept');
  t.notMatch(text, '\\q', 'bytes that fail the check are not copied');
  t.notMatch(text, '"a":1,}', 'nor are these');
});

t.test('invalid UTF-8 reads as it does when the frame is parsed', async (t) => {
  const line = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
  const text = encodeEvent(started(paramsSlice(line), 1));
  t.same((JSON.parse(text) as { input: unknown }).input, { t: '\ufffd\ufffd' }, 'U+FFFD for each bad byte, as JSON.parse of the decoded frame gives');
});

t.test('fields are kept in order and undefined ones left out', async (t) => {
  const event = { type: 'instance.started', instanceId: 'mcp_1', node: { nodeId: 'n', kind: 'tool', parent: null, label: 'n' }, input: paramsSlice(Buffer.from(LINES[0] as string)), extra: undefined, runId: 'r', seq: 1, t: 5 } as unknown as RunEvent;
  t.equal(encodeEvent(event), JSON.stringify({ ...event, input: { name: 'echo', arguments: { text: 'hi' } } }));
});

t.test('a node is written as it is now unless it is frozen', async (t) => {
  const line = Buffer.from(LINES[0] as string);
  const frozen = Object.freeze({ nodeId: 'tool:a', kind: 'tool', parent: 'mcp:session', label: 'a' });
  const open = { nodeId: 'tool:b', kind: 'tool', parent: 'mcp:session', label: 'b' };
  const event = (node: object): RunEvent => ({ ...(started(paramsSlice(line), 1) as object), node }) as RunEvent;
  const first = JSON.parse(encodeEvent(event(frozen))) as { node: unknown };
  t.same(JSON.parse(encodeEvent(event(frozen))), first, 'a frozen node reads the same every time');
  t.same(first.node, frozen);
  t.same((JSON.parse(encodeEvent(event(open))) as { node: unknown }).node, open);
  open.label = 'renamed';
  t.equal((JSON.parse(encodeEvent(event(open))) as { node: { label: string } }).node.label, 'renamed', 'a node that is not frozen is written afresh');
});

// Strings that need escaping, or that a writer taking a shortcut for plain
// ASCII would get wrong: quotes, backslashes, controls, DEL, non-ASCII, lone surrogates.
const STRINGS = ['', 'mcp_1', 'a"b', 'back\\slash', 'tab\there', '\u0000', '\u001f', '\u007f', 'é', '😀', '\ud800', 'x'.repeat(70), `${'y'.repeat(63)}"`];
const NUMBERS = [0, 1, -1, 1.5, -0, 1e21, 2 ** 53 + 2, 1e-7, Number.MAX_SAFE_INTEGER, NaN, Infinity, 1_796_000_000_123];

function pick<T>(rand: () => number, values: readonly T[]): T {
  return values[Math.floor(rand() * values.length)] as T;
}

function randomJson(rand: () => number, depth = 0): unknown {
  const roll = rand();
  if (depth > 2 || roll < 0.4) return rand() < 0.5 ? pick(rand, STRINGS) : pick(rand, NUMBERS.filter(Number.isFinite));
  if (roll < 0.7) return Array.from({ length: Math.floor(rand() * 3) }, () => randomJson(rand, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(rand() * 3) }, (_, i) => [`${pick(rand, STRINGS)}${i}`, randomJson(rand, depth + 1)]));
}

t.test('random batches: the bytes are UTF-8 and parse to what JSON.stringify gives', async (t) => {
  const rand = prng(20261201);
  const node = Object.freeze({ nodeId: 'tool:é"', kind: 'tool', parent: 'mcp:session', label: 'é' });
  for (let round = 0; round < 150; round++) {
    const events: RunEvent[] = [];
    const count = 1 + Math.floor(rand() * (round % 10 === 0 ? 400 : 12));
    for (let i = 0; i < count; i++) {
      const params = randomJson(rand);
      const line = Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":${JSON.stringify(params)}}`);
      const input = rand() < 0.6 ? paramsSlice(line) : params;
      events.push({
        type: pick(rand, ['instance.started', 'log', 'instance.completed']),
        instanceId: pick(rand, STRINGS),
        node: rand() < 0.5 ? node : { nodeId: pick(rand, STRINGS), kind: 'tool', parent: null, label: pick(rand, STRINGS) },
        input,
        text: rand() < 0.3 ? pick(rand, STRINGS) : undefined,
        endT: pick(rand, NUMBERS),
        runId: pick(rand, ['run_a', 'run_b']),
        seq: pick(rand, NUMBERS),
        t: pick(rand, NUMBERS),
      } as unknown as RunEvent);
    }
    const bytes = encodeBatch(events);
    if (!isUtf8(bytes)) {
      t.fail(`round ${round}: not UTF-8`);
      continue;
    }
    t.same(JSON.parse(bytes.toString('utf8')), JSON.parse(JSON.stringify(events)), `round ${round}: ${count} events, ${bytes.length} bytes`);
  }
});

t.test('each batch is a buffer of its own: the socket may still be writing the last one', async (t) => {
  const line = Buffer.from(LINES[0] as string);
  const first = encodeBatch([started(paramsSlice(line), 1)]);
  const copy = Buffer.from(first);
  encodeBatch([started(paramsSlice(line), 2)]);
  t.same(first, copy, 'writing the next batch left the first one as it was');
  t.not(first.buffer, encodeBatch([started(paramsSlice(line), 3)]).buffer);
});

t.test("the execution events' templates write exactly what JSON.stringify writes", async (t) => {
  const rand = prng(20261202);
  const frozen = Object.freeze({ nodeId: 'tool:é"', kind: 'tool', parent: 'mcp:session', label: 'é' }) as NodeDeclaration;
  const values = (): unknown => {
    const roll = rand();
    // A slice of a frame (compact JSON: its bytes are what JSON.stringify would write), undefined (left out), a deferred value, a note object, or any JSON.
    if (roll < 0.3) return compactSlice(randomJson(rand));
    if (roll < 0.15) return undefined;
    if (roll < 0.25) {
      const deferred = pick(rand, STRINGS);
      return new DeferredValue(0, () => ({ deferred }));
    }
    if (roll < 0.35) return { '[graphmind]': 'not recorded: the frame is larger than 1 MiB', bytes: 2_000_000 };
    return randomJson(rand);
  };
  let groups = 0;
  for (let round = 0; round < 300; round++) {
    const events: RunEvent[] = [];
    // Runs of consecutive seq now and then, so that completed calls can form groups.
    let nextSeq = 1;
    for (let i = 0; i < 1 + Math.floor(rand() * 8); i++) {
      const node = rand() < 0.8 ? frozen : ({ nodeId: pick(rand, STRINGS), kind: 'tool', parent: null, label: pick(rand, STRINGS) } as NodeDeclaration);
      const seq = rand() < 0.6 ? nextSeq++ : pick(rand, NUMBERS);
      const [id, runId, at, endT] = [pick(rand, STRINGS), rand() < 0.8 ? 'run_a' : pick(rand, ['run_b', 'r"']), pick(rand, NUMBERS), pick(rand, NUMBERS)];
      const kind = rand();
      // A request id, or none: spelled by the template (a string, a plain integer) or the plain way (any other number).
      const requestId = pick(rand, [undefined, undefined, 0, 7, 2 ** 53 - 1, 'req-1', 'q"\n', -1, 1.5, 1e21]);
      events.push(
        kind < 0.33
          ? new StartedEvent(id, node, values(), runId, seq, at, requestId)
          : kind < 0.66
            ? new CompletedEvent(id, node, values(), values(), endT, runId, seq, at, requestId)
            : new FinishedEvent(id, values(), runId, seq, at),
      );
    }
    if (round % 3 === 0) {
      // A burst of completed calls, as a proxy sends them, now and then with one that cannot join the others.
      for (let i = 0; i < 2 + Math.floor(rand() * 5); i++) {
        const odd = rand();
        const seq = odd < 0.05 ? nextSeq + 5 : nextSeq;
        nextSeq = seq + 1;
        const input = odd > 0.95 ? undefined : compactSlice(randomJson(rand));
        const output = odd > 0.9 && odd <= 0.95 ? randomJson(rand) : compactSlice(randomJson(rand));
        const requestId = pick(rand, [undefined, i, `req-${i}`, -i]);
        events.push(new CompletedEvent(pick(rand, STRINGS), odd >= 0.05 && odd < 0.1 ? ({ ...frozen } as NodeDeclaration) : frozen, input, output, 1_796_000_000_000 + i, 'run_a', seq, 1_796_000_000_000 - i, requestId));
      }
    }
    const bytes = encodeBatch(events);
    // Consecutive completed calls may form a group: as the events they stand for, exactly.
    const elements = JSON.parse(bytes.toString('utf8')) as unknown[];
    groups += elements.filter((e) => (e as { type?: unknown }).type === COMPLETED_GROUP).length;
    const text = elements.some((e) => (e as { type?: unknown }).type === COMPLETED_GROUP) ? JSON.stringify(elements.flatMap((e) => expandCompletedGroup(e) ?? [])) : bytes.toString('utf8');
    if (!isUtf8(bytes) || text !== JSON.stringify(events)) t.fail(`round ${round}: ${text} is not ${JSON.stringify(events)}`);
  }
  t.ok(groups > 10, `groups formed and checked (${groups})`);
  // Slices: their bytes, compact here, come out as they are.
  const line = Buffer.from(LINES[0] as string);
  const slice = paramsSlice(line);
  const events = [new StartedEvent('mcp_1', frozen, slice, 'run_a', 1, 1_796_000_000_123), new CompletedEvent('mcp_2', frozen, slice, slice, 1_796_000_000_124, 'run_a', 2, 1_796_000_000_123), new FinishedEvent('mcp_1', slice, 'run_a', 3, 99_999_999)];
  t.equal(encodeBatch(events).toString('utf8'), JSON.stringify(events));
  t.pass('300 random batches written exactly as JSON.stringify writes them');
});

t.test('a template writes an id that is not a string as JSON.stringify does', async (t) => {
  const node = Object.freeze({ nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' }) as NodeDeclaration;
  for (const id of [undefined, 7, null]) {
    const event = new FinishedEvent(id as unknown as string, undefined, 'r', 1, 2);
    t.equal(encodeEvent(event), JSON.stringify(event), `an id of ${String(id)}`);
    const started = new StartedEvent(id as unknown as string, node, undefined, 'r', 1, 2);
    t.equal(encodeEvent(started), JSON.stringify(started));
  }
});

t.test('a template falls back to the plain way for a slice that fails its check', async (t) => {
  const bad = paramsSlice(Buffer.from(LINES[4] as string));
  const node = Object.freeze({ nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' }) as NodeDeclaration;
  const text = encodeEvent(new CompletedEvent('mcp_1', node, bad, paramsSlice(Buffer.from(LINES[0] as string)), 7, 'r', 1, 6));
  t.equal(text, JSON.stringify({ type: 'instance.completed', instanceId: 'mcp_1', node, output: { name: 'echo', arguments: { text: 'hi' } }, endT: 7, runId: 'r', seq: 1, t: 6 }), 'its parse failed too, so the input is left out; the rest as ever');
});
