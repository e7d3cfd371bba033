// What `graphmind mcp-proxy` reports, end to end with real parts: a real
// `graphmind serve`, real proxies spawned by the MCP SDK client (or driven
// with raw JSON-RPC), real servers. Each run is read back through the REST
// API and checked node by node against the proxy's naming table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateMessageRequestSchema, ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import t, { type Test } from 'tap';
import type { Instance, Run } from '../src/protocol/run-model.js';
import { DEFAULT_MAX_BUFFERED_EVENTS } from '../src/report/reporter.js';
import { PROXY_FIXTURES, startProxy, waitFor, type ProxyProcess } from './helpers/cli.js';
import {
  childrenOf,
  freePort,
  instancesOf,
  kill,
  nodeOf,
  runOfProxy,
  sdkSession,
  serveOnPort,
  shapeProblems,
  stopAtTeardown,
  summarize,
  tempDir,
  waitForRun,
  type DebuggerAddress,
  type SdkSession,
} from './helpers/graph.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { frame, initialize, messagesIn, responseTo, toolsCall } from './helpers/wire.js';

t.setTimeout(300_000);

const node = process.execPath;
const fixture = (name: string): string => join(PROXY_FIXTURES, name);
const EVERYTHING = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

type Teardown = { teardown(fn: () => unknown): void };

// The error gate is armed by default and would hold every failing call
// until someone decides; these tests are about what is recorded, not holds.
const SERVE_ARGS = ['--pause-on-error', 'off'];

let server: ServeProcess;
t.before(async () => {
  server = await startServe(SERVE_ARGS);
});
t.teardown(() => server.stop());

/** The environment of a proxy: ours without GRAPHMIND_*, plus `env`. */
function proxyEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GRAPHMIND_')) base[key] = value;
  return { ...base, ...env };
}

