// The adapter's kill switches, its detached mode and waitForAttach:
// - GRAPHMIND_DISABLED=1 always wins: wrapServer returns the very object,
//   and nothing touches the network (a listener on the adapter's port sees
//   no connection; the same listener does see one when the adapter is on);
// - NODE_ENV=production is off unless GRAPHMIND=1; enabled: false is off;
// - detached (no debugger): a call that a debugger would hold is not held,
//   and the server answers exactly as the unwrapped one; what happened is
//   recorded once a debugger attaches;
// - waitForAttach: connect() waits for a debugger started after it (within
//   2000 ms), so the first request is already gated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import * as z from 'zod';
import { graphmind } from '../src/adapter/index.js';
import { startServer } from '../src/server/serve.js';
import {
  KITS,
  adapter,
  adapterEnv,
  connectInMemory,
  connectionCounter,
  decide,
  finishedRun,
  freePort,
  ingestUrl,
  instanceOf,
  kit,
  later,
  listHolds,
  samplingAnswer,
  runList,
  samplingParams,
  setBreakpoints,
  settle,
  sleep,
  startDebugger,
  startServeOn,
  text,
  waitFor,
  waitForAsync,
  waitForHold,
  type Kit,
  type Loose,
} from './helpers/adapter.js';

/** How long a test gives an adapter that is on to make its first connection (it makes it at once). */
const CONNECT_GRACE_MS = 400;

/** Register the same surface on `server` (wrapped or not). */
function register(k: Kit, server: Loose): Loose {
  server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(`echo ${value}`));
  server.registerTool('zero', { description: 'No arguments' }, async () => text('zero'));
  server.registerTool('throws', { description: 'Throws' }, async () => {
    throw new Error('thrown');
  });
  server.registerTool('reports', { description: 'isError' }, async () => ({ content: [{ type: 'text', text: 'reported' }], isError: true }));
  server.registerTool(
    'stats',
    { description: 'Structured', inputSchema: k.schema({ label: z.string() }), outputSchema: k.schema({ label: z.string() }) },
    async ({ label }: { label: string }) => ({ content: [{ type: 'text', text: label }], structuredContent: { label } }),
  );
  server.registerTool('asks', { description: 'Samples' }, async (context: Loose) => {
    const answer = await k.sample(context, server, 'send', samplingParams('q'));
    return text(answer.content.text);
  });
  server.registerResource('fixed', 'test://fixed', { mimeType: 'text/plain' }, async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'fixed' }] }));
  server.registerResource('item', k.template('test://item/{id}'), {}, async (uri: URL, variables: Record<string, string>) => ({
    contents: [{ uri: uri.href, text: `item ${variables.id}` }],
  }));
  server.registerPrompt('greet', { description: 'Greet', argsSchema: k.schema({ name: z.string() }) }, ({ name }: { name: string }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
  }));
  return server;
}

/** The same requests against a client; what each answered. */
async function exercise(client: Loose): Promise<unknown[]> {
  return [
    await settle(client.listTools()),
    await settle(client.callTool({ name: 'echo', arguments: { text: 'x' } })),
    await settle(client.callTool({ name: 'zero', arguments: {} })),
    await settle(client.callTool({ name: 'throws', arguments: {} })),
    await settle(client.callTool({ name: 'reports', arguments: {} })),
    await settle(client.callTool({ name: 'stats', arguments: { label: 'l' } })),
    await settle(client.callTool({ name: 'asks', arguments: {} })),
    await settle(client.callTool({ name: 'missing', arguments: {} })),
    await settle(client.callTool({ name: 'echo', arguments: { text: 42 } })),
    await settle(client.readResource({ uri: 'test://fixed' })),
    await settle(client.readResource({ uri: 'test://item/7' })),
    await settle(client.readResource({ uri: 'test://nowhere' })),
    await settle(client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })),
  ];
}

