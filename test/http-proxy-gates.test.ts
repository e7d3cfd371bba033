// Every gate and action of `graphmind http-proxy`, end to end: a real
// `graphmind serve` holds frames of real SDK clients talking to real SDK
// Streamable HTTP servers (SSE and JSON answers), and the control API
// decides them. What the client gets, what the server received, and what
// the run records, for: before / after / error gates; continue, inject,
// retry, abort; notifications; server→client sampling held before and
// after; the loop hold and its HOLDING line; a held POST kept open; a held
// request whose client gave up.
import { request } from 'node:http';
import t from 'tap';
import { ABORT, decide, getRun, listHolds, newRuns, rejection, runIds, setBreakpoints, startDebugger, waitForAsync, waitForHold } from './helpers/gates.js';
import { waitFor } from './helpers/cli.js';
import { connect, startFixture, startHttpProxy, text, type ServerKind } from './fixtures/http/harness.js';

const serve = await startDebugger(t);

/** Breakpoints for a test (pause-on-error off unless asked). */
function breakpoints(nodes: Record<string, { before?: boolean; after?: boolean }>, pauseOnError = false): Promise<void> {
  return setBreakpoints(serve, { pauseOnError, nodes });
}

/** Requests for `tools/call` of `name` the server received, parsed. */
function callsReceived(server: Awaited<ReturnType<typeof startFixture>>, name: string): unknown[] {
  return server
    .log()
    .filter((entry) => entry.dir === 'in' && entry.method === 'POST' && entry.body.includes('"tools/call"'))
    .map((entry) => JSON.parse(entry.body) as { params?: { name?: string } })
    .filter((message) => message.params?.name === name);
}

/** A promise awaited later: its rejection is not unhandled meanwhile. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** Settled or not, without waiting. */
function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return new Promise((resolve) => setImmediate(() => resolve(settled)));
}

const KINDS: readonly ServerKind[] = [
  { sdk: '1', mode: 'stateful', response: 'sse' },
  { sdk: '1', mode: 'stateful', response: 'json' },
  { sdk: '2', mode: 'stateful', response: 'sse' },
  { sdk: '2', mode: 'stateless', response: 'json' },
];