/** A proxy driven with raw JSON-RPC over its stdio. */
interface RawSession {
  proxy: ProxyProcess;
  pid: number;
  send(message: Record<string, unknown>): void;
  write(text: string): void;
  /** Close the proxy's stdin (the host goes away) and wait for the proxy to exit. */
  end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `graphmind mcp-proxy --port <port> -- <server>`, reporting to `to` (main
 * server by default) with its token file found through GRAPHMIND_DATA_DIR.
 */
function rawSession(
  t: Teardown,
  serverCommand: readonly string[],
  options: { to?: { port: number; dataDir: string }; env?: Record<string, string> } = {},
): RawSession {
  const to = options.to ?? server;
  const proxy = startProxy(['--port', String(to.port)], serverCommand, {
    env: proxyEnv({ GRAPHMIND_DATA_DIR: to.dataDir, ...options.env }),
  });
  const pid = proxy.child.pid as number;
  stopAtTeardown(t, proxy);
  return {
    proxy,
    pid,
    send: (message) => proxy.child.stdin.write(frame(message)),
    write: (text) => proxy.child.stdin.write(text),
    end() {
      proxy.child.stdin.end();
      return proxy.exited;
    },
  };
}

/** An SDK client session through the proxy, killed at teardown if still there. */
async function sdk(t: Teardown, options: Parameters<typeof sdkSession>[0]): Promise<SdkSession> {
  const session = await sdkSession(options);
  t.teardown(() => kill(session.pid));
  return session;
}

/** The first server → client request on the proxy's stdout with this method. */
async function serverRequest(proxy: ProxyProcess, method: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await waitFor(
    () => (found = messagesIn(proxy.stdout()).find((message) => message.method === method && 'id' in message)) !== undefined,
    10_000,
    `a ${method} request from the server`,
  );
  return found as Record<string, unknown>;
}

const only = (instances: Instance[]): Instance => {
  if (instances.length !== 1) throw new Error(`expected one instance, got ${instances.length}`);
  return instances[0] as Instance;
};

/** Instances of the nodes under `mcp:protocol` (the calls the protocol card counts). */
function protocolCalls(run: Run): Instance[] {
  const under = new Set(childrenOf(run, 'mcp:protocol').filter((id) => id !== 'mcp:stdout-noise'));
  return run.instances.filter((instance) => under.has(instance.nodeId));
}

/** Check what every run has: its shape, the session, and (if any) the protocol card closing first. */
function checkRun(t: Test, run: Run): void {
  t.same(shapeProblems(run), [], `the run is well formed (${summarize(run)})`);
  t.equal(run.source, 'mcp-proxy', 'source is mcp-proxy');
  const session = only(instancesOf(run, 'mcp:session'));
  t.equal(session.instanceId, 'mcp_1', 'the session is the first instance');
  t.match(nodeOf(run, 'mcp:session'), { kind: 'server', parent: null }, 'mcp:session is a server at the root');
  if (run.status !== 'running') {
    t.same(run.instances.filter((i) => i.status === 'open').map((i) => i.instanceId), [], 'nothing is left open once the run ended');
    const protocol = instancesOf(run, 'mcp:protocol');
    if (protocol.length > 0) {
      const card = only(protocol);
      t.ok(card.endedAt !== null && session.endedAt !== null && card.endedAt <= session.endedAt, 'the protocol card closes before the session');
    }
  }
}

t.test('an SDK 1.x session: one node per logical call, one instance per execution', async (t) => {
  const session = await sdk(t, { port: server.port, server: [node, fixture('sdk1-server.mjs')], env: { GRAPHMIND_DATA_DIR: server.dataDir } });
  const { client } = session;
  const texts = ['one', 'two', 'three', 'four', 'five'];
  for (const text of texts) {
    t.same(await client.callTool({ name: 'echo', arguments: { text } }), { content: [{ type: 'text', text }] }, `echo ${text} comes back`);
  }
  t.match(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), { structuredContent: { sum: 5 } }, 'add answers 5');
  t.match(await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } }), { isError: true }, 'add with a bad argument fails');
  t.ok((await client.listTools()).tools.length >= 2, 'tools/list');
  t.match(await client.readResource({ uri: 'test://greeting' }), { contents: [{ text: 'Hello from sdk1' }] }, 'resources/read');
  t.match(await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }), { messages: [{ content: { text: 'Please greet Ada.' } }] }, 'prompts/get');
  await client.ping();
  await session.close();

  const run = await waitForRun(server, session.pid);
  checkRun(t, run);
  t.equal(run.status, 'ok', 'the run ends ok');
  t.equal(run.name, 'node mcp-proxy/sdk1-server.mjs', 'named from the command (a path by its last two segments)');
  t.ok(run.endedAt !== null, 'it has ended');
  t.match(run.meta, { command: node, args: [fixture('sdk1-server.mjs')], serverInfo: { name: 'sdk1-fixture' }, clientInfo: { name: 'graphmind-graph-test' } });
  t.equal(run.meta.protocolVersion, LATEST_PROTOCOL_VERSION, 'meta.protocolVersion is the negotiated version');
  t.equal(typeof run.meta.serverPid, 'number', 'meta.serverPid');
  t.equal(run.droppedEvents, 0, 'nothing dropped');

  t.same(childrenOf(run, null), ['mcp:session']);
  t.same(childrenOf(run, 'mcp:session'), ['mcp:protocol', 'prompt:greet', 'resource:test://greeting', 'tool:add', 'tool:echo'], 'work calls sit under the session');
  t.same(childrenOf(run, 'mcp:protocol'), ['mcp:initialize', 'mcp:notifications/initialized', 'mcp:ping', 'mcp:tools/list'], 'everything else under protocol');
  t.match(nodeOf(run, 'mcp:protocol'), { kind: 'custom', parent: 'mcp:session', label: 'protocol', status: 'ok' });
  t.match(nodeOf(run, 'tool:echo'), { kind: 'tool', parent: 'mcp:session', label: 'echo', status: 'ok' });
  t.match(nodeOf(run, 'tool:add'), { kind: 'tool', status: 'error' }, 'a node with a failed instance is red');
  t.match(nodeOf(run, 'resource:test://greeting'), { kind: 'resource', parent: 'mcp:session' });
  t.match(nodeOf(run, 'prompt:greet'), { kind: 'prompt', parent: 'mcp:session' });
  for (const id of childrenOf(run, 'mcp:protocol')) t.equal(nodeOf(run, id)?.kind, 'custom', `${id} is custom`);

  const echoes = instancesOf(run, 'tool:echo');
  t.equal(echoes.length, 5, 'five calls to echo: one node, five instances');
  t.same(echoes.map((i) => i.input), texts.map((text) => ({ name: 'echo', arguments: { text } })), 'each with its own input, in order');
  t.same(echoes.map((i) => i.output), texts.map((text) => ({ content: [{ type: 'text', text }] })), 'and its own output');
  t.ok(echoes.every((i) => i.status === 'ok' && i.endedAt !== null), 'all ok');
  t.equal(new Set(echoes.map((i) => i.instanceId)).size, 5, 'five distinct instance ids');

  const [added, failed] = instancesOf(run, 'tool:add');
  t.match(added, { status: 'ok', output: { structuredContent: { sum: 5 } } });
  t.match(failed, { status: 'error', error: { name: 'ToolError', message: /Input validation error/ }, output: { isError: true } }, 'an isError result is an error');
  t.match(only(instancesOf(run, 'resource:test://greeting')), { status: 'ok', input: { uri: 'test://greeting' } });
  t.match(only(instancesOf(run, 'prompt:greet')), { status: 'ok', input: { name: 'greet', arguments: { name: 'Ada' } } });

  const init = only(instancesOf(run, 'mcp:initialize'));
  t.match(init, { status: 'ok', input: { clientInfo: { name: 'graphmind-graph-test' } }, output: { protocolVersion: LATEST_PROTOCOL_VERSION } });
  t.match(only(instancesOf(run, 'mcp:notifications/initialized')), { status: 'ok' }, 'a notification is an instance that ends at once');
  const protocol = only(instancesOf(run, 'mcp:protocol'));
  t.equal(protocol.instanceId, 'mcp_2', 'protocol opens on the first protocol frame (initialize)');
  t.same(protocol.output, { calls: 4, errors: 0, stdoutNoise: 0 }, 'the protocol card counts its calls');
  t.equal(protocolCalls(run).length, 4);
  const sessionInstance = only(instancesOf(run, 'mcp:session'));
  t.match(sessionInstance, { status: 'ok', input: { command: node, args: [fixture('sdk1-server.mjs')] } });
  t.notOk(sessionInstance.error, 'the session has no error');
});

