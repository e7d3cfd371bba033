// Scoped breakpoints and holds nobody watches, through real parts: a real
// `graphmind serve`; a stdio `graphmind mcp-proxy` in front of the SDK 1.x
// logging fixture (serverInfo.name "logging-fixture", server A) driven by
// a real SDK client; a `graphmind http-proxy` in front of the SDK 2.x
// Streamable HTTP fixture ("http-fixture-2", server B) driven by a real
// SDK client. A breakpoint scoped to A holds A's call and not B's; one for
// every server holds both. With no viewer on the live feed, the stdio
// proxy says so on its stderr and the HTTP run in its log; with one (a
// live feed client), neither does.
import t from 'tap';
import type { Breakpoints } from '../src/protocol/control.js';
import type { Run } from '../src/protocol/run-model.js';
import { connect, startFixture, startHttpProxy } from './fixtures/http/harness.js';
import { connectV1, decide, listHolds, setBreakpoints, startDebugger, waitFor, waitForAsync } from './helpers/gates.js';
import { api, liveClient } from './helpers/serve.js';

const A = 'logging-fixture';
const B = 'http-fixture-2';

/** The text of the no-viewer notice for a tools/call held before tool:echo (without the id and the prefix). */
const NOTICE = /tools\/call #\S+ is held at tool:echo \(before gate\) and no viewer is open: open http:\/\/127\.0\.0\.1:\d+ to decide it; until then its client waits, and may time out/;

