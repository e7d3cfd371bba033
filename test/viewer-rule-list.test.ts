// The viewer's pure rules for conditions and rules (issue 33), as playbooks
// in Node without a browser:
//
//   subjectOf: a recorded call in, what the condition language sees of it out
//   (method, node, who sent it, kind, request and answer, status, time, size),
//   checked by evaluating real expressions on it;
//   findFilter: the find bar's text in, words / an expression / a mistake
//   with its position out; errorWindow and suggestedGate;
//   the rule list edits (add, edit, toggle, delete), each rule as a PUT
//   carries it (no hit count, no armed state); hits from the form; a rule's
//   state in words; logpoint values.
import t from 'tap';
import { compileCondition, evaluateCondition } from '../src/conditions/index.js';
import type { GraphNode, Instance, LogLine } from '../src/protocol/run-model.js';
import { errorParts, errorWindow, findFilter, suggestedGate } from '../src/viewer/condition-find.js';
import { subjectOf } from '../src/viewer/condition-subject.js';
import { logpointRule, logpointValues } from '../src/viewer/logpoint-values.js';
import { addedRule, editedRule, hitsOf, hitsText, removedRule, ruleForPut, ruleStateText, toggledRule, withoutRules, type ShownRule } from '../src/viewer/rule-list.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();
const tool = (name: string): GraphNode => ({ nodeId: `tool:${name}`, kind: 'tool', parent: 'mcp:session', label: name, status: 'ok' });

const calls: Record<string, { instance: Instance; node: GraphNode | undefined; held?: boolean }> = {
  payOk: { node: tool('search'), instance: { instanceId: 'mcp_2', nodeId: 'tool:search', status: 'ok', input: { name: 'search', arguments: { q: 'PAY-17' } }, output: { content: [{ type: 'text', text: 'rate limit hit' }] }, startedAt: T0, endedAt: at(812) } },
  slowHeld: { node: tool('search'), instance: { instanceId: 'mcp_3', nodeId: 'tool:search', status: 'ok', input: { name: 'search', arguments: { q: 'x' } }, output: { content: [] }, startedAt: T0, endedAt: at(5000), heldMs: 4000 } },
  rpcError: { node: tool('read'), instance: { instanceId: 'mcp_4', nodeId: 'tool:read', status: 'error', input: { name: 'read', arguments: { path: '/etc/passwd' } }, error: { name: 'JsonRpcError', message: 'denied', code: -32602 }, startedAt: T0, endedAt: at(3) } },
  toolError: { node: tool('create_task'), instance: { instanceId: 'mcp_5', nodeId: 'tool:create_task', status: 'error', input: { name: 'create_task', arguments: {} }, output: { isError: true, content: [{ type: 'text', text: 'boom' }] }, error: { name: 'ToolError', message: 'boom' }, startedAt: T0, endedAt: at(7) } },
  open: { node: tool('search'), instance: { instanceId: 'mcp_6', nodeId: 'tool:search', status: 'open', input: { name: 'search', arguments: { q: 'PAY-1' } }, startedAt: T0, endedAt: null } },
  heldOpen: { node: tool('search'), held: true, instance: { instanceId: 'mcp_7', nodeId: 'tool:search', status: 'open', input: { name: 'search', arguments: { q: 'PAY-2' } }, startedAt: T0, endedAt: null } },
  sampling: { node: { nodeId: 'llm:sampling', kind: 'llm', parent: 'mcp:session', label: 'sampling', status: 'ok' }, instance: { instanceId: 'mcp_8', nodeId: 'llm:sampling', status: 'ok', input: { messages: [] }, output: { role: 'assistant' }, startedAt: T0, endedAt: at(1) } },
  ping: { node: undefined, instance: { instanceId: 'mcp_9', nodeId: 'mcp:ping', status: 'ok', output: {}, startedAt: T0, endedAt: at(1) } },
  notification: { node: { nodeId: 'mcp:notifications/initialized', kind: 'custom', parent: 'mcp:protocol', label: 'notifications/initialized', status: 'ok' }, instance: { instanceId: 'mcp_10', nodeId: 'mcp:notifications/initialized', status: 'ok', startedAt: T0, endedAt: T0 } },
};

