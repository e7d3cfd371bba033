// Restarts with the debugger attached: holds across a restart (a held
// answer retried runs on the new server, before the restart has finished
// too; a held request let go during a restart reaches the new server; a
// retry while no server runs gets -32097), and the restart route,
// POST /api/runs/:runId/restart: 202 for a live proxy run (with or without
// --watch), 404 for an unknown run, 409 for an ended run, an adapter's run
// and a run whose proxy is gone, behind the token, Host and Origin checks
// of every API call; what a restart leaves in the run (meta.restarts, the
// session node's lines, meta.serverPid).
import t from 'tap';
import { api, fakeReporter, rawRequest, RunEvents, runId as freshRunId, runWhen } from './helpers/serve.js';
import { connectV1, decide, newRuns, runIds, setBreakpoints, startDebugger, waitForHold } from './helpers/gates.js';
import { waitFor } from './helpers/cli.js';
import { NOT_RUNNING, RESTARTED_LINE, allGone, failure, project, sleep, text, watchedV1 } from './fixtures/restart/sessions.js';

const serve = await startDebugger(t);

/** POST /api/runs/:runId/restart with the token. */
function restart(runId: string): Promise<{ status: number; json: unknown }> {
  return api(serve.port, serve.token, 'POST', `/api/runs/${runId}/restart`);
}

/** The run a session just started. */
async function runOf(before: ReadonlySet<string>): Promise<string> {
  const [id] = await newRuns(serve, before);
  return id as string;
}

const NO_BREAKPOINTS = { pauseOnError: false, nodes: {} };

t.test('a held answer retried after a restart runs on the new server', async (t) => {
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:hello': { after: true } } });
  t.teardown(() => setBreakpoints(serve, NO_BREAKPOINTS));
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const { client, restarted } = await watchedV1(t, p, { serve });
  const call = client.callTool({ name: 'hello', arguments: { text: 'a' } }, undefined, { timeout: 120_000 });
  const hold = await waitForHold(serve, { nodeId: 'tool:hello', gate: 'after' });
  p.save({ sdk: 1, tag: 'gen1', hello: '`fixed: ${text}`' });
  await restarted(1);
  await setBreakpoints(serve, NO_BREAKPOINTS);
  await decide(serve, hold.holdId, 'retry');
  t.equal(text(await call), 'fixed: a', "the retried call's answer is the new code's");
  const calls = p.messages().filter((m) => m.method === 'tools/call');
  t.equal(calls.length, 2, 'the request reached both servers');
  t.equal(calls[0]?.id, calls[1]?.id, 'the same request, sent again with its own id');
  const order = p.received().map((line) => (line.includes('graphmind-restart-1-1') ? 'replay' : line.includes('tools/call') ? 'call' : ''));
  t.ok(order.lastIndexOf('call') > order.indexOf('replay'), 'the second time after the new server was brought up');
});

t.test('a held answer retried while the restart is still under way: sent once the new server is up', async (t) => {
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:hello': { after: true } } });
  t.teardown(() => setBreakpoints(serve, NO_BREAKPOINTS));
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const { client, restarted } = await watchedV1(t, p, { serve });
  const call = client.callTool({ name: 'hello', arguments: { text: 'b' } }, undefined, { timeout: 120_000 });
  const hold = await waitForHold(serve, { nodeId: 'tool:hello', gate: 'after' });
  // A new server slow to start: the retry comes while the proxy waits for it.
  p.save({ sdk: 1, tag: 'gen1', startDelayMs: 1500 });
  await waitFor(() => p.starts().length === 2, 20_000, 'the new server to start');
  await setBreakpoints(serve, NO_BREAKPOINTS);
  await decide(serve, hold.holdId, 'retry');
  t.equal(text(await call), 'gen1: b', 'answered by the new server');
  t.match(await restarted(1), RESTARTED_LINE);
});

t.test('a request held before the server and let go during a restart goes to the new server', async (t) => {
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:hello': { before: true } } });
  t.teardown(() => setBreakpoints(serve, NO_BREAKPOINTS));
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const { client, restarted } = await watchedV1(t, p, { serve });
  const call = client.callTool({ name: 'hello', arguments: { text: 'c' } }, undefined, { timeout: 120_000 });
  const hold = await waitForHold(serve, { nodeId: 'tool:hello', gate: 'before' });
  p.save({ sdk: 1, tag: 'gen1', startDelayMs: 1500 });
  await waitFor(() => p.starts().length === 2, 20_000, 'the new server to start');
  await decide(serve, hold.holdId, 'continue');
  t.equal(text(await call), 'gen1: c', 'the held request, let go mid-restart, is answered by the new server');
  t.equal(p.messages().filter((m) => m.method === 'tools/call').length, 1, 'once');
  await restarted(1);
});

