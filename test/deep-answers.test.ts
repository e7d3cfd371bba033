// Answers nested 1,000 and 100,000 levels deep (issue 29, "every valid
// answer recorded"): JSON.parse and the SDK clients accept them, so the
// debugger must too. Through `graphmind mcp-proxy`, `graphmind http-proxy`
// and the in-process adapter, each reporting to a real `graphmind serve`:
// the client gets the answer (byte for byte where the bytes are ours to
// see), a breakpoint at the after gate holds it and `continue` lets it go,
// the run shows the call answered (not stdout noise, not open) with the
// too-deep note in place of its result, and the next call is recorded as
// usual.
//
// The servers are raw JSON-RPC (test/fixtures/mcp-proxy/deep-server.mjs):
// an SDK server serialises its answer with JSON.stringify, which overflows
// the stack long before 100,000 levels. The clients are real SDK clients
// (1.x and 2.x both accept such a result: checked below), plus a raw stdio
// and a raw HTTP client where the test compares bytes.
import { spawn } from 'node:child_process';
import t, { type Test } from 'tap';
import * as z from 'zod';
import { RECORD_MAX_DEPTH, tooDeepNote } from '../src/json/depth.js';
import { PROXY_FIXTURES, CLI, waitFor } from './helpers/cli.js';
import { adapter, connectInMemory, instanceOf, kit, RunWatch, type Loose } from './helpers/adapter.js';
import { connectV1, connectV2, decide, getRun, newRuns, proxyEnv, runIds, setBreakpoints, startDebugger, waitForAsync, waitForHold, type ServeProcess } from './helpers/gates.js';
import { connect, startHttpProxy } from './fixtures/http/harness.js';

const DEEP_SERVER = `${PROXY_FIXTURES}deep-server.mjs`;
const DEPTHS = [1_000, 100_000];
const NOTE = tooDeepNote();

/** The result the fixture answers `deep` with: `depth` levels in all (the same bytes, built independently). */
function deepResult(depth: number): string {
  const arrays = depth - 2;
  return `{"content":[{"type":"text","text":"deep ${depth}"}],"structuredContent":{"a":${'['.repeat(arrays)}${']'.repeat(arrays)}}}`;
}

/** How many arrays are nested in `value` (walked, not recursed: JSON.stringify could not). */
function arrayDepth(value: unknown): number {
  let depth = 0;
  let at = value;
  while (Array.isArray(at)) {
    depth++;
    at = at[0];
  }
  return depth;
}

/** What a client got for `deep`: its text and how deep its structured content went. */
function shapeOf(result: Loose): { text: string; arrays: number } {
  return { text: result.content[0].text, arrays: arrayDepth(result.structuredContent.a) };
}

/** The instances of a run, with their node, status and output. */
type Instances = Array<{ nodeId: string; status: string; output?: unknown; instanceId: string }>;

/** Wait until the live run `runId` has `count` ended instances of `nodeId`; returns its instances. */
async function recorded(serve: ServeProcess, runId: string, nodeId: string, count: number): Promise<Instances> {
  let instances: Instances = [];
  await waitForAsync(
    async () => {
      instances = (await getRun(serve, runId)).instances as Instances;
      return instances.filter((i) => i.nodeId === nodeId && i.status !== 'running').length >= count;
    },
    15_000,
    `${count} ended call(s) of ${nodeId} in run ${runId}`,
  );
  return instances;
}

/** The checks every integration shares: the deep call answered with the note, no noise, and (given its text) the echo call as usual. */
function checkRecord(t: Test, instances: Instances, echoText?: string): void {
  const deep = instances.filter((i) => i.nodeId === 'tool:deep');
  t.ok(deep.length > 0, 'the deep call is recorded');
  for (const call of deep) {
    t.equal(call.status, 'ok', 'the deep call is recorded as answered');
    t.strictSame(call.output, NOTE, `its result is the too-deep note, naming the bound (${RECORD_MAX_DEPTH})`);
  }
  t.strictSame(
    instances.filter((i) => i.nodeId === 'mcp:stdout-noise'),
    [],
    'nothing was recorded as stdout noise',
  );
  if (echoText === undefined) return;
  const echo = instances.find((i) => i.nodeId === 'tool:echo');
  t.equal(echo?.status, 'ok', 'the next call is recorded');
  t.strictSame(echo?.output, { content: [{ type: 'text', text: echoText }] }, 'with its answer');
}

