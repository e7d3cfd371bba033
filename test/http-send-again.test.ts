// Send again on `graphmind http-proxy` runs, end to end: a real SDK
// Streamable HTTP server (1.x and 2.x, SSE and JSON answers) behind dist's
// `graphmind http-proxy`, a real SDK client as the host, a real
// `graphmind serve`. POST /api/runs/:runId/instances/:instanceId/send
// records a new call marked `sentBy` with the server's answer; the server
// got the request under the proxy's own id, in the host's session (its
// Mcp-Session-Id and protocol version), without the host's progress token;
// the host's client saw nothing of it and its next calls still work. A
// request the server makes while answering (sampling) never reaches the
// host. After the session ends, the route answers run_not_live.
import t from 'tap';
import { api } from './helpers/serve.js';
import { getRun, newRuns, runIds, setBreakpoints, startDebugger, waitForAsync, type RunView } from './helpers/gates.js';
import { connect, startFixture, startHttpProxy, text, type ServerKind } from './fixtures/http/harness.js';

const serve = await startDebugger(t);
await setBreakpoints(serve, { pauseOnError: false, nodes: {} });

type Call = RunView['instances'][number] & { sentBy?: string };

/** POST …/send with the token. */
function send(runId: string, instanceId: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
  return api(serve.port, serve.token, 'POST', `/api/runs/${runId}/instances/${instanceId}/send`, body);
}

/** The run's calls of `nodeId`. */
async function callsOf(runId: string, nodeId: string): Promise<Call[]> {
  return ((await getRun(serve, runId)).instances as Call[]).filter((call) => call.nodeId === nodeId);
}

/** Wait for the `index`-th call of `nodeId` sent by the debugger to have ended; it. */
async function sentCall(runId: string, nodeId: string, index: number): Promise<Call> {
  let found: Call | undefined;
  await waitForAsync(async () => {
    found = (await callsOf(runId, nodeId)).filter((call) => call.sentBy !== undefined)[index];
    return found !== undefined && found.status !== 'open';
  }, 15_000, 'the call sent again to be recorded and answered');
  return found as Call;
}

/** A request body the server received, parsed, with its headers. */
interface Received {
  message: { id?: unknown; method?: string; params?: Record<string, unknown> };
  headers: Record<string, string | string[]>;
}

const KINDS: readonly ServerKind[] = [
  { sdk: '1', mode: 'stateful', response: 'sse' },
  { sdk: '2', mode: 'stateful', response: 'json' },
  { sdk: '2', mode: 'stateful', response: 'sse' },
];

