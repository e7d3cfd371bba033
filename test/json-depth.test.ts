// The depth rules of issue 29 ("every valid answer recorded") as playbooks:
// the relay's scanners read any depth; a recorded value is at most
// RECORD_MAX_DEPTH levels deep, a deeper one is the too-deep note, wherever a
// value is recorded (a slice of a frame, a parsed value, a held message, an
// adapter result, an error's data). test/deep-answers.test.ts runs the same
// end to end.
import t from 'tap';
import { MESSAGE_MAX_DEPTH, RECORD_MAX_DEPTH, TOO_DEEP, nestsDeeper, recordable, tooDeepNote } from '../src/json/depth.js';
import { skipValue } from '../src/json/skip.js';
import { recordResult, recordThrown, rpcError } from '../src/report/answer-record.js';
import { JsonSlice } from '../src/report/deferred.js';
import { heldMessage } from '../src/report/hide.js';
import { scanEnvelope } from '../src/streams/envelope.js';
import { SkeletonReader } from '../src/streams/skeleton.js';

const NOTE = { '[graphmind]': TOO_DEEP, maxDepth: RECORD_MAX_DEPTH };
const SHOWN = { inputs: false, toolResults: false };

/** `n` arrays nested, as text. */
const arraysText = (n: number): string => '['.repeat(n) + ']'.repeat(n);
/** `n` arrays nested, as a value (built without recursion). */
function arrays(n: number): unknown[] {
  const outer: unknown[] = [];
  let at = outer;
  for (let i = 1; i < n; i++) {
    const inner: unknown[] = [];
    at.push(inner);
    at = inner;
  }
  return outer;
}

t.test('the note and the bounds', async (t) => {
  t.strictSame(tooDeepNote(), NOTE, 'one shape: the record\'s note key, the words, the bound');
  t.equal(JSON.stringify(tooDeepNote()), '{"[graphmind]":"too deep to record","maxDepth":256}');
  t.equal(MESSAGE_MAX_DEPTH, 2 * RECORD_MAX_DEPTH, 'the debugger takes a bounded value with room for what a message puts around it');
});

t.test('nestsDeeper: a table', async (t) => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const cases: Array<[string, unknown, number, boolean]> = [
    ['a scalar is no level', 'text', 0, false],
    ['null is no level', null, 0, false],
    ['an empty array is one level', [], 0, true],
    ['an empty array within one', [], 1, false],
    ['an object of scalars within one', { a: 1, b: 'x' }, 1, false],
    ['an object holding an array is two', { a: [] }, 1, true],
    ['the deepest branch counts, wherever it is', { a: 1, b: [1, 2, { c: [] }] }, 3, true],
    ['the deepest branch, within its depth', { a: 1, b: [1, 2, { c: [] }] }, 4, false],
    ['exactly at the bound', arrays(RECORD_MAX_DEPTH), RECORD_MAX_DEPTH, false],
    ['one past it', arrays(RECORD_MAX_DEPTH + 1), RECORD_MAX_DEPTH, true],
    ['100,000 levels, without overflowing', arrays(100_000), RECORD_MAX_DEPTH, true],
    ['a cycle is too deep (JSON.stringify would throw on it)', cycle, RECORD_MAX_DEPTH, true],
  ];
  for (const [what, value, maxDepth, expected] of cases) t.equal(nestsDeeper(value, maxDepth), expected, what);
});

t.test('recordable: the value, or the note', async (t) => {
  const small = { content: [{ type: 'text', text: 'hi' }] };
  t.equal(recordable(small), small, 'a usual value is itself (no copy)');
  t.equal(recordable('x'), 'x');
  t.equal(recordable(undefined), undefined);
  t.strictSame(recordable({ structuredContent: { a: arrays(1_000) } }), NOTE, '1,000 levels: the note');
  t.strictSame(recordable(arrays(100_000)), NOTE, '100,000 levels: the note');
});

