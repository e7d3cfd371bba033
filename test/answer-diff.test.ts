// The viewer's pure rules for what the debugger changed (issue 30), as
// playbooks in Node without a browser:
//
//   diffLines: two texts in, the side-by-side rows out (shared lines kept,
//   a changed line opposite the one it replaced, a line only one side has
//   alone);
//   answerPairs: a call in, the answers set side by side out (the server's
//   answer vs what the host got; a Retry's attempt 1 vs attempt 2);
//   barParts: a call in, its waterfall bar split into the server's time
//   and the time held, in place.
import t from 'tap';
import type { Instance } from '../src/protocol/run-model.js';
import { answerPairs, answerValue } from '../src/viewer/answer-pairs.js';
import { barParts } from '../src/viewer/bar-parts.js';
import { diffLines, MAX_CELLS, type DiffRow } from '../src/viewer/line-diff.js';

const same = (line: string): DiffRow => ({ kind: 'same', left: line, right: line });
const changed = (left: string, right: string): DiffRow => ({ kind: 'changed', left, right });
const onlyLeft = (left: string): DiffRow => ({ kind: 'left', left });
const onlyRight = (right: string): DiffRow => ({ kind: 'right', right });

t.test('diffLines: two texts, side by side', async (t) => {
  const table: Array<[string, string[], string[], DiffRow[]]> = [
    ['both empty', [], [], []],
    ['the same', ['{', '  "a": 1', '}'], ['{', '  "a": 1', '}'], [same('{'), same('  "a": 1'), same('}')]],
    ['one value changed: opposite the one it replaced', ['{', '  "text": "from the server"', '}'], ['{', '  "text": "made in the debugger"', '}'], [same('{'), changed('  "text": "from the server"', '  "text": "made in the debugger"'), same('}')]],
    ['a line only the right has', ['[', '  1,', '  3', ']'], ['[', '  1,', '  2,', '  3', ']'], [same('['), same('  1,'), onlyRight('  2,'), same('  3'), same(']')]],
    ['a line only the left has', ['a', 'b', 'c'], ['a', 'c'], [same('a'), onlyLeft('b'), same('c')]],
    ['left empty', [], ['x', 'y'], [onlyRight('x'), onlyRight('y')]],
    ['right empty', ['x'], [], [onlyLeft('x')]],
    ['more lines changed than replaced: the rest alone', ['a', 'x1', 'x2', 'x3', 'z'], ['a', 'y1', 'z'], [same('a'), changed('x1', 'y1'), onlyLeft('x2'), onlyLeft('x3'), same('z')]],
    ['a shared line in the middle keeps the two changes apart', ['h', 'a1', 'm', 'b1', 't'], ['h', 'a2', 'm', 'b2', 't'], [same('h'), changed('a1', 'a2'), same('m'), changed('b1', 'b2'), same('t')]],
    ['nothing shared', ['a', 'b'], ['c', 'd'], [changed('a', 'c'), changed('b', 'd')]],
    ['markup is just text', ['<img src=x onerror=alert(1)>'], ['<b>'], [changed('<img src=x onerror=alert(1)>', '<b>')]],
  ];
  for (const [name, left, right, rows] of table) t.same(diffLines(left, right), rows, name);
});

t.test('diffLines: every line of both sides is shown once, in order', async (t) => {
  // A property over many small random pairs: whatever the rows, reading one side down gives that side's text back.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 300; round++) {
    const pick = () => Array.from({ length: Math.floor(next() * 8) }, () => 'abcd'[Math.floor(next() * 4)] as string);
    const left = pick();
    const right = pick();
    const rows = diffLines(left, right);
    const back = (side: 'left' | 'right') => rows.flatMap((row) => (row[side] === undefined ? [] : [row[side] as string]));
    if (JSON.stringify(back('left')) !== JSON.stringify(left) || JSON.stringify(back('right')) !== JSON.stringify(right)) {
      t.fail(`lost a line: ${JSON.stringify({ left, right, rows })}`);
      return;
    }
    if (rows.some((row) => row.kind === 'same' && row.left !== row.right)) t.fail('a same row whose sides differ');
  }
  t.pass('300 random pairs: both sides read back whole');
});

