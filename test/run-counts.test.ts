// The run summary's counts, client and tools (protocol/run-counts.ts,
// RunState in protocol/run-state.ts) as a playbook: a run's events in, the
// summary's calls, failedCalls, tools and client out. The run-list status
// rule (hasErrors) and the text rule (runMentions) have their own tables.
import t from 'tap';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import type { RunSummary } from '../src/protocol/run-model.js';
import { hasErrors, isCallNode, isFailedCall, RUN_TOOLS_MAX } from '../src/protocol/run-counts.js';
import { runMentions } from '../src/protocol/run-match.js';
import { runClient, RunState } from '../src/protocol/run-state.js';
import { NODES } from './helpers/viewer.js';
import { passesFilters, SOURCE_FILTERS, sourcePasses, statusPasses, type RunFilter, type SourceFilter } from '../src/viewer/run-list-filter.js';

type Step = Record<string, unknown> & { type: string };

const RESOURCE: NodeDeclaration = { nodeId: 'resource:file:///a', kind: 'resource', parent: 'mcp:session', label: 'file:///a' };
const SERVER_NODE: NodeDeclaration = { nodeId: 'server:tasks', kind: 'server', parent: null, label: 'tasks 1.0' };

/** Events of one run, numbered in order. */
function replay(steps: Step[]): RunState {
  const state = new RunState('run_counts', 1_000);
  let seq = 0;
  for (const step of steps) {
    seq++;
    state.apply({ runId: 'run_counts', seq, t: 1_000 + seq, ...step } as unknown as RunEvent);
  }
  return state;
}

const start: Step = { type: 'run.started', name: 'node server.js', source: 'mcp-proxy', meta: {} };
const started = (instanceId: string, node: NodeDeclaration): Step => ({ type: 'instance.started', instanceId, node });
const completed = (instanceId: string, node: NodeDeclaration): Step => ({ type: 'instance.completed', instanceId, node, endT: 0 });
const finished = (instanceId: string): Step => ({ type: 'instance.finished', instanceId, output: { content: [] } });
const failed = (instanceId: string, name = 'ToolError', code?: number): Step => ({ type: 'instance.error', instanceId, error: code === undefined ? { name, message: 'boom' } : { name, message: 'boom', code } });
const reopened = (instanceId: string): Step => ({ type: 'instance.reopened', instanceId });
const session: Step[] = [start, started('mcp_1', NODES.session()), started('mcp_2', NODES.protocol)];

type Counts = Pick<RunSummary, 'calls' | 'failedCalls' | 'tools'>;

const playbook: Array<[string, Step[], Counts]> = [
  ['no call yet: no counts', session, {}],
  [
    'a session: protocol traffic and tool calls are calls, the session and its card are not',
    [...session, completed('mcp_3', NODES.proto('initialize')), completed('mcp_4', NODES.proto('notifications/initialized')), completed('mcp_5', NODES.proto('tools/list')), completed('mcp_6', NODES.tool('greet'))],
    { calls: 4, failedCalls: 0, tools: ['greet'] },
  ],
  [
    'four failed tool calls in twelve: 12 calls, 4 failed',
    [
      ...session,
      ...Array.from({ length: 8 }, (_, i) => completed(`ok_${i}`, NODES.tool('echo'))),
      ...Array.from({ length: 4 }, (_, i) => [started(`bad_${i}`, NODES.tool('fail')), failed(`bad_${i}`)]).flat(),
    ],
    { calls: 12, failedCalls: 4, tools: ['echo', 'fail'] },
  ],
  [
    'JSON-RPC errors and no answer count; a resource read is a call',
    [...session, started('a', RESOURCE), failed('a', 'JsonRpcError', -32002), started('b', NODES.tool('slow')), failed('b', 'NoAnswer')],
    { calls: 2, failedCalls: 2, tools: ['slow'] },
  ],
  [
    'a protocol request answered Method not found (Claude Code asks server/discover) is a call, not a failure',
    [...session, started('d', NODES.proto('server/discover')), failed('d', 'JsonRpcError', -32601), completed('i', NODES.proto('initialize'))],
    { calls: 2, failedCalls: 0 },
  ],
  [
    'a tool call answered Method not found is a failure',
    [...session, started('x', NODES.tool('gone')), failed('x', 'JsonRpcError', -32601)],
    { calls: 1, failedCalls: 1, tools: ['gone'] },
  ],
  [
    'other protocol errors are failures',
    [...session, started('l', NODES.proto('tools/list')), failed('l', 'JsonRpcError', -32603)],
    { calls: 1, failedCalls: 1 },
  ],
  ['stdout noise is not a call', [...session, started('n', NODES.noise), failed('n', 'StdoutNoise')], {}],
  ['an adapter server node is not a call', [start, started('s', SERVER_NODE), failed('s', 'SpawnError')], {}],
  [
    'a retried failure that then succeeds: no longer failed',
    [...session, started('r', NODES.tool('flaky')), failed('r'), reopened('r'), finished('r')],
    { calls: 1, failedCalls: 0, tools: ['flaky'] },
  ],
  [
    'a retried failure that fails again: one failure',
    [...session, started('r', NODES.tool('flaky')), failed('r'), reopened('r'), failed('r')],
    { calls: 1, failedCalls: 1, tools: ['flaky'] },
  ],
  [
    'an answer replaced by an error at the after gate: failed once',
    [...session, started('c', NODES.tool('calc')), finished('c'), failed('c', 'Aborted', -32099)],
    { calls: 1, failedCalls: 1, tools: ['calc'] },
  ],
  [
    'an error replaced by an injected answer: no longer failed',
    [...session, started('c', NODES.tool('calc')), failed('c', 'JsonRpcError', -32000), finished('c')],
    { calls: 1, failedCalls: 0, tools: ['calc'] },
  ],
  [
    'an error reported twice for one call: one failure',
    [...session, started('c', NODES.tool('calc')), failed('c'), failed('c', 'JsonRpcError', -32000)],
    { calls: 1, failedCalls: 1, tools: ['calc'] },
  ],
  [
    'an instance started twice, and an end for an instance never started: nothing more',
    [...session, started('c', NODES.tool('calc')), started('c', NODES.tool('calc')), failed('nobody')],
    { calls: 1, failedCalls: 0, tools: ['calc'] },
  ],
  [
    'tools: in the order first called, each once',
    [...session, completed('1', NODES.tool('b')), completed('2', NODES.tool('a')), completed('3', NODES.tool('b'))],
    { calls: 3, failedCalls: 0, tools: ['b', 'a'] },
  ],
  [
    `tools: at most ${RUN_TOOLS_MAX}, a name over 128 characters left out`,
    [...session, completed('long', NODES.tool('x'.repeat(129))), ...Array.from({ length: 20 }, (_, i) => completed(`t${i}`, NODES.tool(`tool_${i}`)))],
    { calls: 21, failedCalls: 0, tools: Array.from({ length: RUN_TOOLS_MAX }, (_, i) => `tool_${i}`) },
  ],
];

