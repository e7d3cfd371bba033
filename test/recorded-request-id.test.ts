// Every recorder sends the JSON-RPC id of each request it records, so the
// exports carry it whether or not the call was held: a real SDK client
// through `graphmind mcp-proxy`, through `graphmind http-proxy`, and talking
// to a server wrapped by the in-process adapter (1.x and 2.x). For each run,
// the HAR export's entries and the OTLP/JSON export's spans (through the
// export route of a real `graphmind serve`) name every request by the id the
// client sent: the SDK's own numeric ids, and a string id sent raw.
import t, { type Test } from 'tap';
import * as z from 'zod';
import { KITS, adapter, runList, text as adapterText, type Kit, type Loose } from './helpers/adapter.js';
import { connectV1, getRun, newRuns, runIds, setBreakpoints, startDebugger, waitForAsync } from './helpers/gates.js';
import { api } from './helpers/serve.js';
import { connect, startFixture, startHttpProxy } from './fixtures/http/harness.js';
import { decodeSpans } from './fixtures/export/otlp-receiver.js';

const serve = await startDebugger(t);
await setBreakpoints(serve, { pauseOnError: false, nodes: {} });

/** A request as the client sent it: its id, its method, and the text that tells its call apart (an echo's). */
interface Sent {
  id: string | number;
  method: string;
  text?: string;
}

/** The requests (not notifications, not answers) among JSON-RPC messages. */
function requestsOf(messages: readonly unknown[]): Sent[] {
  const sent: Sent[] = [];
  for (const message of messages as Array<{ id?: unknown; method?: unknown; params?: { arguments?: { text?: unknown } } }>) {
    if (typeof message.method !== 'string' || (typeof message.id !== 'string' && typeof message.id !== 'number')) continue;
    const echoed = message.params?.arguments?.text;
    sent.push({ id: message.id, method: message.method, ...(typeof echoed === 'string' ? { text: echoed } : {}) });
  }
  return sent;
}

/** The string id sent raw (the SDK clients number theirs): quotes and all, so it takes the reader's plain path too. */
const RAW_ID = 'req "raw"';

/** Send a request the SDK would not (a string id) through a client's transport; resolves with its answer. */
function rawCall(transport: Loose, id: string, params: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const previous = transport.onmessage;
    transport.onmessage = (message: Loose, extra: unknown) => {
      if (message.id === id && message.method === undefined) {
        transport.onmessage = previous;
        resolve(message);
        return;
      }
      previous?.call(transport, message, extra);
    };
    transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params }).catch(reject);
  });
}

interface HarEntry {
  request: { postData?: { text: string } };
  _graphmind: { instanceId: string };
}

async function exported(runId: string, format: 'har' | 'otlp-json'): Promise<string> {
  const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export?format=${format}`);
  if (answer.status !== 200) throw new Error(`export ${format} of ${runId}: ${answer.status} ${answer.text}`);
  return answer.text;
}

/** Wait until the run has ended (its events are all in its log). */
async function ended(runId: string): Promise<void> {
  await waitForAsync(async () => (await getRun(serve, runId)).status !== 'running', 15_000, `run ${runId} to end`);
}

/**
 * The run's HAR entries and OTLP spans name each request by the id it was
 * sent with: every request entry has an id, that of a request sent with the
 * same method (and, for an echo, the same text), and its span's
 * `jsonrpc.request.id` is that id as text; a notification has none.
 * Returns the ids of the requests seen.
 */
async function checkIds(t: Test, runId: string, sent: readonly Sent[]): Promise<Array<string | number>> {
  const entries = (JSON.parse(await exported(runId, 'har')) as { log: { entries: HarEntry[] } }).log.entries;
  const spans = decodeSpans(Buffer.from(await exported(runId, 'otlp-json')), 'application/json');
  const byKey = new Map(sent.map((request) => [JSON.stringify(request.id), request]));
  const seen: Array<string | number> = [];
  for (const entry of entries) {
    const request = JSON.parse(entry.request.postData?.text ?? '{}') as { id?: string | number; method: string };
    const span = spans.find((s) => s.attributes['graphmind.instance.id'] === entry._graphmind.instanceId);
    if (request.method.startsWith('notifications/')) {
      t.equal(request.id, undefined, `${runId}: a notification has no id`);
      t.equal(span?.attributes['jsonrpc.request.id'], undefined, `${runId}: nor its span`);
      continue;
    }
    const what = `${runId}: ${request.method} #${JSON.stringify(request.id)}`;
    const match = request.id === undefined ? undefined : byKey.get(JSON.stringify(request.id));
    if (match === undefined) {
      t.fail(`${what}: no request was sent with that id`);
      continue;
    }
    t.equal(request.method, match.method, `${what}: the method of the request sent with it`);
    if (match.text !== undefined) t.ok(entry.request.postData?.text.includes(JSON.stringify(match.text)), `${what}: the call sent with it`);
    t.equal(span?.attributes['jsonrpc.request.id'], String(request.id), `${what}: the span's jsonrpc.request.id`);
    seen.push(request.id as string | number);
  }
  return seen;
}

