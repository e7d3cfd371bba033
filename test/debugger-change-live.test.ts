// What the debugger changed, end to end (issue 30): a real SDK client
// through `graphmind mcp-proxy` to a real server, under a real
// `graphmind serve`. An answer replaced at the after gate through the API,
// and a call aborted at the before gate by `graphmind mcp` (decide_hold):
// GET /api/runs/:id marks each (Instance.changed: action, gate, by, the
// server's replaced answer) with its held time apart, and `graphmind mcp`'s
// get_call, list_calls and find_problems say it.
import { rmSync } from 'node:fs';
import t from 'tap';
import type { Instance } from '../src/protocol/run-model.js';
import { connectV1, setBreakpoints, waitForAsync, waitForHold } from './helpers/gates.js';
import { api, freshDataDir, startServe } from './helpers/serve.js';
import { startMcp } from './fixtures/mcp/mcp-session.js';

type Row = Record<string, unknown>;

const { root, dataDir } = freshDataDir();
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const serve = await startServe([], {}, { dataDir });
t.teardown(() => serve.stop());
const session = await connectV1(t, serve);

/** The instance as GET /api/runs/:id gives it, once `ready` says so. */
async function instanceOf(runId: string, instanceId: string, ready: (instance: Instance) => boolean): Promise<Instance> {
  let found: Instance | undefined;
  await waitForAsync(async () => {
    const run = (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`)).json as { instances: Instance[] };
    found = run.instances.find((instance) => instance.instanceId === instanceId);
    return found !== undefined && ready(found);
  }, 10_000, `${instanceId} to be marked`);
  return found as Instance;
}

t.test('an answer replaced at the after gate through the API', async (t) => {
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { after: true } } });
  const answer = session.client.callTool({ name: 'echo', arguments: { text: 'from the server' } });
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after' });
  const decided = await api(serve.port, serve.token, 'POST', `/api/holds/${hold.holdId}`, { action: 'inject', value: 'made in the debugger' });
  t.equal(decided.status, 200);
  t.same(await answer, { content: [{ type: 'text', text: 'made in the debugger' }] }, 'the host got the injected answer');

  const instance = await instanceOf(hold.runId, hold.instanceId, (found) => found.changed !== undefined);
  t.match(instance.changed, { action: 'inject', gate: 'after', by: 'api', holdId: hold.holdId, server: { status: 'ok', output: { content: [{ type: 'text', text: 'from the server' }] } } }, 'the run says who replaced it, and keeps the server\'s answer');
  t.same(instance.output, { content: [{ type: 'text', text: 'made in the debugger' }] }, 'the output is what the host got');
  t.ok((instance.heldMs ?? 0) >= 0 && instance.heldMs !== undefined, `held time kept apart (${instance.heldMs} ms)`);

  const mcp = await startMcp(t, 'sdk1', { dataDir, port: serve.port });
  const call = (await mcp.data('get_call', { runId: hold.runId, instanceId: hold.instanceId })).call as Row;
  t.match(call.changed, { action: 'inject', gate: 'after', by: 'api', label: "injected by api (replaced the server's answer)", serverAnswer: { status: 'ok', output: { content: [{ text: 'from the server' }] } } });
  t.equal(call.heldMs, instance.heldMs);
  const text = (await mcp.call('get_call', { runId: hold.runId, instanceId: hold.instanceId })).content.map((part) => part.text).join('\n');
  t.match(text, /CHANGED BY THE DEBUGGER: injected by api/, 'get_call\'s text says it first');
  t.match(text, /the server's own answer \(ok\): .*from the server/);
  const calls = (await mcp.data('list_calls', { runId: hold.runId, nodeId: 'tool:echo' })).calls as Row[];
  t.match(calls.find((row) => row.instanceId === hold.instanceId), { changed: { action: 'inject', by: 'api' } });
  const problems = (await mcp.data('find_problems', { runId: hold.runId })).problems as Row[];
  t.match(problems.find((problem) => problem.kind === 'debugger_changed'), { instanceId: hold.instanceId, summary: /^injected by api/ });
});

t.test('a call aborted at the before gate by graphmind mcp', async (t) => {
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true } } });
  const answer = session.client.callTool({ name: 'echo', arguments: { text: 'never sent' } });
  answer.catch(() => {});
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  const mcp = await startMcp(t, 'sdk2', { dataDir, port: serve.port, allowControl: true });
  await mcp.data('decide_hold', { holdId: hold.holdId, action: 'abort' });
  await t.rejects(answer, /-32099|aborted/i, 'the host got the abort');
  await setBreakpoints(serve, { pauseOnError: false, nodes: {} });

  const instance = await instanceOf(hold.runId, hold.instanceId, (found) => found.changed !== undefined);
  t.match(instance.changed, { action: 'abort', gate: 'before', by: 'graphmind mcp', holdId: hold.holdId });
  t.notOk(instance.changed?.server, 'the server never answered: nothing of its own to keep');
  const call = (await mcp.data('get_call', { runId: hold.runId, instanceId: hold.instanceId })).call as Row;
  t.match(call, { serverMs: null, changed: { action: 'abort', by: 'graphmind mcp', summary: /the server never answered/ } });
  const problems = (await mcp.data('find_problems', { runId: hold.runId })).problems as Row[];
  t.notOk(problems.some((problem) => problem.kind === 'failed_call' && problem.instanceId === hold.instanceId), 'the abort is not listed as the server\'s failure');
});
