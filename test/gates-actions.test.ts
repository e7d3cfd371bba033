// Every cell of the action table, on the wire, with real parts: a real
// `graphmind serve`, a real SDK 1.x client spawning `graphmind mcp-proxy`,
// and a fixture server that logs every byte it receives.
//
//            | held request (before)          | held response (after)
// continue   | forwarded unchanged            | forwarded unchanged
// inject     | not forwarded; lifted answer   | rewritten frame with the value
// retry      | same as continue               | dropped; request bytes re-sent
// abort      | not forwarded; error -32099    | dropped; requester gets -32099
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import t, { type Test } from 'tap';
import type { Hold } from '../src/protocol/control.js';
import { PROXY_FIXTURES, startProxy } from './helpers/cli.js';
import { killQuietly } from './helpers/wire.js';
import {
  ABORT,
  connectV1,
  decide,
  getRun,
  proxyEnv,
  holdingLine,
  rejection,
  setBreakpoints,
  startDebugger,
  startV1,
  waitFor,
  waitForAsync,
  waitForHold,
  type LoggedMessage,
  type RunView,
  type SamplingStub,
  type ServerLog,
  type TextCollector,
} from './helpers/gates.js';

const serve = await startDebugger(t);

/** Mark a call's rejection as handled now; awaiting it later still throws. */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The JSON-RPC id of a held frame. */
function idOf(hold: Hold): string | number {
  return (hold.frame as { id: string | number }).id;
}

/** The lines the server received for one request: its method and id. */
function received(log: ServerLog, method: string, id: string | number): string[] {
  return log.lines().filter((line) => {
    const m = JSON.parse(line) as LoggedMessage;
    return m.method === method && m.id === id;
  });
}

/** Wait until the proxy printed exactly the expected HOLDING lines (any order), then compare. */
async function holdingLinesAre(t: Test, stderr: TextCollector, expected: string[]): Promise<void> {
  await waitFor(() => stderr.holdingLines().length >= expected.length, 5000, 'HOLDING lines').catch(() => {});
  t.strictSame([...stderr.holdingLines()].sort(), [...expected].sort(), 'one HOLDING line per hold, on the proxy stderr');
}

/** A client → server method whose node has a before and an after breakpoint. */
interface Target {
  nodeId: string;
  method: string;
  /** Make the call; `tag` makes its arguments unique where the method has any. */
  call(client: Client, tag: string): Promise<unknown>;
  /** What the server really answers. */
  real(tag: string): unknown;
  /** The client's result for an injected string / object. */
  liftedString(text: string): unknown;
  liftedObject(value: Record<string, unknown>): unknown;
}

