// A Streamable HTTP session whose client leaves without a DELETE ends once
// nothing of it has been under way for --session-idle seconds (issue 30),
// instead of staying `running` until the proxy stops. Real SDK clients and
// servers through a real `graphmind http-proxy`, recorded by a real
// `graphmind serve`:
//
// - a client that closes without terminating its session: the run ends
//   `ok` about a second later, its session node saying it ended idle;
// - a client still connected (its event stream open) is never idle;
// - a client that comes back with the id after the idle end starts a new
//   run for that session (the server still knows it);
// - --session-idle 0: never.
import t, { type Test } from 'tap';
import { api } from './helpers/serve.js';
import { getRun, newRuns, runIds, setBreakpoints, sleep, startDebugger, waitForAsync, type RunView } from './helpers/gates.js';
import { connect, startFixture, startHttpProxy } from './fixtures/http/harness.js';

const serve = await startDebugger(t);
await setBreakpoints(serve, { pauseOnError: false, nodes: {} });
const server = await startFixture(t, { sdk: '2', mode: 'stateful', response: 'sse' });

interface SessionView extends RunView {
  meta: Record<string, unknown>;
}

/** The session node's instance of a run. */
function sessionNode(run: RunView): RunView['instances'][number] | undefined {
  return run.instances.find((instance) => instance.nodeId === 'mcp:session');
}

/** Connect a client through a proxy started with `idle` seconds, make a call; the run and the client. */
async function session(t: Test, idle: string): Promise<{ runId: string; url: string; client: Awaited<ReturnType<typeof connect>> }> {
  const proxy = await startHttpProxy(t, server.url, { serve, args: ['--session-idle', idle] });
  const before = new Set(await runIds(serve));
  const client = await connect(t, proxy.url, '2');
  await client.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  const [runId] = await newRuns(serve, before);
  return { runId: runId as string, url: proxy.url, client };
}

t.test('a client that leaves without a DELETE: the run ends once idle', async (t) => {
  const { runId, client } = await session(t, '1');
  t.equal((await getRun(serve, runId)).status, 'running', 'running while the client is there');
  await client.client.close();
  const closedAt = Date.now();
  let run: RunView | undefined;
  await waitForAsync(async () => (run = await getRun(serve, runId)).status !== 'running', 15_000, 'the run to end');
  t.comment(`ended ${Date.now() - closedAt} ms after the client closed (--session-idle 1)`);
  t.equal(run?.status, 'ok', 'the run is ok');
  const node = run === undefined ? undefined : sessionNode(run);
  t.equal(node?.status, 'ok', 'the session node ends well');
  t.match(node?.output, { endedBy: 'idle', idleMs: 1000 }, 'saying it ended idle, and after how long');
});

t.test('a client still connected is never idle; one that comes back starts a new run', async (t) => {
  const { runId, url, client } = await session(t, '1');
  const sessionId = client.transport.sessionId as string;
  t.ok(sessionId, 'the server gave the session an id');
  // Nothing can signal that nothing happened: wait three idle periods with the client's event stream open.
  await sleep(3000);
  t.equal((await getRun(serve, runId)).status, 'running', 'still running after 3 s: its event stream is open');
  await client.client.close();
  await waitForAsync(async () => (await getRun(serve, runId)).status !== 'running', 15_000, 'the run to end');
  const before = new Set(await runIds(serve));
  // The same session id again (the server still knows it): followed as a new run.
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
  });
  t.equal(answer.status, 200, 'the server still answers in that session');
  await answer.text();
  const [again] = await newRuns(serve, before);
  const view = (await api(serve.port, serve.token, 'GET', `/api/runs/${again}`)).json as SessionView;
  t.equal(view.meta.sessionId, sessionId, 'a new run, for the same session id');
});

t.test('--session-idle 0: never ends for being idle', async (t) => {
  const { runId, client } = await session(t, '0');
  await client.client.close();
  // Again nothing to wait for but time: past what the first test took to end.
  await sleep(2500);
  t.equal((await getRun(serve, runId)).status, 'running', 'still running');
});