for (const kind of KINDS) {
  t.test(`SDK ${kind.sdk}.x ${kind.mode} ${kind.response}: the four actions at the before, after and error gates`, async (t) => {
    const server = await startFixture(t, kind);
    const proxy = await startHttpProxy(t, server.url, { serve, args: ['--wait-for-attach'] });
    await breakpoints({});
    const { client } = await connect(t, proxy.url, kind.sdk);

    await breakpoints({ 'tool:echo': { before: true } });
    // before + continue: the request is held, the host's POST stays open, nothing reached the server.
    const held = client.callTool({ name: 'echo', arguments: { text: 'one' } });
    const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
    t.match(hold, { method: 'tools/call', reason: 'breakpoint', frame: { method: 'tools/call', params: { name: 'echo', arguments: { text: 'one' } } } });
    t.equal(await settledYet(held), false, 'the HTTP request is held open');
    t.strictSame(callsReceived(server, 'echo'), [], 'held before: the server has not seen it');
    await waitFor(() => proxy.stderr().includes('HOLDING tools/call'), 5000, 'the HOLDING line');
    t.match(proxy.stderr(), new RegExp(`graphmind http-proxy: HOLDING tools/call #\\d+ at the before gate — resume it in http://127\\.0\\.0\\.1:${serve.port}`));
    await decide(serve, hold.holdId, 'continue');
    t.strictSame(await held, text('echo one'), 'continue: forwarded, answered by the server');

    // before + inject: answered here, the server never sees it.
    const injected = client.callTool({ name: 'echo', arguments: { text: 'two' } });
    await decide(serve, (await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' })).holdId, 'inject', 'made in the debugger');
    t.strictSame(await injected, text('made in the debugger'), 'inject: the lifted value, as the server would have answered');
    t.equal(callsReceived(server, 'echo').length, 1, 'the injected call never reached the server');

    // before + abort: -32099.
    const aborted = quiet(client.callTool({ name: 'echo', arguments: { text: 'three' } }));
    await decide(serve, (await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' })).holdId, 'abort');
    t.equal((await rejection(aborted)).code, ABORT, 'abort: the client gets -32099');

    // before + retry: nothing has run yet, so it goes on.
    const retriedBefore = client.callTool({ name: 'echo', arguments: { text: 'four' } });
    await decide(serve, (await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' })).holdId, 'retry');
    t.strictSame(await retriedBefore, text('echo four'), 'retry before: same as continue');

    await breakpoints({ 'tool:add': { after: true } });
    // after + inject: the server ran, the client gets the injected value.
    const afterInject = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const afterHold = await waitForHold(serve, { nodeId: 'tool:add', gate: 'after' });
    t.match(afterHold.frame, { result: text('3') }, 'the held answer');
    await decide(serve, afterHold.holdId, 'inject', { sum: 42 });
    t.strictSame(await afterInject, { content: [{ type: 'text', text: '{"sum":42}' }], structuredContent: { sum: 42 } }, 'after + inject: an object is lifted with structuredContent');

    // after + retry: the answer is dropped and the request sent again; the client gets the second answer.
    const afterRetry = client.callTool({ name: 'add', arguments: { a: 2, b: 2 } });
    await decide(serve, (await waitForHold(serve, { nodeId: 'tool:add', gate: 'after' })).holdId, 'retry');
    const again = await waitForHold(serve, { nodeId: 'tool:add', gate: 'after' });
    t.equal(callsReceived(server, 'add').filter((m) => JSON.stringify(m).includes('"a":2')).length, 2, 'retry: the server received the request again');
    await decide(serve, again.holdId, 'continue');
    t.strictSame(await afterRetry, text('4'), 'the client gets the answer to the retry');

    // after + abort.
    const afterAbort = quiet(client.callTool({ name: 'add', arguments: { a: 5, b: 5 } }));
    await decide(serve, (await waitForHold(serve, { nodeId: 'tool:add', gate: 'after' })).holdId, 'abort');
    t.equal((await rejection(afterAbort)).code, ABORT, 'after + abort: -32099');

    // The error gate: pause on error holds the failing tool's answer.
    await breakpoints({}, true);
    const failing = quiet(client.callTool({ name: 'fail', arguments: {} }));
    const errorHold = await waitForHold(serve, { nodeId: 'tool:fail', gate: 'error' });
    t.equal(errorHold.reason, 'error');
    await decide(serve, errorHold.holdId, 'inject', { jsonrpc: '2.0', id: (errorHold.frame as { id: number }).id, error: { code: -32000, message: 'typed whole' } });
    t.match(await rejection(failing), { code: -32000, message: /typed whole/ }, 'a whole JSON-RPC message goes out as typed');
    const failing2 = client.callTool({ name: 'fail', arguments: {} });
    await decide(serve, (await waitForHold(serve, { nodeId: 'tool:fail', gate: 'error' })).holdId, 'continue');
    t.match(await failing2, { isError: true }, 'error gate + continue: the failure goes on');
    await breakpoints({});

    // The run records what the decisions did (a stateless server's calls may be spread over connections, so runs).
    if (kind.mode === 'stateless') return;
    const runId = hold.runId;
    let run = await getRun(serve, runId);
    await waitForAsync(async () => (run = await getRun(serve, runId)).instances.filter((i) => i.nodeId === 'tool:fail' && i.status !== 'open').length === 2, 10_000, 'the record');
    const echoes = run.instances.filter((i) => i.nodeId === 'tool:echo');
    t.match(echoes.map((i) => i.status), ['ok', 'ok', 'error', 'ok']);
    t.strictSame(echoes[1]?.output, text('made in the debugger'), 'the injected answer is recorded as the call output');
    t.match(echoes[2]?.error, { name: 'Aborted', code: ABORT });
    t.match(run.instances.filter((i) => i.nodeId === 'tool:add').map((i) => i.status), ['ok', 'ok', 'error']);
  });
}

t.test('a made answer comes the way the server answers: an SSE event, or JSON', async (t) => {
  for (const response of ['sse', 'json'] as const) {
    const server = await startFixture(t, { sdk: '1', mode: 'stateful', response });
    const proxy = await startHttpProxy(t, server.url, { serve });
    await breakpoints({});
    const headers = await rawSession(proxy.url);
    const session = headers['mcp-session-id'];
    await breakpoints({ 'tool:echo': { before: true } });
    const answer = post(proxy.url, headers, '{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}');
    await decide(serve, (await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' })).holdId, 'inject', 'made');
    const got = await answer;
    t.equal(got.status, 200);
    t.equal(got.headers['mcp-session-id'], session, 'with the session header');
    const expected = '{"jsonrpc":"2.0","id":"abc","result":{"content":[{"type":"text","text":"made"}]}}';
    if (response === 'sse') {
      t.match(got.headers['content-type'], /^text\/event-stream/, 'the server answers with SSE: so does the proxy');
      t.equal(got.body, `event: message\ndata: ${expected}\n\n`);
    } else {
      t.match(got.headers['content-type'], /^application\/json/);
      t.equal(got.body, expected, 'the request id as sent');
    }
    await breakpoints({});
  }
});

t.test('notifications: held before; inject replaces, abort drops', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  await breakpoints({});
  const headers = await rawSession(proxy.url);
  await breakpoints({ 'mcp:notifications/roots/list_changed': { before: true } });
  const dropped = post(proxy.url, headers, '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}');
  await decide(serve, (await waitForHold(serve, { nodeId: 'mcp:notifications/roots/list_changed' })).holdId, 'abort');
  t.equal((await dropped).status, 202, 'abort: swallowed, accepted as the server would');
  t.notOk(server.log().some((entry) => entry.dir === 'in' && entry.body.includes('list_changed')), 'the server never got it');
  const replaced = post(proxy.url, headers, '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}');
  const replacement = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'replaced' } };
  await decide(serve, (await waitForHold(serve, { nodeId: 'mcp:notifications/roots/list_changed' })).holdId, 'inject', replacement);
  t.equal((await replaced).status, 202);
  t.ok(server.log().some((entry) => entry.dir === 'in' && entry.body === JSON.stringify(replacement)), 'inject: the server got the replacement instead');
  await breakpoints({});
});

t.test('server→client sampling over SSE: held before (inject answers the server) and after (retry asks the client again)', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'sse' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  await breakpoints({});
  const connected = await connect(t, proxy.url, '1', 'client text');
  await breakpoints({ 'llm:sampling': { before: true } });
  const first = connected.client.callTool({ name: 'sample', arguments: { prompt: 'p' } });
  const before = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'before' });
  t.equal(before.method, 'sampling/createMessage');
  await decide(serve, before.holdId, 'inject', 'from the debugger');
  t.strictSame(await first, text('sampled: from the debugger'), 'inject: the server got the lifted sampling result');
  t.equal(connected.sampled, 0, 'the client was never asked');
  await breakpoints({ 'llm:sampling': { after: true } });
  const second = connected.client.callTool({ name: 'sample', arguments: { prompt: 'p' } });
  await decide(serve, (await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'after' })).holdId, 'retry');
  const again = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'after' });
  t.equal(connected.sampled, 2, 'retry: the client was asked again, on the same stream');
  await decide(serve, again.holdId, 'continue');
  t.strictSame(await second, text('sampled: client text'));
  await breakpoints({});
});

