// The viewer's Export button, in a real browser: "Export" downloads the
// run's JSONL log (the same bytes as GET /api/runs/:runId/export), the menu
// beside it HAR and OTLP JSON; and a hold continued with the viewer's own
// Continue button is recorded in the run as decided by the viewer.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, runId, startServe } from './helpers/serve.js';
import { NODES, decisionFor, holdingReporter, shot } from './helpers/viewer.js';

t.test('Export downloads the run; a viewer decision says so', async (t) => {
  const server = await startServe();
  t.teardown(() => server.stop());
  const reporter = await holdingReporter(server.port, server.token, t);
  const run = new RunEvents(runId('exported'));
  const frame = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lookup', arguments: {} } };
  reporter.send([
    run.started('export-me', {}, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('lookup'), input: frame.params }),
    run.next({ type: 'hold.opened', holdId: 'h_export_1', nodeId: 'tool:lookup', instanceId: 'mcp_2', gate: 'before', method: 'tools/call', frame, reason: 'breakpoint' }),
  ]);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.run-title', { hasText: 'export-me' }).waitFor();

  await page.locator('button[data-action="continue"]').first().click();
  const decision = await decisionFor(reporter, 'h_export_1');
  t.equal(decision.action, 'continue');
  reporter.send([
    run.next({ type: 'hold.released', holdId: 'h_export_1', action: 'continue' }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { content: [{ type: 'text', text: 'found' }] } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_1' }),
    run.next({ type: 'run.finished', status: 'ok' }),
  ]);
  await page.locator('.run-title .pill', { hasText: 'ok' }).waitFor();
  const recorded = (await api(server.port, server.token, 'GET', `/api/runs/${run.runId}`)).json as { meta: { decisions?: Array<{ by: string; action: string }> } };
  t.match(recorded.meta.decisions, [{ holdId: 'h_export_1', action: 'continue', by: 'viewer' }], 'decided in the viewer, recorded as the viewer\'s');

  const [jsonl] = await Promise.all([page.waitForEvent('download'), page.locator('[data-action="export-run"]').click()]);
  t.equal(jsonl.suggestedFilename(), `${run.runId}.jsonl`);
  const expected = await api(server.port, server.token, 'GET', `/api/runs/${run.runId}/export?format=jsonl`);
  t.equal(readFileSync(await jsonl.path()).toString('utf8'), expected.text, 'the run\'s log, as the API exports it');

  await page.locator('.export-more').click();
  await shot(page, 'export-menu');
  const [har] = await Promise.all([page.waitForEvent('download'), page.locator('[data-format="har"]').click()]);
  t.equal(har.suggestedFilename(), `${run.runId}.har`);
  const parsed = JSON.parse(readFileSync(await har.path(), 'utf8')) as { log: { entries: Array<{ request: { url: string }; _graphmind: { holds: Array<{ by: string }> } }> } };
  t.equal(parsed.log.entries[0]?.request.url, 'mcp://export-me/tools/call/lookup');
  t.equal(parsed.log.entries[0]?._graphmind.holds[0]?.by, 'viewer');

  await page.locator('.export-more').click();
  const [otlp] = await Promise.all([page.waitForEvent('download'), page.locator('[data-format="otlp-json"]').click()]);
  t.equal(otlp.suggestedFilename(), `${run.runId}.otlp.json`);
  const trace = JSON.parse(readFileSync(await otlp.path(), 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }> };
  t.same(trace.resourceSpans[0]?.scopeSpans[0]?.spans.map((span) => span.name).sort(), ['mcp-proxy export-me', 'tools/call lookup']);

  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no errors in the page');
});
