// Bad input and long life for the in-process adapter:
// - an injected value the SDK's own result validation rejects;
// - a decision arriving twice, a decision for a client that has gone;
// - the debugger killed while calls are held;
// - handlers that reject after their client has gone;
// - wrapServer called twice, on its own proxy, on things that are not servers;
// - the wrapped object is never mutated and gets no property of ours;
// - the one-time hold warning, and dispose() letting holds go on.
import t from 'tap';
import * as z from 'zod';
import {
  ABORT,
  KITS,
  RunWatch,
  adapter,
  breakpoints,
  connectInMemory,
  decide,
  finishedRun,
  instanceOf,
  kit,
  later,
  listHolds,
  samplingAnswer,
  samplingParams,
  setBreakpoints,
  settle,
  sleep,
  startDebugger,
  text,
  waitFor,
  waitForGivenUp,
  waitForHold,
  holdGone,
  type Kit,
  type Loose,
} from './helpers/adapter.js';
import { api, liveClient, startServe } from './helpers/serve.js';
import { liftResult } from '../src/gates/lift.js';
import { CLIENT_WENT_AWAY } from '../src/adapter/given-up.js';

const serve = await startDebugger(t);

/** A tool with an output schema, as each SDK takes it. */
function registerStats(k: Kit, server: Loose, body: (label: string) => unknown): void {
  server.registerTool(
    'stats',
    { description: 'Structured output', inputSchema: k.schema({ label: z.string() }), outputSchema: k.schema({ count: z.number(), label: z.string() }) },
    async ({ label }: { label: string }) => body(label),
  );
}

for (const k of KITS) {
  t.test(`SDK ${k.label}: an injected value the SDK's result validation rejects`, async (t) => {
    await setBreakpoints(serve, breakpoints({ 'tool:stats': { before: true } }));
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('validated'));
    registerStats(k, server, (label) => ({ content: [{ type: 'text', text: label }], structuredContent: { count: 1, label } }));
    server.registerTool('echo', { description: 'Echo' }, async () => text('still serving'));
    const client = await connectInMemory(t, k, server);
    await client.listTools();
    // What the SDK answers, unwrapped, for a handler that returns what the injection lifts to.
    const plain = k.mcpServer('validated');
    registerStats(k, plain, () => liftResult('tools/call', 'a string'));
    const plainClient = await connectInMemory(t, k, plain);
    await plainClient.listTools();
    const usual = await settle(plainClient.callTool({ name: 'stats', arguments: { label: 'x' } }));

    const pending = later(client.callTool({ name: 'stats', arguments: { label: 'x' } }));
    const hold = await waitForHold(serve, { nodeId: 'tool:stats' });
    await decide(serve, hold.holdId, 'inject', 'a string');
    const got = await settle(pending);
    t.strictSame(got, usual, "the client gets the SDK's usual answer to such a result");
    t.match(JSON.stringify(got), /structured content|output schema|outputSchema/i, 'which is about the output schema');
    const run = await finishedRun(serve, hold.runId);
    const call = instanceOf(run, 'tool:stats');
    t.equal(call.status, 'error', 'the run records the failure the client got');
    t.match(call.error?.message, /structured content|output schema|outputSchema/i, 'with the validation message');
    t.equal(run.status, 'error');
    t.strictSame(await client.callTool({ name: 'echo', arguments: {} }), text('still serving'), 'the server keeps serving');
  });
}

t.test('a decision arriving twice: 409 the second time, and nothing breaks', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true } }));
  const k = kit('1.32.2');
  const gm = await adapter(t, serve);
  const server = gm.wrapServer(k.mcpServer('twice'));
  server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(`echo ${value}`));
  const client = await connectInMemory(t, k, server);
  const pending = later(client.callTool({ name: 'echo', arguments: { text: 'a' } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
  const [first, second] = await Promise.all([
    api(serve.port, serve.token, 'POST', `/api/holds/${hold.holdId}`, { action: 'inject', value: 'first' }),
    api(serve.port, serve.token, 'POST', `/api/holds/${hold.holdId}`, { action: 'inject', value: 'second' }),
  ]);
  t.strictSame([first.status, second.status].sort(), [200, 409], 'one is taken, the other refused with 409');
  const winner = first.status === 200 ? 'first' : 'second';
  t.strictSame(await pending, text(winner), 'the client gets the decision that was taken');
  const late = await api(serve.port, serve.token, 'POST', `/api/holds/${hold.holdId}`, { action: 'abort' });
  t.equal(late.status, 409, 'a decision after the call ended: 409 too');
  await setBreakpoints(serve, breakpoints());
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'b' } }), text('echo b'), 'the server keeps serving');
});