t.test('server-everything: sampling, elicitation and completion have their own nodes', async (t) => {
  const session = await sdk(t, {
    port: server.port,
    server: [node, EVERYTHING, 'stdio'],
    env: { GRAPHMIND_DATA_DIR: server.dataDir },
    capabilities: { sampling: {}, elicitation: {} },
    setup(client) {
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({
        role: 'assistant',
        content: { type: 'text', text: 'sampled by the test' },
        model: 'test-model',
        stopReason: 'endTurn',
      }));
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ann', check: true } }));
    },
  });
  const { client } = session;
  // The server registers the sampling and elicitation tools once initialized.
  let names: string[] = [];
  const deadline = Date.now() + 10_000;
  while (!names.includes('trigger-sampling-request') && Date.now() < deadline) {
    names = (await client.listTools()).tools.map((tool) => tool.name);
    if (!names.includes('trigger-sampling-request')) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.ok(names.includes('trigger-elicitation-request'), 'the conditional tools are there');
  t.match(await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello' } }), { content: [{ text: /sampled by the test/ }] });
  t.match(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} }), { content: [{ text: /User provided the requested information/ }] });
  t.same(await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'Eng' } }), {
    completion: { values: ['Engineering'], total: 1, hasMore: false },
  });
  for (const message of ['a', 'b', 'c']) t.match(await client.callTool({ name: 'echo', arguments: { message } }), { content: [{ text: `Echo: ${message}` }] });
  await session.close();

  const run = await waitForRun(server, session.pid);
  checkRun(t, run);
  t.equal(run.status, 'ok');
  t.match(run.meta, { serverInfo: { name: 'mcp-servers/everything' }, protocolVersion: LATEST_PROTOCOL_VERSION });
  t.match(nodeOf(run, 'llm:sampling'), { kind: 'llm', parent: 'mcp:session', status: 'ok' }, 'sampling/createMessage (server → client) is llm:sampling');
  t.match(only(instancesOf(run, 'llm:sampling')), { input: { maxTokens: 100 }, output: { model: 'test-model' } });
  t.match(nodeOf(run, 'mcp:elicitation/create'), { kind: 'custom', parent: 'mcp:session', status: 'ok' }, 'elicitation sits under the session');
  t.match(only(instancesOf(run, 'mcp:elicitation/create')), { output: { action: 'accept' } });
  t.match(nodeOf(run, 'mcp:completion/complete'), { kind: 'custom', parent: 'mcp:session', status: 'ok' }, 'completion/complete sits under the session');
  t.match(only(instancesOf(run, 'mcp:completion/complete')), { output: { completion: { values: ['Engineering'] } } });
  t.equal(instancesOf(run, 'tool:echo').length, 3, 'three echoes, one node');
  t.same(
    childrenOf(run, 'mcp:session'),
    ['llm:sampling', 'mcp:completion/complete', 'mcp:elicitation/create', 'mcp:protocol', 'tool:echo', 'tool:trigger-elicitation-request', 'tool:trigger-sampling-request'],
    'nothing else under the session',
  );
  const protocolChildren = childrenOf(run, 'mcp:protocol');
  t.ok(protocolChildren.includes('mcp:initialize') && protocolChildren.includes('mcp:tools/list'), 'handshake and listings are protocol');
  t.ok(protocolChildren.every((id) => id.startsWith('mcp:') && nodeOf(run, id)?.kind === 'custom'), 'protocol nodes are mcp:<method>, custom');
  const calls = protocolCalls(run);
  t.same(only(instancesOf(run, 'mcp:protocol')).output, { calls: calls.length, errors: 0, stdoutNoise: 0 }, 'protocol output counts every protocol call');
  t.ok(run.logs.length > 0, 'the server wrote to stderr');
  t.ok(run.logs.every((line) => line.nodeId === 'mcp:session' && line.stream === 'stderr'), 'its stderr is on the session node');
});

t.test('raw JSON-RPC: a tools/call from the server is protocol traffic; errors, stderr and bytes', async (t) => {
  const record = join(tempDir(), 'stdout.bin');
  const s = rawSession(t, [node, fixture('reverse-call-server.mjs'), record]);
  s.write(initialize(1));
  await responseTo(s.proxy, 1);
  s.send({ method: 'notifications/initialized' });
  s.write(toolsCall(2, 'ask-client', { q: 'why?' }));
  const asked = await serverRequest(s.proxy, 'tools/call');
  t.equal(asked.id, 2, 'the server reuses id 2 while the client request 2 is pending (ids are per direction)');
  s.send({ id: 2, result: { content: [{ type: 'text', text: 'because' }] } });
  t.match(await responseTo(s.proxy, 2), { result: { content: [{ text: 'the client said: because' }] } }, 'the client request 2 is answered after the server request 2');
  s.write(toolsCall(3, 'log', { lines: ['alpha', 'beta', 'gamma'] }));
  await responseTo(s.proxy, 3);
  s.write(toolsCall(4, 'fail', { why: 'bad input' }));
  t.match(await responseTo(s.proxy, 4), { result: { isError: true } });
  s.send({ id: 5, method: 'bogus/method' });
  t.match(await responseTo(s.proxy, 5), { error: { code: -32601 } });
  t.same((await s.end()).code, 0, 'the proxy exits 0');

  t.ok(s.proxy.stdout().equals(readFileSync(record)), 'the proxy wrote exactly the server bytes to stdout, nothing else');
  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.equal(run.status, 'ok');
  t.equal(nodeOf(run, 'tool:client-side'), undefined, 'a tools/call from the server is not a tool node');
  t.match(nodeOf(run, 'mcp:tools/call'), { kind: 'custom', parent: 'mcp:protocol', status: 'ok' }, 'it is mcp:tools/call under protocol');
  t.match(only(instancesOf(run, 'mcp:tools/call')), { input: { name: 'client-side', arguments: { q: 'why?' } }, output: { content: [{ text: 'because' }] } });
  t.match(only(instancesOf(run, 'tool:ask-client')), { status: 'ok', output: { content: [{ text: 'the client said: because' }] } }, 'the client request is still a tool call');
  t.match(only(instancesOf(run, 'tool:fail')), { status: 'error', error: { name: 'ToolError', message: 'it failed: bad input' } });
  t.match(only(instancesOf(run, 'mcp:bogus/method')), { status: 'error', error: { name: 'JsonRpcError', code: -32601 } });
  t.match(nodeOf(run, 'mcp:bogus/method'), { parent: 'mcp:protocol', kind: 'custom' }, 'an unknown method is protocol');
  t.same(only(instancesOf(run, 'mcp:protocol')).output, { calls: 4, errors: 1, stdoutNoise: 0 }, 'calls: initialize, initialized, the reverse call, bogus; one error');
  t.same(
    run.logs.map((line) => [line.nodeId, line.stream, line.text]),
    [
      ['mcp:session', 'stderr', 'reverse-call-server: starting'],
      ['mcp:session', 'stderr', 'reverse-call-server: ready'],
      ['tool:log', 'stderr', 'alpha'],
      ['tool:log', 'stderr', 'beta'],
      ['tool:log', 'stderr', 'gamma'],
    ],
    'stderr lines in order: the start-up ones on the session node, those printed while `log` was the only call in flight on it',
  );
  const logCall = only(instancesOf(run, 'tool:log'));
  t.same(
    run.logs.filter((line) => line.nodeId === 'tool:log').map((line) => line.instanceId),
    [logCall.instanceId, logCall.instanceId, logCall.instanceId],
    'with its instance',
  );
});

