// What the OTLP stream says of sessions that went wrong, and of runs that
// are not a plain proxy session: a server that cannot be started and one
// that exits before answering (real proxies), and, from a reporter of the
// test's own, restarts, a retried answer, an adapter run over HTTP with a
// sampling request inside its tool call, and a run whose reporter went away.
import t from 'tap';
import { PROXY_FIXTURES, startProxy } from './helpers/cli.js';
import { proxyEnv, waitFor } from './helpers/gates.js';
import { RunEvents, fakeReporter, runId, runWhen, startServe } from './helpers/serve.js';
import { NODES } from './helpers/viewer.js';
import { KIND, STATUS, startReceiver, type ReceivedSpan } from './fixtures/export/otlp-receiver.js';

t.test('failed sessions, restarts, retries, adapter runs and abandoned runs as spans', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const serve = await startServe(['--pause-on-error', 'off', '--otlp-endpoint', receiver.url]);
  t.teardown(() => serve.stop());
  const rootOf = async (match: (span: ReceivedSpan) => boolean, what: string): Promise<ReceivedSpan> => {
    await waitFor(() => receiver.spans.some((span) => span.kind === KIND.INTERNAL && match(span)), 15_000, what);
    return receiver.spans.find((span) => span.kind === KIND.INTERNAL && match(span)) as ReceivedSpan;
  };
  const env = proxyEnv(serve);

  t.test('a server that cannot be started', async (t) => {
    const proxy = startProxy(['--port', String(serve.port)], ['/no/such/server-command'], { env });
    proxy.child.stdin.end();
    await proxy.exited;
    const root = await rootOf((span) => span.attributes['graphmind.run.name'] === 'server-command', 'the spawn failure');
    t.equal(root.status.code, STATUS.ERROR);
    t.equal(root.attributes['error.type'], 'SpawnError');
    const failure = root.events.find((event) => event.name === 'graphmind.spawn_failure');
    t.equal(failure?.attributes['graphmind.spawn.error_code'], 'ENOENT');
    t.match(String(failure?.attributes['graphmind.error.message']), 'server-command');
  });

  t.test('a server that exits before answering', async (t) => {
    const proxy = startProxy(['--port', String(serve.port)], [process.execPath, `${PROXY_FIXTURES}crash-server.mjs`], { env });
    await proxy.exited;
    const root = await rootOf((span) => String(span.attributes['graphmind.run.name']).includes('crash-server.mjs'), 'the early exit');
    t.equal(root.status.code, STATUS.ERROR);
    t.equal(root.attributes['error.type'], 'McpServerExitedEarly');
    const exit = root.events.find((event) => event.name === 'graphmind.early_exit');
    t.equal(exit?.attributes['graphmind.exit.code'], 2);
    t.match(String(exit?.attributes['graphmind.stderr_tail']), 'FATAL: DATABASE_URL is not set');
    t.match(String(exit?.attributes['graphmind.stderr_tail']), 'crash-server: line 3 of 3');
  });

  t.test('restarts and a retried answer', async (t) => {
    const reporter = await fakeReporter(serve.port, serve.token);
    t.teardown(() => reporter.ws.terminate());
    const run = new RunEvents(runId('restarted'));
    const at = new Date(run.t + 5).toISOString();
    reporter.send([
      run.started('node server.js', {}, 'mcp-proxy'),
      run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
      run.next({ type: 'run.meta', meta: { protocolVersion: '2025-06-18', serverInfo: { name: 'restarting', version: '1' } } }),
      run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('flaky'), input: { name: 'flaky', arguments: {} } }),
      run.next({ type: 'instance.error', instanceId: 'mcp_2', error: { name: 'ToolError', message: 'not yet' }, output: { content: [], isError: true } }),
      run.next({ type: 'hold.opened', holdId: 'h_retry', nodeId: 'tool:flaky', instanceId: 'mcp_2', gate: 'error', method: 'tools/call', frame: { jsonrpc: '2.0', id: 'req-9', result: { isError: true } }, reason: 'error' }),
      run.next({ type: 'instance.reopened', instanceId: 'mcp_2' }),
      run.next({ type: 'hold.released', holdId: 'h_retry', action: 'retry' }),
      run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { content: [{ type: 'text', text: 'now' }] } }),
      run.next({ type: 'log', nodeId: 'mcp:session', stream: 'graphmind', text: 'the MCP server was restarted (file change: src/a.ts)' }),
      run.next({ type: 'run.meta', meta: { restarts: [{ n: 1, at, reason: 'file change', file: 'src/a.ts', ok: true, pid: 4242, ms: 80 }] } }),
      run.next({ type: 'instance.finished', instanceId: 'mcp_1' }),
      run.next({ type: 'run.finished', status: 'ok' }),
    ]);
    const root = await rootOf((span) => span.attributes['graphmind.run.id'] === run.runId, 'the restarted run');
    t.equal(root.name, 'mcp-proxy restarting');
    t.equal(root.attributes['graphmind.restart.count'], 1);
    t.match(root.events.find((event) => event.name === 'graphmind.restart')?.attributes, { 'graphmind.restart.n': 1, 'graphmind.restart.reason': 'file change', 'graphmind.restart.file': 'src/a.ts', 'graphmind.restart.ok': true, 'graphmind.restart.pid': 4242 });
    await waitFor(() => receiver.spans.some((span) => span.traceId === root.traceId && span.name === 'tools/call flaky'), 10_000, 'the retried call');
    const flaky = receiver.spans.find((span) => span.traceId === root.traceId && span.name === 'tools/call flaky') as ReceivedSpan;
    t.equal(flaky.status.code, STATUS.UNSET, 'it ended well after the retry');
    t.equal(flaky.attributes['jsonrpc.request.id'], 'req-9');
    t.match(flaky.attributes, { 'graphmind.changed_by_debugger': true, 'graphmind.change.action': 'retry', 'graphmind.change.by': 'unknown', 'graphmind.retry.count': 1 });
    t.match(flaky.events.find((event) => event.name === 'graphmind.retry')?.attributes, { 'graphmind.retry.dropped_status': 'error', 'graphmind.retry.dropped_error.type': 'tool_error' });
    t.match(flaky.events.find((event) => event.name === 'graphmind.hold')?.attributes, { 'graphmind.hold.gate': 'error', 'graphmind.hold.reason': 'error', 'graphmind.hold.answer_status': 'error', 'graphmind.hold.answer_error.type': 'tool_error' });
  });

  t.test('an adapter run over HTTP, with a sampling request inside its tool call', async (t) => {
    const reporter = await fakeReporter(serve.port, serve.token);
    t.teardown(() => reporter.ws.terminate());
    const run = new RunEvents(runId('adapter'));
    const server = { nodeId: 'server:tasks', kind: 'server', parent: null, label: 'tasks' } as const;
    const tool = { nodeId: 'tool:plan', kind: 'tool', parent: 'server:tasks', label: 'plan' } as const;
    const llm = { nodeId: 'llm:sampling', kind: 'llm', parent: 'tool:plan', label: 'sampling' } as const;
    reporter.send([
      run.started('tools/call:plan', { server: 'tasks', connection: 'c1', sessionId: 'sess-1', protocolVersion: '2025-06-18', transport: 'StreamableHTTPServerTransport' }, 'mcp-adapter'),
      run.next({ type: 'instance.started', instanceId: 'root', node: server }),
      run.next({ type: 'instance.started', instanceId: 'c1', node: tool, input: { name: 'plan', arguments: {} } }),
      run.next({ type: 'instance.started', instanceId: 's1', node: llm, input: { messages: [] } }),
      run.next({ type: 'instance.error', instanceId: 's1', error: { name: 'JsonRpcError', message: 'Method not found', code: -32601 } }),
      run.next({ type: 'instance.error', instanceId: 'c1', error: { name: 'JsonRpcError', message: 'Invalid params', code: -32602 } }),
      run.next({ type: 'instance.finished', instanceId: 'root' }),
      run.next({ type: 'run.finished', status: 'ok' }),
    ]);
    const root = await rootOf((span) => span.attributes['graphmind.run.id'] === run.runId, 'the adapter run');
    t.equal(root.name, 'mcp-adapter tasks');
    t.equal(root.resource['service.name'], 'tasks');
    await waitFor(() => receiver.spans.filter((span) => span.traceId === root.traceId).length >= 3, 10_000, 'its calls');
    const ofRun = receiver.spans.filter((span) => span.traceId === root.traceId);
    const plan = ofRun.find((span) => span.name === 'tools/call plan') as ReceivedSpan;
    const sampling = ofRun.find((span) => span.name === 'sampling/createMessage') as ReceivedSpan;
    t.equal(plan.parentSpanId, root.spanId);
    t.equal(sampling.parentSpanId, plan.spanId, 'the sampling hangs under the tool call it was made in');
    t.equal(sampling.kind, KIND.CLIENT);
    t.match(plan.attributes, { 'mcp.session.id': 'sess-1', 'network.transport': 'tcp', 'network.protocol.name': 'http', 'rpc.response.status_code': '-32602' });
    t.notOk('error.type' in plan.attributes, 'a caller\'s mistake is not a server span\'s error');
    t.equal(plan.status.code, STATUS.UNSET);
    t.match(sampling.attributes, { 'rpc.response.status_code': '-32601', 'error.type': '-32601' }, 'every code is an error on a client span');
    t.equal(sampling.status.code, STATUS.ERROR);
  });

  t.test('a run whose reporter went away', async (t) => {
    const reporter = await fakeReporter(serve.port, serve.token);
    const run = new RunEvents(runId('abandoned'));
    reporter.send([
      run.started('node server.js', {}, 'mcp-proxy'),
      run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
      run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('forever'), input: { name: 'forever' } }),
    ]);
    // The server has applied them (the run shows its open call) before the reporter goes.
    await runWhen(serve, run.runId, (r) => (r.instances as unknown[]).length === 2);
    reporter.ws.terminate();
    const root = await rootOf((span) => span.attributes['graphmind.run.id'] === run.runId, 'the abandoned run');
    t.equal(root.status.code, STATUS.ERROR);
    t.equal(root.attributes['error.type'], 'abandoned');
    await waitFor(() => receiver.spans.some((span) => span.traceId === root.traceId && span.name === 'tools/call forever'), 10_000, 'its open call');
    const open = receiver.spans.find((span) => span.traceId === root.traceId && span.name === 'tools/call forever') as ReceivedSpan;
    t.equal(open.attributes['graphmind.unfinished'], true);
  });
});
