// A receiver that is down or slow costs the recording nothing: the same
// 2,000-call proxy session (real SDK client, graphmind mcp-proxy, a real
// server), timed against a debugger that does not stream, one that streams
// to a dead endpoint, and one that streams to a receiver that takes 2 s to
// answer each request (with a small queue, so spans are dropped). Every
// run keeps all its calls, and what the stream lost is counted in
// GET /api/health.
import t, { type Test } from 'tap';
import { fileURLToPath } from 'node:url';
import { connectV1, newRuns, runIds } from './helpers/gates.js';
import { api, startServe, type ServeProcess } from './helpers/serve.js';
import { startReceiver } from './fixtures/export/otlp-receiver.js';

const TOOLS_SERVER = fileURLToPath(new URL('./fixtures/export/tools-server.mjs', import.meta.url));
const CALLS = 2000;
const IN_FLIGHT = 50;

interface Health {
  otlp?: { exported: number; dropped: number; failed: number; queued: number; lastError?: string };
}

/** Run the session against `serve`; the time it took (first call to last answer), and its run id. */
async function session(t: Test, serve: ServeProcess): Promise<{ ms: number; runId: string }> {
  const before = new Set(await runIds(serve));
  const connected = await connectV1(t, serve, { server: [TOOLS_SERVER], waitForAttach: true });
  const [runId] = (await newRuns(serve, before)) as [string];
  const started = performance.now();
  for (let sent = 0; sent < CALLS; sent += IN_FLIGHT) {
    const batch: Array<Promise<unknown>> = [];
    for (let i = sent; i < Math.min(CALLS, sent + IN_FLIGHT); i++) batch.push(connected.client.callTool({ name: 'echo', arguments: { text: `call ${i}` } }));
    await Promise.all(batch);
  }
  const ms = performance.now() - started;
  await connected.close();
  return { ms, runId };
}

/** The run once it has ended: every echo call recorded, ok. */
async function checkRun(t: Test, serve: ServeProcess, runId: string): Promise<void> {
  let run: { status: string; droppedEvents: number; instances: Array<{ nodeId: string; status: string }> } | undefined;
  for (let i = 0; i < 400; i++) {
    run = (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`)).json as typeof run;
    if (run?.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  t.equal(run?.status, 'ok');
  t.equal(run?.droppedEvents, 0, 'nothing dropped on the way to the debugger');
  const echoes = run?.instances.filter((instance) => instance.nodeId === 'tool:echo') ?? [];
  t.equal(echoes.length, CALLS, `all ${CALLS} calls recorded`);
  t.ok(echoes.every((instance) => instance.status === 'ok'));
}

t.test('a dead or slow receiver does not slow the recording, nor lose any of it', async (t) => {
  const slowReceiver = await startReceiver({ delayMs: 2000 });
  t.teardown(() => slowReceiver.close());
  const configs: Array<{ name: string; args: string[]; env?: Record<string, string> }> = [
    { name: 'no OTLP', args: [] },
    // Refused connections are retried (with backoff) until the export's time is up: half a second here.
    { name: 'dead endpoint', args: ['--otlp-endpoint', 'http://127.0.0.1:1'], env: { OTEL_EXPORTER_OTLP_TIMEOUT: '500' } },
    { name: 'slow receiver', args: ['--otlp-endpoint', slowReceiver.url, '--otlp-max-queue', '500'] },
  ];
  const times = new Map<string, number[]>();
  const serves = new Map<string, ServeProcess>();
  for (const config of configs) {
    const serve = await startServe(['--pause-on-error', 'off', ...config.args], config.env ?? {});
    t.teardown(() => serve.stop());
    serves.set(config.name, serve);
  }
  // Interleaved, twice each: the machine's load changes under a test, and shows in all three alike.
  for (let round = 0; round < 2; round++) {
    for (const config of configs) {
      const serve = serves.get(config.name) as ServeProcess;
      const { ms, runId } = await session(t, serve);
      times.set(config.name, [...(times.get(config.name) ?? []), ms]);
      await checkRun(t, serve, runId);
    }
  }
  const best = (name: string): number => Math.min(...(times.get(name) as number[]));
  for (const config of configs) t.comment(`${config.name}: ${(times.get(config.name) as number[]).map((ms) => `${Math.round(ms)} ms`).join(', ')} for ${CALLS} calls`);
  const baseline = best('no OTLP');
  for (const name of ['dead endpoint', 'slow receiver']) {
    t.ok(best(name) <= baseline * 1.5 + 1000, `${name}: ${Math.round(best(name))} ms against ${Math.round(baseline)} ms without OTLP`);
  }

  const health = async (name: string): Promise<NonNullable<Health['otlp']>> => {
    const serve = serves.get(name) as ServeProcess;
    return ((await api(serve.port, serve.token, 'GET', '/api/health')).json as Health).otlp as NonNullable<Health['otlp']>;
  };
  t.equal(((await api(serves.get('no OTLP')!.port, serves.get('no OTLP')!.token, 'GET', '/api/health')).json as Health).otlp, undefined, 'no otlp in health without streaming');
  let dead = await health('dead endpoint');
  for (let i = 0; i < 300 && (dead.queued > 0 || dead.failed + dead.dropped < 2 * CALLS); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    dead = await health('dead endpoint');
  }
  t.equal(dead.exported, 0);
  t.ok(dead.failed > 0 && dead.failed + dead.dropped >= 2 * CALLS, `every span for the dead endpoint is counted, as failed (${dead.failed}) or dropped (${dead.dropped})`);
  t.type(dead.lastError, 'string');
  const slow = await health('slow receiver');
  t.ok(slow.dropped > 0, `a full queue drops spans, counted (${slow.dropped})`);
  t.ok(slow.queued <= 500);
  // What the receiver got is what the stream says it exported, once the exports under way are answered.
  let settled = slow;
  for (let i = 0; i < 100 && (settled.queued > 0 || settled.exported < slowReceiver.spans.length || settled.exported + settled.failed + settled.dropped < slow.exported + slow.failed + slow.dropped + slow.queued); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    settled = await health('slow receiver');
  }
  t.equal(settled.exported, slowReceiver.spans.length, `the receiver got every span counted as exported (${settled.exported})`);
});
