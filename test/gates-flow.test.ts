// How holds shape the flow of a session: the loop hold, --wait-for-attach
// gating the handshake, order behind a held frame, and a proxy with no
// debugger at all.
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Hold } from '../src/protocol/control.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI, PROXY_FIXTURES, startProxy } from './helpers/cli.js';
import { running } from '../src/proxy/process-tree.js';
import { killQuietly } from './helpers/wire.js';
import { api } from './helpers/serve.js';
import {
  ABORT,
  LOGGING_SERVER,
  ServerLog,
  connectV1,
  decide,
  holdingLine,
  listHolds,
  newRuns,
  runIds,
  proxyEnv,
  proxyParams,
  rejection,
  setBreakpoints,
  sleep,
  startDebugger,
  startV1,
  waitFor,
  waitForAsync,
  waitForHold,
  type LoggedMessage,
} from './helpers/gates.js';

function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

function idOf(hold: Hold): string | number {
  return (hold.frame as { id: string | number }).id;
}

/** A call that must not be held: it fails fast instead of waiting for a decision. */
const QUICK = { timeout: 5000 };

/** A port nobody listens on. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

const serve = await startDebugger(t);

t.test('loop hold: the third identical call in a row waits before it reaches the server', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: {} });
  const { client, log, stderr } = await connectV1(t, serve);
  const echo = (text: string, extra: { _meta?: Record<string, unknown> } = {}): Promise<unknown> =>
    client.callTool({ name: 'echo', arguments: { text }, ...extra }, undefined, QUICK);
  const sent = (text: string): number => log.requests('tools/call', 'echo').filter((m) => (m.params?.arguments as { text?: string }).text === text).length;
  const answer = (text: string): unknown => ({ content: [{ type: 'text', text }] });

  await echo('same');
  await echo('same');
  const third = later(client.callTool({ name: 'echo', arguments: { text: 'same' } }));
  const loop = await waitForHold(serve, { nodeId: 'tool:echo' });
  t.equal(loop.reason, 'loop', 'held by the loop hold');
  t.equal(loop.gate, 'before');
  t.equal(loop.method, 'tools/call');
  await sleep(100);
  t.equal(sent('same'), 2, 'the server has seen two of the three');
  await decide(serve, loop.holdId, 'continue');
  t.strictSame(await third, answer('same'), 'continue: the call runs and the client gets its answer');
  t.equal(sent('same'), 3);

  // Another tool call in between breaks the streak.
  await echo('reset');
  await echo('reset');
  await echo('something else');
  await echo('reset');
  await echo('reset');
  t.strictSame(await listHolds(serve), [], 'a different call in between: never held');

  // The request's _meta (a fresh progress token, say) is not part of the comparison.
  await client.callTool({ name: 'echo', arguments: { text: 'meta' } }, undefined, { ...QUICK, onprogress: () => {} });
  await echo('meta', { _meta: { 'graphmind.test/attempt': 2 } });
  const metaThird = later(client.callTool({ name: 'echo', arguments: { text: 'meta' }, _meta: { 'graphmind.test/attempt': 3 } }));
  const metaLoop = await waitForHold(serve, { nodeId: 'tool:echo', reason: 'loop' });
  const metas = log.requests('tools/call', 'echo').filter((m) => (m.params?.arguments as { text?: string }).text === 'meta').map((m) => JSON.stringify(m.params?._meta));
  t.equal(new Set(metas).size, 2, 'the two calls that went through carried different _meta');
  await decide(serve, metaLoop.holdId, 'abort');
  t.equal((await rejection(metaThird)).code, ABORT, 'abort: the client gets -32099');

  // Other protocol traffic is not a tool call: it does not break a loop.
  await echo('listed');
  await client.listTools();
  await echo('listed');
  const listed = later(client.callTool({ name: 'echo', arguments: { text: 'listed' } }));
  const listedLoop = await waitForHold(serve, { nodeId: 'tool:echo', reason: 'loop' });
  await decide(serve, listedLoop.holdId, 'inject', 'you are looping');
  t.strictSame(await listed, answer('you are looping'), 'inject: the client gets the lifted value');
  t.equal(sent('listed'), 2, 'and the third call never reached the server');
  t.equal(sent('meta'), 2, 'nor did the aborted one');

  // A loop hold says so, names the tool, and how to let it be polled.
  const expected = [loop, metaLoop, listedLoop].map((hold) => holdingLine('tools/call', idOf(hold), 'before', serve.port, 'echo'));
  await waitFor(() => stderr.holdingLines().length >= 3, 5000, 'HOLDING lines').catch(() => {});
  t.strictSame(stderr.holdingLines(), expected, 'one HOLDING line per loop hold');
});

t.test('GRAPHMIND_LOOP_ALLOW exempts the tools it names', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: {} });
  const { client, log } = await connectV1(t, serve, { env: { GRAPHMIND_LOOP_ALLOW: 'other, poll' } });
  for (let i = 0; i < 5; i++) t.strictSame(await client.callTool({ name: 'poll' }, undefined, QUICK), { content: [{ type: 'text', text: 'still running' }] });
  t.equal(log.requests('tools/call', 'poll').length, 5, 'a polled tool is never held');
  t.strictSame(await listHolds(serve), []);

  await client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, QUICK);
  await client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, QUICK);
  const third = later(client.callTool({ name: 'echo', arguments: { text: 'x' } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', reason: 'loop' });
  t.pass('a tool not on the list is still held');
  await decide(serve, hold.holdId, 'continue');
  await third;
});

t.test('--wait-for-attach: a breakpoint on initialize holds the handshake', async (t) => {
  // Set before the proxy starts; the proxy waits for the debugger before the first frame moves.
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'mcp:initialize': { before: true } } });
  const session = startV1(t, serve);
  let connected = false;
  void session.connecting.then(() => (connected = true));
  const hold = await waitForHold(serve, { nodeId: 'mcp:initialize' });
  t.equal(hold.method, 'initialize');
  t.equal(hold.gate, 'before');
  t.equal(hold.reason, 'breakpoint');
  await sleep(200);
  t.notOk(connected, 'the client is still waiting');
  t.strictSame(session.log.lines(), [], 'the server has received nothing');
  await waitFor(() => session.stderr.holdingLines().length === 1, 5000, 'the HOLDING line');
  t.equal(session.stderr.holdingLines()[0], holdingLine('initialize', idOf(hold), 'before', serve.port));
  await decide(serve, hold.holdId, 'continue');
  await session.connecting;
  t.equal((session.log.messages()[0] as LoggedMessage).method, 'initialize', 'then the handshake goes through');
  t.strictSame(await session.client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, QUICK), { content: [{ type: 'text', text: 'hi' }] });
});

t.test('order: nothing passes a held request, and everything follows it in order', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const log = new ServerLog();
  t.teardown(() => log.remove());
  const params = proxyParams(serve, log);
  const proxy = startProxy(params.args.slice(2, params.args.indexOf('--')), [process.execPath, LOGGING_SERVER], { env: params.env });
  t.teardown(async () => {
    proxy.child.stdin.end();
    const timer = setTimeout(() => proxy.child.kill('SIGKILL'), 5000);
    await proxy.exited;
    clearTimeout(timer);
  });
  const answered = (id: number): boolean =>
    proxy
      .stdout()
      .toString('utf8')
      .split('\n')
      .some((line) => line.startsWith('{') && (JSON.parse(line) as LoggedMessage).id === id);

  proxy.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n');
  await waitFor(() => answered(1), 15_000, 'the initialize answer');
  const held = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"first"}}}\n';
  // Odd spacing and key order: they must arrive exactly as written.
  const behind = [
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
    '{ "id": 3, "jsonrpc": "2.0", "method": "tools/call", "params": { "name": "poll" } }\n',
    '{"method":"tools/list","jsonrpc":"2.0","id":4}\n',
    '{"jsonrpc":"2.0","id":5,"method":"ping"}\n',
    '{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"test://greeting"}}\n',
    '{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"\\u00e9"}}}\n',
  ];
  proxy.child.stdin.write(held);
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  for (const line of behind) {
    proxy.child.stdin.write(line);
    await sleep(20);
  }
  await sleep(300);
  t.strictSame(log.lines().slice(1), [], 'while the request is held the server receives nothing after initialize');
  t.notOk([3, 4, 5, 6, 7].some(answered), 'and nothing behind it is answered');

  await decide(serve, hold.holdId, 'continue');
  await waitFor(() => [2, 3, 4, 5, 6, 7].every(answered), 10_000, 'every answer');
  t.strictSame(
    log.lines().slice(1),
    [held, ...behind].map((line) => line.slice(0, -1)),
    'after continue the server receives all of them, in order, byte for byte',
  );
});

t.test('hide switches: a held frame is reported without what they hide; the client gets the real bytes', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true, after: true } } });
  t.teardown(() => setBreakpoints(serve, { pauseOnError: true, nodes: {} }));
  const { client } = await connectV1(t, serve, { env: { GRAPHMIND_HIDE_INPUTS: '1', GRAPHMIND_HIDE_TOOL_RESULTS: '1' } });
  const call = later(client.callTool({ name: 'echo', arguments: { text: 'SECRET-HELD-4711' } }));
  const before = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  t.match(before.frame, { jsonrpc: '2.0', method: 'tools/call', params: '[hidden]' }, 'the held request, its params hidden');
  await decide(serve, before.holdId, 'continue');
  const after = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after' });
  t.match(after.frame, { jsonrpc: '2.0', result: '[hidden]' }, 'the held answer, its result hidden');
  await decide(serve, after.holdId, 'continue');
  t.strictSame(await call, { content: [{ type: 'text', text: 'SECRET-HELD-4711' }] }, 'the client gets the real answer');
  const boom = later(rejection(client.callTool({ name: 'boom', arguments: { why: 'SECRET-BOOM-4712' } })));
  const failed = await waitForHold(serve, { nodeId: 'tool:boom', gate: 'error' });
  t.strictSame((failed.frame as { error?: unknown }).error, { code: -32000, message: '[hidden]' }, 'a held JSON-RPC error keeps its code, not its message or data');
  await decide(serve, failed.holdId, 'continue');
  t.match(await boom, { code: -32000, message: /SECRET-BOOM-4712/, data: { why: 'SECRET-BOOM-4712' } }, 'the client gets the real error');
  const logs = readdirSync(join(serve.dataDir, 'runs')).map((name) => readFileSync(join(serve.dataDir, 'runs', name), 'utf8')).join('');
  t.ok(logs.includes('"hold.opened"'), 'the holds are in the run log');
  t.notOk(logs.includes('SECRET-HELD-4711'), 'and the secret is nowhere in the run logs');
  t.notOk(logs.includes('SECRET-BOOM-4712'), 'nor the error\'s');
});

t.test('no debugger running: a plain pipe, nothing holds', async (t) => {
  // A port nobody listens on, and a data dir with no token.
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'graphmind-nodebug-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { client, log, stderr } = await connectV1(t, undefined, { port, waitForAttach: false, env: { GRAPHMIND_DATA_DIR: dataDir } });
  t.strictSame(await client.callTool({ name: 'fail' }, undefined, QUICK), { content: [{ type: 'text', text: 'it failed' }], isError: true }, 'an isError result passes');
  t.equal((await rejection(client.callTool({ name: 'boom' }, undefined, QUICK))).code, -32000, 'a JSON-RPC error passes');
  for (let i = 0; i < 4; i++) await client.callTool({ name: 'echo', arguments: { text: 'loop' } }, undefined, QUICK);
  t.equal(log.requests('tools/call', 'echo').length, 4, 'identical calls are not held either');
  t.strictSame(stderr.holdingLines(), [], 'no HOLDING line');
});

t.test('--wait-for-attach with no debugger: the first frame waits about 3 s, then the session goes on', async (t) => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'graphmind-nodebug-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const started = Date.now();
  const { client, stderr } = await connectV1(t, undefined, { port, waitForAttach: true, env: { GRAPHMIND_DATA_DIR: dataDir } });
  const took = Date.now() - started;
  t.ok(took >= 2900, `initialize waited for a debugger (${took} ms)`);
  t.ok(took < 20_000, 'and then went on without one');
  t.strictSame(await client.callTool({ name: 'fail' }, undefined, QUICK), { content: [{ type: 'text', text: 'it failed' }], isError: true }, 'nothing holds');
  t.strictSame(stderr.holdingLines(), []);
});

t.test('a host that dies while a call is held: the proxy notices, stops the server and exits', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  t.teardown(() => setBreakpoints(serve, { pauseOnError: true, nodes: {} }));
  const env = proxyEnv(serve);
  const host = spawn(process.execPath, [
    join(PROXY_FIXTURES, 'vanishing-host.mjs'),
    process.execPath, CLI, 'mcp-proxy', '--port', String(serve.port), '--wait-for-attach', '--', process.execPath, join(PROXY_FIXTURES, 'echo-server.mjs'),
  ], { stdio: ['ignore', 'pipe', 'inherit'], env });
  t.teardown(() => killQuietly(host.pid));
  let out = '';
  host.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const [code] = (await once(host, 'exit')) as [number | null];
  t.equal(code, 0, 'the host saw the call held, then died');
  let pids: { proxy: number; server: number };
  try {
    pids = JSON.parse(out) as { proxy: number; server: number };
  } catch {
    return void t.fail(`the host printed no pids: ${JSON.stringify(out)}`);
  }
  t.teardown(() => {
    for (const pid of [pids.proxy, pids.server]) killQuietly(pid);
  });
  t.ok(running(pids.proxy) && running(pids.server), 'right after, the proxy and its server still run (the call is held)');
  // About a second to notice, the 5 s stdin-close grace, then SIGTERM.
  await waitFor(() => !running(pids.proxy) && !running(pids.server), 15_000, 'the proxy and the server to be gone').catch(() => {});
  t.notOk(running(pids.server), 'the server was stopped');
  t.notOk(running(pids.proxy), 'and the proxy exited: nothing is left behind');
  await waitForAsync(async () => (await listHolds(serve)).length === 0, 5000, 'the hold to go').catch(() => {});
  t.same(await listHolds(serve), [], 'its hold is gone from the debugger');
});

t.test('a live run deleted in the debugger: its proxy holds nothing more, and says nothing of holds', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  t.teardown(() => setBreakpoints(serve, { pauseOnError: true, nodes: {} }));
  const before = new Set(await runIds(serve));
  const session = await connectV1(t, serve);
  const [runId] = await newRuns(serve, before);
  // Held while the run is recorded.
  const first = later(session.client.callTool({ name: 'echo', arguments: { text: 'held' } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  await decide(serve, hold.holdId, 'continue');
  await first;
  await waitFor(() => session.stderr.holdingLines().length === 1, 5000, 'the HOLDING line').catch(() => {});
  t.equal(session.stderr.holdingLines().length, 1, 'one HOLDING line for the call that was held');

  t.equal((await api(serve.port, serve.token, 'DELETE', `/api/runs/${runId as string}`)).status, 204, 'the live run is deleted');
  // The proxy learns of it from a message on its socket. The same breakpoints again are a barrier: the PUT answers once the
  // proxy has applied them, so it has read every message the server sent it before them, the rejection included.
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const second = await session.client.callTool({ name: 'echo', arguments: { text: 'after delete' } }, undefined, QUICK);
  t.strictSame(second, { content: [{ type: 'text', text: 'after delete' }] }, 'a call that hits the breakpoint now goes straight through to the server');
  await sleep(300);
  t.equal(session.stderr.holdingLines().length, 1, 'and no HOLDING line tells the user to resume a hold that is not there');
  t.same(await listHolds(serve), [], 'the debugger lists no hold');
  await session.close();
});