/** Expression → the calls it matches, by the names above. */
const playbook: Array<[string, string[]]> = [
  ['tool:search', ['payOk', 'slowHeld', 'open', 'heldOpen']],
  ['tool:search and $.params.arguments.q ~ "pay-"', ['payOk', 'open', 'heldOpen']],
  ['method:tools/call and is:answer', ['payOk', 'slowHeld', 'rpcError', 'toolError']],
  ['is:request', ['open', 'heldOpen']],
  ['is:notification', ['notification']],
  ['is:error', ['rpcError', 'toolError']],
  ['status:error', ['rpcError', 'toolError']],
  ['status:open', ['open']],
  ['status:held', ['heldOpen']],
  ['dur>500ms', ['payOk', 'slowHeld']],
  ['dur>2s', []],
  ['dur<10ms and tool:*', ['rpcError', 'toolError']],
  ['from:server', ['sampling']],
  ['method:ping', ['ping']],
  ['text ~ "rate limit"', ['payOk']],
  ['$.error.code == -32602', ['rpcError']],
  ['$.params.arguments.path ~ "^/etc/"', ['rpcError']],
  ['exists($.params.arguments.q) and not status:open', ['payOk', 'slowHeld', 'heldOpen']],
];

t.test('subjectOf: a recorded call as the language sees it', async (t) => {
  for (const [text, expected] of playbook) {
    const compiled = compileCondition(text);
    if (!compiled.ok) {
      t.fail(`${text} compiles: ${compiled.error} at ${compiled.position}`);
      continue;
    }
    const matched = Object.entries(calls)
      .filter(([, c]) => evaluateCondition(compiled.condition, subjectOf({ instance: c.instance, node: c.node, held: c.held === true })))
      .map(([name]) => name);
    t.same(matched, expected, text);
  }
  const slow = subjectOf({ instance: calls['slowHeld']!.instance, node: tool('search'), held: false });
  t.equal(slow.durationMs, 1000, 'the server’s time leaves the time held out');
  const open = subjectOf({ instance: calls['open']!.instance, node: tool('search'), held: false });
  t.equal(open.durationMs, undefined, 'an open call has no time');
  t.equal(open.answer, undefined, 'nor an answer');
  t.ok((open.bytes ?? 0) > 0, 'its size is its request’s');
});

t.test('findFilter: words, an expression, or a mistake with its position', async (t) => {
  t.same(findFilter('needle 42'), { kind: 'words' }, 'plain words');
  t.same(findFilter(''), { kind: 'words' }, 'nothing');
  t.equal(findFilter('tool:search').kind, 'condition', 'an atom');
  t.equal(findFilter('  dur>2s ').kind, 'condition', 'a comparison');
  const bad = findFilter('tool:search and (');
  t.equal(bad.kind, 'invalid', 'a mistake');
  const compiled = compileCondition('tool:search and (');
  t.equal(bad.kind === 'invalid' && bad.position, compiled.ok ? -1 : compiled.position, 'at the position the language gives');
  t.equal(findFilter('tool:search and ('), bad, 'the same text is read once');
  t.same(errorParts('abc', 1), { before: 'a', at: 'b', after: 'c' });
  t.same(errorParts('abc', 3), { before: 'abc', at: ' ', after: '' }, 'past the end: a space to put the caret under');
  const long = `${'x'.repeat(100)}!${'y'.repeat(100)}`;
  const w = errorWindow(long, 100);
  t.equal(w.at, '!', 'the window keeps the character');
  t.ok(w.before.startsWith('…') && w.before.length === 49 && w.after.endsWith('…'), 'cut either side');
  const gates: Array<[string, 'before' | 'after']> = [
    ['tool:search', 'before'],
    ['$.params.arguments.q ~ "x"', 'before'],
    ['dur>2s', 'after'],
    ['tool:x and is:error', 'after'],
    ['text ~ "rate"', 'after'],
    ['$.result.isError == true', 'after'],
    ['status:held', 'before'],
    ['$.params.arguments.text ~ "pay-"', 'before'],
    ['$.params.dur > 5', 'before'],
    ['tool:a and (dur>=1s)', 'after'],
  ];
  for (const [text, gate] of gates) t.equal(suggestedGate(text), gate, `${text}: ${gate}`);
});

