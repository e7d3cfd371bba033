// Lifting, judged by the real SDK clients' result validation: what is
// injected at a gate must be accepted by a 1.x and a 2.x client, and on a
// 2026-07-28 session by a v2 client that speaks that era with a v2 server.
import t from 'tap';
import type { Hold } from '../src/protocol/control.js';
import {
  ERA_SERVER,
  connectV1,
  connectV2,
  decide,
  getRun,
  listHolds,
  rejection,
  runIds,
  setBreakpoints,
  startDebugger,
  startV2,
  waitForHold,
  newRuns,
  waitForAsync,
  type LoggedMessage,
  type RunView,
} from './helpers/gates.js';

function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

function idOf(hold: Hold): string | number {
  return (hold.frame as { id: string | number }).id;
}

const serve = await startDebugger(t);

/** The calls both SDK generations share, as far as these tests use them. */
interface AnyClient {
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
}

/** The last hold {@link injectBefore} decided. */
let lastHold: Hold | undefined;

/** Make a call, inject `value` at its before gate, and return what the client got. */
async function injectBefore(nodeId: string, call: () => Promise<unknown>, value: (hold: Hold) => unknown): Promise<unknown> {
  const pending = later(call());
  const hold = await waitForHold(serve, { nodeId, gate: 'before' });
  lastHold = hold;
  await decide(serve, hold.holdId, 'inject', value(hold));
  return pending;
}

const BREAKPOINTS = {
  pauseOnError: true,
  nodes: {
    'tool:echo': { before: true },
    'tool:stats': { before: true },
    'resource:test://greeting': { before: true },
    'prompt:greet': { before: true },
  },
};

for (const generation of ['1.x', '2.x'] as const) {
  t.test(`the ${generation} client accepts every lifted shape`, async (t) => {
    await setBreakpoints(serve, BREAKPOINTS);
    const session = generation === '1.x' ? await connectV1(t, serve) : await connectV2(t, serve);
    const client = session.client as AnyClient;
    // Listing the tools makes the client check `stats` results against its outputSchema.
    await client.listTools();

    t.strictSame(
      await injectBefore('tool:echo', () => client.callTool({ name: 'echo', arguments: { text: 'a' } }), () => 'a string'),
      { content: [{ type: 'text', text: 'a string' }] },
      'a string becomes a text block',
    );

    const stats = { count: 7, label: 'injected' };
    t.strictSame(
      await injectBefore('tool:stats', () => client.callTool({ name: 'stats', arguments: { label: 'x' } }), () => stats),
      { content: [{ type: 'text', text: JSON.stringify(stats) }], structuredContent: stats },
      'an object becomes its JSON text plus structuredContent, which the outputSchema accepts',
    );

    const wrong = later(injectBefore('tool:stats', () => client.callTool({ name: 'stats', arguments: { label: 'y' } }), () => ({ count: 'not a number' })));
    t.match((await rejection(wrong)).message, /Structured content does not match the tool's output schema/, 'and the client really checks it: an object that breaks the outputSchema is refused');

    const shaped = { content: [{ type: 'text', text: 'shaped' }], isError: true };
    t.strictSame(
      await injectBefore('tool:echo', () => client.callTool({ name: 'echo', arguments: { text: 'b' } }), () => shaped),
      shaped,
      'a value already shaped like a result arrives exactly as typed',
    );

    const error = await rejection(
      injectBefore(
        'tool:echo',
        () => client.callTool({ name: 'echo', arguments: { text: 'c' } }),
        (hold) => ({ jsonrpc: '2.0', id: idOf(hold), error: { code: -32001, message: 'a whole frame' } }),
      ),
    );
    t.equal(error.code, -32001, 'a whole JSON-RPC frame is relayed verbatim: the client gets its error');
    t.match(error.message, /a whole frame/);

    t.strictSame(
      await injectBefore('resource:test://greeting', () => client.readResource({ uri: 'test://greeting' }), () => 'resource text'),
      { contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'resource text' }] },
      'resources/read: a string becomes text contents for the URI',
    );
    t.strictSame(
      await injectBefore('prompt:greet', () => client.getPrompt({ name: 'greet', arguments: { name: 'x' } }), () => ({ k: 1 })),
      { messages: [{ role: 'user', content: { type: 'text', text: '{"k":1}' } }] },
      'prompts/get: a value becomes a user message',
    );

    t.strictSame(session.log.requests('tools/call'), [], 'nothing injected at a before gate reached the server');
    await session.close();
  });
}

/**
 * What the debugger recorded as the output of the call held by `hold`,
 * once it has one: the client can have its answer before the proxy's
 * events about it reach the debugger (they go out in batches).
 */
async function recordedOutput(hold: Hold | undefined): Promise<unknown> {
  if (hold === undefined) throw new Error('no hold');
  let output: unknown;
  await waitForAsync(async () => {
    const run = await getRun(serve, hold.runId);
    output = run.instances.find((instance) => instance.instanceId === hold.instanceId)?.output;
    return output !== undefined;
  }, 5000, 'the recorded output');
  return output;
}

