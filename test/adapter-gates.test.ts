// Every gate and every action of the in-process adapter, end to end: a real
// `graphmind serve` driven only through its control API (PUT
// /api/breakpoints, GET /api/holds, POST /api/holds/:holdId, GET
// /api/runs/:runId), a wrapped McpServer of each SDK and a real client over
// the in-memory transport. Each case checks what the client receives and
// what the run records.
import t from 'tap';
import * as z from 'zod';
import type { Hold } from '../src/protocol/control.js';
import {
  ABORT,
  KITS,
  adapter,
  breakpoints,
  connectInMemory,
  decide,
  finishedRun,
  heldId,
  instanceOf,
  later,
  setBreakpoints,
  settle,
  startDebugger,
  text,
  waitForHold,
  type FullRun,
  type Kit,
  type Loose,
} from './helpers/adapter.js';
import type { Teardown } from './helpers/gates.js';
import { liftResult } from '../src/gates/lift.js';

const serve = await startDebugger(t);

/** A wrapped server with the tools these cases hold, its client, and an unwrapped twin for "what the SDK usually answers". */
async function setup(t: Teardown, k: Kit): Promise<{ client: Loose; plain: Loose; calls: Record<string, number>; failUntil: { fails: number } }> {
  const gm = await adapter(t, serve);
  const calls: Record<string, number> = { echo: 0, fails: 0, reports: 0 };
  const failUntil = { fails: Infinity };
  const build = (server: Loose): Loose => {
    server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => {
      calls.echo++;
      return text(`echo ${value} #${calls.echo}`);
    });
    // Each call gets its own `n`: the same arguments three times in a row would be a loop, held at the before gate.
    server.registerTool('fails', { description: 'Throws', inputSchema: k.schema({ n: z.number() }) }, async () => {
      calls.fails++;
      if (calls.fails <= failUntil.fails) throw new Error(`it failed #${calls.fails}`);
      return text(`worked #${calls.fails}`);
    });
    server.registerTool('reports', { description: 'Reports an error result' }, async () => {
      calls.reports++;
      return { content: [{ type: 'text', text: 'reported failure' }], isError: true };
    });
    server.registerResource('doc', 'test://doc', { mimeType: 'text/plain' }, async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'the doc' }] }));
    server.registerPrompt('ask', { description: 'A prompt' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'real prompt' } }] }));
    return server;
  };
  const client = await connectInMemory(t, k, build(gm.wrapServer(k.mcpServer('gates'))));
  const plainCalls = { ...calls };
  const plainServer = k.mcpServer('gates');
  plainServer.registerTool('fails', { description: 'Throws', inputSchema: k.schema({ n: z.number() }) }, async () => {
    plainCalls.fails++;
    throw new Error('it failed #1');
  });
  const plain = await connectInMemory(t, k, plainServer);
  return { client, plain, calls, failUntil };
}

/** Start a call, wait for its hold, decide it, and return the hold, what the client got, and the finished run. */
async function held(
  call: () => Promise<unknown>,
  match: Partial<Pick<Hold, 'nodeId' | 'gate'>>,
  decision: (hold: Hold) => { action: 'continue' | 'inject' | 'retry' | 'abort'; value?: unknown } | Promise<{ action: 'continue' | 'inject' | 'retry' | 'abort'; value?: unknown }>,
): Promise<{ hold: Hold; got: Awaited<ReturnType<typeof settle>>; run: FullRun }> {
  const pending = later(call());
  const hold = await waitForHold(serve, match);
  const { action, value } = await decision(hold);
  await decide(serve, hold.holdId, action, value);
  const got = await settle(pending);
  const run = await finishedRun(serve, hold.runId);
  return { hold, got, run };
}