t.test('a decision for a call whose client has gone: the hold stays, reported given up; the decision is taken and recorded', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true } }));
  const k = kit('2.4.0');
  const gm = await adapter(t, serve);
  const server = gm.wrapServer(k.mcpServer('gone'));
  let ran = 0;
  server.registerTool('echo', { description: 'Echo' }, async () => {
    ran++;
    return text('ran');
  });
  const client = await connectInMemory(t, k, server);
  const pending = later(client.callTool({ name: 'echo', arguments: {} }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
  await client.close();
  await settle(pending);
  const given = await waitForGivenUp(serve, hold.holdId);
  t.equal(given.givenUp, CLIENT_WENT_AWAY, 'the hold is reported given up: the client went away');
  await decide(serve, hold.holdId, 'inject', 'too late');
  t.ok(await holdGone(serve, hold.holdId), 'the hold goes once decided');
  t.equal(ran, 0, 'the handler did not run: the decision answered in its place');
  const run = await finishedRun(serve, hold.runId);
  t.strictSame(instanceOf(run, 'tool:echo').output, text('too late'), 'the run records what was decided');
});

t.test('the debugger killed mid-hold: every held handler goes on promptly', async (t) => {
  const doomed = await startServe();
  t.teardown(() => doomed.stop());
  await setBreakpoints(doomed, breakpoints({ 'tool:echo': { before: true }, 'llm:sampling': { before: true } }));
  for (const k of [kit('1.32.2'), kit('2.4.0')]) {
    const gm = await adapter(t, doomed);
    const server = gm.wrapServer(k.mcpServer('orphaned'));
    const ran: string[] = [];
    server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => {
      ran.push(value);
      return text(`echo ${value}`);
    });
    server.registerTool('asks', { description: 'Samples' }, async (context: Loose) => {
      const answer = await k.sample(context, server, 'send', samplingParams('q'));
      return text(`sampled ${answer.content.text}`);
    });
    const client = await connectInMemory(t, k, server, () => samplingAnswer('by the client'));
    const one = later(client.callTool({ name: 'echo', arguments: { text: 'one' } }));
    const two = later(client.callTool({ name: 'echo', arguments: { text: 'two' } }));
    const asks = later(client.callTool({ name: 'asks', arguments: {} }));
    let holds = 0;
    for (let i = 0; i < 500 && holds < 3; i++) {
      holds = (await listHolds(doomed)).length;
      if (holds < 3) await sleep(20);
    }
    t.equal(holds, 3, `SDK ${k.label}: two calls and a sampling held`);
    if (k.label === '2.4.0') {
      const killed = Date.now();
      await doomed.stop('SIGKILL');
      t.strictSame(await Promise.all([one, two, asks]), [text('echo one'), text('echo two'), text('sampled by the client')], 'each goes on to its real answer');
      const took = Date.now() - killed;
      t.ok(took < 2500, `within ${took} ms of the kill`);
      t.equal(gm.session.attached, false, 'detached');
      t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'after' } }), text('echo after'), 'and later calls are not held');
    } else {
      // The first SDK's calls are let go by disposing its adapter: the same "everything goes on" path.
      await gm.dispose();
      t.strictSame(await Promise.all([one, two, asks]), [text('echo one'), text('echo two'), text('sampled by the client')], 'dispose() lets every hold go on');
      t.strictSame(ran.sort(), ['one', 'two']);
    }
  }
});

t.test('handlers that reject after their client has gone: no crash, a clear node error', async (t) => {
  await setBreakpoints(serve, breakpoints());
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => process.off('unhandledRejection', onUnhandled));
  for (const k of KITS) {
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('late-reject'));
    let rejected = false;
    let running = false;
    server.registerTool('slow', { description: 'rejects once its client is gone' }, async (context: Loose) => {
      running = true;
      const signal = k.signal(context);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      await sleep(20);
      rejected = true;
      throw new Error('rejected after the client left');
    });
    const watch = await RunWatch.start(serve);
    const client = await connectInMemory(t, k, server);
    const pending = later(k.callTool(client, { name: 'slow', arguments: {} }, { timeout: 5000 }));
    await waitFor(() => running, 5000, 'the handler to run');
    await client.close();
    await settle(pending);
    await waitFor(() => rejected, 5000, 'the handler to reject');
    const run = await watch.one('tools/call:slow');
    t.match(instanceOf(run, 'tool:slow'), { status: 'error', error: { name: 'HandlerError', message: 'rejected after the client left' } }, `SDK ${k.label}: recorded`);
  }
  await sleep(50);
  t.strictSame(unhandled, [], 'no unhandled rejection');
});