t.test('the scanners read any depth', async (t) => {
  for (const depth of [RECORD_MAX_DEPTH + 1, 1_000, 100_000]) {
    const value = arraysText(depth);
    t.equal(skipValue(Buffer.from(value), 0, value.length), value.length, `skipValue: ${depth} levels`);
    t.equal(skipValue(Buffer.from(`${value}]`), 0, value.length - 1), -1, `skipValue: ${depth} levels cut short`);
    const line = Buffer.from(`{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":true,"deep":${value}}}`);
    const env = scanEnvelope(line);
    t.ok(env !== undefined && env.resultEnd === line.length - 1 && env.isError !== -1, `scanEnvelope: a response ${depth} levels deep, isError found`);
    t.equal(scanEnvelope(Buffer.from(`{"jsonrpc":"2.0","id":7,"result":{"deep":${value.slice(0, -1)}}}`)), undefined, `scanEnvelope: unbalanced at ${depth} is still refused`);
    // In pieces of 4 KiB, as a long line passes the relay with no debugger.
    const reader = new SkeletonReader();
    for (let at = 0; at < line.length; at += 4096) reader.push(line.subarray(at, at + 4096));
    const skeleton = reader.finish();
    // A small result is kept whole, a large one by its first-level members: either way a response with isError.
    const kept = skeleton.kind === 'object' ? (JSON.parse(skeleton.bytes.toString()) as { jsonrpc: string; id: number; result: { isError: boolean } }) : undefined;
    t.strictSame([kept?.jsonrpc, kept?.id, kept?.result.isError], ['2.0', 7, true], `SkeletonReader: ${depth} levels in pieces`);
    // The reader's stack is not kept for the next line: a shallow line reads as ever.
    reader.reset();
    reader.push(Buffer.from(`[{"a":[1]},${arraysText(3)}]`));
    t.equal(reader.finish().kind, 'other', 'the next line (an array with a non-object) reads as usual');
  }
});

t.test('every place a value is recorded bounds it', async (t) => {
  const deep = `{"structuredContent":{"a":${arraysText(1_000)}}}`;
  const frame = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${deep}}`);
  const start = frame.indexOf('{"structuredContent"');
  const slice = new JsonSlice(frame.length, () => JSON.parse(frame.toString()).result, undefined, frame, start, frame.length - 1);
  t.equal(slice.isStrict(), false, 'a slice too deep is not copied as it is');
  t.equal(JSON.stringify(slice), JSON.stringify(NOTE), 'and serialises as the note, without parsing the frame');
  const shallow = Buffer.from('{"a":[1,2]}');
  const fine = new JsonSlice(shallow.length, () => ({ a: [1, 2] }), undefined, shallow, 0, shallow.length);
  t.equal(fine.isStrict(), true, 'a usual slice is copied');
  t.equal(JSON.stringify(fine), '{"a":[1,2]}');

  const result = JSON.parse(deep) as Record<string, unknown>;
  t.strictSame(recordResult('tools/call', result, SHOWN), { failed: false, output: NOTE }, 'an adapter result: answered, with the note');
  t.strictSame(recordResult('tools/call', { ...result, isError: true, content: [{ type: 'text', text: 'no' }] }, SHOWN), { failed: true, output: NOTE, error: { name: 'ToolError', message: 'no' } }, 'a failed one keeps its text');
  t.strictSame(recordResult('tools/call', result, { inputs: false, toolResults: true }), { failed: false, output: '[hidden]' }, 'hidden stays hidden');
  t.strictSame(rpcError({ code: -32000, message: 'm', data: result }), { name: 'JsonRpcError', message: 'm', code: -32000, data: NOTE }, 'a JSON-RPC error\'s data');
  const thrown = Object.assign(new Error('x'), { data: result });
  t.strictSame((recordThrown('tools/call', thrown, SHOWN).data as { data: unknown }).data, NOTE, 'a thrown error\'s data');

  const answer = { jsonrpc: '2.0', id: 3, result };
  t.strictSame(heldMessage(answer, false, 'tools/call', SHOWN, () => ''), { jsonrpc: '2.0', id: 3, result: NOTE }, 'a held answer: its result is the note');
  t.equal(answer.result, result, 'the held message itself is not changed (it goes on as it came)');
  const request = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x', arguments: result } };
  t.strictSame(heldMessage(request, true, 'tools/call', SHOWN, () => ''), { jsonrpc: '2.0', id: 4, method: 'tools/call', params: NOTE }, 'a held request: its params');
  const usual = { jsonrpc: '2.0', id: 5, result: { content: [] } };
  t.equal(heldMessage(usual, false, 'tools/call', SHOWN, () => ''), usual, 'a usual held message is itself');
  const proto = JSON.parse(`{"jsonrpc":"2.0","id":6,"__proto__":${arraysText(300)}}`) as Record<string, unknown>;
  const shown = heldMessage(proto, false, 'tools/call', SHOWN, () => '') as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(shown), Object.prototype, 'a deep __proto__ member is replaced as data, the prototype untouched');
  t.strictSame(Object.getOwnPropertyDescriptor(shown, '__proto__')?.value, NOTE);
});