for (const k of KITS) {
  t.test(`SDK ${k.label}`, async (t) => {
    const { client, plain, calls, failUntil } = await setup(t, k);
    const echo = (value: string) => () => client.callTool({ name: 'echo', arguments: { text: value } });

    t.test('before gate', async (t) => {
      await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true }, 'resource:doc': { before: true }, 'prompt:ask': { before: true } }));

      t.test('continue: the handler runs', async (t) => {
        const before = calls.echo;
        const { hold, got, run } = await held(echo('a'), { nodeId: 'tool:echo' }, () => ({ action: 'continue' }));
        t.equal(hold.gate, 'before');
        t.equal(hold.method, 'tools/call');
        t.match(hold.frame, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } }, 'the hold shows the request');
        t.equal(hold.instanceId.split(':')[1], String(heldId(hold)), 'the instance is the request id, namespaced');
        t.strictSame(got, { ok: true, value: text(`echo a #${before + 1}`) }, 'the client gets the real answer');
        t.equal(calls.echo, before + 1, 'the handler ran once');
        t.equal(run.name, 'tools/call:echo');
        t.equal(run.source, 'mcp-adapter');
        t.equal(run.status, 'ok');
        const call = instanceOf(run, 'tool:echo');
        t.equal(call.instanceId, hold.instanceId, 'the hold is on the run\'s instance');
        t.strictSame(call.input, { text: 'a' });
        t.strictSame(call.output, text(`echo a #${before + 1}`));
      });

      const injections: Array<{ name: string; value: unknown; expect: unknown; status: 'ok' | 'error'; error?: unknown }> = [
        { name: 'a string', value: 'a string', expect: text('a string'), status: 'ok' },
        { name: 'an object', value: { price: 42 }, expect: { content: [{ type: 'text', text: '{"price":42}' }], structuredContent: { price: 42 } }, status: 'ok' },
        {
          name: 'a result-shaped value',
          value: { content: [{ type: 'text', text: 'shaped' }], isError: true },
          expect: { content: [{ type: 'text', text: 'shaped' }], isError: true },
          status: 'error',
          error: { name: 'ToolError', message: 'shaped' },
        },
        // The control API cannot carry `undefined`: "nothing" arrives as JSON null, lifted by the shared lifter.
        { name: 'nothing (null)', value: null, expect: liftResult('tools/call', null), status: 'ok' },
      ];
      for (const injection of injections) {
        t.test(`inject ${injection.name}`, async (t) => {
          const before = calls.echo;
          const { got, run } = await held(echo('b'), { nodeId: 'tool:echo' }, () => ({ action: 'inject', value: injection.value }));
          t.strictSame(got, { ok: true, value: injection.expect }, 'the client gets the lifted value');
          t.equal(calls.echo, before, 'the handler never ran');
          const call = instanceOf(run, 'tool:echo');
          t.strictSame(call.output, injection.expect, 'the run records what the client got');
          t.equal(call.status, injection.status);
          t.equal(run.status, injection.status);
          if (injection.error !== undefined) t.match(call.error, injection.error);
        });
      }

      t.test('inject a whole frame with an error: the client gets that error', async (t) => {
        const before = calls.echo;
        const { got, run } = await held(echo('c'), { nodeId: 'tool:echo' }, (hold) => ({
          action: 'inject',
          value: { jsonrpc: '2.0', id: heldId(hold), error: { code: -32001, message: 'a whole frame', data: { why: 'testing' } } },
        }));
        t.match(got, { ok: false, code: -32001, message: /a whole frame/ }, 'a JSON-RPC error with its code and message');
        t.equal(calls.echo, before, 'the handler never ran');
        const call = instanceOf(run, 'tool:echo');
        t.match(call, { status: 'error', error: { name: 'JsonRpcError', code: -32001, message: 'a whole frame' } }, 'recorded as that error');
        t.equal(run.status, 'error');
      });

      t.test('inject a whole frame with a result: its result goes back', async (t) => {
        const { got, run } = await held(echo('d'), { nodeId: 'tool:echo' }, (hold) => ({ action: 'inject', value: { jsonrpc: '2.0', id: heldId(hold), result: text('whole result') } }));
        t.strictSame(got, { ok: true, value: text('whole result') });
        t.strictSame(instanceOf(run, 'tool:echo').output, text('whole result'));
      });

      t.test('retry at the before gate: nothing has run yet, so the handler runs once', async (t) => {
        const before = calls.echo;
        const { got, run } = await held(echo('e'), { nodeId: 'tool:echo' }, () => ({ action: 'retry' }));
        t.strictSame(got, { ok: true, value: text(`echo e #${before + 1}`) });
        t.equal(calls.echo, before + 1);
        t.equal(instanceOf(run, 'tool:echo').status, 'ok');
      });

      t.test('abort: -32099, the handler never runs', async (t) => {
        const before = calls.echo;
        const { got, run } = await held(echo('f'), { nodeId: 'tool:echo' }, () => ({ action: 'abort' }));
        t.match(got, { ok: false, code: ABORT, message: /Aborted in the GraphMind debugger/ });
        t.equal(calls.echo, before, 'the handler never ran');
        t.match(instanceOf(run, 'tool:echo'), { status: 'error', error: { name: 'Aborted', code: ABORT } });
        t.equal(run.status, 'error');
      });

      t.test('resources and prompts are lifted for their own result shapes', async (t) => {
        const resource = await held(() => client.readResource({ uri: 'test://doc' }), { nodeId: 'resource:doc' }, () => ({ action: 'inject', value: 'injected doc' }));
        t.strictSame(resource.got, { ok: true, value: { contents: [{ uri: 'test://doc', mimeType: 'text/plain', text: 'injected doc' }] } }, 'a string becomes text contents for the URI');
        t.equal(resource.run.name, 'resources/read:doc');
        const prompt = await held(() => client.getPrompt({ name: 'ask' }), { nodeId: 'prompt:ask' }, () => ({ action: 'inject', value: { k: 1 } }));
        t.strictSame(prompt.got, { ok: true, value: { messages: [{ role: 'user', content: { type: 'text', text: '{"k":1}' } }] } }, 'a value becomes a user message');
        t.equal(prompt.run.name, 'prompts/get:ask');
        const aborted = await held(() => client.readResource({ uri: 'test://doc' }), { nodeId: 'resource:doc' }, () => ({ action: 'abort' }));
        t.match(aborted.got, { ok: false, code: ABORT }, 'abort on a resource: -32099');
        const promptAbort = await held(() => client.getPrompt({ name: 'ask' }), { nodeId: 'prompt:ask' }, () => ({ action: 'abort' }));
        t.match(promptAbort.got, { ok: false, code: ABORT }, 'abort on a prompt: -32099');
      });
    });

    t.test('after gate (an explicit breakpoint)', async (t) => {
      await setBreakpoints(serve, breakpoints({ 'tool:echo': { after: true } }));

      t.test('continue: the real answer goes back', async (t) => {
        const before = calls.echo;
        const { hold, got, run } = await held(echo('a'), { nodeId: 'tool:echo' }, () => ({ action: 'continue' }));
        t.equal(hold.gate, 'after');
        t.match(hold.frame, { jsonrpc: '2.0', result: text(`echo a #${before + 1}`) }, 'the hold shows the answer');
        t.strictSame(got, { ok: true, value: text(`echo a #${before + 1}`) });
        t.strictSame(instanceOf(run, 'tool:echo').output, text(`echo a #${before + 1}`));
      });

      t.test('inject: the value replaces the answer', async (t) => {
        const before = calls.echo;
        const { got, run } = await held(echo('b'), { nodeId: 'tool:echo' }, () => ({ action: 'inject', value: 'replaced' }));
        t.strictSame(got, { ok: true, value: text('replaced') });
        t.equal(calls.echo, before + 1, 'the handler ran');
        t.strictSame(instanceOf(run, 'tool:echo').output, text('replaced'), 'the run records the replacement');
      });

      t.test('retry: the handler runs again', async (t) => {
        const before = calls.echo;
        const pending = later(echo('c')());
        const first = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after' });
        t.match(first.frame, { result: text(`echo c #${before + 1}`) });
        await decide(serve, first.holdId, 'retry');
        const second = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after', runId: first.runId });
        t.not(second.holdId, first.holdId, 'the second answer is held again');
        t.match(second.frame, { result: text(`echo c #${before + 2}`) }, 'from the second invocation');
        t.equal(second.instanceId, first.instanceId, 'the same execution, reopened');
        await decide(serve, second.holdId, 'continue');
        t.strictSame(await pending, text(`echo c #${before + 2}`), 'the client gets the retried answer');
        t.equal(calls.echo, before + 2, 'the handler ran twice');
        const run = await finishedRun(serve, first.runId);
        const call = instanceOf(run, 'tool:echo');
        t.equal(call.status, 'ok');
        t.strictSame(call.output, text(`echo c #${before + 2}`));
        t.equal(run.instances.filter((instance) => instance.nodeId === 'tool:echo').length, 1, 'one instance');
      });

      t.test('abort: -32099 although the handler ran', async (t) => {
        const before = calls.echo;
        const { got, run } = await held(echo('d'), { nodeId: 'tool:echo' }, () => ({ action: 'abort' }));
        t.match(got, { ok: false, code: ABORT });
        t.equal(calls.echo, before + 1);
        t.match(instanceOf(run, 'tool:echo'), { status: 'error', error: { name: 'Aborted', code: ABORT } });
      });
    });

    t.test('error gate (pause on error)', async (t) => {
      await setBreakpoints(serve, breakpoints({}, true));
      let n = 0;
      const fails = () => client.callTool({ name: 'fails', arguments: { n: ++n } });

      t.test('continue rethrows: the SDK answers as it usually does', async (t) => {
        failUntil.fails = Infinity;
        calls.fails = 0;
        const { hold, got, run } = await held(fails, { nodeId: 'tool:fails' }, () => ({ action: 'continue' }));
        t.equal(hold.gate, 'error');
        t.equal(hold.reason, 'error');
        t.match(hold.frame, { jsonrpc: '2.0', error: { message: 'it failed #1' } }, 'the hold shows the thrown error');
        t.strictSame(got, await settle(plain.callTool({ name: 'fails', arguments: { n: 0 } })), 'the client gets what the unwrapped server answers');
        t.match(instanceOf(run, 'tool:fails'), { status: 'error', error: { name: 'HandlerError', message: 'it failed #1' } });
        t.equal(run.status, 'error');
      });

      t.test('inject recovers the request', async (t) => {
        const { got, run } = await held(fails, { nodeId: 'tool:fails', gate: 'error' }, () => ({ action: 'inject', value: 'recovered' }));
        t.strictSame(got, { ok: true, value: text('recovered') });
        t.match(instanceOf(run, 'tool:fails'), { status: 'ok', output: text('recovered') });
        t.equal(run.status, 'ok');
      });

      t.test('retry re-invokes the handler', async (t) => {
        calls.fails = 0;
        failUntil.fails = 1;
        const { got, run } = await held(fails, { nodeId: 'tool:fails', gate: 'error' }, () => ({ action: 'retry' }));
        t.strictSame(got, { ok: true, value: text('worked #2') }, 'the second invocation worked');
        t.equal(calls.fails, 2);
        t.match(instanceOf(run, 'tool:fails'), { status: 'ok', output: text('worked #2') });
        failUntil.fails = Infinity;
      });

      t.test('abort: -32099', async (t) => {
        const { got, run } = await held(fails, { nodeId: 'tool:fails', gate: 'error' }, () => ({ action: 'abort' }));
        t.match(got, { ok: false, code: ABORT });
        t.match(instanceOf(run, 'tool:fails'), { status: 'error', error: { name: 'Aborted', code: ABORT } });
      });

      t.test('an isError result holds at the error gate too', async (t) => {
        const { hold, got, run } = await held(() => client.callTool({ name: 'reports', arguments: {} }), { nodeId: 'tool:reports' }, () => ({ action: 'continue' }));
        t.equal(hold.gate, 'error');
        t.strictSame(got, { ok: true, value: { content: [{ type: 'text', text: 'reported failure' }], isError: true } });
        t.match(instanceOf(run, 'tool:reports'), { status: 'error', error: { name: 'ToolError', message: 'reported failure' } });
      });
    });
  });
}
