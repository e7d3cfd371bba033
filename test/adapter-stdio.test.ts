// A stdio MCP server wrapped with the adapter, in its own process
// (test/fixtures/adapter/stdio-server.mjs, which imports
// `graphmind-ai/adapter` by the package's name):
//
// - stdout purity: on every SDK, nothing but protocol reaches stdout, while
//   a call is held past the one-time warning and when no debugger runs;
// - 2.x serveStdio on the 2026-07-28 era, driven by a pinned 2.x client: a
//   bare injected value is stamped by the SDK's own encode seam (which runs
//   after the adapter's gate) and accepted;
// - what a run and an instance are when serveStdio calls the factory twice
//   on one connection.
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import t from 'tap';
import {
  ABORT,
  RunWatch,
  STDIO_SERVER,
  adapterEnv,
  breakpoints,
  decide,
  finishedRun,
  handshake,
  impureLines,
  ingestUrl,
  instanceOf,
  later,
  lineSession,
  setBreakpoints,
  settle,
  startDebugger,
  text,
  waitFor,
  waitForHold,
} from './helpers/adapter.js';
import { liveClient } from './helpers/serve.js';

const serve = await startDebugger(t);
// Somebody watches (a live feed client), as when a viewer is open: the warning these check is the one for a hold that lasts.
const viewer = await liveClient(serve.port, serve.token);
t.teardown(() => viewer.ws.terminate());

const SERVERS: Array<{ name: string; args: string[] }> = [
  { name: 'SDK 1.26.0', args: ['sdk-1-26'] },
  { name: 'SDK 1.32.2', args: ['@modelcontextprotocol/sdk'] },
  { name: 'SDK 2.4.0, McpServer.connect', args: ['@modelcontextprotocol/server', 'connect'] },
  { name: 'SDK 2.4.0, serveStdio', args: ['@modelcontextprotocol/server', 'serve'] },
];

/** The warning line the adapter prints (once) when a hold passes 1 s. */
const WARNING = /^graphmind adapter: tools\/call #1 \(tool:echo\) has been held at the before gate for over 1 s — the MCP client may time out; resume it in http:\/\/127\.0\.0\.1:\d+ \(this warning is shown once\)$/m;

for (const server of SERVERS) {
  t.test(`${server.name}: stdout carries nothing but protocol`, async (t) => {
    t.test('attached, with a call held past the one-time warning', async (t) => {
      await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true } }));
      const session = lineSession(t, [STDIO_SERVER, ...server.args], adapterEnv(serve, { GRAPHMIND_URL: ingestUrl(serve), ADAPTER_WAIT: '1' }));
      await handshake(session);
      session.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'held' } } });
      const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
      await waitFor(() => WARNING.test(session.stderr()), 5000, 'the warning');
      t.match(session.stderr(), WARNING, 'after 1 s on hold, one warning on stderr');
      await decide(serve, hold.holdId, 'inject', 'injected');
      t.strictSame((await session.answer(1)).result, text('injected'), 'the injected answer');
      session.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'stats', arguments: { label: 'x' } } });
      t.match((await session.answer(2)).result, { structuredContent: { count: 1, label: 'x' } }, 'an unheld call');
      await session.close();
      t.strictSame(impureLines(session.stdout()), [], 'every stdout line is a JSON-RPC message');
      t.equal(session.stderr().match(/graphmind adapter:/g)?.length, 1, 'the warning was shown once');
      const run = await finishedRun(serve, hold.runId);
      t.strictSame(instanceOf(run, 'tool:echo').output, text('injected'));
    });

    t.test('no debugger running', async (t) => {
      const session = lineSession(t, [STDIO_SERVER, ...server.args], adapterEnv(undefined, { GRAPHMIND_URL: ingestUrl(undefined), ADAPTER_WAIT: '1' }));
      await handshake(session);
      session.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'alone' } } });
      t.strictSame((await session.answer(1)).result, text('echo alone'), 'the server answers as usual');
      session.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope', arguments: {} } });
      await session.answer(2);
      await session.close();
      t.strictSame(impureLines(session.stdout()), [], 'every stdout line is a JSON-RPC message');
      t.notMatch(session.stderr(), /graphmind/, 'and nothing of ours on stderr either');
    });
  });
}

/** A v2 stdio transport that probes in place (any subclass does), so the whole session is one process. */
class InPlaceStdioTransport extends StdioClientTransport {}

