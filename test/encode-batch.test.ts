// The reporter writes recorded params and results into its batches as the
// frame's own bytes. The batch must still be exactly the JSON that
// JSON.stringify of the same events would give, once parsed, whatever the
// bytes hold: what fails the strict check is parsed and serialised instead.
import t from 'tap';
import { DeferredValue, JsonSlice } from '../src/report/deferred.js';
import { encodeBatch, encodeEvent } from '../src/report/encode-batch.js';
import type { RunEvent } from '../src/report/events.js';

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
  const text = encodeBatch(events);
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
