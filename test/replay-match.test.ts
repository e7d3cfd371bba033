// Playbooks for replay's pure cores: canonical JSON, differences, the answer queue, the matcher
// (params, strict, sequence, repeat modes, handshakes, redacted values, misses), and the fold of
// a run's events into calls (inject, retry, an abort at a before gate, traffic inside a call).
import t from 'tap';
import { AnswerQueue, type RepeatMode } from '../src/replay/answer-queue.js';
import { canonicalJson } from '../src/replay/canonical.js';
import { CallsOfEvents } from '../src/replay/calls-of-events.js';
import { differencesOf } from '../src/replay/differences.js';
import { CallMatcher, type MatchMode } from '../src/replay/match.js';
import type { RecordedCall } from '../src/replay/recorded-run.js';
import type { RunEvent } from '../src/protocol/ingest.js';

t.test('canonicalJson', async (t) => {
  const rows: Array<[unknown, boolean, string | undefined]> = [
    [{ b: 1, a: 2 }, true, '{"a":2,"b":1}'],
    [{ a: { d: 1, c: [{ z: 1, y: 2 }] } }, true, '{"a":{"c":[{"y":2,"z":1}],"d":1}}'],
    [{ a: 1, _meta: { progressToken: 3 } }, true, '{"a":1}'],
    [{ a: 1, _meta: { progressToken: 3 } }, false, '{"_meta":{"progressToken":3},"a":1}'],
    [undefined, true, undefined],
    ['x', true, '"x"'],
  ];
  for (const [value, dropMeta, expected] of rows) t.equal(canonicalJson(value, dropMeta), expected, JSON.stringify(value));
});

t.test('differencesOf', async (t) => {
  const rows: Array<[unknown, unknown, unknown[]]> = [
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, []],
    [{ a: 1 }, { a: 2 }, [{ path: '$.a', recorded: 1, received: 2 }]],
    [{ a: 1 }, {}, [{ path: '$.a', recorded: 1 }]],
    [{}, { 'b c': 1 }, [{ path: '$["b c"]', received: 1 }]],
    [[1, 2], [1], [{ path: '$[1]', recorded: 2 }]],
    [{ key: '[redacted]', x: 1 }, { key: 'sk-123', x: 1 }, []],
    [{ _meta: { a: 1 } }, { _meta: { a: 2 } }, []],
  ];
  for (const [recorded, received, expected] of rows) t.same(differencesOf(recorded, received), expected, `${JSON.stringify(recorded)} vs ${JSON.stringify(received)}`);
});

t.test('AnswerQueue', async (t) => {
  const rows: Array<[RepeatMode, Array<string | undefined>]> = [
    ['error', ['a', 'b', undefined, undefined]],
    ['last', ['a', 'b', 'b', 'b']],
    ['cycle', ['a', 'b', 'a', 'b']],
  ];
  for (const [mode, expected] of rows) {
    const queue = new AnswerQueue(['a', 'b'], mode);
    t.same([queue.take(), queue.take(), queue.take(), queue.take()], expected, mode);
  }
  t.equal(new AnswerQueue<string>([], 'cycle').take(), undefined, 'none recorded: none');
});

const call = (index: number, method: string, params: unknown, text: string): RecordedCall => ({
  index,
  method,
  params,
  notification: false,
  received: { result: { text } },
  sent: { result: { text } },
  inside: [],
  after: [],
});
const CALLS = [
  call(0, 'initialize', { clientInfo: { name: 'old' } }, 'init'),
  call(1, 'tools/call', { name: 'echo', arguments: { text: 'a' } }, 'a1'),
  call(2, 'tools/call', { name: 'echo', arguments: { text: 'a' } }, 'a2'),
  call(3, 'tools/call', { name: 'echo', arguments: { text: 'b' }, _meta: { progressToken: 1 } }, 'b'),
  call(4, 'tools/call', { name: 'login', arguments: { key: '[redacted]' } }, 'in'),
];

t.test('CallMatcher', async (t) => {
  type Row = [string, MatchMode, Array<[string, unknown]>, Array<string | { reason: RegExp; nearest?: unknown; differences?: unknown }>];
  const echo = (text: string, meta?: unknown): [string, unknown] => ['tools/call', { name: 'echo', arguments: { text }, ...(meta === undefined ? {} : { _meta: meta }) }];
  const rows: Row[] = [
    ['recorded order, then used up', 'params', [echo('a'), echo('a'), echo('a')], ['a1', 'a2', { reason: /2 recorded answers were all used/ }]],
    ['key order and _meta ignored', 'params', [['tools/call', { arguments: { text: 'b' }, name: 'echo', _meta: { progressToken: 9 } }]], ['b']],
    ['strict keeps _meta', 'strict', [echo('b', { progressToken: 9 }), echo('b', { progressToken: 1 })], [{ reason: /differ/ }, 'b']],
    ['a handshake whatever its params', 'params', [['initialize', { clientInfo: { name: 'new' } }], ['initialize', {}]], ['init', 'init']],
    ['redacted matches anything', 'params', [['tools/call', { name: 'login', arguments: { key: 'sk-1' } }]], ['in']],
    [
      'a miss: the nearest of the same name and where it differs',
      'params',
      [echo('c')],
      [{ reason: /differ/, nearest: { method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } }, differences: [{ path: '$.params.arguments.text', recorded: 'a', received: 'c' }] }],
    ],
    ['a method never recorded', 'params', [['prompts/get', { name: 'x' }]], [{ reason: /no prompts\/get request was recorded/, nearest: null }]],
    ['sequence: in order', 'sequence', [echo('a'), echo('a'), echo('b')], ['a1', 'a2', 'b']],
    ['sequence: out of order', 'sequence', [echo('b'), echo('a')], [{ reason: /not the next recorded request \(number 1\)/ }, 'a1']],
  ];
  for (const [what, mode, requests, expected] of rows) {
    const matcher = new CallMatcher(CALLS, { match: mode });
    const got = requests.map(([method, params]) => {
      const found = matcher.match({ method, params });
      return found.call !== undefined ? ((found.call.received as { result: { text: string } }).result.text) : found.miss;
    });
    t.match(got, expected, what);
  }
  for (const [repeat, third] of [['last', 'a2'], ['cycle', 'a1']] as const) {
    const matcher = new CallMatcher(CALLS, { repeat });
    const texts = [1, 2, 3].map(() => (matcher.match({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } }).call?.received as { result: { text: string } }).result.text);
    t.same(texts, ['a1', 'a2', third], `--repeat ${repeat}`);
  }
});