t.test('2.x serveStdio on 2026-07-28 with a pinned 2.x client: a bare injected value is accepted', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true }, 'tool:stats': { before: true } }));
  const watch = await RunWatch.start(serve);
  const transport = new InPlaceStdioTransport({
    command: process.execPath,
    args: [STDIO_SERVER, '@modelcontextprotocol/server', 'serve'],
    env: adapterEnv(serve, { GRAPHMIND_URL: ingestUrl(serve), ADAPTER_WAIT: '1' }) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new ClientV2({ name: 'era-client', version: '0.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  t.teardown(() => client.close().catch(() => {}));
  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28', 'the peers speak the 2026-07-28 era');
  await client.listTools();

  const echo = later(client.callTool({ name: 'echo', arguments: { text: 'a' } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
  await decide(serve, hold.holdId, 'inject', 'modern bare value');
  const { _meta: echoMeta, ...echoResult } = (await echo) as Record<string, unknown>;
  t.strictSame(echoResult, text('modern bare value'), 'the 2026 client accepts a bare string: the SDK stamped it after the gate');
  t.match(echoMeta, { 'io.modelcontextprotocol/serverInfo': { name: 'stdio-fixture' } }, 'the SDK stamped it as its own answer');

  const stats = later(client.callTool({ name: 'stats', arguments: { label: 'x' } }));
  const statsHold = await waitForHold(serve, { nodeId: 'tool:stats' });
  await decide(serve, statsHold.holdId, 'inject', { count: 5, label: 'injected' });
  const { _meta: _statsMeta, ...statsResult } = (await stats) as Record<string, unknown>;
  t.strictSame(
    statsResult,
    { content: [{ type: 'text', text: '{"count":5,"label":"injected"}' }], structuredContent: { count: 5, label: 'injected' } },
    'an object is lifted with structuredContent, and the outputSchema accepts it',
  );
  const aborted = later(client.callTool({ name: 'echo', arguments: { text: 'b' } }));
  const abortHold = await waitForHold(serve, { nodeId: 'tool:echo' });
  await decide(serve, abortHold.holdId, 'abort');
  t.match(await settle(aborted), { ok: false, code: ABORT }, 'an abort reaches the 2026 client as -32099');
  const run = await finishedRun(serve, hold.runId);
  t.equal(run.name, 'tools/call:echo');
  t.strictSame(instanceOf(run, 'tool:echo').output, text('modern bare value'), 'the run records the lifted value as the adapter returned it');
  // One probe (server/discover), then pinned to the same instance: the factory ran once.
  t.strictSame(stderr.match(/^factory \d+$/gm), ['factory 1'], 'on the modern era the factory is called once per connection');
  const connects = await watch.named('mcp:connect stdio-fixture', 1);
  t.equal(connects.length, 1, 'and so one mcp:connect run');
  t.equal(instanceOf(run, 'tool:echo').instanceId.split(':')[0], connects[0]?.meta.connection, 'whose connection namespaces the call');
});

t.test('serveStdio calling the factory twice on one connection: what a run and an instance are', async (t) => {
  // A client that probes with server/discover and then falls back to initialize
  // (as a client that cannot use what discover offers does): serveStdio
  // builds one instance for the probe, discards it, and builds another for
  // the 2025 session. Each build is wrapped, so each is its own adapter
  // connection with its own mcp:connect run (c<n>, then c<n+1>). A request is
  // still one run, and its instance is the request id namespaced by the
  // connection of the instance that handled it: the second.
  await setBreakpoints(serve, breakpoints());
  const watch = await RunWatch.start(serve);
  const session = lineSession(t, [STDIO_SERVER, '@modelcontextprotocol/server', 'serve'], adapterEnv(serve, { GRAPHMIND_URL: ingestUrl(serve), ADAPTER_WAIT: '1' }));
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'line-client', version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  session.send({ jsonrpc: '2.0', id: 'probe', method: 'server/discover', params: { _meta: meta } });
  t.match((await session.answer('probe')).result, { supportedVersions: ['2026-07-28'] }, 'the probe is answered by the first instance');
  await handshake(session);
  session.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after fallback' } } });
  t.strictSame((await session.answer(7)).result, text('echo after fallback'));
  // The process ends as soon as its stdin does: what the adapter has not sent yet must still reach the debugger.
  await session.close();
  t.strictSame(session.stderr().match(/^factory \d+$/gm), ['factory 1', 'factory 2'], 'the factory was called twice');
  const connects = await watch.named('mcp:connect stdio-fixture', 2);
  const [probe, fallback] = connects.map((run) => String(run.meta.connection));
  t.not(probe, fallback, 'two adapter connections, one per instance');
  const call = await watch.one('tools/call:echo');
  t.equal(instanceOf(call, 'tool:echo').instanceId, `${fallback}:7`, 'the call is an instance of the second connection: <connection>:<request id>');
  t.equal(call.meta.connection, fallback);
  t.strictSame(impureLines(session.stdout()), [], 'stdout stays pure');
});