t.test('wrapServer twice, on its own proxy, and on things that are not servers', async (t) => {
  await setBreakpoints(serve, breakpoints());
  for (const k of KITS) {
    const gm = await adapter(t, serve);
    const other = await adapter(t, serve);
    const target = k.mcpServer('twice');
    const proxy = gm.wrapServer(target);
    t.not(proxy, target, `SDK ${k.label}: a proxy`);
    t.equal(gm.wrapServer(target), proxy, 'the same object twice: the same proxy');
    t.equal(gm.wrapServer(proxy), proxy, 'the proxy itself: the same proxy');
    t.equal(other.wrapServer(target), proxy, 'another graphmind() on the same object: still one layer');
    t.equal(other.wrapServer(proxy), proxy);
    const low = k.lowServer('low-twice');
    const lowProxy = gm.wrapServer(low);
    t.equal(gm.wrapServer(low), lowProxy, 'a low-level Server twice: the same proxy');
    t.equal(gm.wrapServer(lowProxy), lowProxy);
    proxy.registerTool('echo', { description: 'Echo' }, async () => text('once'));
    const watch = await RunWatch.start(serve);
    const client = await connectInMemory(t, k, proxy);
    const before = gm.session.stats.calls + other.session.stats.calls;
    t.strictSame(await client.callTool({ name: 'echo', arguments: {} }), text('once'));
    const run = await watch.one('tools/call:echo');
    t.equal(run.instances.filter((instance) => instance.nodeId === 'tool:echo').length, 1, 'gated once: one instance');
    t.equal(gm.session.stats.calls + other.session.stats.calls, before + 1, 'one gated call in all');
  }
  const gm = await adapter(t, serve);
  for (const [what, value] of [
    ['{}', {}],
    ['a string', 'a string'],
    ['null', null],
    ['42', 42],
    ['a function', () => {}],
    ['an object with only connect', { connect() {} }],
  ] as Array<[string, unknown]>) {
    t.throws(
      () => gm.wrapServer(value as object),
      { name: 'TypeError', message: /^graphmind: wrapServer\(\) takes an MCP SDK server \(McpServer or Server, from @modelcontextprotocol\/sdk 1\.x or @modelcontextprotocol\/server 2\.x\); got / },
      `${what}: one clear TypeError`,
    );
  }
});

/** Own property keys of an object, with what kind of thing each is. */
function shape(value: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key) as PropertyDescriptor;
    const kind = 'value' in descriptor ? (descriptor.value === null ? 'null' : typeof descriptor.value) : 'accessor';
    out[String(key)] = `${kind} ${descriptor.writable === true ? 'w' : '-'}${descriptor.enumerable === true ? 'e' : '-'}${descriptor.configurable === true ? 'c' : '-'}`;
  }
  return out;
}