t.test('the loop hold: the third identical call in a row, with its HOLDING line', async (t) => {
  const server = await startFixture(t, { sdk: '2', mode: 'stateful', response: 'json' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  await breakpoints({});
  const { client } = await connect(t, proxy.url, '2');
  for (let i = 0; i < 2; i++) t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'again' } }), text('echo again'));
  const third = client.callTool({ name: 'echo', arguments: { text: 'again' } });
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', reason: 'loop' });
  await waitFor(() => proxy.stderr().includes('loop hold'), 5000, 'the loop HOLDING line');
  t.match(proxy.stderr(), 'at the before gate — resume it in http://127.0.0.1:');
  t.match(proxy.stderr(), '(loop hold: the third identical call to "echo" in a row; if it is polled on purpose, set GRAPHMIND_LOOP_ALLOW=echo)');
  await decide(serve, hold.holdId, 'continue');
  t.strictSame(await third, text('echo again'));
  const allowed = await startHttpProxy(t, server.url, { serve, env: { GRAPHMIND_LOOP_ALLOW: 'echo' } });
  const other = await connect(t, allowed.url, '2');
  for (let i = 0; i < 4; i++) t.strictSame(await other.client.callTool({ name: 'echo', arguments: { text: 'polled' } }), text('echo polled'), 'GRAPHMIND_LOOP_ALLOW: never held');
});

