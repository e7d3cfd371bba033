// The in-process adapter on each SDK the suite runs (1.26.0, the latest 1.x,
// the latest 2.x): a real McpServer (and a hand-written low-level Server)
// wrapped with graphmind(), a real client of the same generation over the
// SDK's own in-memory transport, and a real `graphmind serve` recording the
// runs and holding the calls through its control API.
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
  heldId,
  instanceOf,
  later,
  listHolds,
  nodeOf,
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
import { CLIENT_GAVE_UP, CLIENT_WENT_AWAY } from '../src/adapter/given-up.js';

const serve = await startDebugger(t);

for (const k of KITS) {
  t.test(`SDK ${k.label}`, async (t) => {
    t.test('tools, resources, prompts: what the client gets and what each run records', async (t) => {
      await setBreakpoints(serve, breakpoints());
      const gm = await adapter(t, serve);
      const server = gm.wrapServer(k.mcpServer('surface'));
      server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(value));
      let zeroArgs: unknown[] = [];
      server.registerTool('zero', { description: 'No arguments' }, async (...args: unknown[]) => {
        zeroArgs = args;
        return text('zero');
      });
      server.registerResource('fixed', 'test://fixed', { mimeType: 'text/plain' }, async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'fixed text' }] }));
      server.registerResource('item', k.template('test://item/{id}'), { mimeType: 'text/plain' }, async (uri: URL, variables: Record<string, string>) => ({
        contents: [{ uri: uri.href, text: `item ${variables.id}` }],
      }));
      server.registerPrompt('greet', { description: 'Greet', argsSchema: k.schema({ name: z.string() }) }, ({ name }: { name: string }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
      }));
      const watch = await RunWatch.start(serve);
      const client = await connectInMemory(t, k, server);

      t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }), text('hi'), 'a tool with an input schema answers as usual');
      t.strictSame(await client.callTool({ name: 'zero', arguments: {} }), text('zero'), 'a tool without one too');
      t.equal(zeroArgs.length, 1, 'the zero-argument tool was called with its context alone, as the SDK calls it');
      t.strictSame(await client.readResource({ uri: 'test://fixed' }), { contents: [{ uri: 'test://fixed', text: 'fixed text' }] }, 'a fixed resource');
      t.strictSame(await client.readResource({ uri: 'test://item/1' }), { contents: [{ uri: 'test://item/1', text: 'item 1' }] }, 'a templated resource');
      t.strictSame(await client.readResource({ uri: 'test://item/2' }), { contents: [{ uri: 'test://item/2', text: 'item 2' }] });
      t.strictSame(
        await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
        { messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }] },
        'a prompt',
      );

      const echo = await watch.one('tools/call:echo');
      t.equal(echo.source, 'mcp-adapter', 'the run comes from the adapter');
      t.strictSame(
        echo.nodes.map((node) => [node.nodeId, node.kind, node.parent]),
        [
          ['server:surface', 'server', null],
          ['tool:echo', 'tool', 'server:surface'],
        ],
        'one server node at the root, the tool under it',
      );
      const echoCall = instanceOf(echo, 'tool:echo');
      t.match(echoCall.instanceId, /^c\d+:\d+$/, 'the instance is the request id namespaced by the connection');
      t.strictSame(echoCall.input, { text: 'hi' }, 'input: the validated arguments');
      t.strictSame(echoCall.output, text('hi'), 'output: the result');
      t.equal(echoCall.status, 'ok');
      t.equal(echo.status, 'ok');
      t.match(instanceOf(echo, 'server:surface').input, { sdk: k.sdkPackage, name: 'surface', version: '1.0.0', app: 'adapter-tests' }, 'the server node tells the SDK, read off the object');
      t.equal(nodeOf(echo, 'server:surface').label, 'surface 1.0.0', 'labelled with the SDK server name and version');

      const zero = instanceOf(await watch.one('tools/call:zero'), 'tool:zero');
      t.strictSame(zero.input, {}, 'a zero-argument tool records an empty input, never the context');

      const fixed = await watch.one('resources/read:fixed');
      t.strictSame(instanceOf(fixed, 'resource:fixed').input, { uri: 'test://fixed' }, 'a fixed resource records its URI');
      t.equal(nodeOf(fixed, 'resource:fixed').kind, 'resource');

      const items = await watch.named('resources/read:item', 2);
      t.strictSame(
        items.map((run) => [run.nodes.map((node) => node.nodeId), instanceOf(run, 'resource:item').input]),
        [
          [['server:surface', 'resource:item'], { id: '1' }],
          [['server:surface', 'resource:item'], { id: '2' }],
        ],
        'a templated resource is one node named by its registration, whatever the URI; its input is its variables',
      );

      const greet = await watch.one('prompts/get:greet');
      t.strictSame(instanceOf(greet, 'prompt:greet').input, { name: 'Ada' });
      t.equal(nodeOf(greet, 'prompt:greet').kind, 'prompt');

      const connect = await watch.one('mcp:connect surface');
      t.equal(connect.source, 'mcp-adapter');
      t.strictSame(
        ((connect.meta.graphHint as { nodes: Array<{ nodeId: string; parent: string }> }).nodes ?? []).map((node) => [node.nodeId, node.parent]).sort(),
        [
          ['prompt:greet', 'server:surface'],
          ['resource:fixed', 'server:surface'],
          ['resource:item', 'server:surface'],
          ['tool:echo', 'server:surface'],
          ['tool:zero', 'server:surface'],
        ],
        'the connect run carries the registered surface as a graph hint',
      );
      t.equal(echoCall.instanceId.split(':')[0], connect.meta.connection, 'the instance ids are namespaced by this connection');
    });

    t.test('sampling issued by a handler is an llm:sampling node nested under it', async (t) => {
      await setBreakpoints(serve, breakpoints());
      const gm = await adapter(t, serve);
      const server = gm.wrapServer(k.mcpServer('sampler'));
      for (const via of ['send', 'server'] as const) {
        server.registerTool(`ask-${via}`, { description: 'Samples', inputSchema: k.schema({ q: z.string() }) }, async ({ q }: { q: string }, context: Loose) => {
          const answer = await k.sample(context, server, via, samplingParams(q));
          return text(`model said: ${answer.content.text}`);
        });
      }
      const asked: unknown[] = [];
      const client = await connectInMemory(t, k, server, (params) => {
        asked.push(params);
        return samplingAnswer(`answer to ${params.messages[0].content.text}`);
      });
      const watch = await RunWatch.start(serve);
      for (const via of ['send', 'server'] as const) {
        t.strictSame(await client.callTool({ name: `ask-${via}`, arguments: { q: via } }), text(`model said: answer to ${via}`), `${via}: the client answered the sampling`);
        const run = await watch.one(`tools/call:ask-${via}`);
        t.strictSame(
          run.nodes.map((node) => [node.nodeId, node.kind, node.parent]),
          [
            ['server:sampler', 'server', null],
            [`tool:ask-${via}`, 'tool', 'server:sampler'],
            ['llm:sampling', 'llm', `tool:ask-${via}`],
          ],
          `${via}: llm:sampling nested under the calling tool, in the tool's run`,
        );
        const tool = instanceOf(run, `tool:ask-${via}`);
        const sampling = instanceOf(run, 'llm:sampling');
        t.equal(sampling.instanceId, `${tool.instanceId}:sampling:1`, 'its instance is numbered under the call');
        t.match(sampling.input, { messages: [{ role: 'user', content: { type: 'text', text: via } }] }, 'its input: the sampling request');
        t.match(sampling.output, samplingAnswer(`answer to ${via}`), 'its output: what the client answered');
        t.equal(sampling.status, 'ok');
      }
      t.equal(asked.length, 2, 'each sampling reached the client once');
      t.equal(gm.session.stats.sampling, 2);
    });

    t.test('throwing handlers: the SDK answers as usual, the run records a HandlerError, the server goes on', async (t) => {
      await setBreakpoints(serve, breakpoints());
      const gm = await adapter(t, serve);
      const throwers: Record<string, () => never> = {
        'throws-error': () => {
          throw new Error('boom');
        },
        'throws-string': () => {
          throw 'a string';
        },
        'throws-undefined': () => {
          throw undefined;
        },
      };
      const build = (wrap: boolean): Loose => {
        const server = k.mcpServer('throwers');
        const target = wrap ? gm.wrapServer(server) : server;
        for (const [name, body] of Object.entries(throwers)) target.registerTool(name, { description: name }, async () => body());
        target.registerTool('fine', { description: 'fine' }, async () => text('still here'));
        target.registerResource('broken', 'test://broken', {}, async () => {
          throw new Error('resource broke');
        });
        return target;
      };
      const wrapped = await connectInMemory(t, k, build(true));
      const plain = await connectInMemory(t, k, build(false));
      const watch = await RunWatch.start(serve);
      for (const name of Object.keys(throwers)) {
        const got = await settle(wrapped.callTool({ name, arguments: {} }));
        const usual = await settle(plain.callTool({ name, arguments: {} }));
        t.strictSame(got, usual, `${name}: the client gets exactly what the unwrapped server answers`);
      }
      t.strictSame(await settle(wrapped.readResource({ uri: 'test://broken' })), await settle(plain.readResource({ uri: 'test://broken' })), 'a resource that throws: the same error');
      t.strictSame(await wrapped.callTool({ name: 'fine', arguments: {} }), text('still here'), 'and the server keeps serving');

      const expected: Record<string, string> = { 'throws-error': 'boom', 'throws-string': 'a string', 'throws-undefined': 'a value that is not an Error was thrown: undefined' };
      for (const [name, message] of Object.entries(expected)) {
        const run = await watch.one(`tools/call:${name}`);
        const call = instanceOf(run, `tool:${name}`);
        t.equal(call.status, 'error', `${name}: the instance failed`);
        t.match(call.error, { name: 'HandlerError', message }, `${name}: recorded as a HandlerError`);
        t.equal(run.status, 'error', `${name}: the run failed`);
      }
      t.match(instanceOf(await watch.one('resources/read:broken'), 'resource:broken').error, { name: 'HandlerError', message: 'resource broke' });
    });

    t.test('concurrent requests hold independently and are decided in any order', async (t) => {
      await setBreakpoints(serve, breakpoints({ 'tool:slow': { before: true } }));
      const gm = await adapter(t, serve);
      const server = gm.wrapServer(k.mcpServer('concurrent'));
      const ran: string[] = [];
      server.registerTool('slow', { description: 'slow', inputSchema: k.schema({ n: z.string() }) }, async ({ n }: { n: string }) => {
        ran.push(n);
        return text(`ran ${n}`);
      });
      const client = await connectInMemory(t, k, server);
      const first = later(client.callTool({ name: 'slow', arguments: { n: 'first' } }));
      const firstHold = await waitForHold(serve, { nodeId: 'tool:slow' });
      const second = later(client.callTool({ name: 'slow', arguments: { n: 'second' } }));
      let secondHold = firstHold;
      for (let i = 0; i < 500 && secondHold.holdId === firstHold.holdId; i++) {
        const holds = await listHolds(serve);
        secondHold = holds.find((hold) => hold.holdId !== firstHold.holdId && hold.nodeId === 'tool:slow') ?? firstHold;
        if (secondHold.holdId === firstHold.holdId) await sleep(20);
      }
      t.not(secondHold.holdId, firstHold.holdId, 'two holds at once');
      t.not(secondHold.runId, firstHold.runId, 'each in its own run');
      t.not(heldId(secondHold), heldId(firstHold), 'for their own requests');
      t.strictSame(ran, [], 'neither handler has run');
      await decide(serve, secondHold.holdId, 'inject', 'second injected');
      t.strictSame(await second, text('second injected'), 'the second, decided first, answers first');
      t.strictSame(ran, [], 'while the first still holds');
      await decide(serve, firstHold.holdId, 'continue');
      t.strictSame(await first, text('ran first'), 'the first then runs');
      t.strictSame(ran, ['first']);
    });

    t.test('abort reaches the handler: a held sampling aborted, the handler sees its signal aborted, the request ends with -32099', async (t) => {
      await setBreakpoints(serve, breakpoints({ 'llm:sampling': { before: true } }));
      const gm = await adapter(t, serve);
      const server = gm.wrapServer(k.mcpServer('aborter'));
      let seen: { aborted: boolean; samplingError?: string } | undefined;
      server.registerTool('ask', { description: 'asks' }, async (context: Loose) => {
        const signal = k.signal(context);
        let samplingError: string | undefined;
        try {
          await k.sample(context, server, 'send', samplingParams('question'));
        } catch (error) {
          samplingError = (error as Error).message;
        }
        if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        seen = { aborted: signal.aborted, samplingError };
        return text('the handler finished anyway');
      });
      let asked = 0;
      const client = await connectInMemory(t, k, server, () => {
        asked++;
        return samplingAnswer('never');
      });
      const watch = await RunWatch.start(serve);
      const call = later(client.callTool({ name: 'ask', arguments: {} }));
      const hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate: 'before' });
      await decide(serve, hold.holdId, 'abort');
      const got = await settle(call);
      t.match(got, { ok: false, code: ABORT }, 'the client gets -32099');
      await waitFor(() => seen !== undefined, 5000, 'the handler to finish');
      t.equal(seen?.aborted, true, "the handler's signal was aborted");
      t.match(seen?.samplingError, /Aborted in the GraphMind debugger/, 'its sampling call rejected with the abort');
      t.equal(asked, 0, 'the client was never asked to sample');
      const run = await watch.one('tools/call:ask');
      t.match(instanceOf(run, 'llm:sampling'), { status: 'error', error: { name: 'Aborted', code: ABORT } }, 'the sampling is recorded as aborted');
      t.match(instanceOf(run, 'tool:ask'), { status: 'error', error: { name: 'Aborted', code: ABORT } }, 'and so is the call');
    });

    t.test('a client that goes away while its handler is held: the hold stays open, reported given up, and can still be decided; nothing hangs', async (t) => {
      await setBreakpoints(serve, breakpoints({ 'tool:held': { before: true } }));
      const gm = await adapter(t, serve);
      const server = gm.wrapServer(k.mcpServer('leaver'));
      let ran = false;
      server.registerTool('held', { description: 'held' }, async () => {
        ran = true;
        return text('done');
      });
      const client = await connectInMemory(t, k, server);
      // A short request timeout: SDK 1.26's client leaves a closed request's timer running for its full 60 s.
      const call = later(k.callTool(client, { name: 'held', arguments: {} }, { timeout: 5000 }));
      const hold = await waitForHold(serve, { nodeId: 'tool:held' });
      await client.close();
      t.match(await settle(call), { ok: false }, 'the client gave up on its call');
      const given = await waitForGivenUp(serve, hold.holdId);
      // 2.x aborts the request with "Connection closed"; 1.x aborts it without a reason, as it does on a cancel without one.
      t.equal(given.givenUp, k.generation === 2 ? CLIENT_WENT_AWAY : CLIENT_GAVE_UP, 'the hold is reported given up');
      t.notOk(ran, 'the handler waits for the decision');
      t.equal(gm.session.stats.holds, 1, 'one hold');
      await decide(serve, hold.holdId, 'continue');
      await waitFor(() => ran, 5000, 'the held handler to go on');
      t.pass('the handler went on once decided');
      t.ok(await holdGone(serve, hold.holdId), 'the hold is gone from the debugger');
    });

    t.test('a hand-written low-level Server: setRequestHandler, named by tool name and resource URI', async (t) => {
      await setBreakpoints(serve, breakpoints({ 'tool:lookup': { before: true } }));
      const gm = await adapter(t, serve);
      const server = gm.wrapServer(k.lowServer('low'));
      k.setHandler(server, 'tools/list', async () => ({ tools: [{ name: 'lookup', inputSchema: { type: 'object' } }, { name: 'plain', inputSchema: { type: 'object' } }] }));
      k.setHandler(server, 'tools/call', async (request: Loose) => text(`${request.params.name}: ${JSON.stringify(request.params.arguments ?? {})}`));
      k.setHandler(server, 'resources/read', async (request: Loose) => ({ contents: [{ uri: request.params.uri, text: 'low resource' }] }));
      k.setHandler(server, 'prompts/get', async (request: Loose) => ({ messages: [{ role: 'user', content: { type: 'text', text: request.params.name } }] }));
      const client = await connectInMemory(t, k, server);
      const watch = await RunWatch.start(serve);

      t.strictSame(await client.callTool({ name: 'plain', arguments: { a: 1 } }), text('plain: {"a":1}'), 'a tool call answers as usual');
      const held = later(client.callTool({ name: 'lookup', arguments: { q: 'x' } }));
      const hold = await waitForHold(serve, { nodeId: 'tool:lookup' });
      t.match(hold.frame, { method: 'tools/call', params: { name: 'lookup', arguments: { q: 'x' } } }, 'the breakpoint on tool:lookup holds the call by its tool name');
      await decide(serve, hold.holdId, 'inject', 'from the debugger');
      t.strictSame(await held, text('from the debugger'), 'and an injected value answers it');
      t.strictSame(await client.readResource({ uri: 'test://low/a' }), { contents: [{ uri: 'test://low/a', text: 'low resource' }] });
      t.strictSame(await client.getPrompt({ name: 'hello' }), { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] });

      const plain = await watch.one('tools/call:plain');
      t.strictSame(plain.nodes.map((node) => [node.nodeId, node.parent]), [['server:low', null], ['tool:plain', 'server:low']], 'tool:<name> under server:<name>');
      t.strictSame(instanceOf(plain, 'tool:plain').input, { a: 1 }, 'input: the arguments');
      const resource = await watch.one('resources/read:test://low/a');
      t.strictSame(instanceOf(resource, 'resource:test://low/a').input, { uri: 'test://low/a' }, 'a resource is named by its URI');
      t.ok(await watch.one('prompts/get:hello'), 'a prompt by its name');
      const injected = await watch.one('tools/call:lookup');
      t.strictSame(instanceOf(injected, 'tool:lookup').output, text('from the debugger'), 'the injected answer is recorded');
    });
  });
}
