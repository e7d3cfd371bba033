// Playbooks of graphmind mcp's small rules: argument parsing, `since`, log search and its time
// limit, and the breakpoint merge of set_breakpoints.
import t from 'tap';
import type { Breakpoints } from '../src/protocol/control.js';
import type { LogLine } from '../src/protocol/run-model.js';
import { anyValue, argsOf, cursor, flag, integer, limit, oneOf, optional, runId, text } from '../src/mcp/args.js';
import { compilePattern, searchLogs } from '../src/mcp/log-search.js';
import { parseSince } from '../src/mcp/since.js';
import { withTimeLimit } from '../src/mcp/time-limit.js';
import { mergeBreakpoints, type NodeChange } from '../src/mcp/tools/set-breakpoints.js';

t.test('argsOf: the schema, and the parse of each argument', async (t) => {
  const spec = argsOf({
    runId: runId(),
    name: text({ description: 'a name', maxLength: 5 }),
    mode: optional(oneOf(['a', 'b'], 'a mode')),
    on: optional(flag('on?')),
    count: integer({ description: 'n', minimum: 1, maximum: 9, default: 3 }),
    value: optional(anyValue('anything')),
    limit: limit(20, 50),
    cursor: cursor(),
  });
  t.match(spec.schema, { type: 'object', required: ['runId', 'name'], additionalProperties: false, properties: { count: { type: 'integer', minimum: 1, maximum: 9, default: 3 }, mode: { enum: ['a', 'b'] } } });
  t.same(spec.parse({ runId: 'run_1', name: 'ab' }), { runId: 'run_1', name: 'ab', mode: undefined, on: undefined, count: 3, value: undefined, limit: 20, cursor: undefined });
  t.same(spec.parse({ runId: 'r', name: 'x', mode: 'b', on: false, count: 9, value: { deep: [null] }, limit: 50, cursor: 'abc' }), {
    runId: 'r',
    name: 'x',
    mode: 'b',
    on: false,
    count: 9,
    value: { deep: [null] },
    limit: 50,
    cursor: 'abc',
  });
  const refusals: ReadonlyArray<{ args: unknown; code: string; message: string }> = [
    { args: [], code: 'bad-argument', message: 'arguments must be an object' },
    { args: 'x', code: 'bad-argument', message: 'arguments must be an object' },
    { args: { name: 'x' }, code: 'bad-argument', message: 'runId is required' },
    { args: { runId: 'r' }, code: 'bad-argument', message: 'name is required' },
    { args: { runId: 'r/x', name: 'x' }, code: 'bad-run-id', message: 'runId "r/x" is not a run id (1 to 64 letters, digits, _ or -)' },
    { args: { runId: null, name: 'x' }, code: 'bad-run-id', message: 'runId of type null is not a run id (1 to 64 letters, digits, _ or -)' },
    { args: { runId: 'r', name: '' }, code: 'bad-argument', message: 'name must not be empty' },
    { args: { runId: 'r', name: 'toolong' }, code: 'bad-argument', message: 'name is longer than 5 characters' },
    { args: { runId: 'r', name: 7 }, code: 'bad-argument', message: 'name must be a string' },
    { args: { runId: 'r', name: 'x', mode: 'c' }, code: 'bad-argument', message: 'mode must be one of a, b' },
    { args: { runId: 'r', name: 'x', on: 'yes' }, code: 'bad-argument', message: 'on must be true or false' },
    { args: { runId: 'r', name: 'x', count: 0 }, code: 'bad-argument', message: 'count must be between 1 and 9' },
    { args: { runId: 'r', name: 'x', count: '3' }, code: 'bad-argument', message: 'count must be a whole number' },
    { args: { runId: 'r', name: 'x', extra: 1 }, code: 'bad-argument', message: 'unknown argument "extra"; this tool takes runId, name, mode, on, count, value, limit, cursor' },
  ];
  for (const refusal of refusals) t.throws(() => spec.parse(refusal.args), { code: refusal.code, message: refusal.message }, JSON.stringify(refusal.args));
  t.same(argsOf({}).parse(undefined), {}, 'no arguments at all is an empty object');
});

t.test('parseSince', async (t) => {
  const now = Date.parse('2026-05-01T12:00:00.000Z');
  const cases: ReadonlyArray<[string, string]> = [
    ['90s', '2026-05-01T11:58:30.000Z'],
    ['15m', '2026-05-01T11:45:00.000Z'],
    ['2h', '2026-05-01T10:00:00.000Z'],
    ['1.5h', '2026-05-01T10:30:00.000Z'],
    ['7d', '2026-04-24T12:00:00.000Z'],
    ['1w', '2026-04-24T12:00:00.000Z'],
    [' 30 m ', '2026-05-01T11:30:00.000Z'],
    ['2026-04-30', '2026-04-30T00:00:00.000Z'],
    ['2026-04-30T08:00:00Z', '2026-04-30T08:00:00.000Z'],
    ['2026-04-30T08:00:00.250+02:00', '2026-04-30T06:00:00.250Z'],
  ];
  for (const [since, expected] of cases) t.equal(new Date(parseSince(since, now)).toISOString(), expected, since);
  for (const bad of ['yesterday', '', '5', '-5m', '5y', '2026-13-45', 'May 1 2026', '2026-05-01T']) {
    t.throws(() => parseSince(bad, now), { code: 'bad-argument', message: /is neither an age/ }, JSON.stringify(bad));
  }
});