t.test('GRAPHMIND_DISABLED=1: wrapServer returns the very object, and nothing touches the network', async (t) => {
  for (const extra of [{}, { GRAPHMIND: '1' }] as Array<Record<string, string>>) {
    const listener = await connectionCounter(t);
    const url = `ws://127.0.0.1:${listener.port}/ingest`;
    const gm = graphmind({ url, enabled: true, waitForAttach: true, env: adapterEnv(undefined, { GRAPHMIND_DISABLED: '1', GRAPHMIND_URL: url, ...extra }) });
    for (const k of KITS) {
      const server = k.mcpServer('disabled');
      t.equal(gm.wrapServer(server), server, `SDK ${k.label}: the very object`);
      const low = k.lowServer('disabled-low');
      t.equal(gm.wrapServer(low), low, `SDK ${k.label}: a low-level Server too`);
      register(k, server);
      const client = await connectInMemory(t, k, server, () => samplingAnswer('a'));
      t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'x' } }), text('echo x'));
    }
    t.equal(gm.session.mode, 'disabled-by-env');
    t.equal(gm.session.enabled, false);
    t.equal(await gm.ready(200), false, 'never ready');
    await sleep(CONNECT_GRACE_MS);
    t.equal(listener.count(), 0, `no connection was made${extra.GRAPHMIND === undefined ? '' : ', even with GRAPHMIND=1'}`);
    await gm.dispose();
  }
});

t.test('an adapter that is on connects at once (the control for the tests that expect no connection)', async (t) => {
  const listener = await connectionCounter(t);
  const gm = graphmind({ url: `ws://127.0.0.1:${listener.port}/ingest`, env: adapterEnv(undefined) });
  t.teardown(() => gm.dispose());
  await waitFor(() => listener.count() > 0, 5000, 'a connection');
  t.ok(listener.count() > 0, 'the listener saw a connection');
});

t.test('NODE_ENV=production: off unless GRAPHMIND=1', async (t) => {
  const off = await connectionCounter(t);
  const gmOff = graphmind({ url: `ws://127.0.0.1:${off.port}/ingest`, env: adapterEnv(undefined, { NODE_ENV: 'production' }) });
  const server = kit('1.32.2').mcpServer('prod');
  t.equal(gmOff.wrapServer(server), server, 'the very object');
  t.equal(gmOff.session.mode, 'production');
  const on = await connectionCounter(t);
  const gmOn = graphmind({ url: `ws://127.0.0.1:${on.port}/ingest`, env: adapterEnv(undefined, { NODE_ENV: 'production', GRAPHMIND: '1' }) });
  t.teardown(() => gmOn.dispose());
  t.not(gmOn.wrapServer(server), server, 'with GRAPHMIND=1 it wraps');
  t.equal(gmOn.session.mode, 'on');
  await sleep(CONNECT_GRACE_MS);
  t.equal(off.count(), 0, 'off: no connection');
  t.ok(on.count() > 0, 'on: it connects');
});

t.test('enabled: false', async (t) => {
  const listener = await connectionCounter(t);
  const gm = graphmind({ enabled: false, url: `ws://127.0.0.1:${listener.port}/ingest`, env: adapterEnv(undefined) });
  for (const k of KITS) {
    const server = k.mcpServer('off');
    t.equal(gm.wrapServer(server), server, `SDK ${k.label}: the very object`);
  }
  t.equal(gm.session.mode, 'disabled-by-option');
  t.equal(gm.session.event('x'), false);
  t.strictSame(gm.session.stats, { runs: 0, calls: 0, errors: 0, holds: 0, sampling: 0 });
  await sleep(CONNECT_GRACE_MS);
  t.equal(listener.count(), 0, 'no connection');
});

t.test('detached: nothing holds, and the server answers exactly as unwrapped', async (t) => {
  const serve = await startDebugger(t);
  // The debugger here would hold everything: the adapter reports elsewhere, so it is detached.
  await setBreakpoints(serve, {
    pauseOnError: true,
    nodes: { 'tool:echo': { before: true, after: true }, 'resource:fixed': { before: true }, 'prompt:greet': { before: true }, 'llm:sampling': { before: true } },
  });
  for (const k of KITS) {
    const gm = await adapter(t, undefined);
    const wrapped = register(k, gm.wrapServer(k.mcpServer('detached')));
    const plain = register(k, k.mcpServer('detached'));
    const answer = (params: Loose): unknown => samplingAnswer(`sampled ${params.messages[0].content.text}`);
    const wrappedClient = await connectInMemory(t, k, wrapped, answer);
    const plainClient = await connectInMemory(t, k, plain, answer);
    const got = await exercise(wrappedClient);
    t.strictSame(got, await exercise(plainClient), `SDK ${k.label}: every answer is the unwrapped server's`);
    t.equal(gm.session.attached, false);
    t.equal(gm.session.stats.holds, 0, 'nothing held');
  }
  t.strictSame(await listHolds(serve), [], 'no hold anywhere');
});