t.test('an unanswered request stays open while the server runs and fails when it exits', async (t) => {
  const s = rawSession(t, [node, fixture('reverse-call-server.mjs')]);
  s.write(initialize(1));
  s.write(toolsCall(2, 'hang'));
  s.write(toolsCall(3, 'echo', { after: 'hang' }));
  await responseTo(s.proxy, 3);
  const live = await waitForRun(server, s.pid, (run) => instancesOf(run, 'tool:echo')[0]?.status === 'ok');
  t.equal(live.status, 'running', 'the run is running while the session lives');
  t.match(only(instancesOf(live, 'tool:hang')), { status: 'open', endedAt: null }, 'the unanswered call is open, not an error');
  t.equal(nodeOf(live, 'tool:hang')?.status, 'open', 'and so is its node');
  t.equal(only(instancesOf(live, 'mcp:session')).status, 'open', 'the session is open');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const later = await waitForRun(server, s.pid, () => true);
  t.equal(only(instancesOf(later, 'tool:hang')).status, 'open', 'still open a moment later');

  t.equal((await s.end()).code, 0);
  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.match(only(instancesOf(run, 'tool:hang')), { status: 'error', error: { name: 'NoAnswer' } }, 'an error once the server has exited');
  t.equal(run.status, 'ok', 'the server had answered, so the run is ok');
});

t.test('a server that never answers: open while it runs, McpServerExitedEarly when it exits', async (t) => {
  const s = rawSession(t, [node, fixture('silent-server.mjs')]);
  let serverPid: number | undefined;
  t.teardown(() => kill(serverPid));
  s.write(initialize(1));
  const live = await waitForRun(server, s.pid, (run) => instancesOf(run, 'mcp:initialize').length === 1 && run.logs.length > 0);
  serverPid = Number(/silent-server: pid (\d+)/.exec(live.logs[0]?.text ?? '')?.[1]);
  t.equal(live.status, 'running');
  t.match(only(instancesOf(live, 'mcp:initialize')), { status: 'open' }, 'initialize is open while the server runs');
  t.equal(nodeOf(live, 'mcp:protocol')?.status, 'open');

  // EOF on its stdin: the silent server exits 0 without having answered.
  const exit = await s.end();
  t.not(exit.code, null);
  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.equal(run.status, 'error', 'a server that never answered ends the run in error');
  t.match(only(instancesOf(run, 'mcp:initialize')), { status: 'error', error: { name: 'NoAnswer' } });
  t.match(only(instancesOf(run, 'mcp:session')), { status: 'error', error: { name: 'McpServerExitedEarly', data: { stderr: [/silent-server: pid/, 'silent-server: stdin ended'] } } });
});

t.test('stdout noise from noisy-server: red executions under protocol, bytes relayed as they were', async (t) => {
  const record = join(tempDir(), 'stdout.bin');
  const s = rawSession(t, [node, fixture('noisy-server.mjs'), record]);
  s.write(initialize(1));
  await responseTo(s.proxy, 1);
  s.write(toolsCall(2, 'a'));
  s.write(toolsCall(3, 'b'));
  await responseTo(s.proxy, 3);
  await s.end();
  t.ok(s.proxy.stdout().equals(readFileSync(record)), 'stdout carries exactly the server bytes, noise included');

  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.equal(run.status, 'ok');
  t.match(nodeOf(run, 'mcp:stdout-noise'), { kind: 'custom', parent: 'mcp:protocol', status: 'error' });
  const noise = instancesOf(run, 'mcp:stdout-noise');
  t.same(
    noise.map((i) => i.input),
    [
      'debug: loading config from ./config.json',
      '{"level":"info","msg":"noisy-server starting","time":1757808000000}',
      '[noisy-server] initialize received',
      '{"level":"debug","msg":"tools/call a"}',
      '{"level":"debug","msg":"tools/call b"}',
    ],
    'one execution per line, the text as input',
  );
  t.ok(noise.every((i) => i.status === 'error' && i.error?.name === 'StdoutNoise'), 'each one red');
  t.same(only(instancesOf(run, 'mcp:protocol')).output, { calls: 1, errors: 0, stdoutNoise: 5 });
  t.same(
    instancesOf(run, 'tool:a').map((i) => [i.status, i.output]),
    [['ok', { content: [{ type: 'text', text: 'café ✓ ok' }], structuredContent: { score: 100, ratio: 0.5 } }]],
    'the answers around the noise are recorded',
  );
});

