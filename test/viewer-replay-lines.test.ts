// In a real browser: the run header shows the `graphmind replay <run>` and
// `graphmind verify <run> -- <server command>` lines of the selected run (the
// recorded server command, shell-quoted; --port when the debugger is not on
// the CLI's default port), each copied by its Copy button; and the Export
// menu's Redact field makes the download hide what its paths select, in a
// cassette as in the JSONL log.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, runId, startServe } from './helpers/serve.js';
import { NODES, holdingReporter, shot } from './helpers/viewer.js';

t.test('the replay and verify lines, copyable; Export with redaction', async (t) => {
  const server = await startServe();
  t.teardown(() => server.stop());
  const reporter = await holdingReporter(server.port, server.token, t);
  const run = new RunEvents(runId('astest'));
  const params = { name: 'login', arguments: { user: 'ada', apiKey: 'sk-secret-77' } };
  reporter.send([
    run.started('node my server.js', { command: 'node', args: ['my server.js', '--verbose'] }, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('login'), input: params }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { content: [{ type: 'text', text: 'welcome' }] } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_1' }),
    run.next({ type: 'run.finished', status: 'ok' }),
  ]);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await page.locator('.run-title .pill', { hasText: 'ok' }).waitFor();
  const port = server.port === 4747 ? '' : ` --port ${server.port}`;
  const replayLine = `graphmind replay ${run.runId}${port}`;
  const verifyLine = `graphmind verify ${run.runId}${port} -- node 'my server.js' --verbose`;
  t.equal(await page.locator('[data-line="replay"] .replay-line-text').textContent(), replayLine, 'the replay line names the run');
  t.equal(await page.locator('[data-line="verify"] .replay-line-text').textContent(), verifyLine, 'the verify line carries the recorded server command, quoted for a shell');
  await shot(page, 'replay-lines');
  for (const [kind, text] of [['replay', replayLine], ['verify', verifyLine]] as const) {
    await page.locator(`[data-line="${kind}"] .replay-line-copy`).click();
    await page.locator(`[data-line="${kind}"] .replay-line-status`, { hasText: 'copied' }).waitFor();
    t.equal(await page.evaluate<string>('navigator.clipboard.readText()'), text, `Copy puts the ${kind} line on the clipboard`);
  }

  await page.locator('.export-more').click();
  await page.locator('.export-redact-paths').fill('tools/call:login $.params.arguments.apiKey\n\n');
  const [cassette] = await Promise.all([page.waitForEvent('download'), page.locator('[data-format="cassette"]').click()]);
  t.equal(cassette.suggestedFilename(), `${run.runId}.cassette.json`);
  const saved = readFileSync(await cassette.path(), 'utf8');
  const parsed = JSON.parse(saved) as { version: string; interactions: Array<{ request: { params?: unknown } }> };
  t.equal(parsed.version, '1.0', 'an mcp-recorder cassette');
  t.same(parsed.interactions[0]?.request.params, { name: 'login', arguments: { user: 'ada', apiKey: '[redacted]' } }, 'the cassette hides the key');
  const [jsonl] = await Promise.all([page.waitForEvent('download'), page.locator('[data-action="export-run"]').click()]);
  const log = readFileSync(await jsonl.path(), 'utf8');
  t.notOk(log.includes('sk-secret-77'), 'the JSONL log too: the key is nowhere in it');
  t.ok(log.includes('"apiKey":"[redacted]"'));
  await page.locator('.export-more').click();
  await page.locator('.export-redact-paths').fill('');
  const [plain] = await Promise.all([page.waitForEvent('download'), page.locator('[data-action="export-run"]').click()]);
  t.ok(readFileSync(await plain.path(), 'utf8').includes('sk-secret-77'), 'with the field empty, the run as recorded');
  await page.locator('.export-more').click();
  await page.locator('.export-redact-paths').fill('params.apiKey');
  await page.locator('[data-format="har"]').click();
  await page.locator('.export-status.error-text', { hasText: 'does not start with $' }).waitFor();
  t.pass('a bad path: the menu says why, nothing is saved');

  // The browser logs the 400 of the refused path as a console error: that one was asked for.
  const refused = (problem: string): boolean => problem.includes('status of 400') && problem.includes('redact=params.apiKey');
  t.same(realProblems(problems.filter((problem) => !refused(problem)), (text) => t.comment(text)), [], 'no other errors in the page');
});
