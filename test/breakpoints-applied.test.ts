// "The breakpoints are applied" is a signal, not a wait: PUT /api/breakpoints
// answers once every reporter connected at that moment has acked the new
// version (its gate reads them), so a call made right after the answer is
// held, or not, as they say. A real graphmind serve and a real graphmind
// mcp-proxy; a reporter that never acks (one older than the ack) and one
// that goes away are not waited for beyond the bound.
import t from 'tap';
import { api, fakeReporter } from './helpers/serve.js';
import { connectV1, decide, listHolds, setBreakpoints, startDebugger, waitForAsync, waitForHold, type ServeProcess } from './helpers/gates.js';

interface BreakpointsHealth {
  version: number;
  reporters: number;
  applied: number;
}

async function health(serve: ServeProcess): Promise<BreakpointsHealth> {
  return ((await api(serve.port, serve.token, 'GET', '/api/health')).json as { breakpoints: BreakpointsHealth }).breakpoints;
}

const QUICK = { timeout: 5000 };

t.test('through the proxy: a call made as soon as the PUT answers sees the new breakpoints', async (t) => {
  const serve = await startDebugger(t);
  const { client } = await connectV1(t, serve);
  await waitForAsync(async () => (await health(serve)).applied === 1, 5000, 'the proxy to ack the breakpoints it was sent on connect');
  t.same(await health(serve), { version: 1, reporters: 1, applied: 1 }, 'health: one reporter, which applied version 1');

  for (let round = 1; round <= 5; round++) {
    await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
    const held = client.callTool({ name: 'echo', arguments: { text: `round ${round}` } });
    const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
    await decide(serve, hold.holdId, 'continue');
    t.match(await held, { content: [{ text: `round ${round}` }] }, `round ${round}: armed, it held`);
    await waitForAsync(async () => (await listHolds(serve)).length === 0, 5000, 'the release');

    await setBreakpoints(serve, { pauseOnError: true, nodes: {} });
    t.match(await client.callTool({ name: 'echo', arguments: { text: `free ${round}` } }, undefined, QUICK), { content: [{ text: `free ${round}` }] }, `round ${round}: cleared, it did not`);
  }
  t.same(await health(serve), { version: 11, reporters: 1, applied: 1 }, 'ten changes, each applied');
});

t.test('a reporter that never acks is waited for up to 2 s; one that goes away, not at all', async (t) => {
  const serve = await startDebugger(t);
  await connectV1(t, serve);
  await waitForAsync(async () => (await health(serve)).applied === 1, 5000, 'the proxy to ack');
  const silent = await fakeReporter(serve.port, serve.token, { ack: false });
  t.teardown(() => silent.ws.terminate());
  await silent.next((m) => m.type === 'breakpoints');
  t.match(await health(serve), { reporters: 2, applied: 1 }, 'two reporters, one applied');

  let began = Date.now();
  await setBreakpoints(serve, { pauseOnError: false, nodes: {} });
  const waited = Date.now() - began;
  t.ok(waited >= 1900 && waited < 4000, `the silent one held the PUT up for the bound (${waited} ms)`);
  t.match(await health(serve), { version: 2, reporters: 2, applied: 1 }, 'the proxy applied it; the silent one did not say');

  began = Date.now();
  const putting = setBreakpoints(serve, { pauseOnError: true, nodes: {} });
  await silent.next((m) => m.type === 'breakpoints' && m.version === 3);
  silent.ws.terminate();
  await putting;
  const gone = Date.now() - began;
  t.ok(gone < 1500, `a reporter that disconnects does not hold the PUT up (${gone} ms)`);
  await waitForAsync(async () => (await health(serve)).reporters === 1, 5000, 'the silent reporter to be gone');
  t.same(await health(serve), { version: 3, reporters: 1, applied: 1 });
});