t.test('diffLines: two huge answers that differ everywhere are paired up, not searched', async (t) => {
  const left = Array.from({ length: 3000 }, (_, i) => `l${i}`);
  const right = Array.from({ length: 3000 }, (_, i) => `r${i}`);
  t.ok(left.length * right.length > MAX_CELLS, 'past the search bound');
  const started = performance.now();
  const rows = diffLines(['{', ...left, '}'], ['{', ...right, '}']);
  const took = performance.now() - started;
  t.comment(`3,000 × 3,000 lines: ${took.toFixed(1)} ms`);
  t.equal(rows.length, 3002);
  t.same(rows[1], changed('l0', 'r0'));
  // Guards the page against freezing on a huge answer; an unbounded search would take seconds and 36 MB.
  t.ok(took < 1000, 'in well under a second');
});

const START = '2026-12-03T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();
const FROM_SERVER = { content: [{ type: 'text', text: 'from the server' }] };
const INJECTED = { content: [{ type: 'text', text: 'made in the debugger' }] };

function call(over: Partial<Instance>): Instance {
  return { instanceId: 'mcp_3', nodeId: 'tool:echo', status: 'ok', startedAt: START, endedAt: at(100), ...over };
}

t.test('answerPairs: which answers are set side by side', async (t) => {
  const injectedAfter = call({
    output: INJECTED,
    endedAt: at(3000),
    heldMs: 2950,
    changed: { action: 'inject', gate: 'after', by: 'viewer', at: at(3000), holdId: 'h1', server: { status: 'ok', output: FROM_SERVER, endedAt: at(50) } },
  });
  const abortedAfter = call({
    status: 'error',
    error: { name: 'Aborted', message: 'aborted in the debugger', code: -32099 },
    changed: { action: 'abort', gate: 'after', by: 'api', at: at(100), holdId: 'h2', server: { status: 'ok', output: FROM_SERVER, endedAt: at(50) } },
  });
  const retried = call({
    output: { content: [{ type: 'text', text: 'second' }] },
    endedAt: at(900),
    attempts: [{ status: 'error', error: { name: 'ToolError', message: 'first' }, output: { content: [{ type: 'text', text: 'first' }], isError: true }, endedAt: at(100), retriedAt: at(500) }],
    changed: { action: 'retry', gate: 'after', by: 'graphmind mcp', at: at(500), holdId: 'h3' },
  });
  const table: Array<[string, Instance, Array<{ key: string; left: [string, string, unknown]; right: [string, string, unknown] }>]> = [
    ['a call the debugger left alone: none', call({ output: FROM_SERVER }), []],
    ['injected at the before gate: the server never answered, nothing to compare', call({ output: INJECTED, changed: { action: 'inject', gate: 'before', by: 'viewer', at: at(100), holdId: 'h0' } }), []],
    ['injected at the after gate: the server\'s answer vs what the host got', injectedAfter, [
      { key: 'server', left: ['ok', "the server's answer (the host never got it)", FROM_SERVER], right: ['ok', "what the host got (injected by viewer)", INJECTED] },
    ]],
    ['aborted at the after gate: the server\'s ok answer vs the error the host got', abortedAfter, [
      { key: 'server', left: ['ok', "the server's answer (the host never got it)", FROM_SERVER], right: ['error', "what the host got (aborted by api)", { error: { name: 'Aborted', message: 'aborted in the debugger', code: -32099 } }] },
    ]],
    ['a Retry: attempt 1 vs attempt 2', retried, [
      { key: 'attempt-1', left: ['error', '1st answer (dropped, the request sent again)', { content: [{ type: 'text', text: 'first' }], isError: true }], right: ['ok', '2nd answer (what the host got)', { content: [{ type: 'text', text: 'second' }] }] },
    ]],
    ['a Retry still waiting for its second answer: nothing to set beside the first yet', call({ status: 'open', endedAt: null, attempts: retried.attempts as Instance['attempts'] }), []],
    ['sent three times: 1 vs 2, then 2 vs 3', call({
      output: 'third',
      attempts: [{ status: 'ok', output: 'first', endedAt: at(10), retriedAt: at(20) }, { status: 'ok', output: 'second', endedAt: at(30), retriedAt: at(40) }],
    }), [
      { key: 'attempt-1', left: ['ok', '1st answer (dropped, the request sent again)', 'first'], right: ['ok', '2nd answer (dropped too)', 'second'] },
      { key: 'attempt-2', left: ['ok', '2nd answer (dropped, the request sent again)', 'second'], right: ['ok', '3rd answer (what the host got)', 'third'] },
    ]],
  ];
  for (const [name, instance, expected] of table) {
    const pairs = answerPairs(instance).map((pair) => ({ key: pair.key, left: [pair.left.status, pair.left.title, pair.left.value], right: [pair.right.status, pair.right.title, pair.right.value] }));
    t.same(pairs, expected, name);
  }
  t.same(answerValue({ status: 'error', error: { name: 'JsonRpcError', message: 'no', code: -32602 } }), { error: { name: 'JsonRpcError', message: 'no', code: -32602 } }, 'an error without output shows as its error');
  t.same(answerValue({ status: 'error', output: { isError: true }, error: { name: 'ToolError', message: 'x' } }), { isError: true }, 'a failed tool result shows as the result the host got');
});