t.test('30 noise lines: 25 executions, all 30 counted, inputs cut at 200 bytes on a character boundary', async (t) => {
  const record = join(tempDir(), 'stdout.bin');
  const s = rawSession(t, [node, fixture('noise30-server.mjs'), record]);
  s.write(initialize(1));
  await responseTo(s.proxy, 1);
  s.send({ id: 2, method: 'ping' });
  await responseTo(s.proxy, 2);
  await s.end();
  t.ok(s.proxy.stdout().equals(readFileSync(record)), 'stdout carries exactly the server bytes');
  t.match(s.proxy.stderr(), /30 line\(s\) the server wrote to stdout were not JSON-RPC/);

  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  const noise = instancesOf(run, 'mcp:stdout-noise');
  t.equal(noise.length, 25, 'the first 25 lines become executions');
  t.same(only(instancesOf(run, 'mcp:protocol')).output, { calls: 2, errors: 0, stdoutNoise: 30 }, 'stdoutNoise has the full count');
  const first = noise[0]?.input;
  const line = `${'a'.repeat(199)}ééé`;
  t.type(first, 'string');
  if (typeof first === 'string') {
    t.ok(Buffer.byteLength(first) <= 200, `the input is at most 200 bytes (${Buffer.byteLength(first)})`);
    t.ok(line.startsWith(first) && first.length >= 199, 'and a prefix of the line, with no broken character');
  }
  t.same(
    noise.slice(1).map((i) => i.input),
    Array.from({ length: 24 }, (_, n) => `noise line ${n + 2} of 30`),
    'lines 2..25 in order',
  );
});

t.test('a command that cannot start: SpawnError on the session, run error', async (t) => {
  const s = rawSession(t, ['no-such-mcp-server-graphmind-test']);
  const exit = await s.proxy.exited;
  t.equal(exit.code, 127, 'the proxy exits 127');
  t.equal(s.proxy.stdout().length, 0, 'nothing on stdout');
  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.equal(run.status, 'error', 'the run ends in error');
  t.same(childrenOf(run, 'mcp:session'), [], 'only the session node');
  t.match(only(run.instances), {
    nodeId: 'mcp:session',
    status: 'error',
    error: { name: 'SpawnError', message: /cannot run "no-such-mcp-server-graphmind-test"/, data: { code: 'ENOENT' } },
  });
});

t.test('a crash before answering: McpServerExitedEarly with the last 200 stderr lines, run error', async (t) => {
  const s = rawSession(t, [node, fixture('crash-server.mjs'), '250']);
  const exit = await s.proxy.exited;
  t.equal(exit.code, 2, 'the proxy exits with the server code');
  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.equal(run.status, 'error');
  const session = only(run.instances);
  t.match(session, { status: 'error', error: { name: 'McpServerExitedEarly', message: /exited with code 2 before answering anything/, data: { exitCode: 2 } } });
  const data = session.error?.data as { stderr: string[] };
  const texts = run.logs.map((line) => line.text);
  t.equal(texts[0], 'crash-server: log line 1 of 250', 'the log starts with the first stderr line');
  t.same(texts.slice(0, 253), [...Array.from({ length: 250 }, (_, i) => `crash-server: log line ${i + 1} of 250`), 'crash-server: line 1 of 3', 'crash-server: line 2 of 3', 'crash-server: line 3 of 3'].slice(0, 253), 'every stderr line, in order');
  t.ok(run.logs.every((line) => line.nodeId === 'mcp:session' && line.stream === 'stderr'), 'on the session node');
  t.ok(texts.includes('Error: FATAL: DATABASE_URL is not set'));
  t.equal(data.stderr.length, 200, 'the error carries 200 lines');
  t.same(data.stderr, texts.slice(-200), 'the last 200');
  t.ok(Buffer.byteLength(data.stderr.join('\n')) <= 32 * 1024, 'within 32 KB');
});

t.test('a crash faster than the debugger handshake still reaches the graph', async (t) => {
  const slow = await startServe(SERVE_ARGS);
  t.teardown(async () => {
    kill(slow.child.pid, 'SIGCONT');
    await slow.stop();
  });
  // Stopped, the debugger's kernel still accepts the connection, but the
  // upgrade is answered only when it runs again: longer than the crash takes.
  kill(slow.child.pid, 'SIGSTOP');
  const s = rawSession(t, [node, fixture('crash-server.mjs')], { to: slow });
  // The server has crashed and the proxy is ending the session: only now
  // does the debugger answer the handshake.
  await waitFor(() => /before answering anything/.test(s.proxy.stderr()), 10_000, 'the crash');
  await new Promise((resolve) => setTimeout(resolve, 50));
  kill(slow.child.pid, 'SIGCONT');
  t.equal((await s.proxy.exited).code, 2);
  const run = await waitForRun(slow, s.pid, undefined, 5000);
  t.equal(run.status, 'error');
  t.match(only(run.instances), { error: { name: 'McpServerExitedEarly', data: { stderr: ['crash-server: line 1 of 3', 'crash-server: line 2 of 3'] } } });
});

