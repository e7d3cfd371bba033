// Send again, end to end: a real SDK 1.x client through dist's
// `graphmind mcp-proxy --watch` to a real SDK server, reported to a real
// `graphmind serve`. POST /api/runs/:runId/instances/:instanceId/send
// sends a recorded call to the server again (as recorded, or with edited
// params): the run gets a new call marked `sentBy`, the server gets the
// request under an id of the proxy's own, and the host never sees the
// answer (nothing reaches its transport; a raw host's stdout is byte for
// byte what the server alone would have written it). After a restart it
// reaches the new code. And the route's refusals, with their codes.
import { spawn } from 'node:child_process';
import t from 'tap';
import { api, rawRequest } from './helpers/serve.js';
import { getRun, newRuns, proxyEnv, runIds, startDebugger, waitForAsync, type RunView } from './helpers/gates.js';
import { startProxy, waitFor } from './helpers/cli.js';
import { project, text, watchedV1 } from './fixtures/restart/sessions.js';

const serve = await startDebugger(t);

type Call = RunView['instances'][number] & { sentBy?: string };

/** POST …/send with the token. */
function send(runId: string, instanceId: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
  return api(serve.port, serve.token, 'POST', `/api/runs/${runId}/instances/${instanceId}/send`, body);
}

/** The run's calls of `nodeId`. */
async function callsOf(runId: string, nodeId: string): Promise<Call[]> {
  return ((await getRun(serve, runId)).instances as Call[]).filter((call) => call.nodeId === nodeId);
}

/** Wait for the run to have a call sent by the debugger that has ended, beyond the `known` ones; it. */
async function sentCall(runId: string, known: number): Promise<Call> {
  let found: Call | undefined;
  await waitForAsync(async () => {
    const sent = (await callsOf(runId, 'tool:hello')).filter((call) => call.sentBy !== undefined);
    found = sent[known];
    return found !== undefined && found.status !== 'open';
  }, 15_000, 'the call sent again to be recorded and answered');
  return found as Call;
}