t.test('compilePattern and searchLogs', async (t) => {
  const logs: LogLine[] = ['Error: ECONNREFUSED', 'error: retrying', 'all good', 'a.b and a+b', ''].map((text, i) => ({ nodeId: 'mcp:session', stream: 'stderr', text, at: `2026-05-01T12:00:0${i}.000Z` }));
  const cases: ReadonlyArray<{ pattern: string; regex?: boolean; ignoreCase?: boolean; hits: number[] }> = [
    { pattern: 'error', hits: [0, 1] },
    { pattern: 'error', ignoreCase: false, hits: [1] },
    { pattern: 'a.b', hits: [3] },
    { pattern: 'a+b', hits: [3] },
    { pattern: 'a.b', regex: true, hits: [3] },
    { pattern: '^error', regex: true, hits: [0, 1] },
    { pattern: '^error', regex: true, ignoreCase: false, hits: [1] },
    { pattern: 'E[A-Z]+REFUSED$', regex: true, ignoreCase: false, hits: [0] },
    { pattern: '^$', regex: true, hits: [4] },
    { pattern: 'nothing', hits: [] },
  ];
  for (const c of cases) {
    const test = compilePattern(c.pattern, { regex: c.regex, ignoreCase: c.ignoreCase });
    t.same(
      searchLogs(logs, test).map((match) => match.index),
      c.hits,
      JSON.stringify(c),
    );
  }
  t.throws(() => compilePattern('(', { regex: true }), { code: 'bad-regex', message: 'bad regex: Invalid regular expression: /(/i: Unterminated group' });
  t.throws(() => compilePattern('a{2,1}', { regex: true }), { code: 'bad-regex' });
  t.throws(() => compilePattern(''), { code: 'bad-argument', message: 'pattern must not be empty' });
  t.throws(() => compilePattern('x'.repeat(1_001)), { code: 'bad-argument' });
  // The same test twice in a row: no lastIndex carried over.
  const test = compilePattern('error', { regex: true });
  t.same([test('error'), test('error')], [true, true]);
});

t.test('withTimeLimit', async (t) => {
  t.equal(
    withTimeLimit(() => 6 * 7, 1_000, 'sums'),
    42,
  );
  const catastrophic = /^(a+)+$/;
  const started = Date.now();
  t.throws(() => withTimeLimit(() => catastrophic.test(`${'a'.repeat(40)}b`), 200, 'the search'), { code: 'search-timeout', message: 'the search took longer than 200 ms and was stopped: use a simpler pattern' });
  t.ok(Date.now() - started < 2_000, 'stopped near its limit');
  t.throws(() => withTimeLimit(() => { throw new RangeError('inner'); }, 1_000, 'x'), RangeError, 'other errors pass through');
});

t.test('mergeBreakpoints', async (t) => {
  const current: Breakpoints = { pauseOnError: true, nodes: { 'tool:a': { before: true }, 'tool:b': { before: true, after: true } } };
  const cases: ReadonlyArray<{ name: string; pauseOnError?: boolean; nodes?: Record<string, NodeChange>; expect: Breakpoints }> = [
    { name: 'nothing given: as it was', expect: current },
    { name: 'pauseOnError only', pauseOnError: false, expect: { pauseOnError: false, nodes: current.nodes } },
    { name: 'a new node', nodes: { 'tool:c': { after: true } }, expect: { pauseOnError: true, nodes: { ...current.nodes, 'tool:c': { after: true } } } },
    { name: 'a gate added to a node, the other kept', nodes: { 'tool:a': { after: true } }, expect: { pauseOnError: true, nodes: { 'tool:a': { before: true, after: true }, 'tool:b': { before: true, after: true } } } },
    { name: 'one gate off', nodes: { 'tool:b': { after: false } }, expect: { pauseOnError: true, nodes: { 'tool:a': { before: true }, 'tool:b': { before: true } } } },
    { name: 'every gate off removes the node', nodes: { 'tool:a': { before: false } }, expect: { pauseOnError: true, nodes: { 'tool:b': { before: true, after: true } } } },
    { name: 'an empty change keeps the node', nodes: { 'tool:a': {} }, expect: current },
    { name: 'turning off what is not there changes nothing', nodes: { 'tool:z': { before: false } }, expect: current },
    { name: 'a new node scoped to one server', nodes: { 'tool:c': { before: true, server: 'weather' } }, expect: { pauseOnError: true, nodes: { ...current.nodes, 'tool:c': { before: true, server: 'weather' } } } },
    { name: 'a node scoped, its gates kept', nodes: { 'tool:b': { server: 'weather' } }, expect: { pauseOnError: true, nodes: { 'tool:a': { before: true }, 'tool:b': { before: true, after: true, server: 'weather' } } } },
    { name: 'a scope without a gate adds nothing', nodes: { 'tool:z': { server: 'weather' } }, expect: current },
  ];
  for (const c of cases) t.same(mergeBreakpoints(current, c.pauseOnError, c.nodes), c.expect, c.name);
  t.same(current, { pauseOnError: true, nodes: { 'tool:a': { before: true }, 'tool:b': { before: true, after: true } } }, 'the current breakpoints are not changed in place');
  const scoped: Breakpoints = { pauseOnError: true, nodes: { 'tool:a': { before: true, server: 'weather' } } };
  t.same(mergeBreakpoints(scoped, undefined, { 'tool:a': { server: null } }).nodes, { 'tool:a': { before: true } }, 'null: on every server again');
  t.same(mergeBreakpoints(scoped, undefined, { 'tool:a': { server: 'notes' } }).nodes, { 'tool:a': { before: true, server: 'notes' } }, 'another server');
});
