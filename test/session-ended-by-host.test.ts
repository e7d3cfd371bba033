// A session the host ends is not a crashed server (issue 30, "what really
// failed"). A real SDK client drives `graphmind mcp-proxy` over a real SDK
// server, recorded by a real `graphmind serve`:
//
// - the host signals the proxy (Claude Code's health check ends with
//   SIGINT), the proxy passes the signal on and the server dies of it: the
//   session node ends well, saying the host ended it, and the run is ok;
// - the host closes the proxy's input and the server exits: the same;
// - the server is killed by a signal nobody in the session sent (SIGKILL
//   from elsewhere): still `McpServerExited`, an error on the node.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Instance, Run } from '../src/protocol/run-model.js';
import { descendantsOf } from '../src/proxy/process-tree.js';
import { PROXY_FIXTURES, waitFor } from './helpers/cli.js';
import { alive, kill, sdkSession, serveOnPort, freePort, tempDir, waitForRun, type ServeOnPort } from './helpers/graph.js';

const SERVER = [process.execPath, join(PROXY_FIXTURES, 'sdk2-server.mjs')];

let serve: ServeOnPort;
t.before(async () => {
  serve = await serveOnPort(await freePort(), tempDir());
});
t.teardown(() => serve.stop());

/** The session node's one instance in `run`. */
function sessionOf(run: Run): Instance {
  const session = run.instances.find((instance) => instance.nodeId === 'mcp:session');
  if (session === undefined) throw new Error('the run has no session instance');
  return session;
}

/** Start a session, make one call, and return it with the server's pid. */
async function oneCall(t: Test): Promise<{ session: Awaited<ReturnType<typeof sdkSession>>; serverPid: number }> {
  const session = await sdkSession({ port: serve.port, server: SERVER, env: { GRAPHMIND_DATA_DIR: serve.dataDir } });
  t.teardown(() => kill(session.pid));
  const result = await session.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  t.match(result, { content: [{ type: 'text', text: 'hi' }] }, 'the call is answered');
  const [server] = descendantsOf(session.pid);
  if (server === undefined) throw new Error('the proxy has no server process');
  return { session, serverPid: server.pid };
}

t.test('SIGINT from the host, passed on: the server died of it, a normal end', async (t) => {
  const { session, serverPid } = await oneCall(t);
  kill(session.pid, 'SIGINT');
  await waitFor(() => !alive(session.pid) && !alive(serverPid), 10_000, 'the proxy and its server to exit');
  const run = await waitForRun(serve, session.pid);
  const node = sessionOf(run);
  t.equal(run.status, 'ok', 'the run is ok');
  t.equal(node.status, 'ok', 'the session node ends well, not red');
  t.match(node.output, { signal: 'SIGINT', endedBy: 'host' }, 'and says the host ended it, by SIGINT');
  t.equal(node.error, undefined, 'no McpServerExited');
});

t.test('the host closes the input: the server exits, a normal end', async (t) => {
  const { session, serverPid } = await oneCall(t);
  await session.close();
  await waitFor(() => !alive(serverPid), 10_000, 'the server to exit');
  const run = await waitForRun(serve, session.pid);
  const node = sessionOf(run);
  t.equal(run.status, 'ok', 'the run is ok');
  t.equal(node.status, 'ok', 'the session node ends well');
  t.match(node.output, { endedBy: 'host' }, 'ended by the host');
});

t.test('killed by a signal nobody in the session sent: still a server exit', async (t) => {
  const { session, serverPid } = await oneCall(t);
  kill(serverPid, 'SIGKILL');
  await waitFor(() => !alive(session.pid), 10_000, 'the proxy to exit with its server');
  const run = await waitForRun(serve, session.pid);
  const node = sessionOf(run);
  t.equal(node.status, 'error', 'the session node is an error');
  t.match(node.error, { name: 'McpServerExited', data: { signal: 'SIGKILL' } }, 'McpServerExited, killed by SIGKILL');
  t.equal((node.output as { endedBy?: string } | undefined)?.endedBy, undefined, 'not said to be the host’s doing');
});
