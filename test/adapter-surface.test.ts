// The rest of the adapter's surface, against a real `graphmind serve`:
// the 1.x variadic registration forms, update({ callback }) and renames,
// sampling at every gate and outside any call, the 2.x (method, { params },
// handler) low-level form, custom events, the hide switches, options that
// name the server, the loop hold, and a request the client cancels while
// it is held.
import t from 'tap';
import * as z from 'zod';
import {
  ABORT,
  KITS,
  RunWatch,
  adapter,
  adapterEnv,
  breakpoints,
  connectInMemory,
  decide,
  finishedRun,
  ingestUrl,
  instanceOf,
  kit,
  later,
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
  type Loose,
} from './helpers/adapter.js';

const serve = await startDebugger(t);

for (const label of ['1.26.0', '1.32.2'] as const) {
  t.test(`SDK ${label}: the variadic tool(), resource() and prompt() forms`, async (t) => {
    await setBreakpoints(serve, breakpoints());
    const k = kit(label);
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('variadic'));
    server.tool('bare', async (extra: Loose) => text(`bare ${typeof extra.signal}`));
    server.tool('described', 'With a description', async () => text('described'));
    server.tool('shaped', { a: z.number() }, async ({ a }: { a: number }) => text(`shaped ${a}`));
    server.tool('full', 'All of it', { a: z.number() }, { readOnlyHint: true }, async ({ a }: { a: number }) => text(`full ${a}`));
    server.resource('plain', 'test://plain', async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'plain' }] }));
    server.resource('tpl', k.template('test://tpl/{x}'), async (uri: URL, variables: Record<string, string>) => ({ contents: [{ uri: uri.href, text: variables.x as string }] }));
    server.prompt('noargs', async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'noargs' } }] }));
    server.prompt('withargs', { who: z.string() }, async ({ who }: { who: string }) => ({ messages: [{ role: 'user', content: { type: 'text', text: who } }] }));
    const watch = await RunWatch.start(serve);
    const client = await connectInMemory(t, k, server);
    t.strictSame(await client.callTool({ name: 'bare', arguments: {} }), text('bare object'), 'tool(name, cb) is called with its extra');
    t.strictSame(await client.callTool({ name: 'described', arguments: {} }), text('described'));
    t.strictSame(await client.callTool({ name: 'shaped', arguments: { a: 1 } }), text('shaped 1'));
    t.strictSame(await client.callTool({ name: 'full', arguments: { a: 2 } }), text('full 2'));
    t.strictSame(await client.readResource({ uri: 'test://plain' }), { contents: [{ uri: 'test://plain', text: 'plain' }] });
    t.strictSame(await client.readResource({ uri: 'test://tpl/y' }), { contents: [{ uri: 'test://tpl/y', text: 'y' }] });
    t.strictSame(await client.getPrompt({ name: 'noargs' }), { messages: [{ role: 'user', content: { type: 'text', text: 'noargs' } }] });
    t.strictSame(await client.getPrompt({ name: 'withargs', arguments: { who: 'me' } }), { messages: [{ role: 'user', content: { type: 'text', text: 'me' } }] });
    const inputs: Array<[string, string, unknown]> = [
      ['tools/call:bare', 'tool:bare', {}],
      ['tools/call:described', 'tool:described', {}],
      ['tools/call:shaped', 'tool:shaped', { a: 1 }],
      ['tools/call:full', 'tool:full', { a: 2 }],
      ['resources/read:plain', 'resource:plain', { uri: 'test://plain' }],
      ['resources/read:tpl', 'resource:tpl', { x: 'y' }],
      ['prompts/get:noargs', 'prompt:noargs', {}],
      ['prompts/get:withargs', 'prompt:withargs', { who: 'me' }],
    ];
    for (const [name, nodeId, input] of inputs) t.strictSame(instanceOf(await watch.one(name), nodeId).input, input, `${nodeId}: its input`);
  });
}

