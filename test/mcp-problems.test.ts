// Playbook of problem finding (src/mcp/problems.ts): runs as the debugger records them, and the
// problem rows expected of them.
import t from 'tap';
import type { GraphNode, Instance, Run } from '../src/protocol/run-model.js';
import { findProblems, type Problem } from '../src/mcp/problems.js';

const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const at = (ms: number): string => new Date(T0 + ms).toISOString();

/** An instance that started at `start` ms and ended `took` ms later (null: still open). */
function call(instanceId: string, nodeId: string, start: number, took: number | null, extra: Partial<Instance> = {}): Instance {
  return { instanceId, nodeId, status: took === null ? 'open' : 'ok', startedAt: at(start), endedAt: took === null ? null : at(start + took), ...extra };
}
const failed = (instance: Instance, name: string, message: string, extra: Record<string, unknown> = {}): Instance => ({ ...instance, status: 'error', error: { name, message, ...extra } });

function run(runId: string, instances: Instance[], extra: Partial<Run> = {}): Run {
  const nodes: GraphNode[] = [...new Set(instances.map((instance) => instance.nodeId))].map((nodeId) => ({ nodeId, kind: 'tool', parent: null, label: nodeId, status: 'ok' }));
  return { runId, name: `server ${runId}`, source: 'mcp-proxy', status: 'ok', startedAt: at(0), endedAt: at(60_000), meta: {}, nodes, instances, logs: [], droppedEvents: 0, lastSeq: 0, ...extra };
}

/** The parts of a problem a case checks. */
const brief = (problem: Problem): string => `${problem.kind} ${problem.runId} ${problem.nodeId} ${problem.instanceId} x${problem.count} [${problem.instanceIds.join(',')}]: ${problem.summary}`;

const options = { slowMs: 5_000, now: T0 + 120_000 };