t.test('a server that answered once and then exited 1 keeps the run ok', async (t) => {
  const s = rawSession(t, [node, fixture('reverse-call-server.mjs')]);
  s.write(initialize(1));
  await responseTo(s.proxy, 1);
  s.write(toolsCall(2, 'die', { code: 1 }));
  t.equal((await s.proxy.exited).code, 1, 'the proxy exits 1 like the server');
  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.equal(run.status, 'ok', 'the conversation happened: run ok');
  const session = only(instancesOf(run, 'mcp:session'));
  t.not(session.error?.name, 'McpServerExitedEarly');
  t.match(session, { status: 'error', error: { name: 'McpServerExited', data: { exitCode: 1 } } }, 'the session shows how the process ended');
  t.match(only(instancesOf(run, 'tool:die')), { status: 'error', error: { name: 'NoAnswer' } });
  t.equal(run.logs.at(-1)?.text, 'reverse-call-server: dying');
});

const SECRET_ARGS = ['--token=SECRET-ARG-0451', 'SECRET-POSITIONAL-0452'];

/** An SDK session with reverse-call-server under the hide switches; returns the run and what the client got. */
async function hiddenSession(t: Teardown, env: Record<string, string>): Promise<{ run: Run; echoed: unknown; failed: unknown; rpcFailed: unknown; record: string }> {
  const dir = tempDir();
  const record = join(dir, 'stdout.bin');
  const session = await sdk(t, {
    port: server.port,
    server: [node, fixture('reverse-call-server.mjs'), record, ...SECRET_ARGS],
    env: { GRAPHMIND_DATA_DIR: server.dataDir, ...env },
  });
  const echoed = await session.client.callTool({ name: 'echo', arguments: { secret: 'SECRET-INPUT-0453' } });
  const failed = await session.client.callTool({ name: 'fail', arguments: { why: 'SECRET-WHY-0454' } });
  const rpcFailed = await session.client.callTool({ name: 'rpc-fail', arguments: { why: 'SECRET-RPC-0455' } }).then(
    () => undefined,
    (error: { code?: unknown; message?: unknown; data?: unknown }) => ({ code: error.code, message: error.message, data: error.data }),
  );
  await session.close();
  return { run: await waitForRun(server, session.pid), echoed, failed, rpcFailed, record };
}

const REAL_ECHO = { content: [{ type: 'text', text: '{"secret":"SECRET-INPUT-0453"}' }] };
const REAL_FAIL = { content: [{ type: 'text', text: 'it failed: SECRET-WHY-0454' }], isError: true };
/** What the client's SDK makes of the JSON-RPC error that answers `rpc-fail`. */
const REAL_RPC_FAIL = { code: -32000, message: 'MCP error -32000: it broke: SECRET-RPC-0455', data: { why: 'SECRET-RPC-0455' } };

t.test('GRAPHMIND_HIDE_INPUTS=1: no params, no arguments in meta or label; the client gets the real bytes', async (t) => {
  const { run, echoed, failed, rpcFailed, record } = await hiddenSession(t, { GRAPHMIND_HIDE_INPUTS: '1' });
  t.same(echoed, REAL_ECHO, 'the client got the real result');
  t.same(failed, REAL_FAIL);
  t.same(rpcFailed, REAL_RPC_FAIL);
  checkRun(t, run);
  t.equal(run.name, `node reverse-call-server.mjs ${'stdout.bin'}`, 'the label keeps the command name and file names only');
  t.equal(run.meta.command, 'node', 'meta keeps the command name');
  t.same(run.meta.args, ['reverse-call-server.mjs', 'stdout.bin'], 'and the file names of path arguments, as the label does');
  t.notOk('cwd' in run.meta, 'no cwd in meta');
  const calls = run.instances.filter((i) => i.nodeId !== 'mcp:session' && i.nodeId !== 'mcp:protocol');
  t.ok(calls.length >= 4, 'initialize, initialized and two tool calls');
  t.same(calls.filter((i) => i.input !== '[hidden]').map((i) => [i.nodeId, i.input]), [], 'every request params is recorded as [hidden]');
  t.same(only(instancesOf(run, 'mcp:session')).input, { command: 'node', args: ['reverse-call-server.mjs', 'stdout.bin'] });
  const text = JSON.stringify(run);
  for (const secret of [...SECRET_ARGS, record]) t.notOk(text.includes(secret), `${secret} is nowhere in the run`);
  t.notOk(text.includes('SECRET-POSITIONAL'), 'no argument at all');
  t.same(only(instancesOf(run, 'tool:echo')).output, REAL_ECHO, 'tool results are still recorded (only inputs are hidden)');
  t.match(only(instancesOf(run, 'tool:rpc-fail')).error, { name: 'JsonRpcError', code: -32000, message: 'it broke: SECRET-RPC-0455', data: { why: 'SECRET-RPC-0455' } }, 'and so are JSON-RPC errors');
});