t.test('the wrapped object is never mutated: only the SDK\'s own registration writes appear', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true } }));
  for (const k of KITS) {
    const gm = await adapter(t, serve);
    const build = (server: Loose): void => {
      const registered = server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(value));
      registered.update({ description: 'Echo, updated' });
      server.registerResource('doc', 'test://doc', {}, async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'doc' }] }));
      server.registerPrompt('p', { description: 'p' }, () => ({ messages: [] }));
    };
    const target = k.mcpServer('pristine');
    const twin = k.mcpServer('pristine');
    const beforeTarget = shape(target);
    const beforeInner = shape(target.server);
    t.strictSame(beforeTarget, shape(twin), `SDK ${k.label}: the twin starts the same`);
    const proxy = gm.wrapServer(target);
    t.strictSame(shape(target), beforeTarget, 'wrapping writes nothing');
    t.strictSame(shape(target.server), beforeInner, 'nor on the inner server');
    build(proxy);
    build(twin);
    const client = await connectInMemory(t, k, proxy);
    const twinClient = await connectInMemory(t, k, twin);
    const held = later(client.callTool({ name: 'echo', arguments: { text: 'x' } }));
    const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
    t.strictSame(shape(target), shape(twin), 'while holding: the same own properties as an unwrapped twin put through the same steps');
    t.strictSame(shape(target.server), shape(twin.server), 'the inner server too');
    await decide(serve, hold.holdId, 'continue');
    await held;
    await twinClient.callTool({ name: 'echo', arguments: { text: 'x' } });
    t.strictSame(shape(target), shape(twin), 'after serving');
    t.strictSame(shape(target.server), shape(twin.server));
    t.equal(Object.getPrototypeOf(target), Object.getPrototypeOf(twin), 'the prototype is the SDK\'s');
    t.ok(Object.isExtensible(target), 'still extensible');
    t.equal(
      Reflect.ownKeys(target).filter((key) => typeof key === 'symbol' || /graphmind/i.test(String(key))).length,
      0,
      'no property of ours (no symbol, nothing named for us)',
    );
    t.equal(proxy.server === target.server, false, 'the proxy hands out its own view of the inner server');
    t.equal(typeof (target as Loose).registerTool, 'function');
  }
  const low = kit('1.32.2').lowServer('low-pristine');
  const lowTwin = kit('1.32.2').lowServer('low-pristine');
  const gm = await adapter(t, serve);
  const lowProxy = gm.wrapServer(low);
  for (const server of [lowProxy, lowTwin]) kit('1.32.2').setHandler(server, 'tools/call', async () => text('low'));
  t.strictSame(shape(low), shape(lowTwin), 'a low-level Server: the same own properties as its twin');
});

t.test('the one-time warning: only for a hold that passes 1 s, and only once', async (t) => {
  // Somebody watches (a live feed client): a hold nobody watches is said at once instead (test/adapter-breakpoint-scope).
  const viewer = await liveClient(serve.port, serve.token);
  t.teardown(() => viewer.ws.terminate());
  await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true } }));
  const k = kit('1.32.2');
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (String(chunk).startsWith('graphmind adapter:')) {
      written.push(String(chunk));
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  t.teardown(() => {
    process.stderr.write = write;
  });
  const gm = await adapter(t, serve);
  const server = gm.wrapServer(k.mcpServer('warner'));
  server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(value));
  const client = await connectInMemory(t, k, server);
  // Quick holds, one after another, with one still open when an earlier one's second is up.
  for (let i = 0; i < 3; i++) {
    const pending = later(client.callTool({ name: 'echo', arguments: { text: `quick ${i}` } }));
    const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
    await sleep(400);
    await decide(serve, hold.holdId, 'continue');
    await pending;
  }
  t.strictSame(written, [], 'holds decided within 1 s never warn');
  const slow = later(client.callTool({ name: 'echo', arguments: { text: 'slow' } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
  const requestId = (hold.frame as { id: number }).id;
  await waitFor(() => written.length === 1, 5000, 'the warning');
  t.equal(written.length, 1, 'a hold past 1 s warns');
  t.match(written[0], new RegExp(`^graphmind adapter: tools/call #${requestId} \\(tool:echo\\) has been held at the before gate for over 1 s — the MCP client may time out; resume it in http://127\\.0\\.0\\.1:${serve.port} \\(this warning is shown once\\)\\n$`), 'naming the call that is held');
  await decide(serve, hold.holdId, 'continue');
  await slow;
  const again = later(client.callTool({ name: 'echo', arguments: { text: 'slow again' } }));
  const second = await waitForHold(serve, { nodeId: 'tool:echo' });
  await sleep(1300);
  await decide(serve, second.holdId, 'continue');
  await again;
  t.equal(written.length, 1, 'once only');
});

t.test('an abort at the before gate: -32099 on every SDK, the handler never runs', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true } }));
  for (const k of KITS) {
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('aborts'));
    let ran = false;
    server.registerTool('echo', { description: 'Echo' }, async () => {
      ran = true;
      return text('ran');
    });
    const client = await connectInMemory(t, k, server);
    const pending = later(client.callTool({ name: 'echo', arguments: {} }));
    const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
    await decide(serve, hold.holdId, 'abort');
    t.match(await settle(pending), { ok: false, code: ABORT }, `SDK ${k.label}`);
    t.equal(ran, false);
  }
});