for (const k of KITS) {
  t.test(`SDK ${k.label}: update({ callback }) and renames are gated as the tool they now are`, async (t) => {
    await setBreakpoints(serve, breakpoints({ 'tool:renamed': { before: true } }));
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('updates'));
    const registered = server.registerTool('tool', { description: 'first' }, async () => text('first callback'));
    const client = await connectInMemory(t, k, server);
    const watch = await RunWatch.start(serve);
    t.strictSame(await client.callTool({ name: 'tool', arguments: {} }), text('first callback'));
    registered.update({ callback: async () => text('second callback') });
    t.strictSame(await client.callTool({ name: 'tool', arguments: {} }), text('second callback'), 'the new callback answers');
    const runs = await watch.named('tools/call:tool', 2);
    t.strictSame(runs.map((run) => instanceOf(run, 'tool:tool').output), [text('first callback'), text('second callback')], 'and is gated: its call is a run');
    registered.update({ name: 'renamed' });
    // A fresh connection: the loop memory of the first has seen `tool` twice.
    const pending = later(client.callTool({ name: 'renamed', arguments: {} }));
    const hold = await waitForHold(serve, { nodeId: 'tool:renamed' });
    t.pass('a breakpoint on the new name holds it');
    await decide(serve, hold.holdId, 'continue');
    t.strictSame(await pending, text('second callback'));
    const run = await finishedRun(serve, hold.runId);
    t.equal(run.name, 'tools/call:renamed', 'its run is named by the new name');
    t.strictSame(run.nodes.map((node) => node.nodeId), ['server:updates', 'tool:renamed']);
    await setBreakpoints(serve, breakpoints());
    registered.disable();
    t.notMatch(JSON.stringify(await settle(client.callTool({ name: 'renamed', arguments: {} }))), /second callback/, 'disable() still works through the view');
    registered.enable();
    t.strictSame(await client.callTool({ name: 'renamed', arguments: {} }), text('second callback'));
  });

  t.test(`SDK ${k.label}: sampling at every gate, and outside any call`, async (t) => {
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('sampling'));
    let asked = 0;
    let failNext = false;
    // Each call gets its own `n`: the same call three times in a row would be a loop, held at the before gate.
    server.registerTool('ask', { description: 'Samples twice', inputSchema: k.schema({ n: z.number() }) }, async (_args: unknown, context: Loose) => {
      const first = await k.sample(context, server, 'send', samplingParams('one'));
      const second = await k.sample(context, server, 'server', samplingParams('two'));
      return text(`${first.content.text} / ${second.content.text}`);
    });
    const client = await connectInMemory(t, k, server, (params) => {
      asked++;
      if (failNext) {
        failNext = false;
        throw new Error('the client refused to sample');
      }
      return samplingAnswer(`${params.messages[0].content.text}#${asked}`);
    });
    let n = 0;
    const ask = () => later(client.callTool({ name: 'ask', arguments: { n: ++n } }));

    await setBreakpoints(serve, breakpoints());
    let watch = await RunWatch.start(serve);
    t.strictSame(await ask(), text('one#1 / two#2'));
    const run = await watch.one('tools/call:ask');
    const tool = instanceOf(run, 'tool:ask');
    t.strictSame(
      run.instances.filter((instance) => instance.nodeId === 'llm:sampling').map((instance) => instance.instanceId),
      [`${tool.instanceId}:sampling:1`, `${tool.instanceId}:sampling:2`],
      'two samplings, numbered in order under the call',
    );

    await setBreakpoints(serve, breakpoints({ 'llm:sampling': { after: true } }));
    asked = 0;
    let pending = ask();
    let hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'after' });
    t.match(hold.frame, { result: samplingAnswer('one#1') }, 'after: the hold shows the client\'s answer');
    await decide(serve, hold.holdId, 'inject', 'injected sample');
    hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'after' });
    await decide(serve, hold.holdId, 'retry');
    hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'after' });
    t.match(hold.frame, { result: samplingAnswer('two#3') }, 'retry asked the client again');
    await decide(serve, hold.holdId, 'continue');
    t.strictSame(await pending, text('injected sample / two#3'), 'inject answered the handler instead; retry got a fresh answer');
    t.equal(asked, 3);
    const afterRun = await finishedRun(serve, hold.runId);
    t.match(
      afterRun.instances.filter((instance) => instance.nodeId === 'llm:sampling').map((instance) => instance.output),
      [{ role: 'assistant', content: { type: 'text', text: 'injected sample' }, model: 'graphmind-inject' }, samplingAnswer('two#3')],
      'the run records the injected and the retried answers',
    );

    await setBreakpoints(serve, breakpoints({}, true));
    failNext = true;
    pending = ask();
    hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'error' });
    t.match(hold.frame, { error: { message: /the client refused to sample/ } }, 'error gate: the client\'s refusal is held');
    await decide(serve, hold.holdId, 'inject', { role: 'assistant', content: { type: 'text', text: 'recovered' }, model: 'm' });
    const recovered = await pending;
    t.match(recovered, { content: [{ type: 'text', text: /^recovered \/ two#/ }] }, 'inject recovers the sampling');

    await setBreakpoints(serve, breakpoints({ 'llm:sampling': { before: true } }));
    pending = ask();
    hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'before' });
    const before = asked;
    await decide(serve, hold.holdId, 'inject', 'never asked');
    hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'before' });
    await decide(serve, hold.holdId, 'abort');
    t.match(await settle(pending), { ok: false, code: ABORT }, 'abort of the second sampling ends the call with -32099');
    t.equal(asked, before, 'the client was not asked');

    // Sampling from outside any handler: a small run of its own.
    await setBreakpoints(serve, breakpoints());
    watch = await RunWatch.start(serve);
    const inner = server.server;
    const answer = await inner.createMessage(samplingParams('outside'));
    t.match(answer, { content: { type: 'text', text: /^outside#/ } });
    const outside = await watch.one('sampling/createMessage');
    t.strictSame(outside.nodes.map((node) => [node.nodeId, node.parent]), [['server:sampling', null], ['llm:sampling', 'server:sampling']], 'outside a call: under the server');
    t.match(instanceOf(outside, 'llm:sampling').output, { content: { text: /^outside#/ } });
  });
}

t.test('SDK 2.4.0: the low-level (method, { params }, handler) form gets validated params and is gated', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:checked': { before: true } }));
  const k = kit('2.4.0');
  const gm = await adapter(t, serve);
  const server = gm.wrapServer(k.lowServer('params-form'));
  server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'checked', inputSchema: { type: 'object' } }] }));
  let received: unknown;
  server.setRequestHandler('tools/call', { params: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }) }, (params: Loose) => {
    received = params;
    return text(`handled ${params.name}`);
  });
  const client = await connectInMemory(t, k, server);
  const pending = later(client.callTool({ name: 'checked', arguments: { q: 1 } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:checked' });
  t.match(hold.frame, { params: { name: 'checked', arguments: { q: 1 } } });
  await decide(serve, hold.holdId, 'continue');
  t.strictSame(await pending, text('handled checked'));
  t.match(received, { name: 'checked', arguments: { q: 1 } }, 'the handler got the validated params');
  const run = await finishedRun(serve, hold.runId);
  t.strictSame(instanceOf(run, 'tool:checked').input, { q: 1 });
});

t.test('SDK 2.4.0: custom request methods are not gated, whatever they are called', async (t) => {
  await setBreakpoints(serve, breakpoints());
  const k = kit('2.4.0');
  const gm = await adapter(t, serve);
  const server = gm.wrapServer(k.lowServer('custom'));
  // Names that an object's prototype also has must not pass for tools/call, resources/read or prompts/get.
  for (const method of ['toString', 'constructor', 'acme/thing']) {
    server.setRequestHandler(method, { params: z.object({}) }, () => ({ method }));
  }
  const client = await connectInMemory(t, k, server);
  for (const method of ['toString', 'constructor', 'acme/thing']) {
    t.strictSame(await client.request({ method, params: {} }, z.object({ method: z.string() })), { method }, `${method}: answered as usual`);
  }
  t.equal(gm.session.stats.calls, 0, 'and none of them was taken for a gated call');
});

t.test('custom events: a log line on the node of the call running now', async (t) => {
  await setBreakpoints(serve, breakpoints());
  const k = kit('1.32.2');
  const gm = await adapter(t, serve);
  const server = gm.wrapServer(k.mcpServer('events'));
  server.registerTool('logs', { description: 'logs' }, async () => {
    gm.session.event('step one');
    await sleep(5);
    gm.session.event('step two', { n: 2 });
    return text('logged');
  });
  t.equal(gm.session.event('outside'), false, 'outside a call: nowhere to put it');
  const watch = await RunWatch.start(serve);
  const client = await connectInMemory(t, k, server);
  await client.callTool({ name: 'logs', arguments: {} });
  const run = await watch.one('tools/call:logs');
  t.strictSame(
    run.logs.map((line) => [line.nodeId, line.stream, line.text]),
    [
      ['tool:logs', 'event', 'step one'],
      ['tool:logs', 'event', 'step two {"n":2}'],
    ],
  );
});

t.test('the hide switches keep inputs and tool results out of the record', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:secret': { before: true } }));
  for (const k of KITS) {
    const gm = await adapter(t, serve, { env: adapterEnv(serve, { GRAPHMIND_HIDE_INPUTS: '1', GRAPHMIND_HIDE_TOOL_RESULTS: '1' }) });
    const server = gm.wrapServer(k.mcpServer('hidden'));
    server.registerTool('secret', { description: 'secret', inputSchema: k.schema({ password: z.string() }) }, async ({ password }: { password: string }) => text(`the password is ${password}`));
    server.registerTool('plain', { description: 'plain', inputSchema: k.schema({ password: z.string() }) }, async ({ password }: { password: string }) => text(`the password is ${password}`));
    server.registerResource('doc', k.template('test://doc/{password}'), {}, async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'doc' }] }));
    server.registerTool('asks', { description: 'asks' }, async (context: Loose) => {
      await k.sample(context, server, 'send', samplingParams('hunter5'));
      return text('asked');
    });
    const client = await connectInMemory(t, k, server, () => samplingAnswer('sampled'));
    const watch = await RunWatch.start(serve);
    const pending = later(client.callTool({ name: 'secret', arguments: { password: 'hunter2' } }));
    const hold = await waitForHold(serve, { nodeId: 'tool:secret' });
    t.notMatch(JSON.stringify(hold.frame), /hunter2/, `SDK ${k.label}: the held request hides the arguments`);
    await decide(serve, hold.holdId, 'continue');
    t.strictSame(await pending, text('the password is hunter2'), 'the client still gets the real answer');
    await client.callTool({ name: 'plain', arguments: { password: 'hunter3' } });
    await client.readResource({ uri: 'test://doc/hunter4' });
    for (const run of [await finishedRun(serve, hold.runId), await watch.one('tools/call:plain')]) {
      t.notMatch(JSON.stringify(run), /hunter/, `${run.name}: nothing of the input or the result in the record`);
    }
    const resource = instanceOf(await watch.one('resources/read:doc'), 'resource:doc');
    t.equal(resource.input, '[hidden]', "a resource's variables are inputs too (its contents are not a tool result: kept)");
    await client.callTool({ name: 'asks', arguments: {} });
    t.equal(instanceOf(await watch.one('tools/call:asks'), 'llm:sampling').input, '[hidden]', 'a sampling request is an input too');
  }
});

