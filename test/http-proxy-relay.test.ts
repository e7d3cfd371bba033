// `graphmind http-proxy` relaying real SDK Streamable HTTP servers (1.x and
// 2.x, stateful and stateless, SSE and JSON answers) to real SDK clients:
// tools, resources, prompts, progress, server→client sampling over SSE,
// resumption with Last-Event-ID, session DELETE; each MCP session recorded
// as one run in a real `graphmind serve` with the stdio proxy's node table;
// bytes relayed exactly; the MCP headers (Authorization included) passed on
// and never recorded; fail-open with no debugger and with the server down.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { api } from './helpers/serve.js';
import { getRun, newRuns, runIds, setBreakpoints, startDebugger, waitForAsync, type RunView } from './helpers/gates.js';
import { CLI, waitFor } from './helpers/cli.js';
import { SERVER_KINDS, connect, messagesIn, startFixture, startHttpProxy, text, type ServerKind } from './fixtures/http/harness.js';

const serve = await startDebugger(t);
await setBreakpoints(serve, { pauseOnError: false, nodes: {} });

/** The full JSON of a run, as the API gives it. */
async function runText(runId: string): Promise<string> {
  return (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`)).text;
}

interface FullRun extends RunView {
  name: string;
  source: string;
  meta: Record<string, unknown>;
  nodes: Array<{ nodeId: string; parent: string | null; status: string; kind?: string }>;
}

async function fullRun(runId: string): Promise<FullRun> {
  return (await getRun(serve, runId)) as FullRun;
}

/** Wait until a run satisfies `predicate`. */
async function runWhere(runId: string, predicate: (run: FullRun) => boolean, what: string): Promise<FullRun> {
  let run: FullRun | undefined;
  await waitForAsync(async () => predicate((run = await fullRun(runId))), 10_000, what);
  return run as FullRun;
}

function parentOf(run: FullRun, nodeId: string): string | null | undefined {
  return run.nodes.find((node) => node.nodeId === nodeId)?.parent;
}

for (const kind of SERVER_KINDS) {
  const label = `SDK ${kind.sdk}.x, ${kind.mode}, ${kind.response} answers`;
  t.test(`${label}: a real client through the proxy, recorded`, async (t) => {
    const server = await startFixture(t, kind);
    const proxy = await startHttpProxy(t, server.url, { serve });
    const before = new Set(await runIds(serve));
    const { client, transport } = await connect(t, proxy.url, kind.sdk);

    t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'through the proxy' } }), text('echo through the proxy'), 'a tool answers');
    t.strictSame(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), text('5'));
    t.match(await client.callTool({ name: 'fail', arguments: {} }), { isError: true, content: [{ text: 'it failed on purpose' }] }, 'a failing tool answers isError');
    t.strictSame(await client.readResource({ uri: 'test://greeting' }), { contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'hello from the resource' }] }, 'a resource');
    t.strictSame(await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }), { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }] }, 'a prompt');
    const progress: number[] = [];
    const onprogress = (p: { progress: number }): number => progress.push(p.progress);
    // 1.x: callTool(params, resultSchema, options); 2.x: callTool(params, options).
    const call = { name: 'progress', arguments: {} };
    t.strictSame(await (kind.sdk === '1' ? client.callTool(call, undefined, { onprogress }) : client.callTool(call, { onprogress })), text('done'));
    if (kind.response === 'sse') t.strictSame(progress, [1, 2, 3], 'progress notifications arrive on the SSE stream');
    const sse = kind.mode === 'stateful' && kind.response === 'sse';
    if (sse) {
      t.strictSame(await client.callTool({ name: 'sample', arguments: { prompt: 'hi' } }), text('sampled: from the client'), 'server→client sampling over SSE');
      t.strictSame(await client.callTool({ name: 'reconnect', arguments: {} }), text('answered after a reconnect'), 'the stream closed mid-call; the client resumed with Last-Event-ID through the proxy');
      const resumed = server.log().find((entry) => entry.dir === 'in' && entry.method === 'GET' && entry.headers?.['last-event-id'] !== undefined);
      t.ok(resumed, 'the server received the GET with Last-Event-ID');
    }

    const fresh = await newRuns(serve, before);
    const runs = await Promise.all(fresh.map((id) => fullRun(id)));
    for (const run of runs) t.equal(run.source, 'mcp-http-proxy');
    if (kind.mode === 'stateful') {
      t.equal(fresh.length, 1, 'one MCP session, one run');
      const runId = fresh[0] as string;
      const sessionId = transport.sessionId;
      t.type(sessionId, 'string');
      const last = sse ? 'tool:reconnect' : 'prompt:greet';
      const run = await runWhere(runId, (r) => r.meta.sessionId === sessionId && r.instances.some((i) => i.nodeId === last && i.status === 'ok'), 'the run recorded');
      t.equal(run.meta.sessionId, sessionId, 'the run carries the Mcp-Session-Id');
      t.match(run.meta, { transport: 'streamable-http', upstream: server.url, serverInfo: { name: `http-fixture-${kind.sdk}` } });
      t.equal(parentOf(run, 'mcp:session'), null, 'the session node');
      t.equal(parentOf(run, 'mcp:protocol'), 'mcp:session', 'protocol traffic is folded');
      t.equal(parentOf(run, 'mcp:initialize'), 'mcp:protocol');
      t.equal(parentOf(run, 'mcp:notifications/initialized'), 'mcp:protocol');
      t.equal(parentOf(run, 'tool:echo'), 'mcp:session', 'a tool call sits under the session');
      t.equal(parentOf(run, 'resource:test://greeting'), 'mcp:session');
      t.equal(parentOf(run, 'prompt:greet'), 'mcp:session');
      t.match(run.instances.find((i) => i.nodeId === 'tool:echo'), { status: 'ok', input: { name: 'echo', arguments: { text: 'through the proxy' } }, output: text('echo through the proxy') });
      t.match(run.instances.find((i) => i.nodeId === 'tool:fail'), { status: 'error', error: { name: 'ToolError' } }, 'an isError result is an error');
      if (sse) {
        t.equal(parentOf(run, 'llm:sampling'), 'mcp:session', 'sampling is a node of its own');
        t.match(run.instances.find((i) => i.nodeId === 'llm:sampling'), { status: 'ok', output: { content: { text: 'from the client' } } });
        t.match(run.instances.find((i) => i.nodeId === 'tool:reconnect'), { status: 'ok', output: text('answered after a reconnect') }, 'the answer that came on the resumed stream is paired with its call');
      }
      await transport.terminateSession();
      const ended = await runWhere(runId, (r) => r.status !== 'running', 'the run to end');
      t.equal(ended.status, 'ok', 'DELETE ends the session and its run');
      t.ok(server.log().some((entry) => entry.dir === 'in' && entry.method === 'DELETE'), 'the DELETE reached the server');
      const stale = await exchange(proxy.url, 'POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId as string }, '{"jsonrpc":"2.0","id":99,"method":"tools/list"}');
      t.equal(stale.status, 404, 'the server forgot the session');
      t.strictSame((await runIds(serve)).filter((id) => !before.has(id)), fresh, 'a request still carrying the ended session id starts no run');
    } else {
      t.ok(fresh.length >= 1, 'a stateless server: runs by client connection');
      const all = await waitForCalls(fresh, ['tool:echo', 'prompt:greet']);
      t.ok(all.some((run) => run.nodes.some((node) => node.nodeId === 'mcp:initialize')), 'the handshake is recorded');
      for (const run of all) t.notOk('sessionId' in run.meta, 'no session id');
    }
  });
}

/** Wait until the runs together hold an instance of each node. */
async function waitForCalls(ids: readonly string[], nodes: readonly string[]): Promise<FullRun[]> {
  let runs: FullRun[] = [];
  await waitForAsync(async () => {
    runs = await Promise.all(ids.map((id) => fullRun(id)));
    return nodes.every((nodeId) => runs.some((run) => run.instances.some((i) => i.nodeId === nodeId && i.status !== 'open')));
  }, 10_000, `instances of ${nodes.join(', ')}`);
  return runs;
}

t.test('a 1.x client to a 2.x server and a 2.x client to a 1.x server', async (t) => {
  for (const [clientSdk, serverSdk] of [['1', '2'], ['2', '1']] as const) {
    const server = await startFixture(t, { sdk: serverSdk, mode: 'stateful', response: 'sse' });
    const proxy = await startHttpProxy(t, server.url, { serve });
    const { client } = await connect(t, proxy.url, clientSdk);
    t.strictSame(await client.callTool({ name: 'sample', arguments: { prompt: 'x' } }), text('sampled: from the client'), `client ${clientSdk}.x, server ${serverSdk}.x`);
  }
});

/** A raw HTTP exchange through node:http: the body's exact bytes both ways. */
function exchange(url: string, method: string, headers: Record<string, string>, body?: string, agent?: false): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = (id: string | number): string =>
  `{ "id" : ${JSON.stringify(id)},"jsonrpc":"2.0",  "method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw \\u00e9 client","version":"1.0"}}}`;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

for (const response of ['json', 'sse'] as const) {
  t.test(`bytes, exactly (${response} answers)`, async (t) => {
    const server = await startFixture(t, { sdk: '1', mode: 'stateful', response });
    const proxy = await startHttpProxy(t, server.url, { serve });
    const before = new Set(await runIds(serve));
    const sent = INIT('init-1');
    const answer = await exchange(proxy.url, 'POST', MCP_HEADERS, sent);
    t.equal(answer.status, 200);
    const logged = server.log();
    const received = logged.find((entry) => entry.dir === 'in' && entry.method === 'POST');
    t.equal(received?.body, sent, 'the server received the body byte for byte (spacing, key order, escapes)');
    const out = logged.find((entry) => entry.dir === 'out' && entry.method === 'POST');
    t.equal(answer.body.toString('utf8'), out?.body, `the client received the server's ${response === 'sse' ? 'event stream' : 'JSON body'} byte for byte`);
    const session = answer.headers['mcp-session-id'] as string;
    t.type(session, 'string', 'the session header came through');
    // A request the server must read with its headers: the session id and the protocol version, unchanged.
    const call = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\\u00e9llo \\ud83d\\ude00"}}}';
    const headers = { ...MCP_HEADERS, 'mcp-session-id': session, 'MCP-Protocol-Version': '2025-06-18', authorization: 'Bearer secret-token-123', cookie: 'sid=secret-cookie-456' };
    const reply = await exchange(proxy.url, 'POST', headers, call);
    const got = server.log().filter((entry) => entry.dir === 'in' && entry.body === call);
    t.equal(got.length, 1, 'the call arrived as sent');
    t.match(got[0]?.headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18', authorization: 'Bearer secret-token-123', cookie: 'sid=secret-cookie-456' }, 'MCP and auth headers pass unchanged');
    const replyOut = server.log().filter((entry) => entry.dir === 'out' && entry.method === 'POST').pop();
    t.equal(reply.body.toString('utf8'), replyOut?.body, 'the answer came back byte for byte');
    const [runId] = await newRuns(serve, before);
    await waitForAsync(async () => (await runText(runId as string)).includes('tool:echo'), 10_000, 'the call recorded');
    const recorded = await runText(runId as string);
    t.notOk(recorded.includes('secret-token-123'), 'no Authorization value in the recorded run');
    t.notOk(recorded.includes('secret-cookie-456'), 'no cookie value in the recorded run');
    t.notOk(recorded.toLowerCase().includes('bearer'), 'no Authorization header at all');
  });
}