t.test('2026-07-28: v2 client and serveStdio server; a bare value is stamped, a whole frame is not', async (t) => {
  await setBreakpoints(serve, BREAKPOINTS);
  // Probing in place keeps the whole session, server/discover included, on one proxy.
  const session = await connectV2(t, serve, { server: [ERA_SERVER, 'serve'], negotiation: { pin: '2026-07-28' }, probeInPlace: true });
  const { client, log } = session;
  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28', 'the peers speak the 2026-07-28 era');
  await client.listTools();

  t.strictSame(
    await injectBefore('tool:echo', () => client.callTool({ name: 'echo', arguments: { text: 'a' } }), () => 'modern'),
    { content: [{ type: 'text', text: 'modern' }] },
    'a bare string is accepted by the 2026 client',
  );
  t.strictSame(
    await recordedOutput(lastHold),
    { content: [{ type: 'text', text: 'modern' }], resultType: 'complete' },
    'because it went out with resultType: "complete"',
  );

  const stats = { count: 3, label: 'modern' };
  t.strictSame(
    await injectBefore('tool:stats', () => client.callTool({ name: 'stats', arguments: { label: 'x' } }), () => stats),
    { content: [{ type: 'text', text: JSON.stringify(stats) }], structuredContent: stats },
    'an object is accepted, outputSchema and all',
  );

  t.strictSame(
    await injectBefore('resource:test://greeting', () => client.readResource({ uri: 'test://greeting' }), () => 'fresh'),
    { ttlMs: 0, cacheScope: 'private', contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'fresh' }] },
    'resources/read is stamped with ttlMs: 0 and cacheScope: "private" too',
  );
  t.strictSame(
    await recordedOutput(lastHold),
    { contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'fresh' }], resultType: 'complete', ttlMs: 0, cacheScope: 'private' },
  );

  t.strictSame(
    await injectBefore('prompt:greet', () => client.getPrompt({ name: 'greet', arguments: { name: 'x' } }), () => 'prompted'),
    { messages: [{ role: 'user', content: { type: 'text', text: 'prompted' } }] },
    'prompts/get is accepted',
  );

  const whole = (hold: Hold): unknown => ({ jsonrpc: '2.0', id: idOf(hold), result: { resultType: 'complete', content: [{ type: 'text', text: 'whole' }] } });
  t.strictSame(
    await injectBefore('tool:echo', () => client.callTool({ name: 'echo', arguments: { text: 'b' } }), whole),
    { content: [{ type: 'text', text: 'whole' }] },
    'a whole frame that is right for the era passes',
  );
  const unstamped = await rejection(
    injectBefore(
      'tool:echo',
      () => client.callTool({ name: 'echo', arguments: { text: 'c' } }),
      (hold) => ({ jsonrpc: '2.0', id: idOf(hold), result: { content: [{ type: 'text', text: 'as typed' }] } }),
    ),
  );
  t.match(unstamped.message, /resultType/, 'a whole frame is never changed: without resultType the 2026 client refuses it');

  t.strictSame(log.requests('tools/call'), [], 'nothing injected reached the server');
  const run = await getRun(serve, (lastHold as Hold).runId);
  t.strictSame(
    run.nodes.filter((node) => node.nodeId === 'mcp:server/discover' || node.nodeId === 'mcp:initialize').map((node) => [node.nodeId, node.parent]),
    [['mcp:server/discover', 'mcp:protocol']],
    'the session opened with server/discover, folded under protocol, and no initialize',
  );
  await session.close();
});

t.test('a plain v2 server refuses server/discover: the error gate lets the Method not found go (an answer, not a failure), and the client falls back', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: {} });
  // A subclass of the stdio transport probes in place, on this proxy.
  const session = startV2(t, serve, { server: [ERA_SERVER, 'plain'], negotiation: 'auto', probeInPlace: true });
  // Held, the probe kept the client waiting for a decision (Claude Code 2.1's health check timed out on it).
  await session.connecting;
  t.strictSame((await listHolds(serve)).filter((hold) => hold.nodeId === 'mcp:server/discover'), [], 'pause-on-error held nothing');
  t.not(session.client.getNegotiatedProtocolVersion(), '2026-07-28', 'the client fell back to the 2025 handshake');
  t.strictSame(session.log.messages().map((m) => m.method).slice(0, 2), ['server/discover', 'initialize'], 'probe first, then initialize, on the same server');
  t.strictSame(await session.client.callTool({ name: 'echo', arguments: { text: 'works' } }), { content: [{ type: 'text', text: 'works' }] }, 'and the session works');
  await session.close();
});

t.test("'auto' on the SDK's stdio transport probes on a second, short-lived proxy: a second run", async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: {} });
  const before = new Set(await runIds(serve));
  const session = startV2(t, serve, { server: [ERA_SERVER, 'plain'], negotiation: 'auto' });
  // The probe's Method not found is not held (an answer, not a failure): the client falls back by itself.
  await session.connecting;
  t.strictSame(await session.client.callTool({ name: 'echo', arguments: { text: 'works' } }), { content: [{ type: 'text', text: 'works' }] }, 'the client fell back and works');

  const runs = await newRuns(serve, before, 2);
  t.equal(runs.length, 2, 'two runs: the probe and the session');
  const nodeIds = (run: { nodes: Array<{ nodeId: string }> }): string[] => run.nodes.map((node) => node.nodeId);
  const [first, second] = await Promise.all(runs.map((id) => getRun(serve, id)));
  const probeRun = nodeIds(first as RunView).includes('mcp:server/discover') ? (first as RunView) : (second as RunView);
  const mainRun = probeRun === first ? (second as RunView) : (first as RunView);
  const probe = { runId: probeRun.runId };
  t.ok(nodeIds(probeRun).includes('mcp:server/discover'), 'the probe run holds the server/discover probe');
  t.notOk(nodeIds(probeRun).includes('mcp:initialize'), 'and nothing else of the handshake');
  t.ok(nodeIds(mainRun).includes('mcp:initialize'), 'the session run opens with initialize');
  t.notOk(nodeIds(mainRun).includes('mcp:server/discover'), 'and saw no probe');
  await waitForAsync(async () => (await getRun(serve, probe.runId)).status !== 'running', 10_000, 'the probe run to end');
  t.pass('the probe run ends with its short-lived process');
  await session.close();
});