/** An earlier answer of a retried call: it came at `ended` ms and was dropped at `retried` ms, when the request went again. */
const retry = (ended: number, retried: number): NonNullable<Instance['attempts']>[number] => ({ status: 'ok', output: 'earlier', endedAt: at(ended), retriedAt: at(retried) });
const retriedBy: Instance['changed'] = { action: 'retry', gate: 'after', by: 'viewer', at: at(3000), holdId: 'h' };

t.test('barParts: the server\'s time and the time held, in place along the bar', async (t) => {
  const table: Array<[string, Instance, Array<[string, number]>]> = [
    ['never held: one bar, no parts', call({}), []],
    ['still open: none', call({ status: 'open', endedAt: null, heldMs: 50 }), []],
    ['held at the before gate for 3 s of 4: held first, then the server', call({ endedAt: at(4000), heldMs: 3000 }), [['held', 0.75], ['server', 0.25]]],
    ['an answer held at the after gate, then continued: the server first, held last', call({ endedAt: at(1000), deliveredAt: at(4000), heldMs: 3000 }), [['server', 0.25], ['held', 0.75]]],
    ['held before (1 s) and after (2 s)', call({ endedAt: at(2000), deliveredAt: at(4000), heldMs: 3000 }), [['held', 0.25], ['server', 0.25], ['held', 0.5]]],
    ['injected at the after gate: held from the server\'s answer to the decision', call({
      endedAt: at(4000),
      heldMs: 3000,
      changed: { action: 'inject', gate: 'after', by: 'viewer', at: at(4000), holdId: 'h', server: { status: 'ok', endedAt: at(1000) } },
    }), [['server', 0.25], ['held', 0.75]]],
    ['injected at the before gate: all of it held', call({ endedAt: at(2000), heldMs: 2000, changed: { action: 'inject', gate: 'before', by: 'api', at: at(2000), holdId: 'h' } }), [['held', 1]]],
    // A Retry: the first answer came at 1 s and was held until the request went again at 3 s; the second answer came at 4 s.
    ['a Retry: the hold sits between the attempts, not at the start', call({ endedAt: at(4000), heldMs: 2000, attempts: [retry(1000, 3000)], changed: retriedBy }), [['server', 0.25], ['held', 0.5], ['server', 0.25]]],
    ['a Retry held at the before gate too: that part at the start, the rest between', call({ endedAt: at(4000), heldMs: 2500, attempts: [retry(1000, 3000)], changed: retriedBy }), [['held', 0.125], ['server', 0.125], ['held', 0.5], ['server', 0.25]]],
    ['retried twice: a hold between each two attempts', call({ endedAt: at(4000), heldMs: 2000, attempts: [retry(1000, 2000), retry(2500, 3500)], changed: retriedBy }), [
      ['server', 0.25], ['held', 0.25], ['server', 0.125], ['held', 0.25], ['server', 0.125],
    ]],
    ['a Retry whose second answer was held at the after gate and went on', call({ endedAt: at(3000), deliveredAt: at(4000), heldMs: 2000, attempts: [retry(1000, 2000)], changed: retriedBy }), [
      ['server', 0.25], ['held', 0.25], ['server', 0.25], ['held', 0.25],
    ]],
    ['a Retry sent again at once (nothing held between): one server part', call({ endedAt: at(4000), heldMs: 1000, attempts: [retry(2000, 2000)], changed: retriedBy }), [['held', 0.25], ['server', 0.75]]],
  ];
  for (const [name, instance, parts] of table) t.same(barParts(instance).map((part) => [part.kind, Number(part.share.toFixed(4))]), parts, name);
});
