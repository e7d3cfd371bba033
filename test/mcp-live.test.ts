// `graphmind mcp` against a live `graphmind serve` holding a frame of a real proxy session: the
// hold listed (its frame capped), the control tools absent without --allow-control, and with it
// the hold decided end to end (the proxied SDK client receives the injected value) and the
// breakpoints merged. Then a refused token, and the debugger gone.
import { rmSync } from 'node:fs';
import t from 'tap';
import { connectV1, listHolds, setBreakpoints, waitForHold } from './helpers/gates.js';
import { api, freshDataDir, startServe } from './helpers/serve.js';
import { startMcp } from './fixtures/mcp/mcp-session.js';

type Row = Record<string, unknown>;

const { root, dataDir } = freshDataDir();
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const serve = await startServe([], {}, { dataDir });
t.teardown(() => serve.stop());

const session = await connectV1(t, serve);
await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
// A long argument, so that the held frame is more than list_holds shows of it.
const LONG = `held ${'x'.repeat(5_000)}`;
const answer = session.client.callTool({ name: 'echo', arguments: { text: LONG } });
answer.catch(() => {});
const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });

t.test('without --allow-control (SDK 1.x client)', async (t) => {
  const mcp = await startMcp(t, 'sdk1', { dataDir, port: serve.port });
  const { tools } = await mcp.client.listTools();
  t.notOk(
    tools.some((tool) => tool.name === 'decide_hold' || tool.name === 'set_breakpoints'),
    'the control tools are not listed',
  );

  const holds = await mcp.data('list_holds');
  t.equal(holds.total, 1);
  const row = (holds.holds as Row[])[0] as Row;
  t.match(row, { holdId: hold.holdId, runId: hold.runId, nodeId: 'tool:echo', instanceId: hold.instanceId, gate: 'before', method: 'tools/call', reason: 'breakpoint', frameTruncated: true });
  t.type(row.frame, 'string', 'a frame over the cap is cut to text');
  t.match(row.frame, /^\{"method":"tools\/call","params":\{"name":"echo","arguments":\{"text":"held x+… \[truncated, \d+ more characters\]$/);
  t.ok((row.frame as string).length < 2_100, `the frame is capped (${(row.frame as string).length} characters)`);
  t.ok((row.heldMs as number) >= 0);

  for (const name of ['decide_hold', 'set_breakpoints']) {
    await t.rejects(mcp.client.callTool({ name, arguments: { holdId: hold.holdId, action: 'continue' } }), { message: new RegExp(`Unknown tool: ${name}`) }, `${name} cannot be called`);
  }
  t.same(
    (await listHolds(serve)).map((held) => held.holdId),
    [hold.holdId],
    'the hold is still waiting',
  );

  const runs = await mcp.data('list_runs');
  t.equal(runs.from, 'debugger');
  t.match((runs.runs as Row[]).find((run) => run.runId === hold.runId), { status: 'running' });
  const run = await mcp.data('get_run', { runId: hold.runId });
  t.equal(run.from, 'debugger');
  t.match((run.nodes as Row[]).find((node) => node.nodeId === 'tool:echo'), { open: 1, status: 'open' });
  const problems = await mcp.data('find_problems', { runId: hold.runId, slowMs: 1 });
  t.match((problems.problems as Row[]).find((problem) => problem.kind === 'unanswered'), { nodeId: 'tool:echo', instanceId: hold.instanceId, summary: /still waiting/ });
});

t.test('with --allow-control (SDK 2.x client): decide the hold, set breakpoints', async (t) => {
  const mcp = await startMcp(t, 'sdk2', { dataDir, port: serve.port, allowControl: true });
  const { tools } = await mcp.client.listTools();
  const decide = tools.find((tool) => tool.name === 'decide_hold');
  t.ok(decide, 'decide_hold is listed');
  t.match(decide?.annotations, { readOnlyHint: false, destructiveHint: true });
  t.ok(tools.some((tool) => tool.name === 'set_breakpoints'), 'set_breakpoints is listed');

  t.match(await mcp.refusal('decide_hold', { holdId: hold.holdId, action: 'inject' }), { code: 'bad-argument', text: /inject needs a value/ });
  t.match(await mcp.refusal('decide_hold', { holdId: hold.holdId, action: 'explode' }), { code: 'bad-argument', text: /action must be one of continue, inject, retry, abort/ });
  t.match(await mcp.refusal('decide_hold', { holdId: '../holds', action: 'continue' }), { code: 'bad-argument', text: /holdId/ });
  t.match(await mcp.refusal('decide_hold', { holdId: 'hold_that_is_not_there', action: 'continue' }), { code: 'unknown-hold' });
  t.equal((await listHolds(serve)).length, 1, 'refusals decide nothing');

  const decided = await mcp.data('decide_hold', { holdId: hold.holdId, action: 'inject', value: 'injected by the assistant' });
  t.same(decided, { ok: true, holdId: hold.holdId, action: 'inject' });
  t.same(await answer, { content: [{ type: 'text', text: 'injected by the assistant' }] }, 'the proxied client received the injected value');
  t.same(session.log.requests('tools/call', 'echo'), [], 'the held request never reached the server');
  t.match(await mcp.refusal('decide_hold', { holdId: hold.holdId, action: 'continue' }), { code: 'hold-decided' });

  t.same(await mcp.data('set_breakpoints'), { breakpoints: { pauseOnError: true, nodes: { 'tool:echo': { before: true } } } }, 'no arguments: the breakpoints as they are');
  t.same(await mcp.data('set_breakpoints', { nodes: { 'tool:fail': { after: true } } }), {
    breakpoints: { pauseOnError: true, nodes: { 'tool:echo': { before: true }, 'tool:fail': { after: true } } },
  });
  t.same(await mcp.data('set_breakpoints', { pauseOnError: false, nodes: { 'tool:echo': { before: false } } }), {
    breakpoints: { pauseOnError: false, nodes: { 'tool:fail': { after: true } } },
  });
  t.same((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json, { pauseOnError: false, nodes: { 'tool:fail': { after: true } } }, 'the debugger has them');
  // A scope, as the control API takes it: one server's serverInfo.name, or null for every server.
  const scoped = await mcp.call('set_breakpoints', { nodes: { 'tool:fail': { server: 'some-other-server' } } });
  t.same(scoped.structuredContent, { breakpoints: { pauseOnError: false, nodes: { 'tool:fail': { after: true, server: 'some-other-server' } } } });
  t.match(scoped.content[0]?.text, /tool:fail: after \(server "some-other-server"\)/);
  t.same((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json, { pauseOnError: false, nodes: { 'tool:fail': { after: true, server: 'some-other-server' } } }, 'the debugger has the scope');
  t.same(await mcp.data('set_breakpoints', { nodes: { 'tool:fail': { server: null } } }), { breakpoints: { pauseOnError: false, nodes: { 'tool:fail': { after: true } } } }, 'null: every server');
  t.match(await mcp.refusal('set_breakpoints', { nodes: { 'tool:fail': { server: '' } } }), { code: 'bad-argument', text: /server must be a server's name/ });
  t.match(await mcp.refusal('set_breakpoints', { nodes: { 'tool:x': { middle: true } } }), { code: 'bad-argument', text: /before\?: boolean, after\?: boolean/ });
  t.match(await mcp.refusal('set_breakpoints', { pauseOnError: 'yes' }), { code: 'bad-argument', text: /pauseOnError must be true or false/ });

  // The breakpoints changed above hold the next failure no more: the session goes on.
  t.same(await session.client.callTool({ name: 'echo', arguments: { text: 'after' } }), { content: [{ type: 'text', text: 'after' }] });
});

t.test('a debugger that refuses the token: runs from the data directory, holds refused', async (t) => {
  const mcp = await startMcp(t, 'sdk1', { dataDir, port: serve.port, env: { GRAPHMIND_TOKEN: 'not-the-token' } });
  t.match(await mcp.refusal('list_holds'), { code: 'debugger-refused', text: /^list_holds needs a running graphmind serve: the debugger on port \d+ refused our token/ });
  const runs = await mcp.data('list_runs');
  t.equal(runs.from, 'data-dir');
  t.ok((runs.runs as Row[]).some((run) => run.runId === hold.runId), 'the run is read from its log');
  t.match(mcp.stderr(), /graphmind mcp: reading runs from .*refused our token/);
});

t.test('the debugger stops: the same server falls back to the data directory', async (t) => {
  const mcp = await startMcp(t, 'sdk2', { dataDir, port: serve.port, allowControl: true });
  t.equal((await mcp.data('list_runs')).from, 'debugger');
  await session.close();
  await serve.stop();
  t.match(await mcp.refusal('list_holds'), { code: 'no-debugger', text: /no debugger answers on 127\.0\.0\.1:\d+/ });
  t.match(await mcp.refusal('set_breakpoints', { pauseOnError: true }), { code: 'no-debugger' });
  const runs = await mcp.data('list_runs');
  t.equal(runs.from, 'data-dir');
  const run = await mcp.data('get_run', { runId: hold.runId });
  t.equal(run.from, 'data-dir');
  t.match((run.nodes as Row[]).find((node) => node.nodeId === 'tool:echo'), { calls: 2 });
  t.match(mcp.stderr(), /reading runs from the running debugger[\s\S]*reading runs from .*no debugger answers/);
});