for (const kind of KINDS) {
  t.test(`SDK ${kind.sdk}, ${kind.mode}, ${kind.response}: a call sent again is recorded, the host sees nothing`, async (t) => {
    const server = await startFixture(t, kind);
    const proxy = await startHttpProxy(t, server.url, { serve });
    const before = new Set(await runIds(serve));
    const host = await connect(t, proxy.url, kind.sdk);
    const [runId] = await newRuns(serve, before);
    const run = runId as string;
    // Everything that reaches the host's transport.
    const seen: unknown[] = [];
    const transport = host.transport as unknown as { onmessage?: (message: unknown, extra?: unknown) => void };
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      seen.push(message);
      deliver?.call(transport, message, extra);
    };

    t.strictSame(await host.client.callTool({ name: 'echo', arguments: { text: 'a' } }), text('echo a'));
    let original: Call | undefined;
    await waitForAsync(async () => (original = (await callsOf(run, 'tool:echo')).find((call) => call.status === 'ok')) !== undefined, 10_000, 'the host call recorded');
    const seenBefore = seen.length;

    const asked = await send(run, original!.instanceId);
    t.equal(asked.status, 202, '202');
    const first = await sentCall(run, 'tool:echo', 0);
    t.equal(first.sentBy, 'api', 'marked as sent by the debugger, on behalf of the API');
    t.equal(first.status, 'ok');
    t.strictSame(first.input, { name: 'echo', arguments: { text: 'a' } }, 'the params as recorded');
    t.strictSame(first.output, text('echo a'), "the server's answer, recorded");
    t.not(first.instanceId, original!.instanceId, 'a new call of the run');

    const received: Received[] = server
      .log()
      .filter((entry) => entry.dir === 'in' && entry.method === 'POST' && entry.body !== '')
      .map((entry) => ({ message: JSON.parse(entry.body) as Received['message'], headers: entry.headers ?? {} }));
    const calls = received.filter((r) => r.message.method === 'tools/call');
    t.equal(calls.length, 2, 'the server got the request again');
    const ours = calls[1] as Received;
    const hosts = calls[0] as Received;
    t.match(String(ours.message.id), /^graphmind-send-[0-9a-f]{12}-1$/, "under an id of the proxy's own");
    t.type(ours.headers['mcp-session-id'], 'string');
    t.equal(ours.headers['mcp-session-id'], hosts.headers['mcp-session-id'], "in the host's session (its Mcp-Session-Id)");
    t.equal(ours.headers['mcp-protocol-version'], hosts.headers['mcp-protocol-version'], "with the session's protocol version");

    // Edited params, as the viewer's editor sends them, with who asked.
    t.equal((await send(run, original!.instanceId, { params: { name: 'echo', arguments: { text: 'edited' } }, by: 'viewer' })).status, 202);
    const second = await sentCall(run, 'tool:echo', 1);
    t.strictSame(second.output, text('echo edited'), 'the edited request was sent');
    t.equal(second.sentBy, 'viewer');

    // The host goes on as if nothing happened, and never saw either answer.
    t.strictSame(await host.client.callTool({ name: 'echo', arguments: { text: 'b' } }), text('echo b'));
    t.equal(seen.length, seenBefore + 1, 'the host got its own answer only');
    t.notOk(JSON.stringify(seen).includes('graphmind-send'), 'no answer of the debugger reached the host');

    if (kind.sdk === '1') {
      // The host's progress token is not sent again: the server's progress would go to a host that no longer waits.
      await host.client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: () => {} });
      let progress: Call | undefined;
      await waitForAsync(async () => (progress = (await callsOf(run, 'tool:progress')).find((call) => call.status === 'ok')) !== undefined, 10_000, 'the progress call recorded');
      const seenThen = seen.length;
      t.equal((await send(run, progress!.instanceId)).status, 202);
      t.strictSame((await sentCall(run, 'tool:progress', 0)).output, text('done'));
      const lastProgress = server
        .log()
        .filter((entry) => entry.dir === 'in' && entry.body.includes('"progress"') && entry.body.includes('graphmind-send'))
        .map((entry) => JSON.parse(entry.body) as Received['message']);
      t.equal(lastProgress.length, 1);
      t.notOk(JSON.stringify(lastProgress[0]?.params ?? {}).includes('progressToken'), 'sent without the progress token');

      // A request the server makes while answering ours (sampling) is refused by the proxy: the host is never asked.
      const sampledBefore = host.sampled;
      t.strictSame(await host.client.callTool({ name: 'sample', arguments: { prompt: 'p' } }), text('sampled: from the client'));
      let sample: Call | undefined;
      await waitForAsync(async () => (sample = (await callsOf(run, 'tool:sample')).find((call) => call.status === 'ok')) !== undefined, 10_000, 'the sample call recorded');
      t.equal((await send(run, sample!.instanceId)).status, 202);
      const sentSample = await sentCall(run, 'tool:sample', 0);
      t.not(sentSample.status, 'ok', 'the server could not sample: no host answers the debugger’s own call');
      t.equal(host.sampled, sampledBefore + 1, 'the host was asked to sample for its own call only');
      t.equal(seen.length, seenThen + 2, 'the host got its own answers only');
      t.notOk(JSON.stringify(seen).includes('graphmind-send'));
    }

    // Once the session ended, nothing is sent: the run is no longer live.
    await host.transport.terminateSession().catch(() => {});
    await host.client.close();
    await waitForAsync(async () => (await getRun(serve, run)).status !== 'running', 10_000, 'the run to end');
    const late = await send(run, original!.instanceId);
    t.equal(late.status, 409);
    t.equal((late.json as { code?: string }).code, 'run_not_live');
  });
}