t.test('rule list edits: what a PUT carries', async (t) => {
  const rules: ShownRule[] = [
    { id: 'rule-1', when: 'tool:a', gate: 'before', action: 'pause', hits: 'every', enabled: true, hitCount: 3, armed: true },
    { id: 'rule-2', when: 'dur>1s', gate: 'after', action: 'log', hits: 2, enabled: true, hitCount: 2, armed: false },
  ];
  const bare = [
    { id: 'rule-1', when: 'tool:a', gate: 'before', action: 'pause', hits: 'every', enabled: true },
    { id: 'rule-2', when: 'dur>1s', gate: 'after', action: 'log', hits: 2, enabled: true },
  ];
  t.same(ruleForPut(rules[0]!), bare[0], 'no hit count, no armed state');
  t.same(ruleForPut({ when: 'x:y' }), { when: 'x:y' }, 'defaults left to the server');
  t.same(addedRule(rules, { when: 'is:error', gate: 'after' }), [...bare, { when: 'is:error', gate: 'after' }], 'add: at the end, without an id');
  t.same(editedRule(rules, 1, { when: 'dur>2s', gate: 'both', action: 'pause', hits: 'once' }), [bare[0], { id: 'rule-2', when: 'dur>2s', gate: 'both', action: 'pause', hits: 'once' }], 'edit: the id kept');
  t.same(toggledRule(rules, 0, false), [{ ...bare[0], enabled: false }, bare[1]], 'toggle');
  t.same(removedRule(rules, 0), [bare[1]], 'delete');
  t.same(withoutRules({ pauseOnError: true, nodes: {}, rules: bare as never }), { pauseOnError: true, nodes: {} }, 'without rules: the server keeps its own');
  t.same([hitsOf('every', ''), hitsOf('once', '9'), hitsOf('count', ' 3 '), hitsOf('count', '0'), hitsOf('count', '1.5'), hitsOf('count', 'x')], ['every', 'once', 3, { error: 'hits: a whole number of 1 or more' }, { error: 'hits: a whole number of 1 or more' }, { error: 'hits: a whole number of 1 or more' }], 'hits from the form');
  t.same([hitsText('every'), hitsText('once'), hitsText(4), hitsText(undefined)], ['every match', 'once', 'first 4', 'every match']);
  t.same(rules.map(ruleStateText), ['3 hits · armed', '2 hits · disarmed (its hits are used up)']);
  t.equal(ruleStateText({ when: 'a:b', enabled: false, hitCount: 1, armed: true }), '1 hit · disabled');
  t.equal(ruleStateText({ when: 'a:b' }), '', 'not yet counted: nothing');
});

t.test('logpoint lines: the rule and the values, well formed only', async (t) => {
  const line = (extra: Record<string, unknown>): LogLine => ({ nodeId: 'tool:a', stream: 'logpoint', text: 't', at: T0, ...extra }) as LogLine;
  t.equal(logpointRule(line({ ruleId: 'rule-1' })), 'rule-1');
  t.equal(logpointRule(line({ ruleId: 5 })), undefined, 'not a string: none');
  t.same(logpointValues(line({ values: [{ at: '$.q', value: 'PAY-1' }, { at: 'dur', value: 812 }, { value: 1 }, 'x', null] })), [{ at: '$.q', value: '"PAY-1"' }, { at: 'dur', value: '812' }], 'the values as JSON text; the malformed left out');
  t.same(logpointValues(line({ values: 'nope' })), [], 'not a list: none');
  t.equal(logpointValues(line({ values: Array.from({ length: 50 }, (_, i) => ({ at: `$.v${i}`, value: i })) })).length, 8, 'at most eight');
});
