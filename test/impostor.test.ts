// An impostor on the debugger's port (issue 29, finding 8; control API
// security rule 12): a plain HTTP + WebSocket server that answers every
// request 200 and accepts every upgrade, and records everything it gets.
// Every client of the debugger runs against it — mcp-proxy (real SDK
// client and server over stdio), http-proxy, the adapter, graphmind mcp,
// export and import — and the impostor must receive neither the token (no
// Authorization header, no token anywhere in what it got) nor any session
// traffic (no upgrade, no message, no request but the identity check),
// while the client's calls still work and stderr says so once.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { WebSocketServer } from 'ws';
import { STDIO_SERVER, handshake, lineSession } from './helpers/adapter.js';
import { CLI, PROXY_FIXTURES, waitFor } from './helpers/cli.js';
import { kill, sdkSession, tempDir } from './helpers/graph.js';
import type { ServeProcess } from './helpers/serve.js';
import { connect, startFixture, startHttpProxy, text } from './fixtures/http/harness.js';
import { startMcp } from './fixtures/mcp/mcp-session.js';

/** The token every client here holds (the impostor does not). */
const TOKEN = 'the-secret-token-an-impostor-must-never-see-0123456789abcdef';

/** What the impostor got: each request and upgrade, whole. */
interface Seen {
  kind: 'request' | 'upgrade';
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Impostor {
  port: number;
  seen: Seen[];
  /** WebSocket messages received. */
  messages: string[];
  /** Identity checks it was asked (each answered with anything but a proof). */
  checks(): number;
}

/** The impostor: 200 `{"ok":true}` to every request, every upgrade accepted; everything recorded. */
async function impostor(t: Test): Promise<Impostor> {
  const seen: Seen[] = [];
  const messages: string[] = [];
  const wss = new WebSocketServer({ noServer: true });
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ kind: 'request', method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  http.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    seen.push({ kind: 'upgrade', method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
    wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (data) => messages.push(data.toString())));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  t.teardown(async () => {
    for (const ws of wss.clients) ws.terminate();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  return { port: (http.address() as AddressInfo).port, seen, messages, checks: () => seen.filter((s) => s.url.startsWith('/api/identity')).length };
}

/** The impostor got nothing but identity checks: no token, no upgrade, no message, no other request. */
function gotNothing(t: Test, imp: Impostor, who: string): void {
  t.ok(imp.checks() >= 1, `${who}: it was asked to prove itself (${imp.checks()} time(s))`);
  const other = imp.seen.filter((s) => !(s.kind === 'request' && s.method === 'GET' && /^\/api\/identity\?nonce=[0-9a-f]{64}$/.test(s.url) && s.body === ''));
  t.same(other, [], `${who}: no request but the identity check, and no upgrade`);
  t.same(
    imp.seen.filter((s) => s.headers.authorization !== undefined),
    [],
    `${who}: no Authorization header`,
  );
  t.notMatch(JSON.stringify(imp.seen), TOKEN, `${who}: the token is nowhere in what it got`);
  t.same(imp.messages, [], `${who}: no session traffic`);
}

/** How many times `text` holds the impostor line for `port`. */
function impostorLines(text: string, port: number): number {
  return text.split('\n').filter((line) => line.includes(`something else answers on port ${port} (it could not prove it is the debugger)`)).length;
}

/** An environment without the developer's GRAPHMIND_*, holding {@link TOKEN}. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) env[key] = value;
  return { ...env, GRAPHMIND_TOKEN: TOKEN, ...extra };
}

t.test('mcp-proxy: the SDK client and server talk through it; the impostor gets nothing; one line', async (t) => {
  const imp = await impostor(t);
  const session = await sdkSession({ port: imp.port, server: [process.execPath, join(PROXY_FIXTURES, 'sdk1-server.mjs')], env: cleanEnv() });
  t.teardown(() => kill(session.pid));
  t.same(await session.client.callTool({ name: 'echo', arguments: { text: 'hello' } }), { content: [{ type: 'text', text: 'hello' }] }, 'a call goes through');
  // Retried with backoff (250 ms, 500 ms, 1 s, …): three checks, one line.
  await waitFor(() => imp.checks() >= 3, 15_000, 'three identity checks');
  t.same(await session.client.callTool({ name: 'echo', arguments: { text: 'again' } }), { content: [{ type: 'text', text: 'again' }] });
  await session.close();
  gotNothing(t, imp, 'mcp-proxy');
  t.equal(impostorLines(session.stderr(), imp.port), 1, `the line once, after ${imp.checks()} checks`);
  t.match(session.stderr(), `graphmind mcp-proxy: something else answers on port ${imp.port} (it could not prove it is the debugger); not sending it the token or any session, and going on without a debugger`);
});

t.test('http-proxy: calls go through; the impostor gets nothing; one line', async (t) => {
  const imp = await impostor(t);
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  // As if a debugger were there: the proxy is told its port and data dir, and waits for it to attach (it never does).
  const pretend = { port: imp.port, dataDir: tempDir() } as unknown as ServeProcess;
  const proxy = await startHttpProxy(t, server.url, { serve: pretend, env: { GRAPHMIND_TOKEN: TOKEN } });
  const { client } = await connect(t, proxy.url, '1');
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'through' } }), text('echo through'), 'a call goes through');
  await waitFor(() => imp.checks() >= 3, 15_000, 'three identity checks');
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'still' } }), text('echo still'));
  gotNothing(t, imp, 'http-proxy');
  t.equal(impostorLines(proxy.stderr(), imp.port), 1, `the line once, after ${imp.checks()} checks`);
  t.match(proxy.stderr(), `graphmind http-proxy: something else answers on port ${imp.port}`);
});

t.test('the adapter: the wrapped server answers; the impostor gets nothing; one line', async (t) => {
  const imp = await impostor(t);
  const session = lineSession(t, [STDIO_SERVER, '@modelcontextprotocol/sdk'], cleanEnv({ GRAPHMIND_URL: `ws://127.0.0.1:${imp.port}/ingest` }));
  await handshake(session);
  session.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'wrapped' } } });
  t.match(await session.answer(1), { result: { content: [{ type: 'text', text: 'echo wrapped' }] } }, 'a call is answered');
  await waitFor(() => imp.checks() >= 3, 15_000, 'three identity checks');
  session.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'again' } } });
  t.match(await session.answer(2), { result: { content: [{ type: 'text', text: 'echo again' }] } });
  await session.close();
  gotNothing(t, imp, 'adapter');
  t.equal(impostorLines(session.stderr(), imp.port), 1, `the line once, after ${imp.checks()} checks`);
  t.match(session.stderr(), `graphmind adapter: something else answers on port ${imp.port}`);
});

t.test('graphmind mcp: reads the data directory instead; the impostor gets nothing; said once', async (t) => {
  const imp = await impostor(t);
  const dataDir = tempDir();
  const mcp = await startMcp(t, 'sdk1', { dataDir, port: imp.port, allowControl: true, env: { GRAPHMIND_TOKEN: TOKEN } });
  t.equal((await mcp.data('list_runs')).from, 'data-dir', 'runs come from the data directory');
  t.equal((await mcp.data('list_runs')).from, 'data-dir', 'again');
  t.match(await mcp.refusal('list_holds'), { code: 'debugger-refused', text: new RegExp(`^list_holds needs a running graphmind serve: something else answers on port ${imp.port} \\(it could not prove it is the debugger\\); not sending it the token$`) });
  gotNothing(t, imp, 'graphmind mcp');
  t.equal(impostorLines(mcp.stderr(), imp.port), 1, `said once, after ${imp.checks()} checks`);
});

/** Run the CLI with {@link TOKEN}; its exit code and output. */
async function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv() });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

t.test('import and export: the data directory instead; the impostor gets neither the token nor the run', async (t) => {
  const imp = await impostor(t);
  const dataDir = tempDir();
  const work = tempDir();
  const log = join(work, 'run.jsonl');
  const runId = 'run_impostor_1';
  const events = [
    { type: 'run.started', runId, seq: 1, t: 1_700_000_000_000, name: 'a run for nobody else', source: 'mcp-proxy', meta: {} },
    { type: 'run.finished', runId, seq: 2, t: 1_700_000_000_001, status: 'ok' },
  ];
  writeFileSync(log, events.map((event) => `${JSON.stringify(event)}\n`).join(''));

  const imported = await cli(['import', log, '--port', String(imp.port), '--data-dir', dataDir]);
  t.equal(imported.code, 0, imported.stderr);
  t.equal(impostorLines(imported.stderr, imp.port), 1, 'import says so once');
  t.match(imported.stdout, `wrote run ${runId} to ${join(dataDir, 'runs', `${runId}.jsonl`)}`, 'and writes the run where the next serve loads it');

  const exported = await cli(['export', runId, '--port', String(imp.port), '--data-dir', dataDir]);
  t.equal(exported.code, 0, exported.stderr);
  t.equal(impostorLines(exported.stderr, imp.port), 1, 'export says so once');
  t.match(exported.stderr, `; reading ${dataDir} instead`);
  t.same(exported.stdout, readFileSync(log, 'utf8'), 'and exports the run from the data directory');
  gotNothing(t, imp, 'import and export');
  t.notMatch(JSON.stringify(imp.seen), 'a run for nobody else', 'the run itself was not sent');
});

t.test('a look-alike that answers with a proof for another token gets nothing either', async (t) => {
  // Such as a graphmind serve of another data directory: told as a refusal (the other token), never sent a thing.
  const seen: Seen[] = [];
  const http = createServer((req, res) => {
    seen.push({ kind: 'request', method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ proof: 'ab'.repeat(32) }));
  });
  http.on('upgrade', (req, socket: Duplex) => {
    seen.push({ kind: 'upgrade', method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
    socket.destroy();
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  t.teardown(() => new Promise((resolve) => http.close(resolve)));
  const port = (http.address() as AddressInfo).port;
  const session = await sdkSession({ port, server: [process.execPath, join(PROXY_FIXTURES, 'sdk1-server.mjs')], env: cleanEnv() });
  t.teardown(() => kill(session.pid));
  t.same(await session.client.callTool({ name: 'echo', arguments: { text: 'hi' } }), { content: [{ type: 'text', text: 'hi' }] });
  await waitFor(() => session.stderr().includes('refused this proxy'), 10_000, 'the refusal line');
  await session.close();
  t.ok(seen.length >= 1 && seen.every((s) => s.kind === 'request' && s.url.startsWith('/api/identity?nonce=') && s.headers.authorization === undefined), 'only identity checks, no token');
  t.match(session.stderr(), /its token is not the one this proxy presents/);
});