t.test('a held answer retried while no server runs gets -32097', async (t) => {
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:hello': { after: true } } });
  t.teardown(() => setBreakpoints(serve, NO_BREAKPOINTS));
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const { client, restarted } = await watchedV1(t, p, { serve });
  const call = failure(client.callTool({ name: 'hello', arguments: { text: 'd' } }, undefined, { timeout: 120_000 }));
  const hold = await waitForHold(serve, { nodeId: 'tool:hello', gate: 'after' });
  p.save({ sdk: 1, tag: 'gen1', broken: true });
  await restarted(1);
  await decide(serve, hold.holdId, 'retry');
  const refused = await call;
  t.equal(refused.code, NOT_RUNNING, 'the retried request is answered -32097');
  t.match(refused.message, /the MCP server is not running: the new server exited with code 1/);
});

t.test('POST /api/runs/:runId/restart restarts a live proxy run', async (t) => {
  const before = new Set(await runIds(serve));
  const p = project(t, { sdk: 1, tag: 'gen0', child: true });
  const session = await watchedV1(t, p, { serve });
  const runId = await runOf(before);
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'a' } })), 'gen0: a');

  // Every API call's checks first: none of these restarts anything.
  const path = `/api/runs/${runId}/restart`;
  const raw = (headers: Record<string, string>): Promise<{ status: number }> => rawRequest(serve.port, { method: 'POST', path, headers });
  const host = `127.0.0.1:${serve.port}`;
  t.equal((await raw({ host })).status, 401, 'no token: 401');
  t.equal((await raw({ host, authorization: 'Bearer nope' })).status, 401, 'a wrong token: 401');
  t.equal((await raw({ host: `evil.example:${serve.port}`, authorization: `Bearer ${serve.token}` })).status, 403, 'a foreign Host: 403');
  t.equal((await raw({ host, origin: 'http://evil.example', authorization: `Bearer ${serve.token}` })).status, 403, 'a foreign Origin: 403');
  t.equal((await api(serve.port, serve.token, 'GET', path)).status, 405, 'GET: 405');
  await sleep(500);
  t.strictSame(session.restartLines(), [], 'no restart from any of them');

  const asked = await restart(runId);
  t.equal(asked.status, 202, '202');
  t.strictSame(asked.json, { ok: true });
  const line = await session.restarted(1);
  t.match(line, /^graphmind mcp-proxy: restarted the MCP server \(the debugger\) — pid (\d+), ready in \d+ ms$/, 'the restart line names the debugger');
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'b' } })), 'gen0: b', 'the session goes on');

  const run = await runWhen(serve, runId, (r) => Array.isArray((r.meta as { restarts?: unknown[] }).restarts));
  const meta = run.meta as { restarts: Array<Record<string, unknown>>; serverPid: number };
  const [record] = meta.restarts;
  const starts = p.starts();
  t.match(record, { n: 1, reason: 'the debugger', ok: true, pid: starts[1]?.pid, ms: Number }, 'meta.restarts: when, why, the pid, the time');
  t.ok(typeof record?.at === 'string' && !Number.isNaN(Date.parse(record.at as string)), 'at: an ISO time');
  t.equal(meta.serverPid, starts[1]?.pid, 'meta.serverPid names the new server');
  const logs = (run.logs as Array<{ nodeId: string; text: string; stream: string }>).filter((log) => log.stream === 'graphmind');
  t.match(logs.at(-1), { nodeId: 'mcp:session', text: /^the MCP server was restarted \(the debugger\); new pid \d+, handshake replayed in \d+ ms$/ }, "a line on the session node's log");
  t.strictSame(await allGone([starts[0]?.pid as number, starts[0]?.child as number]), [], 'the old server and its child are gone');

  // A second restart from the API after a failed file change brings it back.
  p.save({ sdk: 1, tag: 'gen1', broken: true });
  await session.restarted(2);
  p.save({ sdk: 1, tag: 'gen2', child: true });
  // The save restarts it on its own; the API can do it too while it is down.
  await session.restarted(3);
  t.equal((await restart(runId)).status, 202, 'asked again');
  await session.restarted(4);
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'c' } })), 'gen2: c');
  const after = await runWhen(serve, runId, (r) => ((r.meta as { restarts?: unknown[] }).restarts?.length ?? 0) === 4);
  const restarts = (after.meta as { restarts: Array<{ n: number; ok: boolean; reason: string; error?: string }> }).restarts;
  t.strictSame(
    restarts.map((r) => [r.n, r.reason, r.ok]),
    [
      [1, 'the debugger', true],
      [2, 'file change', false],
      [3, 'file change', true],
      [4, 'the debugger', true],
    ],
    'every restart in meta.restarts, a failed one with its error',
  );
  t.match(restarts[1]?.error, /exited with code 1 before answering the replayed initialize: SyntaxError/);

  // An ended run: 409.
  await session.close();
  await runWhen(serve, runId, (r) => r.status !== 'running', 15_000);
  const ended = await restart(runId);
  t.equal(ended.status, 409, 'an ended run: 409');
  t.strictSame(ended.json, { error: 'this run has ended' });
  t.strictSame(await allGone(p.pids()), [], 'no server left');
});