t.test('a stateless server: one run per client connection, a new one at each initialize', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateless', response: 'json' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  const before = new Set(await runIds(serve));
  // Two connections of their own (agent: false: one request per connection).
  await exchange(proxy.url, 'POST', MCP_HEADERS, INIT(1), false);
  await exchange(proxy.url, 'POST', MCP_HEADERS, INIT(2), false);
  const fresh = await newRuns(serve, before, 2);
  t.equal(fresh.length, 2, 'two connections, two runs');
  for (const id of fresh) {
    const run = await runWhere(id, (r) => r.status !== 'running', 'a connection closed: its run ends');
    t.equal(run.status, 'ok');
    t.ok(run.nodes.some((node) => node.nodeId === 'mcp:initialize'));
  }
});

t.test('fail-open: no debugger running, the proxy is a plain reverse proxy', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'sse' });
  const proxy = await startHttpProxy(t, server.url);
  const { client } = await connect(t, proxy.url, '1');
  t.strictSame(await client.callTool({ name: 'sample', arguments: { prompt: 'x' } }), text('sampled: from the client'));
  t.strictSame(await client.callTool({ name: 'fail', arguments: {} }), { content: [{ type: 'text', text: 'it failed on purpose' }], isError: true }, 'nothing holds');
  const disabled = await startHttpProxy(t, server.url, { serve, env: { GRAPHMIND_DISABLED: '1' } });
  const before = new Set(await runIds(serve));
  const second = await connect(t, disabled.url, '2');
  t.strictSame(await second.client.callTool({ name: 'echo', arguments: { text: 'off' } }), text('echo off'), 'GRAPHMIND_DISABLED: relayed, not reported');
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.strictSame((await runIds(serve)).filter((id) => !before.has(id)), [], 'no run');
});

