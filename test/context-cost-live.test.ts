// Context cost of a real session (issue 32, "Context cost"): an SDK 1.x client
// talks to a real server through `graphmind mcp-proxy` with `graphmind serve`
// attached; then serve's cost route and `graphmind mcp` (get_call, get_run)
// show what the tool list and a result cost the model: bytes exactly as the
// client received them, tokens labelled estimates. Counted on the reading
// side only: the relay records as it always did.
import { rmSync } from 'node:fs';
import t from 'tap';
import { connectV1, getRun, runIds, waitForAsync } from './helpers/gates.js';
import { api, freshDataDir, startServe } from './helpers/serve.js';
import { startMcp } from './fixtures/mcp/mcp-session.js';
import { modelView, resultCost } from '../src/cost/index.js';

type Row = Record<string, unknown>;
interface CostOf { bytes: number; tokens: number }

const { root, dataDir } = freshDataDir();
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const serve = await startServe([], {}, { dataDir });
t.teardown(() => serve.stop());

const session = await connectV1(t, serve);
const { tools } = await session.client.listTools();
const TEXT = 'résumé ✓ '.repeat(200);
const answer = await session.client.callTool({ name: 'echo', arguments: { text: TEXT } });
const [runId] = await runIds(serve);
// Both calls answered in the run the debugger holds.
const instanceOf = async (nodeId: string): Promise<string> => {
  let found: string | undefined;
  await waitForAsync(async () => {
    const run = (await getRun(serve, runId as string)) as unknown as { instances: Array<{ instanceId: string; nodeId: string; status: string }> };
    found = run.instances.find((instance) => instance.nodeId === nodeId && instance.status !== 'open')?.instanceId;
    return found !== undefined;
  }, 10_000, `an answered ${nodeId}`);
  return found as string;
};
const listId = await instanceOf('mcp:tools/list');
const echoId = await instanceOf('tool:echo');

t.test('serve: GET /api/runs/:runId/instances/:instanceId/cost', async (t) => {
  const list = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/instances/${listId}/cost`);
  t.equal(list.status, 200);
  const surface = (list.json as Row).surface as CostOf & { perTool: Array<CostOf & { name: string }> };
  t.match(list.json, { runId, instanceId: listId, method: 'tools/list', estimate: true, tokenizer: { package: 'gpt-tokenizer', encoding: 'o200k_base' } });
  t.same(surface.perTool.map((tool) => tool.name), tools.map((tool) => tool.name), 'one row per tool the client was offered, in order');
  for (const [i, tool] of tools.entries()) {
    t.equal(surface.perTool[i]?.bytes, Buffer.byteLength(JSON.stringify(modelView(tool))), `${tool.name}: its bytes, exactly as the client received the definition`);
    t.ok((surface.perTool[i]?.tokens ?? 0) > 0);
  }
  t.equal(surface.tokens, surface.perTool.reduce((sum, tool) => sum + tool.tokens, 0), 'the total is the sum');

  const echo = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/instances/${echoId}/cost`);
  t.equal(echo.status, 200);
  const result = (echo.json as Row).result as CostOf;
  t.equal(result.bytes, Buffer.byteLength(JSON.stringify({ content: answer.content })), 'the result: the bytes of the content the client received');
  t.same(result, resultCost(answer), 'and the same estimate as counting what the client received');
  t.comment(`tools/list ≈ ${surface.tokens} tokens (est.), ${surface.bytes} bytes; echo result ≈ ${result.tokens} tokens, ${result.bytes} bytes`);

  const init = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/instances/${(await getRun(serve, runId as string)).instances.find((i) => (i as unknown as Row).nodeId === 'mcp:initialize')?.instanceId}/cost`);
  t.equal(init.status, 200);
  t.notOk('result' in (init.json as Row) || 'surface' in (init.json as Row), 'initialize: nothing a model reads');
  t.equal((await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/instances/mcp_999999/cost`)).status, 404, 'an unknown call');
  t.equal((await api(serve.port, serve.token, 'GET', `/api/runs/nope/instances/${echoId}/cost`)).status, 404, 'an unknown run');
  t.equal((await api(serve.port, serve.token, 'POST', `/api/runs/${runId}/instances/${echoId}/cost`, {})).status, 405, 'GET only');
});

t.test('graphmind mcp: get_call and get_run show the cost', async (t) => {
  const mcp = await startMcp(t, 'sdk2', { dataDir, port: serve.port });
  const rest = (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/instances/${listId}/cost`)).json as Row;
  const listCall = await mcp.call('get_call', { runId, instanceId: listId });
  const cost = (listCall.structuredContent as Row).cost as Row;
  const restSurface = rest.surface as { bytes: number; tokens: number; perTool: Array<{ tokens: number }> };
  t.same(cost.surface, { bytes: restSurface.bytes, tokens: restSurface.tokens, tools: tools.length, perTool: [...restSurface.perTool].sort((a, b) => b.tokens - a.tokens), toolsLeftOut: 0 }, 'get_call on tools/list: each tool (the costliest first) and the total, as serve counts them');
  t.equal(cost.estimate, true);
  const text = listCall.content.map((part) => part.text).join('\n');
  t.match(text, new RegExp(`tool surface: ${tools.length} tools cost ≈ [\\d,]+ tokens \\(est\\.\\), [\\d,]+ bytes on every turn`), 'its text: the total, marked an estimate');

  const echoCall = await mcp.data('get_call', { runId, instanceId: echoId });
  t.same((echoCall.cost as Row).result, resultCost(answer), 'get_call on tools/call: the result the model read');
  const run = await mcp.data('get_run', { runId });
  const runCost = run.cost as { surface: Row; results: Row };
  t.match(runCost.surface, { instanceId: listId, tools: tools.length, tokens: (rest.surface as Row).tokens, bytes: (rest.surface as Row).bytes }, 'get_run: the tool surface');
  t.match(runCost.results, { calls: 1, tokens: resultCost(answer).tokens, callsLeftOut: 0 }, 'and the results the model read');
  const runText = (await mcp.call('get_run', { runId })).content.map((part) => part.text).join('\n');
  t.match(runText, /the tool surface costs ≈ [\d,]+ tokens \(est\.\)/);
});

t.test('the data directory: the same figures without a debugger', async (t) => {
  await session.close();
  const mcp = await startMcp(t, 'sdk1', { dataDir, port: 1 });
  await waitForAsync(async () => ((await mcp.data('get_run', { runId })).run as Row).status !== 'running', 10_000, 'the run ended in its log');
  const echoCall = await mcp.data('get_call', { runId, instanceId: echoId });
  t.equal(echoCall.from, 'data-dir');
  t.same((echoCall.cost as Row).result, resultCost(answer), 'a run read from its log counts the same');
});
