// Context cost in the viewer, in a real Chromium against a real `graphmind
// serve` (issue 32, "Context cost"): a tools/list call's detail shows what
// each tool costs and the total ("the tool surface costs ≈ N tokens on every
// turn"), a tools/call's detail what its result costs; every token figure
// says it is an estimate. The viewer does not carry the tokenizer: serve
// counts (the cost route), and the figures shown are the route's.
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, runId, startServe } from './helpers/serve.js';
import { NODES, holdingReporter, shot } from './helpers/viewer.js';

const STEP_MS = 10_000;

const TOOLS = [
  { name: 'search', description: 'Search the documents for a query and return the best matches, with their titles and a short excerpt of each.', inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'What to look for' }, limit: { type: 'integer', minimum: 1, maximum: 50 } }, required: ['query'] } },
  { name: 'ping', description: 'Ping', inputSchema: { type: 'object' } },
  { name: 'fetch_page', description: 'Fetch a web page and return its text.', inputSchema: { type: 'object', properties: { url: { type: 'string', format: 'uri' } }, required: ['url'] } },
];

t.test('a tools/list call shows each tool\'s cost and the total; a tools/call its result\'s', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const reporter = await holdingReporter(serve.port, serve.token, t);
  const run = new RunEvents(runId('cost'));
  reporter.send([
    run.started('cost-server', {}, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.proto('tools/list'), input: {} }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { tools: TOOLS } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: NODES.tool('search'), input: { name: 'search', arguments: { query: 'cost' } } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_3', output: { content: [{ type: 'text', text: 'Three matches: the first, the second and the third.' }] } }),
  ]);
  const cost = async (instanceId: string): Promise<Record<string, { bytes: number; tokens: number; perTool?: Array<{ name: string; bytes: number; tokens: number }> }>> => {
    const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${run.runId}/instances/${instanceId}/cost`);
    t.equal(answer.status, 200);
    return answer.json as Record<string, { bytes: number; tokens: number }>;
  };
  const { surface } = await cost('mcp_2');
  const { result } = await cost('mcp_3');
  const n = (value: number): string => value.toLocaleString('en-US');

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, `${serve.url}/#run=${run.runId}&node=${encodeURIComponent('mcp:tools/list')}`);
  const list = page.locator('.detail .inst[data-instance-id="mcp_2"]');
  await list.waitFor({ timeout: STEP_MS });
  if ((await list.locator('.inst-body').count()) === 0) await list.locator('.inst-head').click();
  const block = list.locator('.cost-block[data-state="counted"]');
  await block.waitFor({ timeout: STEP_MS });
  t.equal(
    (await block.locator('.cost-total').textContent())?.replace(/\s+/g, ' '),
    `The tool surface costs ≈ ${n(surface!.tokens)} tokens (est.) · ${n(surface!.bytes)} bytes on every turn (3 tools).`,
    'the total, as a sentence, marked an estimate',
  );
  const rows = block.locator('.cost-tools tbody tr');
  t.equal(await rows.count(), 3, 'one row per tool');
  const byCost = [...surface!.perTool!].sort((a, b) => b.tokens - a.tokens);
  t.same(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-tool'))), byCost.map((tool) => tool.name), 'the costliest first');
  for (const tool of surface!.perTool!) {
    const cells = await block.locator(`tr[data-tool="${tool.name}"] td`).allTextContents();
    t.equal(cells[1], `≈ ${n(tool.tokens)}`, `${tool.name}: its tokens, approximate`);
    t.equal(cells[2], n(tool.bytes), `${tool.name}: its bytes`);
  }
  t.match(await block.locator('thead').textContent(), /tokens \(est\.\)/, 'the column says estimate');
  t.match(await block.locator('.cost-title').getAttribute('title'), /Tokens are an estimate from gpt-tokenizer \(o200k_base\)/, 'and the title says from what');
  await block.scrollIntoViewIfNeeded();
  await shot(page, 'cost-tools-list');

  await page.goto(`${serve.url}/#run=${run.runId}&node=${encodeURIComponent('tool:search')}`);
  const call = page.locator('.detail .inst[data-instance-id="mcp_3"]');
  await call.waitFor({ timeout: STEP_MS });
  if ((await call.locator('.inst-body').count()) === 0) await call.locator('.inst-head').click();
  const read = call.locator('.cost-block[data-state="counted"] .cost-result');
  await read.waitFor({ timeout: STEP_MS });
  t.equal((await read.textContent())?.replace(/\s+/g, ' '), `The model reads ≈ ${n(result!.tokens)} tokens (est.) · ${n(result!.bytes)} bytes of this answer.`, 'a call: its result\'s cost');
  t.equal(await page.locator('.detail .inst[data-instance-id="mcp_1"] .cost-block').count(), 0, 'the session has none');
  t.same(realProblems(problems, t.comment), [], 'no console errors, uncaught errors or CSP violations');
});