for (const [name, steps, expected] of playbook) {
  t.test(name, async (t) => {
    const { calls, failedCalls, tools } = replay(steps).summary;
    const got: Counts = {};
    if (calls !== undefined) got.calls = calls;
    if (failedCalls !== undefined) got.failedCalls = failedCalls;
    if (tools !== undefined) got.tools = tools;
    t.strictSame(got, expected);
  });
}

t.test('a repeated event (the same sequence number) counts once', async (t) => {
  const state = new RunState('run_repeat', 0);
  const events: RunEvent[] = [
    { runId: 'run_repeat', seq: 1, t: 1, type: 'run.started', name: 'r', source: 'mcp-proxy', meta: {} },
    { runId: 'run_repeat', seq: 2, t: 2, type: 'instance.started', instanceId: 'a', node: NODES.tool('f') },
    { runId: 'run_repeat', seq: 3, t: 3, type: 'instance.error', instanceId: 'a', error: { name: 'ToolError', message: 'x' } },
  ];
  for (const event of [...events, ...events]) state.apply(event);
  t.equal(state.summary.calls, 1);
  t.equal(state.summary.failedCalls, 1);
});

t.test('the client comes from meta.clientInfo, as the server from serverInfo', async (t) => {
  const table: Array<[unknown, RunSummary['client']]> = [
    [{ name: 'claude-code', title: 'Claude Code', version: '2.1.332' }, { name: 'claude-code', version: '2.1.332' }],
    [{ name: 'inspector-client', version: 7 }, { name: 'inspector-client' }],
    [{ name: '' }, undefined],
    [{ name: 'x'.repeat(257) }, undefined],
    [{ name: 'c', version: 'v'.repeat(257) }, { name: 'c' }],
    ['claude', undefined],
    [['claude'], undefined],
    [null, undefined],
  ];
  for (const [clientInfo, expected] of table) t.strictSame(runClient({ clientInfo }), expected, JSON.stringify(clientInfo)?.slice(0, 40));

  const state = replay([start, { type: 'run.meta', meta: { clientInfo: { name: 'claude-code', version: '2.1.332' }, serverInfo: { name: 'tracker', version: '0.3.1' } } }]);
  t.strictSame(state.summary.client, { name: 'claude-code', version: '2.1.332' });
  t.strictSame(state.summary.server, { name: 'tracker', version: '0.3.1' });
  t.ok(state.summaryChanged, 'marked for the live feed');
});

t.test('what the summary count changes marks it for the live feed; other events do not', async (t) => {
  const state = replay(session);
  state.summaryChanged = false;
  state.apply({ runId: 'run_counts', seq: 10, t: 2_000, type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'hi' });
  t.notOk(state.summaryChanged, 'a log line');
  state.apply({ runId: 'run_counts', seq: 11, t: 2_001, type: 'instance.started', instanceId: 'z', node: NODES.tool('f') });
  t.ok(state.summaryChanged, 'a call');
  state.summaryChanged = false;
  state.apply({ runId: 'run_counts', seq: 12, t: 2_002, type: 'instance.finished', instanceId: 'z' });
  t.notOk(state.summaryChanged, 'a call that ended ok changes no count');
  state.apply({ runId: 'run_counts', seq: 13, t: 2_003, type: 'instance.error', instanceId: 'z', error: { name: 'Aborted', message: 'x', code: -32099 } });
  t.ok(state.summaryChanged, 'a failure');
});