t.test('GRAPHMIND_HIDE_TOOL_RESULTS=1: no tool results, no failed content in the error message', async (t) => {
  const { run, echoed, failed, rpcFailed, record } = await hiddenSession(t, { GRAPHMIND_HIDE_TOOL_RESULTS: '1' });
  t.same(echoed, REAL_ECHO, 'the client got the real result');
  t.same(failed, REAL_FAIL, 'and the real failure');
  t.same(rpcFailed, REAL_RPC_FAIL, 'and the real JSON-RPC error');
  checkRun(t, run);
  t.match(only(instancesOf(run, 'tool:echo')), { status: 'ok', output: '[hidden]', input: { arguments: { secret: 'SECRET-INPUT-0453' } } });
  const fail = only(instancesOf(run, 'tool:fail'));
  t.match(fail, { status: 'error', output: '[hidden]', error: { name: 'ToolError' } });
  t.notOk(JSON.stringify(fail.error).includes('SECRET-WHY'), 'the error message does not carry the content');
  t.notOk(JSON.stringify(run.instances.map((i) => [i.output, i.error])).includes('SECRET-INPUT'), 'no result carries the echoed secret');
  const rpcFail = only(instancesOf(run, 'tool:rpc-fail'));
  t.match(rpcFail, { status: 'error', error: { name: 'JsonRpcError', code: -32000 } }, 'a JSON-RPC error keeps its code');
  t.notOk('data' in (rpcFail.error ?? {}), 'but not its data');
  t.notOk(JSON.stringify([rpcFail.error, rpcFail.output]).includes('SECRET-RPC'), 'nor its message');
  t.match(only(instancesOf(run, 'mcp:initialize')).output, { serverInfo: { name: 'reverse-call-server' } }, 'non-tool results are still recorded');
  t.same(run.meta.args, [fixture('reverse-call-server.mjs'), record, ...SECRET_ARGS], 'the arguments are kept (only results are hidden)');
});

t.test('both hide switches: no secret anywhere in the recorded run', async (t) => {
  const { run, echoed, failed, rpcFailed } = await hiddenSession(t, { GRAPHMIND_HIDE_INPUTS: '1', GRAPHMIND_HIDE_TOOL_RESULTS: 'true' });
  t.same(echoed, REAL_ECHO);
  t.same(failed, REAL_FAIL);
  t.same(rpcFailed, REAL_RPC_FAIL);
  checkRun(t, run);
  const text = JSON.stringify(run);
  t.notOk(/SECRET/.test(text), 'nothing secret was recorded');
  t.equal(instancesOf(run, 'tool:echo').length, 1, 'the calls are still on the graph');
});

t.test('detached, then the debugger starts: the session shows up with everything', async (t) => {
  const port = await freePort();
  const dataDir = tempDir();
  const session = await sdk(t, { port, server: [node, fixture('sdk1-server.mjs')], env: { GRAPHMIND_DATA_DIR: dataDir } });
  for (const text of ['before-1', 'before-2', 'before-3']) t.same(await session.client.callTool({ name: 'echo', arguments: { text } }), { content: [{ type: 'text', text }] }, 'the relay works with no debugger');

  const late = await serveOnPort(port, dataDir, SERVE_ARGS);
  t.teardown(() => late.stop());
  const live = await waitForRun(late, session.pid, (run) => instancesOf(run, 'tool:echo').filter((i) => i.status === 'ok').length === 3, 15_000);
  t.equal(live.status, 'running', 'the session is live');
  t.same(childrenOf(live, 'mcp:protocol'), ['mcp:initialize', 'mcp:notifications/initialized'], 'the handshake from before the debugger came is there');
  t.same(instancesOf(live, 'tool:echo').map((i) => (i.input as { arguments: unknown }).arguments), [{ text: 'before-1' }, { text: 'before-2' }, { text: 'before-3' }], 'replayed in order');

  for (const text of ['after-1', 'after-2']) await session.client.callTool({ name: 'echo', arguments: { text } });
  await session.close();
  const run = await waitForRun(late, session.pid);
  checkRun(t, run);
  t.equal(run.status, 'ok');
  t.equal(run.droppedEvents, 0, 'nothing dropped');
  t.same(instancesOf(run, 'tool:echo').map((i) => (i.input as { arguments: { text: string } }).arguments.text), ['before-1', 'before-2', 'before-3', 'after-1', 'after-2']);
});

t.test('detached with a full buffer: the oldest events go and the run says so', async (t) => {
  const port = await freePort();
  const dataDir = tempDir();
  const s = rawSession(t, [node, fixture('byte-echo-server.mjs')], { to: { port, dataDir } });
  let answers = 0;
  s.proxy.child.stdout.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) answers++;
  });
  // The reporter keeps DEFAULT_MAX_BUFFERED_EVENTS while detached; each call is two.
  const capacity = DEFAULT_MAX_BUFFERED_EVENTS / 2;
  // Requests go out in bursts of 50 (their answers come back in between), so
  // starts and finishes interleave and the kept window holds whole calls.
  const burst = 50;
  const calls = capacity * 4;
  const started = Date.now();
  s.write(initialize(0));
  let batch = '';
  for (let id = 1; id <= calls; id++) {
    batch += toolsCall(id, 'echo', { n: id });
    if (id % burst === 0 || id === calls) {
      s.write(batch);
      batch = '';
      await waitFor(() => answers >= id + 1, 10_000, `answers up to ${id}`);
    }
  }
  await waitFor(() => answers >= calls + 1, 60_000, 'every answer');
  t.comment(`${calls} calls relayed with no debugger in ${Date.now() - started} ms`);
  const late = await serveOnPort(port, dataDir, SERVE_ARGS);
  t.teardown(() => late.stop());
  const attachedAt = Date.now();
  const live = await waitForRun(late, s.pid, (run) => instancesOf(run, 'tool:echo').some((i) => (i.input as { arguments: { n: number } }).arguments.n === calls && i.status === 'ok'), 30_000);
  t.comment(`the buffered events reached the debugger ${Date.now() - attachedAt} ms after it started`);
  t.equal(live.status, 'running', 'the run is there while the session lives');
  t.ok(live.droppedEvents > 0, `the run says events were dropped (${live.droppedEvents})`);
  const echoes = instancesOf(live, 'tool:echo');
  t.ok(echoes.length >= capacity * 0.8 && echoes.length < calls, `most recent calls are kept (${echoes.length} of ${calls})`);
  const numbers = echoes.map((i) => (i.input as { arguments: { n: number } }).arguments.n);
  t.ok(numbers.every((n, i) => i === 0 || n === (numbers[i - 1] as number) + 1), 'the kept ones are the newest, contiguous, in order');
  t.equal(numbers.at(-1), calls);
  t.ok(echoes.every((i) => i.status === 'ok'), 'each kept call is complete');
  await s.end();
  const run = await waitForRun(late, s.pid, undefined, 20_000);
  t.equal(run.status, 'ok', 'the run still ends ok');
});