t.test('fail-open: the server is down, the client gets a 502 with a clear body and one line on stderr', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  const upstream = server.url;
  await server.stop();
  const proxy = await startHttpProxy(t, upstream, { serve });
  const first = await exchange(proxy.url, 'POST', MCP_HEADERS, INIT(1));
  t.equal(first.status, 502);
  t.match(first.body.toString('utf8'), `graphmind http-proxy: cannot reach the MCP server at ${upstream}: connect ECONNREFUSED`);
  const second = await exchange(proxy.url, 'POST', MCP_HEADERS, INIT(2));
  t.equal(second.status, 502);
  await waitFor(() => proxy.stderr().includes('cannot reach'), 5000, 'the stderr line');
  const lines = proxy.stderr().split('\n').filter((line) => line.includes('cannot reach the MCP server'));
  t.equal(lines.length, 1, 'one line per outage, not per request');
  t.equal(lines[0], `graphmind http-proxy: cannot reach the MCP server at ${upstream}: connect ECONNREFUSED ${new URL(upstream).host}`);
});

t.test('security: loopback only unless told, and only requests addressed to it', async (t) => {
  const refused = spawn(process.execPath, [CLI, 'http-proxy', '--upstream', 'http://127.0.0.1:9/mcp', '--listen', '0.0.0.0:0'], { stdio: 'pipe' });
  let stderr = '';
  refused.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => refused.once('close', resolve));
  t.equal(code, 2, 'a non-loopback --listen is a usage error');
  t.match(stderr, /^graphmind http-proxy: --listen 0\.0\.0\.0:0 is reachable from other hosts.*--allow-remote/);
  const bad = spawn(process.execPath, [CLI, 'http-proxy', '--upstream', 'ftp://x/mcp'], { stdio: 'pipe' });
  let badErr = '';
  bad.stderr.on('data', (chunk: Buffer) => (badErr += chunk.toString()));
  t.equal(await new Promise<number | null>((resolve) => bad.once('close', resolve)), 2);
  t.match(badErr, 'graphmind http-proxy: --upstream must be an http: or https: URL');

  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  const port = new URL(proxy.url).port;
  const rebound = await exchange(proxy.url, 'POST', { ...MCP_HEADERS, host: `evil.example:${port}` }, INIT(1));
  t.equal(rebound.status, 403, 'a Host that is not ours (DNS rebinding) is refused');
  t.notOk(server.log().some((entry) => entry.dir === 'in'), 'and never reaches the server');
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
    t.equal((await exchange(proxy.url, 'POST', { ...MCP_HEADERS, host }, INIT(host))).status, 200, `Host ${host} is served`);
  }
  const remote = await startHttpProxy(t, server.url, { serve, args: ['--listen', '0.0.0.0:0', '--allow-remote'] });
  t.match(remote.url, /^http:\/\/0\.0\.0\.0:\d+\/mcp$/, '--allow-remote listens where it is told');
});

