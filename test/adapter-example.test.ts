// example/stdio-server.mjs, run as a host would run it (over stdio, by a
// real SDK client), reporting to a real graphmind serve: breakpoints armed
// through the control API hold its handlers, and the client gets what was
// decided. Nothing but protocol reaches its stdout.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import t from 'tap';
import { breakpointsApplied, decide, newRuns, runIds, setBreakpoints, startDebugger, waitForHold } from './helpers/gates.js';
import { api } from './helpers/serve.js';

const EXAMPLE = fileURLToPath(new URL('../example/stdio-server.mjs', import.meta.url));

t.test('the example server, held and steered through the control API', async (t) => {
  const serve = await startDebugger(t);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [EXAMPLE],
    env: { ...(process.env as Record<string, string>), GRAPHMIND_URL: `ws://127.0.0.1:${serve.port}/ingest`, GRAPHMIND_DATA_DIR: serve.dataDir },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'example-test', version: '1.0.0' });
  t.teardown(() => client.close());
  await client.connect(transport);

  // Detached or attached, an unheld call answers as written.
  const listed = await client.callTool({ name: 'list_tasks', arguments: { status: 'blocked' } });
  t.match(listed.structuredContent, { tasks: [{ id: 'PAY-102' }] });

  // A breakpoint before list_tasks: the handler does not run until decided.
  const seen = new Set(await runIds(serve));
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:list_tasks': { before: true } } });
  await breakpointsApplied(serve); // the example's reporter has them (the PUT waits for a reporter attached; this, for one that attaches later)
  const held = client.callTool({ name: 'list_tasks', arguments: {} });
  const hold = await waitForHold(serve, { nodeId: 'tool:list_tasks', gate: 'before' });
  t.equal(hold.method, 'tools/call');
  t.match(hold.frame, { method: 'tools/call', params: { name: 'list_tasks', arguments: {} } }, 'the hold shows the call');
  await decide(serve, hold.holdId, 'inject', { tasks: [{ id: 'PAY-999', status: 'blocked' }] });
  t.strictSame(
    await held,
    { content: [{ type: 'text', text: '{"tasks":[{"id":"PAY-999","status":"blocked"}]}' }], structuredContent: { tasks: [{ id: 'PAY-999', status: 'blocked' }] } },
    'inject: the client gets the lifted value',
  );
  const [runId] = await newRuns(serve, seen);
  const run = (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`)).json as { name: string; source: string; nodes: unknown[] };
  t.equal(run.name, 'tools/call:list_tasks');
  t.equal(run.source, 'mcp-adapter');
  t.match(run.nodes, [{ nodeId: 'server:example-tasks', kind: 'server', parent: null }, { nodeId: 'tool:list_tasks', kind: 'tool', parent: 'server:example-tasks' }]);

  // The error gate (on by default): a thrown handler holds; continue lets the SDK answer as usual.
  const failing = client.callTool({ name: 'close_task', arguments: { id: 'PAY-404' } });
  const failed = await waitForHold(serve, { nodeId: 'tool:close_task', gate: 'error' });
  t.equal(failed.reason, 'error');
  await decide(serve, failed.holdId, 'continue');
  t.strictSame(await failing, { content: [{ type: 'text', text: 'no task PAY-404' }], isError: true }, 'continue: the SDK answers as usual');

  // Abort: the client receives -32099, as through the proxy.
  const aborted = client.callTool({ name: 'list_tasks', arguments: {} }).then(
    () => undefined,
    (error: { code?: number }) => error.code,
  );
  const abortHold = await waitForHold(serve, { nodeId: 'tool:list_tasks', gate: 'before' });
  await decide(serve, abortHold.holdId, 'abort');
  t.equal(await aborted, -32099);

  // The resource template is one node, named by its registration.
  await setBreakpoints(serve, { pauseOnError: true, nodes: {} });
  const read = await client.readResource({ uri: 'task://PAY-101' });
  t.match(read.contents, [{ uri: 'task://PAY-101' }]);
});