const CASES: ReadonlyArray<{ name: string; runs: Run[]; expect: string[] }> = [
  {
    name: 'a clean run has none',
    runs: [run('clean', [call('mcp_1', 'mcp:session', 0, 60_000), call('mcp_2', 'mcp:protocol', 1, 59_000), call('mcp_3', 'tool:echo', 10, 4_999)])],
    expect: [],
  },
  {
    name: 'failed calls, grouped by node and error',
    runs: [
      run('r', [
        failed(call('mcp_3', 'tool:search', 10, 5), 'JsonRpcError', 'MCP error -32000: boom', { code: -32000 }),
        failed(call('mcp_4', 'tool:search', 20, 5), 'JsonRpcError', 'MCP error -32000: boom', { code: -32000 }),
        failed(call('mcp_5', 'tool:search', 30, 5), 'ToolError', 'no results'),
        failed(call('mcp_6', 'tool:fetch', 40, 5), 'Aborted', 'aborted in the debugger', { code: -32099 }),
      ]),
    ],
    expect: [
      'failed_call r tool:search mcp_3 x2 [mcp_3,mcp_4]: JsonRpcError -32000: MCP error -32000: boom',
      'failed_call r tool:search mcp_5 x1 [mcp_5]: ToolError: no results',
      'failed_call r tool:fetch mcp_6 x1 [mcp_6]: Aborted -32099: aborted in the debugger',
    ],
  },
  {
    name: 'what explains a run comes first: spawn failure, early exit, then calls',
    runs: [
      run('crash', [
        failed(call('mcp_1', 'mcp:session', 0, 100), 'McpServerExitedEarly', 'the MCP server exited with code 2 before answering anything', {
          data: { exitCode: 2, stderr: ['boot: reading config', 'Error: FATAL: DATABASE_URL is not set', '    at boot (server.mjs:9:11)', '    at main (server.mjs:20:3)'] },
        }),
        failed(call('mcp_3', 'mcp:initialize', 5, 90), 'NoAnswer', 'the server exited without answering this request'),
      ]),
      run('nocmd', [failed(call('mcp_1', 'mcp:session', 0, 1), 'SpawnError', 'spawn nope ENOENT', { data: { code: 'ENOENT' } })]),
      run('late', [failed(call('mcp_1', 'mcp:session', 0, 100), 'McpServerExited', 'the MCP server was killed by SIGSEGV', { data: { stderr: ['a', 'b', 'c', 'd'] } })]),
      run('told', [failed(call('mcp_1', 'mcp:session', 0, 100), 'McpServerExitedEarly', 'the MCP server exited with code 1 before answering anything — its last stderr output was:', { data: { stderr: ['Traceback (most recent call last):', '  File "server.py", line 3', 'KeyError: \'TOKEN\''] } })]),
    ],
    expect: [
      'early_exit crash mcp:session mcp_1 x1 [mcp_1]: the MCP server exited with code 2 before answering anything — last stderr: Error: FATAL: DATABASE_URL is not set | at boot (server.mjs:9:11)',
      'unanswered crash mcp:initialize mcp_3 x1 [mcp_3]: no answer: the server exited without answering this request',
      'spawn_failure nocmd mcp:session mcp_1 x1 [mcp_1]: the server could not be started: spawn nope ENOENT',
      'server_exit late mcp:session mcp_1 x1 [mcp_1]: the MCP server was killed by SIGSEGV — last stderr: b | c | d',
      "early_exit told mcp:session mcp_1 x1 [mcp_1]: the MCP server exited with code 1 before answering anything — its last stderr output was: KeyError: 'TOKEN'",
    ],
  },
  {
    name: 'stdout noise is one row, counted from the protocol card when more lines came than were recorded',
    runs: [
      run('noisy', [
        call('mcp_2', 'mcp:protocol', 0, 100, { output: { calls: 3, errors: 0, stdoutNoise: 30 } }),
        failed(call('mcp_3', 'mcp:stdout-noise', 1, 0, { input: 'debug: loading config' }), 'StdoutNoise', 'the server wrote a line to stdout that is not JSON-RPC'),
        failed(call('mcp_4', 'mcp:stdout-noise', 2, 0, { input: 'noise 2' }), 'StdoutNoise', 'the server wrote a line to stdout that is not JSON-RPC'),
      ]),
    ],
    expect: [
      'stdout_noise noisy mcp:stdout-noise mcp_3 x30 [mcp_3,mcp_4]: the server wrote to stdout (the MCP wire) a line that is not JSON-RPC: debug: loading config (30 such lines in all; the first 2 are recorded)',
    ],
  },
  {
    name: 'slow calls: at the threshold and over, not the session-wide nodes',
    runs: [
      run('slow', [
        call('mcp_1', 'mcp:session', 0, 60_000),
        call('mcp_2', 'mcp:protocol', 1, 59_000),
        call('mcp_3', 'tool:crawl', 10, 5_000),
        call('mcp_4', 'tool:crawl', 20_000, 12_500),
        call('mcp_5', 'tool:crawl', 40_000, 4_999),
      ]),
    ],
    expect: ['slow_call slow tool:crawl mcp_3 x2 [mcp_3,mcp_4]: the server took 5.0 s (the threshold is 5.0 s)'],
  },
  {
    name: 'slow by server time: time held at breakpoints is the debugger\'s (issue 30)',
    runs: [
      run('held', [
        // Held 60 s at a breakpoint, answered in 100 ms: not slow.
        call('mcp_3', 'tool:crawl', 10, 60_100, { heldMs: 60_000 }),
        // Held 1 s, the server took 6 s: slow, and says the held time apart.
        call('mcp_4', 'tool:crawl', 70_000, 7_000, { heldMs: 1_000 }),
      ]),
    ],
    expect: ['slow_call held tool:crawl mcp_4 x1 [mcp_4]: the server took 6.0 s (the threshold is 5.0 s); held 1.0 s more by the debugger'],
  },
  {
    name: 'an answer the debugger made is its own row, never the server\'s failure (issue 30)',
    runs: [
      run('changed', [
        failed(call('mcp_3', 'tool:fail', 10, 2_000, { heldMs: 1_990, changed: { action: 'abort', gate: 'before', by: 'viewer', at: at(2_010), holdId: 'hold_1' } }), 'Aborted', 'aborted', { code: -32099 }),
        call('mcp_4', 'tool:fail', 3_000, 20, {
          changed: { action: 'inject', gate: 'after', by: 'graphmind mcp', at: at(3_020), holdId: 'hold_2', server: { status: 'error', endedAt: at(3_010), error: { name: 'ToolError', message: 'real failure' } } },
        }),
      ]),
    ],
    expect: [
      'debugger_changed changed tool:fail mcp_3 x1 [mcp_3]: aborted by viewer: the output is the debugger\'s: the server never answered this call',
      "debugger_changed changed tool:fail mcp_4 x1 [mcp_4]: injected by graphmind mcp (replaced the server's answer): the output is the debugger's, not the server's (the server's own answer is in serverAnswer)",
    ],
  },
  {
    name: 'a call the debugger sent itself (Send again) is never taken for the host\'s: its own row, said first (issue 30)',
    runs: [
      run('sent', [
        failed(call('mcp_3', 'tool:search', 10, 5), 'JsonRpcError', 'MCP error -32000: boom', { code: -32000 }),
        failed(call('mcp_4', 'tool:search', 20, 5, { sentBy: 'viewer' }), 'JsonRpcError', 'MCP error -32000: boom', { code: -32000 }),
        failed(call('mcp_5', 'tool:search', 30, 5, { sentBy: 'viewer' }), 'JsonRpcError', 'MCP error -32000: boom', { code: -32000 }),
        call('mcp_6', 'tool:crawl', 40, 6_000, { sentBy: 'graphmind mcp' }),
        call('mcp_7', 'tool:crawl', 10_000, null, { sentBy: 'api' }),
      ]),
    ],
    expect: [
      'failed_call sent tool:search mcp_3 x1 [mcp_3]: JsonRpcError -32000: MCP error -32000: boom',
      "failed_call sent tool:search mcp_4 x2 [mcp_4,mcp_5]: sent again by viewer: not the host's call: JsonRpcError -32000: MCP error -32000: boom",
      "unanswered sent tool:crawl mcp_7 x1 [mcp_7]: sent again by api: not the host's call: never answered: the run ended with this call open",
      "slow_call sent tool:crawl mcp_6 x1 [mcp_6]: sent again by graphmind mcp: not the host's call: the server took 6.0 s (the threshold is 5.0 s)",
    ],
  },
  {
    name: 'open calls: waiting in a running run, never answered in an ended one',
    runs: [
      run('live', [call('mcp_1', 'mcp:session', 0, null), call('mcp_3', 'tool:wait', 100, null), call('mcp_4', 'tool:wait', 119_000, null)], { status: 'running', endedAt: null }),
      run('ended', [call('mcp_3', 'tool:wait', 100, null)], { status: 'error' }),
    ],
    expect: [
      'unanswered live tool:wait mcp_3 x1 [mcp_3]: still waiting for an answer after 119.9 s (held at a breakpoint, or slow)',
      'unanswered ended tool:wait mcp_3 x1 [mcp_3]: never answered: the run ended with this call open',
    ],
  },
  {
    name: 'dropped events say the record is incomplete',
    runs: [run('lossy', [], { droppedEvents: 12 })],
    expect: ['dropped_events lossy mcp:session null x12 []: 12 event(s) were dropped while the debugger was away or behind: this record is incomplete'],
  },
  {
    name: 'a long message is previewed in the summary',
    runs: [run('long', [failed(call('mcp_3', 'tool:x', 0, 1), 'ToolError', `failure ${'y'.repeat(1_000)}`)])],
    expect: [`failed_call long tool:x mcp_3 x1 [mcp_3]: ToolError: failure ${'y'.repeat(192)}… [truncated, 808 more characters]`],
  },
];

for (const c of CASES) {
  t.test(c.name, async (t) => {
    t.same(findProblems(c.runs, options).map(brief), c.expect);
  });
}

t.test('a group keeps five instance ids and counts the rest', async (t) => {
  const instances = Array.from({ length: 1_000 }, (_, i) => failed(call(`mcp_${i + 3}`, 'tool:flaky', i, 1), 'ToolError', 'flaked'));
  const [problem] = findProblems([run('many', instances)], options);
  t.match(problem, { count: 1_000, instanceIds: ['mcp_3', 'mcp_4', 'mcp_5', 'mcp_6', 'mcp_7'], instanceId: 'mcp_3' });
});