t.test('https upstreams are verified as Node verifies them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-https-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  if (made.status !== 0) {
    await t.test('https verification', { skip: 'openssl could not make a self-signed certificate here, so https verification is not tested' }, () => {});
    return;
  }
  const https = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => https.close(() => resolve())));
  const upstream = `https://127.0.0.1:${(https.address() as AddressInfo).port}/mcp`;
  const strict = await startHttpProxy(t, upstream, { serve });
  const refused = await exchange(strict.url, 'POST', MCP_HEADERS, INIT(1));
  t.equal(refused.status, 502, 'a certificate Node does not trust: 502');
  t.match(refused.body.toString('utf8'), /cannot reach the MCP server at https:.*self-signed certificate/);
  const trusting = await startHttpProxy(t, upstream, { serve, env: { NODE_EXTRA_CA_CERTS: cert } });
  const ok = await exchange(trusting.url, 'POST', MCP_HEADERS, INIT(1));
  t.equal(ok.status, 200, 'trusted as Node trusts it (NODE_EXTRA_CA_CERTS)');
  t.equal(ok.body.toString('utf8'), '{"jsonrpc":"2.0","id":1,"result":{}}');
});

t.test('non-MCP paths are relayed as they are', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  const other = await exchange(new URL('/.well-known/oauth-protected-resource', proxy.url).href, 'GET', {});
  t.equal(other.status, 200, 'the fixture answers any path');
  t.ok(server.log().some((entry) => entry.dir === 'in' && entry.url === '/.well-known/oauth-protected-resource'), 'it reached the server unchanged');
});

t.test('a debugger that refuses the proxy (another token) is one line on stderr; the proxy relays without it', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  const elsewhere = mkdtempSync(join(tmpdir(), 'graphmind-no-token-'));
  t.teardown(() => rmSync(elsewhere, { recursive: true, force: true }));
  const proxy = await startHttpProxy(t, server.url, { serve, env: { GRAPHMIND_DATA_DIR: elsewhere, GRAPHMIND_TOKEN: 'not-the-token' } });
  await waitFor(() => proxy.stderr().includes('refused this proxy'), 10_000, 'the refused line');
  t.match(proxy.stderr(), `graphmind http-proxy: the debugger at http://127.0.0.1:${serve.port} refused this proxy: its token is not the one this proxy presents (give http-proxy the --data-dir`);
  const { client } = await connect(t, proxy.url, '1');
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'still' } }), text('echo still'));
});

t.test('no Authorization or cookie value in any run this file recorded', async (t) => {
  const ids = await runIds(serve);
  t.ok(ids.length > 10, `${ids.length} runs`);
  for (const id of ids) {
    const recorded = await runText(id);
    t.notOk(recorded.includes('secret-token-123') || recorded.includes('secret-cookie-456'), `run ${id}`);
  }
});