/** The newest run made after `before`. */
async function theNewRun(serve: ServeProcess, before: ReadonlySet<string>): Promise<string> {
  const fresh = await newRuns(serve, before);
  return fresh[0] as string;
}

t.test('mcp-proxy: a raw client gets the bytes, the answer holds and goes on, the record has it', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:deep': { after: true } } });
  for (const depth of DEPTHS) {
    const before = new Set(await runIds(serve));
    const child = spawn(process.execPath, [CLI, 'mcp-proxy', '--port', String(serve.port), '--wait-for-attach', '--', process.execPath, DEEP_SERVER], {
      stdio: 'pipe',
      env: proxyEnv(serve),
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.resume();
    const exited = new Promise((resolve) => child.once('close', resolve));
    t.teardown(() => child.kill('SIGKILL'));
    const stdout = (): string => Buffer.concat(out).toString('utf8');
    const send = (message: unknown): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);

    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    await waitFor(() => stdout().includes('"id":1,'), 10_000, 'the initialize answer');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'deep', arguments: { depth } } });

    const hold = await waitForHold(serve, { nodeId: 'tool:deep', gate: 'after' }, 15_000);
    t.strictSame(hold.frame, { jsonrpc: '2.0', id: 2, result: NOTE }, `${depth}: held at the after gate, shown with the note in place of its result`);
    t.notOk(stdout().includes('"id":2,'), `${depth}: held: the client has not got it`);
    await decide(serve, hold.holdId, 'continue');
    const expected = `{"jsonrpc":"2.0","id":2,"result":${deepResult(depth)}}\n`;
    await waitFor(() => stdout().endsWith('\n') && stdout().includes('"id":2,'), 15_000, 'the deep answer');
    t.ok(stdout().endsWith(expected), `${depth}: continue: the client gets the answer byte for byte`);

    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after' } } });
    await waitFor(() => stdout().includes('"id":3,'), 10_000, 'the next answer');
    const runId = await theNewRun(serve, before);
    checkRecord(t, await recorded(serve, runId, 'tool:echo', 1), 'echo after');
    child.stdin.end();
    await exited;
  }
});

for (const generation of ['1', '2'] as const) {
  t.test(`mcp-proxy: an SDK ${generation}.x client gets the deep answers, recorded without a hold`, async (t) => {
    const serve = await startDebugger(t);
    await setBreakpoints(serve, { pauseOnError: false, nodes: {} });
    const before = new Set(await runIds(serve));
    const session = generation === '1' ? await connectV1(t, serve, { server: [DEEP_SERVER] }) : await connectV2(t, serve, { server: [DEEP_SERVER] });
    const client = session.client as Loose;
    for (const depth of DEPTHS) {
      const result = await client.callTool({ name: 'deep', arguments: { depth } });
      t.strictSame(shapeOf(result), { text: `deep ${depth}`, arrays: depth - 2 }, `${depth}: the client has the whole answer`);
    }
    t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'next' } }), { content: [{ type: 'text', text: 'echo next' }] });
    const runId = await theNewRun(serve, before);
    const instances = await recorded(serve, runId, 'tool:echo', 1);
    t.equal(instances.filter((i) => i.nodeId === 'tool:deep').length, DEPTHS.length, 'both deep calls are recorded');
    checkRecord(t, instances, 'echo next');
    await session.close();
  });
}

t.test('http-proxy: the bytes, the hold, the record, the next call', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:deep': { after: true } } });
  const upstream = await startUpstream(t);
  const proxy = await startHttpProxy(t, upstream, { serve });
  const before = new Set(await runIds(serve));
  const post = (message: unknown): Promise<Response> =>
    fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(message) });
  await (await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })).text();
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  let id = 1;
  for (const depth of DEPTHS) {
    const answer = post({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'deep', arguments: { depth } } });
    const hold = await waitForHold(serve, { nodeId: 'tool:deep', gate: 'after' }, 15_000);
    t.strictSame(hold.frame, { jsonrpc: '2.0', id, result: NOTE }, `${depth}: held at the after gate, shown with the note`);
    await decide(serve, hold.holdId, 'continue');
    t.equal(await (await answer).text(), `{"jsonrpc":"2.0","id":${id},"result":${deepResult(depth)}}`, `${depth}: the host gets the body byte for byte`);
  }
  // A real SDK client through the same proxy, and the call after the deep ones.
  await setBreakpoints(serve, { pauseOnError: false, nodes: {} });
  const { client } = await connect(t, proxy.url, '1');
  t.strictSame(shapeOf(await client.callTool({ name: 'deep', arguments: { depth: 100_000 } })), { text: 'deep 100000', arrays: 99_998 }, 'an SDK client gets it too');
  const echo = await (await post({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'later' } } })).json();
  t.strictSame(echo, { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'echo later' }] } });
  // The raw requests and the SDK client's session may be runs of their own: the calls are looked for in all of them.
  checkRecord(t, await recordedIn(serve, before, 'echo later'), 'echo later');
});