t.test('options and names: server override, app fallback, two servers under one graphmind()', async (t) => {
  await setBreakpoints(serve, breakpoints());
  const k = kit('2.4.0');
  const gm = await adapter(t, serve, { app: 'my-app', server: { name: 'overridden', version: '9' } });
  const a = gm.wrapServer(k.mcpServer('real-name'));
  a.registerTool('x', { description: 'x' }, async () => text('a'));
  const watch = await RunWatch.start(serve);
  const client = await connectInMemory(t, k, a);
  await client.callTool({ name: 'x', arguments: {} });
  const run = await watch.one('tools/call:x');
  t.strictSame(run.nodes.map((node) => [node.nodeId, node.label]), [['server:overridden', 'overridden 9'], ['tool:x', 'x']], 'the server option names the server node');
  t.equal(run.meta.app, 'my-app');

  const plain = await adapter(t, serve, { app: 'two-servers' });
  const one = plain.wrapServer(k.mcpServer('first-server'));
  const two = plain.wrapServer(kit('1.32.2').mcpServer('second-server'));
  one.registerTool('x', { description: 'x' }, async () => text('one'));
  two.registerTool('x', { description: 'x' }, async () => text('two'));
  await watch.mark();
  const c1 = await connectInMemory(t, k, one);
  const c2 = await connectInMemory(t, kit('1.32.2'), two);
  await c1.callTool({ name: 'x', arguments: {} });
  await c2.callTool({ name: 'x', arguments: {} });
  const runs = await watch.named('tools/call:x', 2);
  t.strictSame(runs.map((r) => r.nodes[0]?.nodeId).sort(), ['server:first-server', 'server:second-server'], 'each server is its own root');
  t.strictSame(
    runs.map((r) => (instanceOf(r, r.nodes[0]?.nodeId as string).input as { sdk: string }).sdk).sort(),
    ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server'],
    'each tells its own SDK, read off the object',
  );
  const [first, second] = runs.map((r) => instanceOf(r, 'tool:x').instanceId.split(':')[0]);
  t.not(first, second, 'and its own connection');
});