t.test('the route restarts a proxy run without --watch too', async (t) => {
  const before = new Set(await runIds(serve));
  const { client, stderr } = await connectV1(t, serve, { waitForAttach: false });
  const runId = await runOf(before);
  await client.callTool({ name: 'echo', arguments: { text: 'a' } });
  t.equal((await restart(runId)).status, 202);
  await waitFor(() => stderr.text().includes('restarted the MCP server (the debugger)'), 30_000, 'the restart line');
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'b' } }), { content: [{ type: 'text', text: 'b' }] }, 'the session goes on');
});

t.test('404 and 409', async (t) => {
  t.equal((await restart('no_such_run_0')).status, 404, 'an unknown run: 404');
  t.equal((await api(serve.port, serve.token, 'POST', '/api/runs/not%20a%20run/restart')).status, 404, 'not a run id: 404');

  // An adapter's run: 409, and its reporter hears nothing.
  const adapter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => adapter.ws.terminate());
  const adapterRun = new RunEvents(freshRunId('adapter'));
  adapter.send([adapterRun.started('a tool call', {}, 'mcp-adapter')]);
  await runWhen(serve, adapterRun.runId, () => true);
  const refused = await restart(adapterRun.runId);
  t.equal(refused.status, 409, "an adapter's run: 409");
  t.strictSame(refused.json, { error: 'this run is not a live graphmind mcp-proxy session' });

  // A proxy's run, reported by a stand-in: 202, and the reporter is told.
  const proxy = await fakeReporter(serve.port, serve.token);
  const proxyRun = new RunEvents(freshRunId('proxy'));
  proxy.send([proxyRun.started('node server.js', {}, 'mcp-proxy')]);
  await runWhen(serve, proxyRun.runId, () => true);
  t.equal((await restart(proxyRun.runId)).status, 202, 'a live proxy run: 202');
  await proxy.next((m) => m.type === 'restart' && m.runId === proxyRun.runId, 5000, 'the restart message');
  t.pass('its reporter got { type: "restart", runId }');

  // The proxy is gone (its connection dropped): 409.
  proxy.ws.terminate();
  await runWhen(serve, proxyRun.runId, (r) => r.status !== 'running', 10_000);
  const gone = await restart(proxyRun.runId);
  t.equal(gone.status, 409, 'a run whose proxy is gone: 409');
  t.match(gone.json, { error: String });
  t.notOk(adapter.messages.some((m) => m.type === 'restart'), "the adapter's reporter was never asked");
});

t.test('a real proxy killed: its run is no longer restartable', async (t) => {
  const before = new Set(await runIds(serve));
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const session = await watchedV1(t, p, { serve });
  const runId = await runOf(before);
  process.kill(session.pid, 'SIGKILL');
  await runWhen(serve, runId, (r) => r.status !== 'running', 15_000);
  t.equal((await restart(runId)).status, 409, '409');
  // Its server reads EOF on stdin and leaves.
  t.strictSame(await allGone(p.pids()), [], 'its server went with it');
});