/** How many calls of the run's log travelled in groups with their id as a sixth slot (a figure: batching decides). */
async function groupedWithIds(runId: string): Promise<number> {
  const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export?format=jsonl`);
  let calls = 0;
  for (const line of answer.text.split('\n')) {
    if (!line.includes('"instances.completed"')) continue;
    calls += (JSON.parse(line) as { calls: unknown[][] }).calls.filter((call) => call.length === 6).length;
  }
  return calls;
}

const ECHOES = Array.from({ length: 8 }, (_, i) => `call ${i}`);

t.test('mcp-proxy: a real SDK client, each request by the id it sent', async (t) => {
  const before = new Set(await runIds(serve));
  const session = await connectV1(t, serve);
  const [runId] = await newRuns(serve, before);
  await session.client.callTool({ name: 'echo', arguments: { text: 'alone' } });
  // At once: answers that wait with their requests go as one event each, and in groups.
  await Promise.all(ECHOES.map((echo) => session.client.callTool({ name: 'echo', arguments: { text: echo } })));
  await rawCall(session.client.transport, RAW_ID, { name: 'echo', arguments: { text: 'raw' } });
  // What the server received is what the client sent: the proxy relays bytes (read before closing removes the log).
  const sent = requestsOf(session.log.messages());
  await session.close();
  await ended(runId as string);
  t.ok(sent.some((request) => request.id === RAW_ID), 'the raw request reached the server');
  const seen = await checkIds(t, runId as string, sent);
  t.same(seen.slice().sort(), sent.map((request) => request.id).sort(), 'every request sent is in the exports, by its id');
  t.comment(`${await groupedWithIds(runId as string)} calls travelled in groups with their id`);
});

t.test('http-proxy: a real SDK client over Streamable HTTP, each request by the id it sent', async (t) => {
  const server = await startFixture(t, { sdk: '1', mode: 'stateful', response: 'sse' });
  const proxy = await startHttpProxy(t, server.url, { serve });
  const before = new Set(await runIds(serve));
  const { client, transport } = await connect(t, proxy.url, '1');
  const [runId] = await newRuns(serve, before);
  await client.callTool({ name: 'echo', arguments: { text: 'alone' } });
  await Promise.all(ECHOES.map((echo) => client.callTool({ name: 'echo', arguments: { text: echo } })));
  await rawCall(transport, RAW_ID, { name: 'echo', arguments: { text: 'raw' } });
  await transport.terminateSession();
  await ended(runId as string);
  const bodies = server.log().filter((entry) => entry.dir === 'in' && entry.method === 'POST' && entry.body !== '');
  const sent = requestsOf(bodies.map((entry) => JSON.parse(entry.body) as unknown));
  t.ok(sent.some((request) => request.id === RAW_ID), 'the raw request reached the server');
  const seen = await checkIds(t, runId as string, sent);
  t.same(seen.slice().sort(), sent.map((request) => request.id).sort(), 'every request sent is in the exports, by its id');
});

for (const k of [KITS[1], KITS[2]] as Kit[]) {
  t.test(`the adapter (SDK ${k.label}): each call's run names it by the id the client sent`, async (t) => {
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer(`ids-${k.label}`));
    server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text }: { text: string }) => adapterText(text));
    // A call that is still running when the debugger shows it: its run goes out event by event, not whole.
    server.registerTool('slow', { description: 'Answers once its run shows', inputSchema: k.schema({ text: z.string() }) }, async ({ text }: { text: string }) => {
      await waitForAsync(async () => (await runList(serve)).some((run) => run.name === 'tools/call:slow' && run.status === 'running'), 10_000, 'the slow call shown running');
      return adapterText(text);
    });
    const [serverSide, clientSide] = k.pair();
    await server.connect(serverSide);
    const sent: Sent[] = [];
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message: unknown, options?: unknown) => {
      sent.push(...requestsOf([message]));
      return send(message, options);
    };
    const client = k.client();
    await client.connect(clientSide);
    t.teardown(() => client.close().catch(() => {}));
    const before = new Set(await runIds(serve));
    await k.callTool(client, { name: 'echo', arguments: { text: 'alone' } });
    await Promise.all(ECHOES.map((echo) => k.callTool(client, { name: 'echo', arguments: { text: echo } })));
    await k.callTool(client, { name: 'slow', arguments: { text: 'slow' } });
    await rawCall(clientSide, RAW_ID, { name: 'echo', arguments: { text: 'raw' } });
    const calls = sent.filter((request) => request.method === 'tools/call');
    // One run per call (the connection has a run of its own, not counted here).
    let fresh: string[] = [];
    await waitForAsync(async () => {
      fresh = (await runList(serve)).filter((run) => !before.has(run.runId) && run.name.startsWith('tools/call:')).map((run) => run.runId);
      return fresh.length >= calls.length;
    }, 10_000, `${calls.length} runs of calls`);
    const seen: Array<string | number> = [];
    for (const runId of fresh) {
      await ended(runId);
      seen.push(...(await checkIds(t, runId, sent)));
    }
    t.same(seen.slice().sort(), calls.map((request) => request.id).sort(), 'every call is a run whose export names it by its id');
  });
}