t.test('a breakpoint scoped to one server holds only its sessions; a hold nobody watches is said', async (t) => {
  const serve = await startDebugger(t);
  const stdio = await connectV1(t, serve);
  const fixture = await startFixture(t, { sdk: '2', mode: 'stateful', response: 'json' });
  const proxy = await startHttpProxy(t, fixture.url, { serve });
  const http = await connect(t, proxy.url, '2');
  // Both sessions are recorded, each with its server's name.
  let runs: Array<{ runId: string; source: string; server?: { name: string } }> = [];
  await waitForAsync(async () => {
    runs = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as typeof runs;
    return runs.some((run) => run.server?.name === A) && runs.some((run) => run.server?.name === B);
  }, 10_000, 'both runs with their server names');
  const runA = runs.find((run) => run.server?.name === A)?.runId as string;
  const runB = runs.find((run) => run.server?.name === B)?.runId as string;
  const stdioLines = (): string[] => stdio.stderr.text().split('\n').filter((line) => NOTICE.test(line));
  const runLines = async (runId: string): Promise<string[]> => {
    const run = (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`)).json as Run;
    return run.logs.filter((log) => log.stream === 'graphmind' && NOTICE.test(log.text)).map((log) => log.text);
  };

  await t.test('scoped to A, nobody watching: A holds and its proxy says so; B goes on', async (t) => {
    const scoped: Breakpoints = { pauseOnError: true, nodes: { 'tool:echo': { before: true, server: A } } };
    await setBreakpoints(serve, scoped);
    t.same((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json, scoped, 'the scope is kept as given');
    const callA = stdio.client.callTool({ name: 'echo', arguments: { text: 'to A' } });
    let holds = await waitForHolds(1);
    t.equal(holds[0]?.runId, runA, "A's call is held");
    const answerB = await http.client.callTool({ name: 'echo', arguments: { text: 'to B' } });
    t.same(answerB.content, [{ type: 'text', text: 'echo to B' }], "B's call went on while A's is held");
    holds = await listHolds(serve);
    t.same(holds.map((hold) => hold.runId), [runA], 'and only A is held');
    await waitFor(() => stdioLines().length === 1, 10_000, 'the no-viewer line on the stdio proxy');
    t.match(stdioLines()[0], /^graphmind mcp-proxy: tools\/call #\S+ is held at tool:echo \(before gate\) and no viewer is open: open http:\/\/127\.0\.0\.1:\d+ /, 'the stdio proxy says nobody watches, on stderr');
    t.equal(stdio.stderr.text().split('\n').filter((line) => line.startsWith('graphmind mcp-proxy: HOLDING tools/call')).length, 1, 'after its HOLDING line');
    await decide(serve, holds[0]?.holdId as string, 'continue');
    t.same((await callA).content, [{ type: 'text', text: 'to A' }], "A's call answers once continued");
  });

  await t.test('scoped to B: the HTTP session learned its server too; A goes on', async (t) => {
    await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true, server: B } } });
    const callB = http.client.callTool({ name: 'echo', arguments: { text: 'B only' } });
    const holds = await waitForHolds(1);
    t.equal(holds[0]?.runId, runB, "B's call is held");
    t.same((await stdio.client.callTool({ name: 'echo', arguments: { text: 'A free' } })).content, [{ type: 'text', text: 'A free' }], "A's call went on");
    await waitForAsync(async () => (await runLines(runB)).length === 1, 10_000, 'the no-viewer line in the HTTP run');
    t.match((await runLines(runB))[0], NOTICE, "nobody watches: the HTTP run's log says so (stream graphmind, session node)");
    t.match(proxy.stderr(), /graphmind http-proxy: tools\/call #\S+ is held at tool:echo \(before gate\) and no viewer is open/, 'and so does the http-proxy on its stderr');
    t.equal(stdioLines().length, 1, 'the stdio proxy, holding nothing, says nothing more');
    await decide(serve, holds[0]?.holdId as string, 'continue');
    t.same((await callB).content, [{ type: 'text', text: 'echo B only' }], "B's call answers once continued");
  });

  await t.test('every server, nobody watching: both hold; each proxy says so, once per hold', async (t) => {
    await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
    const callA = stdio.client.callTool({ name: 'echo', arguments: { text: 'again A' } });
    const callB = http.client.callTool({ name: 'echo', arguments: { text: 'again B' } });
    const holds = await waitForHolds(2);
    t.same(holds.map((hold) => hold.runId).sort(), [runA, runB].sort(), 'both calls are held');
    await waitForAsync(async () => (await runLines(runB)).length === 2, 10_000, 'the no-viewer line in the HTTP run');
    t.match((await runLines(runB))[1], NOTICE, "the HTTP run's log says it for this hold too");
    await waitFor(() => stdioLines().length === 2, 10_000, 'a second no-viewer line on the stdio proxy');
    t.pass('the stdio proxy says it for its second hold too (once per hold)');
    for (const hold of holds) await decide(serve, hold.holdId, 'continue');
    await Promise.all([callA, callB]);
  });

  await t.test('every server, a viewer watching: both hold, and nothing is said', async (t) => {
    const viewer = await liveClient(serve.port, serve.token);
    t.teardown(() => viewer.ws.terminate());
    // The viewers message goes to each reporter before this PUT's breakpoints: once it is applied, they know.
    await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
    const callA = stdio.client.callTool({ name: 'echo', arguments: { text: 'watched A' } });
    const callB = http.client.callTool({ name: 'echo', arguments: { text: 'watched B' } });
    const holds = await waitForHolds(2);
    t.same(holds.map((hold) => hold.runId).sort(), [runA, runB].sort(), 'both calls are held');
    for (const hold of holds) await decide(serve, hold.holdId, 'continue');
    await Promise.all([callA, callB]);
    t.equal(stdioLines().length, 2, 'no new line on the stdio proxy');
    t.equal((await runLines(runB)).length, 2, 'no new line in the HTTP run');
    t.equal((await runLines(runA)).length, 2, 'the stdio run says what its stderr said, no more');
  });

  /** Wait until exactly `count` frames are held; returns them. */
  async function waitForHolds(count: number): Promise<Awaited<ReturnType<typeof listHolds>>> {
    let holds: Awaited<ReturnType<typeof listHolds>> = [];
    await waitForAsync(async () => (holds = await listHolds(serve)).length === count, 10_000, `${count} hold(s)`);
    return holds;
  }
});

t.test('PUT /api/breakpoints refuses a bad scope in one line, and changes nothing', async (t) => {
  const serve = await startDebugger(t);
  const before = (await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json;
  for (const server of ['', 7, null, 'x'.repeat(257)]) {
    const answer = await api(serve.port, serve.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: { 'tool:echo': { before: true, server } } });
    t.equal(answer.status, 400, `server ${JSON.stringify(server).slice(0, 20)}: 400`);
    t.match(answer.text, /server must be a server name/, 'saying what is wrong');
  }
  t.same((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json, before, 'nothing changed');
});