const TARGETS: Target[] = [
  {
    nodeId: 'tool:echo',
    method: 'tools/call',
    call: (client, tag) => client.callTool({ name: 'echo', arguments: { text: tag } }),
    real: (tag) => ({ content: [{ type: 'text', text: tag }] }),
    liftedString: (text) => ({ content: [{ type: 'text', text }] }),
    liftedObject: (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value }),
  },
  {
    nodeId: 'resource:test://greeting',
    method: 'resources/read',
    call: (client) => client.readResource({ uri: 'test://greeting' }),
    real: () => ({ contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'Hello from the fixture' }] }),
    liftedString: (text) => ({ contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text }] }),
    liftedObject: (value) => ({ contents: [{ uri: 'test://greeting', mimeType: 'application/json', text: JSON.stringify(value) }] }),
  },
  {
    nodeId: 'prompt:greet',
    method: 'prompts/get',
    call: (client, tag) => client.getPrompt({ name: 'greet', arguments: { name: tag } }),
    real: (tag) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${tag}.` } }] }),
    liftedString: (text) => ({ messages: [{ role: 'user', content: { type: 'text', text } }] }),
    liftedObject: (value) => ({ messages: [{ role: 'user', content: { type: 'text', text: JSON.stringify(value) } }] }),
  },
];

for (const target of TARGETS) {
  t.test(`${target.method}: every action at the before and after gates`, async (t) => {
    await setBreakpoints(serve, { pauseOnError: true, nodes: { [target.nodeId]: { before: true, after: true } } });
    const session = await connectV1(t, serve);
    const { client, log, stderr } = session;
    const expected: string[] = [];
    const held = async (gate: 'before' | 'after'): Promise<Hold> => {
      const hold = await waitForHold(serve, { nodeId: target.nodeId, gate });
      t.equal(hold.method, target.method, `the ${gate} hold names the method`);
      expected.push(holdingLine(target.method, idOf(hold), gate, serve.port));
      return hold;
    };

    // before + inject: the server never sees the request; the client gets the lifted value.
    let pending = later(target.call(client, 'inject-before'));
    const injectedBefore = await held('before');
    t.equal((injectedBefore.frame as LoggedMessage).method, target.method, 'the held frame is the request');
    await decide(serve, injectedBefore.holdId, 'inject', 'injected before');
    t.strictSame(await pending, target.liftedString('injected before'), 'inject before: the client gets the lifted value as its result');

    // before + abort: not forwarded; the client gets -32099.
    pending = later(target.call(client, 'abort-before'));
    const abortedBefore = await held('before');
    await decide(serve, abortedBefore.holdId, 'abort');
    const aborted = await rejection(pending);
    t.equal(aborted.code, ABORT, 'abort before: the client gets -32099');

    // before + continue, then after + continue: the real answer, unchanged.
    pending = later(target.call(client, 'continue'));
    const continuedBefore = await held('before');
    await decide(serve, continuedBefore.holdId, 'continue');
    const continuedAfter = await held('after');
    t.equal(idOf(continuedAfter), idOf(continuedBefore), 'the after hold is the answer to the same request');
    t.ok('result' in (continuedAfter.frame as object), 'the held frame is the response');
    const forwarded = received(log, target.method, idOf(continuedBefore));
    t.equal(forwarded.length, 1, 'continue before: the request reached the server once');
    t.strictSame(JSON.parse(forwarded[0] as string), continuedBefore.frame, 'continue before: forwarded unchanged');
    await decide(serve, continuedAfter.holdId, 'continue');
    t.strictSame(await pending, target.real('continue'), 'continue after: the real answer, unchanged');

    // before + retry (same as continue), then after + inject: a rewritten frame carrying the value.
    pending = later(target.call(client, 'retry-then-inject'));
    const retriedBefore = await held('before');
    await decide(serve, retriedBefore.holdId, 'retry');
    const injectedAfter = await held('after');
    t.equal(received(log, target.method, idOf(retriedBefore)).length, 1, 'retry before: forwarded like continue, once');
    await decide(serve, injectedAfter.holdId, 'inject', { answer: 42, from: 'after' });
    t.strictSame(await pending, target.liftedObject({ answer: 42, from: 'after' }), 'inject after: the client gets the lifted value');

    // after + abort: the answer is dropped; the client gets -32099.
    pending = later(target.call(client, 'abort-after'));
    await decide(serve, (await held('before')).holdId, 'continue');
    const abortedAfter = await held('after');
    await decide(serve, abortedAfter.holdId, 'abort');
    t.equal((await rejection(pending)).code, ABORT, 'abort after: the client gets -32099');
    t.equal(received(log, target.method, idOf(abortedAfter)).length, 1, 'abort after: the request did run once');

    // after + retry: the answer is dropped and the same request bytes go to the server again.
    pending = later(target.call(client, 'retry-after'));
    const beforeRetry = await held('before');
    await decide(serve, beforeRetry.holdId, 'continue');
    const retriedAfter = await held('after');
    await decide(serve, retriedAfter.holdId, 'retry');
    const again = await held('after');
    t.equal(idOf(again), idOf(beforeRetry), 'retry after: the new answer holds at the after gate again');
    const twice = received(log, target.method, idOf(beforeRetry));
    t.equal(twice.length, 2, 'retry after: the request reached the server twice');
    t.equal(twice[0], twice[1], 'retry after: byte-identical both times');
    await decide(serve, again.holdId, 'continue');
    t.strictSame(await pending, target.real('retry-after'), 'retry after: the client gets the new answer');

    // Order is kept, so by now anything injected or aborted before would have arrived.
    t.strictSame(received(log, target.method, idOf(injectedBefore)), [], 'inject before: the request never reached the server');
    t.strictSame(received(log, target.method, idOf(abortedBefore)), [], 'abort before: the request never reached the server');
    if (target.method !== 'resources/read') {
      t.strictSame(log.linesWith('inject-before'), [], 'no trace of the injected call in the server log');
      t.strictSame(log.linesWith('abort-before'), [], 'no trace of the aborted call in the server log');
    }
    await holdingLinesAre(t, stderr, expected);
    await session.close();
  });
}

t.test('a notification: continue forwards, inject replaces, abort swallows', async (t) => {
  await setBreakpoints(serve, {
    pauseOnError: true,
    nodes: { 'mcp:notifications/initialized': { before: true }, 'mcp:notifications/roots/list_changed': { before: true } },
  });
  // --wait-for-attach: the breakpoints are in force before the handshake.
  const session = startV1(t, serve);
  const { client, log, stderr } = session;
  await session.connecting;
  const expected: string[] = [];

  const initialized = await waitForHold(serve, { nodeId: 'mcp:notifications/initialized', gate: 'before' });
  t.equal(initialized.method, 'notifications/initialized');
  expected.push(holdingLine('notifications/initialized', undefined, 'before', serve.port));
  const replacement = { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: { 'graphmind.test/injected': true } } };
  await decide(serve, initialized.holdId, 'inject', replacement);
  await log.waitForLine((line) => line.includes('notifications/initialized'));
  t.strictSame(log.linesWith('notifications/initialized'), [JSON.stringify(replacement)], 'inject: the given object goes on in its place');

  await client.sendRootsListChanged();
  const continued = await waitForHold(serve, { nodeId: 'mcp:notifications/roots/list_changed', gate: 'before' });
  expected.push(holdingLine('notifications/roots/list_changed', undefined, 'before', serve.port));
  await decide(serve, continued.holdId, 'continue');
  const original = await log.waitForLine((line) => line.includes('notifications/roots/list_changed'));
  t.strictSame(JSON.parse(original), continued.frame, 'continue: forwarded unchanged');

  await client.sendRootsListChanged();
  const swallowed = await waitForHold(serve, { nodeId: 'mcp:notifications/roots/list_changed', gate: 'before' });
  expected.push(holdingLine('notifications/roots/list_changed', undefined, 'before', serve.port));
  await decide(serve, swallowed.holdId, 'abort');

  await client.sendRootsListChanged();
  const replaced = await waitForHold(serve, { nodeId: 'mcp:notifications/roots/list_changed', gate: 'before' });
  expected.push(holdingLine('notifications/roots/list_changed', undefined, 'before', serve.port));
  const other = { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { _meta: { 'graphmind.test/replaced': 1 } } };
  await decide(serve, replaced.holdId, 'inject', other);

  // A call behind them: once it is answered, everything before it has arrived.
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'after the notifications' } }), {
    content: [{ type: 'text', text: 'after the notifications' }],
  });
  t.strictSame(log.linesWith('notifications/roots/list_changed'), [original, JSON.stringify(other)], 'abort swallowed one; inject replaced the next');
  await holdingLinesAre(t, stderr, expected);
  await session.close();
});

t.test('sampling/createMessage from the server: every action at the before and after gates', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'llm:sampling': { before: true, after: true } } });
  let release: (() => void) | undefined;
  const sampling: SamplingStub = {
    calls: 0,
    answer: { role: 'assistant', content: { type: 'text', text: 'from the client' }, model: 'stub-model' },
  };
  const session = await connectV1(t, serve, { sampling });
  const { client, log, stderr } = session;
  const expected: string[] = [];
  const held = async (gate: 'before' | 'after'): Promise<Hold> => {
    const hold = await waitForHold(serve, { nodeId: 'llm:sampling', gate });
    t.equal(hold.method, 'sampling/createMessage', `the ${gate} hold names the method`);
    expected.push(holdingLine('sampling/createMessage', idOf(hold), gate, serve.port));
    return hold;
  };
  /** What the server's `ask` tool reports: the sampling result or the error it got. */
  const ask = async (question: string): Promise<{ result?: unknown; error?: { code?: number } }> => {
    const result = (await client.callTool({ name: 'ask', arguments: { question } })) as { content: Array<{ text: string }> };
    return JSON.parse(result.content[0]?.text ?? 'null') as { result?: unknown; error?: { code?: number } };
  };
  /** What the server received as the answer to its sampling request `id`. */
  const answers = (id: string | number): LoggedMessage[] =>
    log.messages().filter((m) => m.method === undefined && m.id === id && ('result' in m || 'error' in m));
  const lifted = (text: string): unknown => ({ role: 'assistant', content: { type: 'text', text }, model: 'graphmind-inject', stopReason: 'endTurn' });

  // before + inject: the client is never asked; the server gets the lifted CreateMessageResult.
  let pending = ask('inject before');
  const injectedBefore = await held('before');
  t.equal((injectedBefore.frame as LoggedMessage).method, 'sampling/createMessage', 'the held frame is the server request');
  await decide(serve, injectedBefore.holdId, 'inject', 'injected sample');
  t.strictSame((await pending).result, lifted('injected sample'), 'inject before: the server gets the lifted result');
  t.strictSame(answers(idOf(injectedBefore)).map((m) => m.result), [lifted('injected sample')], 'the server received it as the JSON-RPC result');
  t.equal(sampling.calls, 0, 'inject before: the client was never asked');

  // before + abort: the client is never asked; the server gets -32099.
  pending = ask('abort before');
  const abortedBefore = await held('before');
  await decide(serve, abortedBefore.holdId, 'abort');
  t.equal((await pending).error?.code, ABORT, 'abort before: the server gets -32099');
  t.equal(answers(idOf(abortedBefore))[0]?.error?.code, ABORT, 'the server received the error frame');
  t.equal(sampling.calls, 0, 'abort before: the client was never asked');

  // before + continue, after + continue: the client's answer, unchanged.
  pending = ask('continue');
  await decide(serve, (await held('before')).holdId, 'continue');
  const continuedAfter = await held('after');
  t.equal(sampling.calls, 1, 'continue before: the client was asked');
  await decide(serve, continuedAfter.holdId, 'continue');
  t.strictSame((await pending).result, sampling.answer, 'continue after: the server gets the client answer');
  t.strictSame(answers(idOf(continuedAfter)).map((m) => m.result), [(continuedAfter.frame as LoggedMessage).result], 'forwarded unchanged');

  // before + retry (same as continue), after + inject.
  pending = ask('retry then inject');
  await decide(serve, (await held('before')).holdId, 'retry');
  const injectedAfter = await held('after');
  t.equal(sampling.calls, 2, 'retry before: the client was asked, like continue');
  await decide(serve, injectedAfter.holdId, 'inject', 'rewritten');
  t.strictSame((await pending).result, lifted('rewritten'), 'inject after: the server gets the rewritten answer');

  // after + abort.
  pending = ask('abort after');
  await decide(serve, (await held('before')).holdId, 'continue');
  const abortedAfter = await held('after');
  await decide(serve, abortedAfter.holdId, 'abort');
  t.equal((await pending).error?.code, ABORT, 'abort after: the server gets -32099');
  t.equal(sampling.calls, 3);

  // after + retry: the request goes to the client again; the call stays open until the new answer.
  pending = ask('retry after');
  await decide(serve, (await held('before')).holdId, 'continue');
  const retriedAfter = await held('after');
  const blocked = new Promise<void>((resolve) => (release = resolve));
  sampling.beforeAnswer = () => blocked;
  await decide(serve, retriedAfter.holdId, 'retry');
  await waitFor(() => sampling.calls === 5, 5000, 'the client to be asked again');
  t.pass('retry after: the same request reached the client again');
  // The first answer had closed the call; retry opens it again until the new one.
  const status = async (): Promise<string | undefined> =>
    (await getRun(serve, retriedAfter.runId)).instances.find((i) => i.instanceId === retriedAfter.instanceId)?.status;
  await waitForAsync(async () => (await status()) === 'open', 5000, 'the call to be open again');
  t.pass('retry after: the call is open again while the new answer is pending');
  sampling.beforeAnswer = undefined;
  release?.();
  const again = await held('after');
  t.equal(idOf(again), idOf(retriedAfter), 'the new answer holds at the after gate');
  await decide(serve, again.holdId, 'continue');
  t.strictSame((await pending).result, sampling.answer, 'the server gets the new answer');
  t.equal(answers(idOf(retriedAfter)).length, 1, 'the dropped answer never reached the server');

  await holdingLinesAre(t, stderr, expected);
  await session.close();
});

t.test('an injected failure is recorded as one: a JSON-RPC error frame, an isError result', async (t) => {
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true, after: true } } });
  t.teardown(() => setBreakpoints(serve, { pauseOnError: true, nodes: {} }));
  const session = await connectV1(t, serve);
  const { client } = session;
  const instance = async (hold: Hold): Promise<RunView['instances'][number]> => {
    let found: RunView['instances'][number] | undefined;
    await waitForAsync(async () => {
      found = (await getRun(serve, hold.runId)).instances.find((i) => i.instanceId === hold.instanceId);
      return found !== undefined && found.status !== 'open';
    }, 5000, `${hold.instanceId} to end`);
    return found as RunView['instances'][number];
  };

  // before: a whole error frame answers the request.
  let pending = later(client.callTool({ name: 'echo', arguments: { text: 'error frame' } }));
  const before = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  await decide(serve, before.holdId, 'inject', { jsonrpc: '2.0', id: idOf(before), error: { code: -32000, message: 'made-up failure' } });
  t.equal((await rejection(pending)).code, -32000, 'the client gets the injected error');
  const failed = await instance(before);
  t.equal(failed.status, 'error', 'the call is recorded as failed');
  t.equal(failed.error?.name, 'JsonRpcError', 'with a JSON-RPC error');
  t.equal(failed.error?.code, -32000, 'and its code');

  // after: an isError result replaces the real answer.
  pending = later(client.callTool({ name: 'echo', arguments: { text: 'tool failure' } }));
  await decide(serve, (await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' })).holdId, 'continue');
  const after = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after' });
  await decide(serve, after.holdId, 'inject', { content: [{ type: 'text', text: 'it broke' }], isError: true });
  t.equal((await pending as { isError?: boolean }).isError, true, 'the client gets the failed result');
  const toolError = await instance(after);
  t.equal(toolError.status, 'error', 'recorded as failed');
  t.equal(toolError.error?.name, 'ToolError', 'as a tool error');

  // after: a whole error frame replaces the real answer, whose output then is not the call's.
  pending = later(client.callTool({ name: 'echo', arguments: { text: 'replaced by an error' } }));
  await decide(serve, (await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' })).holdId, 'continue');
  const afterError = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after' });
  await decide(serve, afterError.holdId, 'inject', { jsonrpc: '2.0', id: idOf(afterError), error: { code: -32001, message: 'after-gate failure' } });
  t.equal((await rejection(pending)).code, -32001, 'the client gets the injected error');
  let replaced: RunView['instances'][number] | undefined;
  await waitForAsync(async () => {
    replaced = (await getRun(serve, afterError.runId)).instances.find((i) => i.instanceId === afterError.instanceId);
    return replaced?.error?.name === 'JsonRpcError';
  }, 5000, 'the injected error recorded');
  t.equal(replaced?.status, 'error', 'the call ended in error');
  t.notOk(replaced !== undefined && 'output' in replaced, 'and shows no output: the real answer never reached the client');

  // An injected success still ends the call well, recorded by its result.
  pending = later(client.callTool({ name: 'echo', arguments: { text: 'whole result' } }));
  const ok = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  const result = { content: [{ type: 'text', text: 'fine' }] };
  await decide(serve, ok.holdId, 'inject', { jsonrpc: '2.0', id: idOf(ok), result });
  t.strictSame(await pending, result);
  const fine = await instance(ok);
  t.equal(fine.status, 'ok', 'an injected result is a success');
  t.strictSame(fine.output, result, 'recorded by its result, as a real answer is');
  const node = (await getRun(serve, ok.runId)).nodes.find((n) => n.nodeId === 'tool:echo');
  t.equal(node?.status, 'error', 'the tool node shows that calls of it failed');
  await session.close();
});

t.test('a whole answer typed with an id past 2^53, as the hold shows it, answers that very call', async (t) => {
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  t.teardown(() => setBreakpoints(serve, { pauseOnError: true, nodes: {} }));
  const env = proxyEnv(serve);
  const proxy = startProxy(['--port', String(serve.port), '--wait-for-attach'], [process.execPath, `${PROXY_FIXTURES}echo-server.mjs`], { env });
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo","arguments":{}}}\n');
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  t.equal(idOf(hold), 9007199254740992, 'the hold shows the id as JSON parses it: rounded');
  await decide(serve, hold.holdId, 'inject', { jsonrpc: '2.0', id: idOf(hold), result: { content: [{ type: 'text', text: 'made up' }] } });
  await waitFor(() => proxy.stdout().length > 0, 5000, 'the answer');
  t.equal(proxy.stdout().toString('utf8'), '{"id":9007199254740993,"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"made up"}]}}\n', 'the answer carries the request’s own id');
  proxy.child.stdin.end();
  await proxy.exited;
});