t.test('a recorded call sent again: a new call marked sentBy, answered by the server there is now, never seen by the host', async (t) => {
  const before = new Set(await runIds(serve));
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const session = await watchedV1(t, p, { serve });
  const [runId] = await newRuns(serve, before);
  // Everything that reaches the host's transport, and every error the client reports (an answer to an unknown id is one).
  const seen: unknown[] = [];
  const errors: Error[] = [];
  const transport = session.client.transport as NonNullable<typeof session.client.transport>;
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    seen.push(message);
    deliver?.(message, extra);
  };
  session.client.onerror = (error) => errors.push(error);

  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'a' } })), 'gen0: a');
  let original: Call | undefined;
  await waitForAsync(async () => {
    original = (await callsOf(runId as string, 'tool:hello')).find((call) => call.status === 'ok');
    return original !== undefined;
  }, 10_000, 'the host call recorded');
  const seenBefore = seen.length;

  const asked = await send(runId as string, original!.instanceId);
  t.equal(asked.status, 202, '202');
  t.strictSame(asked.json, { ok: true });
  const first = await sentCall(runId as string, 0);
  t.equal(first.sentBy, 'api', 'marked as sent by the debugger, on behalf of the API');
  t.equal(first.status, 'ok');
  t.strictSame(first.input, { name: 'hello', arguments: { text: 'a' } }, 'the params as recorded');
  t.equal(text(first.output), 'gen0: a', "the server's answer, recorded");
  t.not(first.instanceId, original!.instanceId, 'a new call of the run');
  const atServer = p.messages().filter((m) => m.method === 'tools/call');
  t.equal(atServer.length, 2, 'the server got the request again');
  t.match(String(atServer[1]?.id), /^graphmind-send-[0-9a-f]{12}-1$/, "under an id of the proxy's own");

  // Edited params, as the viewer's editor sends them, with who asked.
  t.equal((await send(runId as string, original!.instanceId, { params: { name: 'hello', arguments: { text: 'edited' } }, by: 'viewer' })).status, 202);
  const second = await sentCall(runId as string, 1);
  t.equal(text(second.output), 'gen0: edited', 'the edited request was sent');
  t.equal(second.sentBy, 'viewer');

  // The host goes on as if nothing happened, and never saw either answer.
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'b' } })), 'gen0: b');
  t.equal(seen.length, seenBefore + 1, 'the host got its own answer only');
  t.notOk(JSON.stringify(seen).includes('graphmind-send'), 'no answer of the debugger reached the host');
  t.strictSame(errors, [], 'the client reported no answer to an unknown id');

  // After a fix and a restart, Send again reaches the new code.
  p.save({ sdk: 1, tag: 'gen1' });
  await session.restarted(1);
  t.equal((await send(runId as string, original!.instanceId)).status, 202);
  const third = await sentCall(runId as string, 2);
  t.equal(text(third.output), 'gen1: a', "the new server's answer");
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'c' } })), 'gen1: c', 'the host session goes on');
  t.notOk(JSON.stringify(seen).includes('graphmind-send'));
  t.strictSame(errors, []);

  // What the route refuses, and why.
  const run = await getRun(serve, runId as string);
  const instanceOf = (nodeId: string): string => (run.instances.find((call) => call.nodeId === nodeId) as Call).instanceId;
  const refused = async (instanceId: string, body: unknown, status: number, code: string, what: string): Promise<void> => {
    const answer = await send(runId as string, instanceId, body);
    t.equal(answer.status, status, `${what}: ${status}`);
    t.equal((answer.json as { code?: string }).code, code, `${what}: ${code}`);
    t.type((answer.json as { error?: unknown }).error, 'string');
  };
  await refused('mcp_9999', undefined, 404, 'unknown_call', 'an unknown call');
  await refused(instanceOf('mcp:session'), undefined, 409, 'not_a_request', 'the session');
  await refused(instanceOf('mcp:notifications/initialized'), undefined, 409, 'not_a_request', 'a notification');
  await refused(instanceOf('mcp:initialize'), undefined, 409, 'handshake', 'initialize');
  await refused(original!.instanceId, { params: 'text' }, 400, 'bad_params', 'params that are not structured');
  await refused(original!.instanceId, { by: '' }, 400, 'bad_body', 'an empty by');
  t.equal((await api(serve.port, serve.token, 'POST', `/api/runs/run_unknown_x/instances/mcp_1/send`)).status, 404, 'an unknown run');
  t.equal((await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/instances/mcp_1/send`)).status, 405, 'GET: 405');
  const path = `/api/runs/${runId}/instances/${original!.instanceId}/send`;
  const host = `127.0.0.1:${serve.port}`;
  t.equal((await rawRequest(serve.port, { method: 'POST', path, headers: { host } })).status, 401, 'no token: 401');
  t.equal((await rawRequest(serve.port, { method: 'POST', path, headers: { host, origin: 'http://evil.example', authorization: `Bearer ${serve.token}` } })).status, 403, 'a foreign Origin: 403');
  t.equal((await callsOf(runId as string, 'tool:hello')).filter((call) => call.sentBy !== undefined).length, 3, 'none of them sent anything');

  await session.close();
  await waitForAsync(async () => (await getRun(serve, runId as string)).status !== 'running', 10_000, 'the run to end');
  await refused(original!.instanceId, undefined, 409, 'run_not_live', 'an ended run');
});

/** Lines for a raw host: the handshake, then `calls` tools/call hello with ids from 2. */
function hostLines(texts: readonly string[]): string[] {
  return [
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-host', version: '1' } } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    ...texts.map((value, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'hello', arguments: { text: value } } })),
  ];
}

/** Lines written so far. */
function lines(bytes: Buffer): string[] {
  return bytes.toString('utf8').split('\n').filter((line) => line !== '');
}

t.test("a raw host's stdout is byte for byte the server's own, Send again or not", async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const texts = ['one', 'two', 'three'];
  const input = hostLines(texts);
  // The server alone, for what it writes this host.
  const alone = spawn(process.execPath, [p.file], { stdio: 'pipe', env: { ...process.env, ...p.env() } });
  const direct: Buffer[] = [];
  alone.stdout.on('data', (chunk: Buffer) => direct.push(chunk));
  for (const line of input) alone.stdin.write(`${line}\n`);
  await waitFor(() => lines(Buffer.concat(direct)).length === 1 + texts.length, 15_000, 'the server alone to answer');
  alone.stdin.end();

  // The same host through the proxy, with a Send again between its calls.
  const before = new Set(await runIds(serve));
  const proxy = startProxy(['--port', String(serve.port)], [process.execPath, p.file], { env: { ...proxyEnv(serve), ...p.env() } });
  t.teardown(() => proxy.child.kill());
  const [runId] = await newRuns(serve, before);
  proxy.child.stdin.write(`${input.slice(0, 3).join('\n')}\n`);
  await waitFor(() => lines(proxy.stdout()).length === 2, 15_000, 'the first answers');
  let original: Call | undefined;
  await waitForAsync(async () => {
    original = (await callsOf(runId as string, 'tool:hello')).find((call) => call.status === 'ok');
    return original !== undefined;
  }, 10_000, 'the host call recorded');
  for (let i = 0; i < 3; i++) t.equal((await send(runId as string, original!.instanceId)).status, 202);
  await sentCall(runId as string, 2);
  proxy.child.stdin.write(`${input.slice(3).join('\n')}\n`);
  await waitFor(() => lines(proxy.stdout()).length === 1 + texts.length, 15_000, 'the later answers');
  t.equal(proxy.stdout().toString('utf8'), Buffer.concat(direct).toString('utf8'), "the host's bytes are the server's, and nothing else");
  proxy.child.stdin.end();
  await proxy.exited;
});