t.test('the loop hold: the same call three times in a row holds the third', async (t) => {
  await setBreakpoints(serve, breakpoints());
  const k = kit('1.32.2');
  const gm = await adapter(t, serve);
  const server = gm.wrapServer(k.mcpServer('looper'));
  server.registerTool('poll', { description: 'poll', inputSchema: k.schema({ q: z.string() }) }, async () => text('same'));
  const client = await connectInMemory(t, k, server);
  t.strictSame(await client.callTool({ name: 'poll', arguments: { q: 'x' } }), text('same'));
  t.strictSame(await client.callTool({ name: 'poll', arguments: { q: 'x' } }), text('same'));
  const third = later(client.callTool({ name: 'poll', arguments: { q: 'x' } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:poll' });
  t.equal(hold.reason, 'loop');
  t.equal(hold.gate, 'before');
  await decide(serve, hold.holdId, 'inject', 'loop broken');
  t.strictSame(await third, text('loop broken'));

  const allowed = await adapter(t, serve, { env: adapterEnv(serve, { GRAPHMIND_LOOP_ALLOW: 'poll' }) });
  const polled = allowed.wrapServer(k.mcpServer('allowed'));
  polled.registerTool('poll', { description: 'poll', inputSchema: k.schema({ q: z.string() }) }, async () => text('same'));
  const pollClient = await connectInMemory(t, k, polled);
  for (let i = 0; i < 4; i++) t.strictSame(await pollClient.callTool({ name: 'poll', arguments: { q: 'x' } }), text('same'));
  t.equal(allowed.session.stats.holds, 0, 'GRAPHMIND_LOOP_ALLOW: never held');
});

t.test('a request the client cancels while it is held: the hold stays open, reported given up, and can still be decided; nothing hangs', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:held': { before: true } }));
  for (const k of KITS) {
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('cancelled'));
    let ran = false;
    server.registerTool('held', { description: 'held' }, async () => {
      ran = true;
      return text('ran');
    });
    const client = await connectInMemory(t, k, server);
    const controller = new AbortController();
    const pending = later(k.generation === 1 ? client.callTool({ name: 'held', arguments: {} }, undefined, { signal: controller.signal }) : client.callTool({ name: 'held', arguments: {} }, { signal: controller.signal }));
    const hold = await waitForHold(serve, { nodeId: 'tool:held' });
    controller.abort('the user gave up');
    t.match(await settle(pending), { ok: false }, `SDK ${k.label}: the client's call ends`);
    const given = await waitForGivenUp(serve, hold.holdId);
    t.equal(given.givenUp, 'the client cancelled the request (notifications/cancelled: the user gave up)', 'the hold is reported given up, with the reason the client gave');
    t.notOk(ran, 'the handler waits for the decision');
    await decide(serve, hold.holdId, 'continue');
    await waitFor(() => ran, 5000, 'the handler to go on');
    t.ok(await holdGone(serve, hold.holdId), 'the hold is gone once decided');
  }
});

t.test('a server connected before it was wrapped: what is registered through the wrapper is still gated', async (t) => {
  await setBreakpoints(serve, breakpoints({ 'tool:late': { before: true } }));
  for (const k of KITS) {
    const gm = await adapter(t, serve, { env: adapterEnv(serve), url: ingestUrl(serve) });
    const target = k.mcpServer('connected-first');
    target.registerTool('early', { description: 'registered before wrapping' }, async () => text('early'));
    const client = await connectInMemory(t, k, target);
    const server = gm.wrapServer(target);
    server.registerTool('late', { description: 'registered through the wrapper' }, async () => text('late'));
    const pending = later(client.callTool({ name: 'late', arguments: {} }));
    const hold = await waitForHold(serve, { nodeId: 'tool:late' });
    await decide(serve, hold.holdId, 'inject', 'injected late');
    t.strictSame(await pending, text('injected late'), `SDK ${k.label}: held and injected`);
    t.strictSame(await client.callTool({ name: 'early', arguments: {} }), text('early'), 'what was registered before wrapping runs as it was');
    // The SDK's dispatch was set up on the unwrapped object, so an abort cannot get past McpServer's
    // own catch: the closest the SDK allows is its isError result, carrying the abort's message.
    const aborted = later(client.callTool({ name: 'late', arguments: {} }));
    const abortHold = await waitForHold(serve, { nodeId: 'tool:late' });
    await decide(serve, abortHold.holdId, 'abort');
    t.strictSame(await aborted, { content: [{ type: 'text', text: 'Aborted in the GraphMind debugger' }], isError: true }, 'an abort: an isError result with the abort message');
    t.match(instanceOf(await finishedRun(serve, abortHold.runId), 'tool:late'), { status: 'error', error: { name: 'Aborted', code: ABORT } }, 'recorded as aborted');
  }
});