/** The instances of every run made since `before`, once one of them has the echo call answering `echoText`. */
async function recordedIn(serve: ServeProcess, before: ReadonlySet<string>, echoText: string): Promise<Instances> {
  let instances: Instances = [];
  await waitForAsync(
    async () => {
      const fresh = (await runIds(serve)).filter((runId) => !before.has(runId));
      instances = (await Promise.all(fresh.map(async (runId) => (await getRun(serve, runId)).instances as Instances))).flat();
      return instances.some((i) => i.nodeId === 'tool:echo' && JSON.stringify(i.output ?? '').includes(echoText));
    },
    15_000,
    `the echo call answering ${echoText}`,
  );
  return instances;
}

/** The raw server over HTTP: its URL. */
async function startUpstream(t: Test): Promise<string> {
  const child = spawn(process.execPath, [DEEP_SERVER, '--http'], { stdio: 'pipe' });
  t.teardown(() => child.kill('SIGKILL'));
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  await waitFor(() => /listening (\S+)/.test(text), 10_000, 'the upstream to listen');
  return (/listening (\S+)/.exec(text) as RegExpExecArray)[1] as string;
}

for (const label of ['1.32.2', '2.4.0'] as const) {
  t.test(`adapter (SDK ${label}): the answer holds and goes on, the record has it, the next call too`, async (t) => {
    const k = kit(label);
    const serve = await startDebugger(t);
    const gm = await adapter(t, serve);
    // Tools are registered on the wrapped server: the wrapper gates what is registered through it.
    const server = gm.wrapServer(k.mcpServer('deep-adapter'));
    server.registerTool('deep', { description: 'deep', inputSchema: k.schema({ depth: z.number() }) }, async ({ depth }: { depth: number }) => JSON.parse(deepResult(depth)));
    server.registerTool('echo', { description: 'echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text }: { text: string }) => ({ content: [{ type: 'text', text: `echo ${text}` }] }));
    const client = await connectInMemory(t, k, server);
    const watch = await RunWatch.start(serve);
    for (const depth of DEPTHS) {
      // Held at the after gate, then let go.
      await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:deep': { after: true } } });
      const answer = k.callTool(client, { name: 'deep', arguments: { depth } });
      const hold = await waitForHold(serve, { nodeId: 'tool:deep', gate: 'after' }, 15_000);
      t.match(hold.frame, { jsonrpc: '2.0', result: NOTE }, `${depth}: held, shown with the note in place of its result`);
      await decide(serve, hold.holdId, 'continue');
      t.strictSame(shapeOf(await answer), { text: `deep ${depth}`, arrays: depth - 2 }, `${depth}: continue: the client gets the whole answer`);
      const held = await watch.one('tools/call:deep');
      t.equal(held.status, 'ok', `${depth}: the held call's run ended ok`);
      checkRecord(t, held.instances as Instances);
      await watch.mark();
      // Not held: the run goes whole, as one element.
      await setBreakpoints(serve, { pauseOnError: false, nodes: {} });
      t.strictSame(shapeOf(await k.callTool(client, { name: 'deep', arguments: { depth } })), { text: `deep ${depth}`, arrays: depth - 2 });
      t.strictSame(await k.callTool(client, { name: 'echo', arguments: { text: String(depth) } }), { content: [{ type: 'text', text: `echo ${depth}` }] });
      const quick = await watch.one('tools/call:deep');
      t.equal(instanceOf(quick, 'tool:deep').status, 'ok', `${depth}: a quick deep call is recorded as answered`);
      t.strictSame(instanceOf(quick, 'tool:deep').output, NOTE, `${depth}: with the note`);
      const next = await watch.one('tools/call:echo');
      t.strictSame(instanceOf(next, 'tool:echo').output, { content: [{ type: 'text', text: `echo ${depth}` }] }, `${depth}: the next call's run is there`);
      await watch.mark();
    }
  });
}