for (const label of ['1.32.2', '2.4.0'] as const) {
  t.test(`SDK ${label}: waitForAttach makes connect() wait for a debugger started after it, so request #1 is gated`, async (t) => {
    const k = kit(label);
    const port = await freePort();
    const root = mkdtempSync(join(tmpdir(), 'graphmind-adapter-attach-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const dataDir = join(root, 'data');
    const gm = graphmind({ app: 'late', waitForAttach: true, url: `ws://127.0.0.1:${port}/ingest`, env: adapterEnv(undefined, { GRAPHMIND_DATA_DIR: dataDir }) });
    t.teardown(() => gm.dispose());
    const server = gm.wrapServer(k.mcpServer('late'));
    let calls = 0;
    server.registerTool('first', { description: 'fails the first time' }, async () => {
      calls++;
      if (calls === 1) throw new Error('first call fails');
      return text('fine');
    });
    const [serverSide, clientSide] = k.pair();
    const started = Date.now();
    let returnedAt = 0;
    const connecting = server.connect(serverSide).then(() => (returnedAt = Date.now()));
    // The debugger, in this process: a spawned one can take longer than the 2 s wait to boot on a loaded machine,
    // which would test the machine, not the wait.
    const inProcess = await startServer({ port, host: '127.0.0.1', dataDir, env: {}, version: 'test' });
    t.teardown(() => inProcess.close());
    const serve = { port: inProcess.port, token: inProcess.token } as unknown as Awaited<ReturnType<typeof startServeOn>>;
    await connecting;
    const waited = returnedAt - started;
    t.ok(waited <= 2300, `connect() waited ${waited} ms, within its 2000 ms`);
    t.equal(gm.session.attached, true, 'and the debugger is attached when it returns');
    const client = k.client();
    await client.connect(clientSide);
    t.teardown(() => client.close().catch(() => {}));
    // The fresh debugger pauses on error by default: request #1 holds at the error gate only if its gate was armed in time.
    const first = later(client.callTool({ name: 'first', arguments: {} }));
    const hold = await waitForHold(serve, { nodeId: 'tool:first', gate: 'error' });
    t.match(hold.frame, { error: { message: 'first call fails' } }, 'request #1 is held');
    await decide(serve, hold.holdId, 'retry');
    t.strictSame(await first, text('fine'), 'and retried');
  });

  t.test(`SDK ${label}: without a debugger, waitForAttach gives up after 2000 ms`, async (t) => {
    const k = kit(label);
    const gm = graphmind({ waitForAttach: true, url: ingestUrl(undefined), env: adapterEnv(undefined) });
    t.teardown(() => gm.dispose());
    const server = gm.wrapServer(k.mcpServer('alone'));
    server.registerTool('echo', { description: 'Echo' }, async () => text('alone'));
    const started = Date.now();
    const client = await connectInMemory(t, k, server);
    const waited = Date.now() - started;
    t.ok(waited >= 1900 && waited < 3000, `connect() waited ${waited} ms`);
    t.strictSame(await client.callTool({ name: 'echo', arguments: {} }), text('alone'), 'then serves as usual');
  });
}

t.test('calls made while detached are recorded once a debugger attaches', async (t) => {
  const k = kit('1.32.2');
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'graphmind-adapter-replay-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = join(root, 'data');
  const gm = graphmind({ app: 'replay', url: `ws://127.0.0.1:${port}/ingest`, env: adapterEnv(undefined, { GRAPHMIND_DATA_DIR: dataDir }) });
  t.teardown(() => gm.dispose());
  const server = gm.wrapServer(k.mcpServer('replay'));
  server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(`echo ${value}`));
  const client = await connectInMemory(t, k, server);
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'before' } }), text('echo before'));
  // A fresh debugger: every run it knows is this test's.
  const serve = await startServeOn(t, port, dataDir);
  t.ok(await gm.ready(5000), 'attached');
  let summary: { runId: string } | undefined;
  await waitForAsync(async () => (summary = (await runList(serve)).find((run) => run.name === 'tools/call:echo' && run.status !== 'running')) !== undefined, 5000, 'the replayed run');
  const run = await finishedRun(serve, (summary as { runId: string }).runId);
  t.equal(run.source, 'mcp-adapter', 'the detached call became a run');
  t.strictSame(instanceOf(run, 'tool:echo').input, { text: 'before' });
  t.strictSame(instanceOf(run, 'tool:echo').output, text('echo before'));
});