t.test('a held request whose client closed its HTTP request is marked given up', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  await breakpoints({});
  const headers = await rawSession(proxy.url);
  await breakpoints({ 'tool:echo': { before: true } });
  const controller = new AbortController();
  const gone = fetch(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}',
    signal: controller.signal,
  });
  gone.catch(() => {});
  const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
  controller.abort();
  let givenUp: string | undefined;
  await waitForAsync(async () => (givenUp = ((await listHolds(serve)).find((h) => h.holdId === hold.holdId) as { givenUp?: string } | undefined)?.givenUp) !== undefined, 10_000, 'the hold given up');
  t.equal(givenUp, 'the client closed its HTTP request');
  await decide(serve, hold.holdId, 'continue');
  await breakpoints({});
  t.pass('decided after the client left');
});

t.test('the 2026-07-28 era: an injected value is stamped for a request that pins it', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'json' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  await breakpoints({});
  const headers = await rawSession(proxy.url);
  await breakpoints({ 'resource:test://greeting': { before: true } });
  const read = post(proxy.url, headers, '{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://greeting","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}');
  await decide(serve, (await waitForHold(serve, { nodeId: 'resource:test://greeting' })).holdId, 'inject', 'stamped');
  t.strictSame(JSON.parse((await read).body), {
    jsonrpc: '2.0',
    id: 5,
    result: { contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'stamped' }], resultType: 'complete', ttlMs: 0, cacheScope: 'private' },
  });
  await breakpoints({});
});

t.test('runs: one per session, and what the record shows of a held answer', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'sse' });
  const proxy = await startHttpProxy(t, server.url, { serve, env: { GRAPHMIND_HIDE_TOOL_RESULTS: '1' } });
  await breakpoints({});
  const before = new Set(await runIds(serve));
  const a = await connect(t, proxy.url, '1');
  const b = await connect(t, proxy.url, '1');
  await breakpoints({ 'tool:echo': { after: true } });
  const call = a.client.callTool({ name: 'echo', arguments: { text: 'secret result' } });
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after' });
  t.match(hold.frame, { result: '[hidden]' }, 'GRAPHMIND_HIDE_TOOL_RESULTS: the held answer is hidden');
  t.strictSame(await b.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }), text('2'), 'another session goes on while one is held');
  await decide(serve, hold.holdId, 'continue');
  t.strictSame(await call, text('echo secret result'), 'the real bytes still flow');
  const fresh = await newRuns(serve, before, 2);
  t.equal(fresh.length, 2, 'two sessions, two runs');
  t.ok(fresh.includes(hold.runId), 'the hold belongs to its session');
  await breakpoints({});
});

/** An MCP session opened by hand (initialize, initialized): the headers its requests carry. */
async function rawSession(url: string): Promise<{ 'mcp-session-id': string; 'mcp-protocol-version': string }> {
  const init = await post(url, {}, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}');
  const headers = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-06-18' };
  await post(url, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return headers;
}

/** POST a body to the proxy with the MCP headers. */
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