t.test('GRAPHMIND_DISABLED=1: nothing is recorded, the relay still works', async (t) => {
  const disabled = await sdk(t, { port: server.port, server: [node, fixture('reverse-call-server.mjs')], env: { GRAPHMIND_DATA_DIR: server.dataDir, GRAPHMIND_DISABLED: '1' } });
  t.same(await disabled.client.callTool({ name: 'echo', arguments: { x: 1 } }), { content: [{ type: 'text', text: '{"x":1}' }] }, 'the relay works');
  // Closed, the proxy has exited: a proxy that reported would have flushed its run on the way out.
  await disabled.close();
  // A reporting session after it: once its run is there, the disabled one would have been too.
  const s = rawSession(t, [node, fixture('reverse-call-server.mjs')]);
  s.write(initialize(1));
  await responseTo(s.proxy, 1);
  await s.end();
  await waitForRun(server, s.pid);
  t.equal(await runOfProxy(server, disabled.pid), undefined, 'no run for the disabled proxy');
});

t.test('GRAPHMIND_DISABLED=0 or false leaves reporting on, as for the hide switches', async (t) => {
  for (const value of ['0', 'false', 'FALSE', '']) {
    const s = rawSession(t, [node, fixture('reverse-call-server.mjs')], { env: { GRAPHMIND_DISABLED: value } });
    s.write(initialize(1));
    await responseTo(s.proxy, 1);
    await s.end();
    t.ok(await waitForRun(server, s.pid), `GRAPHMIND_DISABLED=${JSON.stringify(value)}: the session is recorded`);
  }
});

t.test('GRAPHMIND_TOKEN in the proxy environment is the token it presents', async (t) => {
  const token = `tok-${process.pid}-${Date.now()}-abcdefghijklmnopqrstuvwxyz`;
  const withToken = await startServe(SERVE_ARGS, { GRAPHMIND_TOKEN: token });
  t.teardown(() => withToken.stop());
  const empty = tempDir();
  const s = rawSession(t, [node, fixture('echo-server.mjs')], { to: { port: withToken.port, dataDir: empty }, env: { GRAPHMIND_TOKEN: token } });
  s.write(initialize(1));
  await responseTo(s.proxy, 1);
  await s.end();
  const address: DebuggerAddress = { port: withToken.port, token };
  const run = await waitForRun(address, s.pid);
  t.equal(run.status, 'ok', 'recorded with the token from GRAPHMIND_TOKEN (no token file anywhere)');
  t.match(run.logs[0]?.text, /"sawToken":false/, 'and the server did not get it');

  // The right token file, but a wrong GRAPHMIND_TOKEN: the variable wins, so nothing is recorded.
  const wrong = rawSession(t, [node, fixture('echo-server.mjs')], { env: { GRAPHMIND_TOKEN: 'wrong-token' } });
  wrong.write(initialize(1));
  await responseTo(wrong.proxy, 1);
  // The debugger turned it down (the proxy says so): it had its chance to be recorded.
  await waitFor(() => wrong.proxy.stderr().includes('refused this proxy'), 10_000, 'the refusal');
  await wrong.end();
  t.equal(await runOfProxy(server, wrong.pid), undefined, 'a wrong GRAPHMIND_TOKEN is used over the right token file');
});

t.test('a tool name too long for the debugger costs nothing but its full id', async (t) => {
  const s = rawSession(t, [node, fixture('reverse-call-server.mjs')]);
  const long = 'x'.repeat(3000);
  s.write(initialize(1));
  s.write(toolsCall(2, long));
  s.write(toolsCall(3, 'echo', { n: 3 }));
  s.write(toolsCall(4, long));
  await responseTo(s.proxy, 4);
  await s.end();
  const run = await waitForRun(server, s.pid);
  checkRun(t, run);
  t.equal(run.status, 'ok');
  t.equal(instancesOf(run, 'mcp:initialize').length, 1, 'the calls around it are recorded');
  t.equal(instancesOf(run, 'tool:echo').length, 1);
  const longNodes = run.nodes.filter((n) => n.nodeId.startsWith('tool:xxx'));
  t.equal(longNodes.length, 1, 'two calls to the long tool: one node');
  const longNode = longNodes[0];
  t.ok(longNode !== undefined && longNode.nodeId.length <= 1024, 'with an id the debugger accepts');
  t.match(longNode, { kind: 'tool', parent: 'mcp:session' });
  const calls = instancesOf(run, longNode?.nodeId ?? '');
  t.equal(calls.length, 2);
  t.equal((calls[0]?.input as { name: string }).name, long, 'the input keeps the full name');
});