t.test('the rules', async (t) => {
  const calls: Array<[{ nodeId: string; kind: string }, boolean]> = [
    [NODES.session(), false],
    [NODES.protocol, false],
    [NODES.noise, false],
    [SERVER_NODE, false],
    [NODES.tool('a'), true],
    [NODES.proto('initialize'), true],
    [RESOURCE, true],
    [{ nodeId: 'llm:sampling', kind: 'llm' }, true],
  ];
  for (const [node, expected] of calls) t.equal(isCallNode(node), expected, `isCallNode ${node.nodeId}`);
  const failures: Array<[string, 'ok' | 'error' | 'open', number | undefined, boolean]> = [
    ['tool:a', 'ok', undefined, false],
    ['tool:a', 'open', undefined, false],
    ['tool:a', 'error', undefined, true],
    ['tool:a', 'error', -32601, true],
    ['mcp:server/discover', 'error', -32601, false],
    ['mcp:server/discover', 'error', -32602, true],
  ];
  for (const [nodeId, status, code, expected] of failures) {
    t.equal(isFailedCall(nodeId, status, status === 'error' ? { name: 'JsonRpcError', message: 'm', ...(code === undefined ? {} : { code }) } : undefined), expected, `isFailedCall ${nodeId} ${status} ${code}`);
  }
  const errors: Array<[Pick<RunSummary, 'status' | 'failedCalls'>, boolean]> = [
    [{ status: 'ok' }, false],
    [{ status: 'ok', failedCalls: 0 }, false],
    [{ status: 'ok', failedCalls: 4 }, true],
    [{ status: 'running', failedCalls: 1 }, true],
    [{ status: 'running' }, false],
    [{ status: 'error', failedCalls: 0 }, true],
  ];
  for (const [run, expected] of errors) t.equal(hasErrors(run), expected, `hasErrors ${JSON.stringify(run)}`);
});

t.test('runMentions: name (command), server, client, tools, connection; case ignored', async (t) => {
  const run: RunSummary = {
    runId: 'run_abc',
    name: 'node tracker/build/server.js',
    source: 'mcp-proxy',
    status: 'ok',
    startedAt: '',
    endedAt: null,
    server: { name: 'Tracker', version: '0.3.1' },
    client: { name: 'claude-code', version: '2.1.332' },
    tools: ['list_tasks', 'add_task'],
  };
  const table: Array<[string, boolean]> = [
    ['build/server', true],
    ['tracker', true],
    ['claude', true],
    ['add_task', true],
    ['0.3.1', false],
    ['run_abc', false],
    ['inspector', false],
  ];
  for (const [needle, expected] of table) t.equal(runMentions(run, needle), expected, needle);
  t.ok(runMentions({ ...run, group: { id: 'g', server: 'alpha', connection: 'c1' } }, 'alpha'), 'an adapter connection’s server');
});

t.test('the run list: what each status chip counts, and the source chips', async (t) => {
  const base = { runId: 'r', name: 'n', startedAt: '', endedAt: null };
  const table: Array<[string, RunSummary, Record<RunFilter, boolean>]> = [
    ['running, nothing failed', { ...base, source: 'mcp-proxy', status: 'running', calls: 3, failedCalls: 0 }, { all: true, running: true, ok: false, error: false }],
    ['running, a failed call', { ...base, source: 'mcp-proxy', status: 'running', calls: 3, failedCalls: 1 }, { all: true, running: true, ok: false, error: true }],
    ['ended ok, no call', { ...base, source: 'mcp-proxy', status: 'ok' }, { all: true, running: false, ok: true, error: false }],
    ['ended ok, four failed calls', { ...base, source: 'mcp-proxy', status: 'ok', calls: 12, failedCalls: 4 }, { all: true, running: false, ok: false, error: true }],
    ['ended in error', { ...base, source: 'mcp-proxy', status: 'error', calls: 1, failedCalls: 0 }, { all: true, running: false, ok: false, error: true }],
  ];
  for (const [name, run, expected] of table) {
    const got = Object.fromEntries((['all', 'running', 'ok', 'error'] as const).map((filter) => [filter, statusPasses(run, filter)]));
    t.strictSame(got, expected, name);
  }
  const sources: Array<[string, SourceFilter[]]> = [
    ['mcp-proxy', ['all', 'proxy']],
    ['mcp-http-proxy', ['all', 'http']],
    ['mcp-adapter', ['all', 'adapter']],
    ['mcp-relay', ['all']],
  ];
  for (const [source, expected] of sources) {
    const run: RunSummary = { ...base, source, status: 'ok' };
    t.strictSame(SOURCE_FILTERS.map((f) => f.filter).filter((f) => sourcePasses(run, f)), expected, source);
  }
  t.ok(passesFilters({ ...base, source: 'mcp-http-proxy', status: 'ok', client: { name: 'claude-code' } }, 'all', 'http', '  Claude '), 'text trimmed, any case');
});