t.test('CallsOfEvents: what the host received, what the server sent, traffic inside a call', async (t) => {
  let seq = 0;
  const ev = (event: Record<string, unknown>): RunEvent => ({ runId: 'r', seq: ++seq, t: seq, ...event }) as unknown as RunEvent;
  const tool = (name: string) => ({ nodeId: `tool:${name}`, kind: 'tool', parent: 'mcp:session', label: name });
  const fold = new CallsOfEvents();
  const events = [
    // injected at an after gate: the server's answer, then the injected one
    ev({ type: 'instance.started', instanceId: 'i1', node: tool('a'), input: { name: 'a' } }),
    ev({ type: 'instance.finished', instanceId: 'i1', output: { v: 'server' } }),
    ev({ type: 'hold.opened', holdId: 'h1', instanceId: 'i1', nodeId: 'tool:a', gate: 'after', method: 'tools/call', frame: { id: 1, result: { v: 'server' } } }),
    ev({ type: 'hold.released', holdId: 'h1', action: 'inject' }),
    ev({ type: 'instance.finished', instanceId: 'i1', output: { v: 'injected' } }),
    // retried: the first answer was the server's, the host got the second
    ev({ type: 'instance.started', instanceId: 'i2', node: tool('b'), input: { name: 'b' } }),
    ev({ type: 'instance.error', instanceId: 'i2', error: { name: 'JsonRpcError', message: 'flaky', code: -32000 } }),
    ev({ type: 'instance.reopened', instanceId: 'i2' }),
    ev({ type: 'instance.finished', instanceId: 'i2', output: { v: 'second' } }),
    // aborted at a before gate: the server never saw it
    ev({ type: 'instance.started', instanceId: 'i3', node: tool('c'), input: { name: 'c' } }),
    ev({ type: 'hold.opened', holdId: 'h3', instanceId: 'i3', nodeId: 'tool:c', gate: 'before', method: 'tools/call', frame: {} }),
    ev({ type: 'hold.released', holdId: 'h3', action: 'abort' }),
    ev({ type: 'instance.error', instanceId: 'i3', error: { name: 'Aborted', message: 'aborted', code: -32099 } }),
    // sent again by the debugger (Send again): not the host's call, never replayed or verified
    ev({ type: 'instance.started', instanceId: 'i7', node: tool('a'), input: { name: 'a' }, sentBy: 'viewer' }),
    ev({ type: 'instance.finished', instanceId: 'i7', output: { v: 'again' } }),
    // sampling and a log message inside a call; a call never answered
    ev({ type: 'instance.started', instanceId: 'i4', node: tool('d'), input: { name: 'd' } }),
    ev({ type: 'instance.started', instanceId: 'i5', node: { nodeId: 'llm:sampling', kind: 'llm', parent: 'mcp:session', label: 'sampling' }, input: { maxTokens: 1 } }),
    ev({ type: 'instance.finished', instanceId: 'i5', output: { role: 'assistant' } }),
    ev({ type: 'instance.started', instanceId: 'i6', node: { nodeId: 'mcp:notifications/message', kind: 'custom', parent: 'mcp:protocol', label: 'notifications/message' }, input: { data: 'x' } }),
    ev({ type: 'instance.error', instanceId: 'i4', error: { name: 'NoAnswer', message: 'the server exited without answering this request' } }),
  ];
  for (const event of events) fold.apply(event);
  const run = fold.run('r');
  t.match(run.calls.map((c) => ({ received: c.received, sent: c.sent })), [
    { received: { result: { v: 'injected' } }, sent: { result: { v: 'server' } } },
    { received: { result: { v: 'second' } }, sent: { error: { code: -32000, message: 'flaky' } } },
    { received: { error: { code: -32099 } }, sent: undefined },
    { received: undefined, sent: undefined },
  ]);
  t.equal(run.calls.length, 4, "a call the debugger sent again is not one of the host's calls");
  t.same(run.calls[3]?.inside, [
    { method: 'sampling/createMessage', request: true, params: { maxTokens: 1 }, answer: { result: { role: 'assistant' } } },
    { method: 'notifications/message', request: false, params: { data: 'x' } },
  ]);
  t.same(run.missing, []);
});
