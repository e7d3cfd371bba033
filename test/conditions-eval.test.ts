// The condition language's evaluator as a playbook: expression and subject
// in, match or not out; then the values a logpoint shows; then the bad
// inputs that must neither throw nor hang (a pathological regex on a long
// string, a path into a value that is not there).
import t from 'tap';
import { compileCondition, conditionValues, evaluateCondition, looksLikeCondition, type ConditionSubject } from '../src/conditions/index.js';

const searchRequest = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search', arguments: { q: 'refund PAY-1234', limit: 5, deep: true, tags: ['a', 'billing'], note: null } } };
const searchAnswer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'Error: rate limit reached' }], structuredContent: { hits: 0, code: 'RATE' }, isError: true } };
const readRequest = { jsonrpc: '2.0', id: 8, method: 'resources/read', params: { uri: 'file:///etc/passwd' } };
const readAnswer = { jsonrpc: '2.0', id: 8, result: { contents: [{ uri: 'file:///etc/passwd', text: 'root:x:0:0' }] } };
const failed = { jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Unknown tool: serch' } };

/** The subjects the playbook names. */
const subjects: Record<string, ConditionSubject> = {
  // A tools/call request frame at the before gate.
  searchRequest: { kind: 'request', method: 'tools/call', nodeId: 'tool:search', from: 'host', request: searchRequest, bytes: 140 },
  // Its answer frame at the after gate: slow, large, an isError result.
  searchAnswer: { kind: 'answer', method: 'tools/call', nodeId: 'tool:search', from: 'host', request: searchRequest, answer: searchAnswer, durationMs: 2400, bytes: 9000 },
  // A recorded call as a whole, answered fine.
  readCall: { kind: 'answer', method: 'resources/read', nodeId: 'resource:file:///etc/passwd', from: 'host', request: readRequest, answer: readAnswer, status: 'ok', durationMs: 12, bytes: 200 },
  // A call still open, no node id given: the name comes from its params.
  openCall: { kind: 'request', request: { jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'summarize' } }, status: 'open' },
  // A JSON-RPC error answer.
  failedCall: { kind: 'answer', method: 'tools/call', nodeId: 'tool:serch', request: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'serch' } }, answer: failed, durationMs: 1 },
  // A notification from the server.
  progress: { kind: 'notification', method: 'notifications/progress', nodeId: 'mcp:notifications/progress', from: 'server', request: { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 5, total: 10 } } },
  // A sampling request the server sends the host.
  sampling: { kind: 'request', method: 'sampling/createMessage', nodeId: 'llm:sampling', from: 'server', request: { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the refund policy' } }] } } },
  // A held call.
  held: { kind: 'request', method: 'tools/call', nodeId: 'tool:search', request: searchRequest, status: 'held' },
};

const playbook: Array<[string, keyof typeof subjects, boolean]> = [
  ['method:tools/call', 'searchRequest', true],
  ['method:tools/*', 'searchAnswer', true],
  ['method:resources/*', 'searchRequest', false],
  ['method:prompts/get', 'openCall', true],
  ['method:notifications/*', 'progress', true],
  ['tool:search', 'searchRequest', true],
  ['tool:sea?ch', 'searchRequest', true],
  ['tool:s*', 'failedCall', true],
  ['tool:Search', 'searchRequest', false],
  ['tool:search', 'readCall', false],
  ['resource:file:///etc/*', 'readCall', true],
  ['resource:file:///home/*', 'readCall', false],
  ['prompt:summarize', 'openCall', true],
  ['prompt:*', 'searchRequest', false],
  ['node:mcp:*', 'progress', true],
  ['node:tool:search', 'searchRequest', true],
  ['node:*', 'openCall', false],
  ['from:host', 'searchRequest', true],
  ['from:server', 'sampling', true],
  ['from:server', 'searchRequest', false],
  ['is:request', 'searchRequest', true],
  ['is:answer', 'searchRequest', false],
  ['is:answer', 'searchAnswer', true],
  ['is:notification', 'progress', true],
  ['is:error', 'searchAnswer', true],
  ['is:error', 'failedCall', true],
  ['is:error', 'readCall', false],
  ['is:error', 'searchRequest', false],
  ['status:error', 'searchAnswer', true],
  ['status:error', 'failedCall', true],
  ['status:ok', 'readCall', true],
  ['status:open', 'openCall', true],
  ['status:held', 'held', true],
  ['status:ok', 'searchRequest', false],
  ['dur>500ms', 'searchAnswer', true],
  ['dur>2s', 'searchAnswer', true],
  ['dur>2.5s', 'searchAnswer', false],
  ['dur>=2400ms', 'searchAnswer', true],
  ['dur<=2400', 'searchAnswer', true],
  ['dur<100ms', 'readCall', true],
  ['dur<100ms', 'searchRequest', false],
  ['dur<100ms', 'openCall', false],
  ['bytes>8k', 'searchAnswer', true],
  ['bytes>8k', 'searchRequest', false],
  ['bytes<1k', 'searchRequest', true],
  ['bytes<1m', 'openCall', false],
  ['$.params.arguments.q ~ "pay-"', 'searchRequest', true],
  ['$.params.arguments.q ~ "PAY-\\d{4}"', 'searchRequest', true],
  ['$.params.arguments.q ~ "^refund"', 'searchRequest', true],
  ['$.params.arguments.q ~ "^pay"', 'searchRequest', false],
  ['$.params.arguments ~ "billing"', 'searchRequest', true],
  ['$.params.arguments.tags[*] == "billing"', 'searchRequest', true],
  ['$.params.arguments.tags[0] == "billing"', 'searchRequest', false],
  ['$.params.arguments.tags[1] == "billing"', 'searchRequest', true],
  ['$.params.arguments.limit == 5', 'searchRequest', true],
  ['$.params.arguments.limit == "5"', 'searchRequest', false],
  ['$.params.arguments.limit != 5', 'searchRequest', false],
  ['$.params.arguments.limit != 6', 'searchRequest', true],
  ['$.params.arguments.limit > 4', 'searchRequest', true],
  ['$.params.arguments.limit < 5', 'searchRequest', false],
  ['$.params.arguments.limit <= 5', 'searchRequest', true],
  ['$.params.arguments.q > 4', 'searchRequest', false],
  ['$.params.arguments.deep == true', 'searchRequest', true],
  ['$.params.arguments.note == null', 'searchRequest', true],
  ['$.params.uri ~ "/etc/"', 'readCall', true],
  ['$.params.path ~ "/etc/"', 'searchRequest', false],
  ['$.params.arguments.missing == 1', 'searchRequest', false],
  ['$.params.arguments.missing != 1', 'searchRequest', false],
  ['not exists($.params.arguments.missing)', 'searchRequest', true],
  ['exists($.params.arguments.note)', 'searchRequest', true],
  ['$.params.arguments.q.deeper ~ "x"', 'searchRequest', false],
  ['$.params.arguments.tags[9] == "a"', 'searchRequest', false],
  // The $ rule: the request first, then the answer.
  ['$.result.structuredContent.hits == 0', 'searchAnswer', true],
  ['$.result.isError == true', 'searchAnswer', true],
  ['$.error.code == -32602', 'failedCall', true],
  ['$.id == 7', 'searchAnswer', true],
  ['$.result.isError == true', 'searchRequest', false],
  ['exists($.result)', 'searchRequest', false],
  // text: what a model reads.
  ['text ~ "rate limit"', 'searchAnswer', true],
  ['text ~ "RATE"', 'searchAnswer', true],
  ['text ~ "\\"code\\":\\"RATE\\""', 'searchAnswer', true],
  ['text ~ "root:x"', 'readCall', true],
  ['text ~ "unknown tool"', 'failedCall', true],
  ['text ~ "refund policy"', 'sampling', true],
  ['text ~ "refund"', 'searchRequest', false],
  // Operators.
  ['tool:search and is:error', 'searchAnswer', true],
  ['tool:search is:error', 'searchAnswer', true],
  ['tool:search and is:error', 'searchRequest', false],
  ['tool:nothing or resource:file:///etc/*', 'readCall', true],
  ['not tool:search', 'readCall', true],
  ['not not tool:search', 'searchRequest', true],
  ['(tool:a or tool:search) and dur>1s', 'searchAnswer', true],
  ['tool:a or tool:search and dur>1s', 'searchRequest', false],
  ['tool:search or tool:a and dur>1s', 'searchRequest', true],
  ['method:tools/call status:error dur>500ms', 'searchAnswer', true],
];

for (const [text, subject, expected] of playbook) {
  t.test(`${text} on ${subject}`, async (t) => {
    const compiled = compileCondition(text);
    if (!compiled.ok) return t.fail(`${compiled.error} at ${compiled.position}`);
    t.equal(evaluateCondition(compiled.condition, subjects[subject] as ConditionSubject), expected);
  });
}

const valuesBook: Array<[string, keyof typeof subjects, Array<{ at: string; value?: unknown }>]> = [
  ['$.params.arguments.q ~ "PAY-"', 'searchRequest', [{ at: '$.params.arguments.q', value: 'refund PAY-1234' }]],
  ['dur>500ms and is:error', 'searchAnswer', [{ at: 'dur', value: 2400 }, { at: 'is', value: 'answer' }]],
  ['tool:search or tool:find', 'searchRequest', [{ at: 'node', value: 'tool:search' }]],
  ['$.params.arguments.tags[*] == "x"', 'searchRequest', [{ at: '$.params.arguments.tags[*]', value: ['a', 'billing'] }]],
  ['$.params.nothing == 1', 'searchRequest', [{ at: '$.params.nothing', value: undefined }]],
  ['text ~ "x" and bytes>1', 'readCall', [{ at: 'text', value: 'root:x:0:0' }, { at: 'bytes', value: 200 }]],
  ['status:ok method:x from:host', 'readCall', [{ at: 'status', value: 'ok' }, { at: 'method', value: 'resources/read' }, { at: 'from', value: 'host' }]],
  ['dur>1ms', 'searchRequest', [{ at: 'dur', value: undefined }]],
];

for (const [text, subject, expected] of valuesBook) {
  t.test(`values of ${text} on ${subject}`, async (t) => {
    const compiled = compileCondition(text);
    if (!compiled.ok) return t.fail(compiled.error);
    t.strictSame(conditionValues(compiled.condition, subjects[subject] as ConditionSubject), expected);
  });
}

t.test('looksLikeCondition: the language or plain words', async (t) => {
  const book: Array<[string, boolean]> = [
    ['rate limit', false],
    ['not found', false],
    ['error and timeout', false],
    ['PAY-1234', false],
    ['price $5', false],
    ['', false],
    ['tool:search', true],
    ['is:error', true],
    ['(status:error)', true],
    ['$.params.q ~ "x"', true],
    ['exists($.a)', true],
    ['text ~ "x"', true],
    ['dur>500ms', true],
    ['bytes >= 1k', true],
  ];
  for (const [text, expected] of book) t.equal(looksLikeCondition(text), expected, JSON.stringify(text));
});

t.test('bad input: a pathological regex on a long string finishes fast', async (t) => {
  const compiled = compileCondition('$.params.arguments.q ~ "(a+)+$" or text ~ "(x+x+)+y"');
  if (!compiled.ok) return t.fail(compiled.error);
  const long = 'a'.repeat(100_000) + '!';
  const subject: ConditionSubject = { kind: 'answer', request: { params: { arguments: { q: long } } }, answer: { result: { content: [{ type: 'text', text: 'x'.repeat(100_000) }] } } };
  const started = performance.now();
  const matched = evaluateCondition(compiled.condition, subject);
  const ms = performance.now() - started;
  t.equal(matched, false);
  t.comment(`(a+)+$ on 100,000 characters and (x+x+)+y on 100,000: ${ms.toFixed(1)} ms`);
  // A backtracking engine takes longer than the age of the universe here; re2js is linear. The bound is wide for a loaded 2-core machine.
  t.ok(ms < 2_000, 'linear time');
});

t.test('bad input: a path into what is not there never throws', async (t) => {
  const compiled = compileCondition('$.params.a.b[3].c ~ "x" or $.result[*].x == 1 or exists($[0].a) or $.* > 5');
  if (!compiled.ok) return t.fail(compiled.error);
  const shapes: ConditionSubject[] = [
    { kind: 'request' },
    { kind: 'request', request: null },
    { kind: 'request', request: 'a string' },
    { kind: 'request', request: [1, 2] },
    { kind: 'answer', request: { params: { a: null } }, answer: { result: 5 } },
    { kind: 'answer', request: { params: { a: { b: 'not an array' } } }, answer: { result: [] } },
  ];
  for (const subject of shapes) t.equal(evaluateCondition(compiled.condition, subject), false, JSON.stringify(subject));
});

t.test('evaluating allocates no compiled state: the same condition serves many subjects', async (t) => {
  const compiled = compileCondition('tool:search and $.params.arguments.limit > 4 and not is:error');
  if (!compiled.ok) return t.fail(compiled.error);
  const subject = subjects.searchRequest as ConditionSubject;
  const rounds = 200_000;
  const started = performance.now();
  let matches = 0;
  for (let round = 0; round < rounds; round++) if (evaluateCondition(compiled.condition, subject)) matches++;
  const perCall = ((performance.now() - started) * 1e6) / rounds;
  t.equal(matches, rounds);
  t.comment(`${perCall.toFixed(0)} ns per evaluation (tool glob, a path comparison, is:error)`);
  // Guards against a per-evaluation parse or compile (tens of µs); a few hundred ns is expected.
  t.ok(perCall < 20_000, 'well under 20 µs');
});
