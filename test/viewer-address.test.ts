// The page's address names the run the user chose and the node selected in
// it, so a reload (or the link opened in another tab) comes back to the
// same place; while the page follows the newest run the address names
// nothing, and a run the address names that is gone falls back to following.
import t from 'tap';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, fakeReporter, runId, startServe } from './helpers/serve.js';
import { NODES, inPage, until } from './helpers/viewer.js';

const hashOf = (page: Page): Promise<string> => inPage<string>(page, 'location.hash');
const params = (hash: string): Record<string, string> => Object.fromEntries(new URLSearchParams(hash.replace(/^#/, '')));

t.test('a reload comes back to the chosen run and node', async (t) => {
  const server = await startServe();
  t.teardown(() => server.stop());
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  // The older run is the one we choose; the page opens on the newer one.
  const older = new RunEvents(runId('older-1'), Date.now() - 60_000);
  reporter.send([
    older.started('older-run', {}, 'mcp-proxy'),
    older.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
    older.next({ type: 'instance.completed', instanceId: 'mcp_2', node: NODES.tool('lookup'), input: { name: 'lookup' }, output: { content: [] }, endT: Date.now() }),
    older.next({ type: 'run.finished', status: 'ok' }),
  ]);
  const newer = new RunEvents(runId('newer'));
  reporter.send([newer.started('newer-run', {}, 'mcp-proxy'), newer.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() })]);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.run-title', { hasText: 'newer-run' }).waitFor();
  t.equal(await hashOf(page), '', 'following the newest run, the address names no run');

  await page.locator('.run', { hasText: 'older-run' }).click();
  await page.locator('.run-title', { hasText: 'older-run' }).waitFor();
  await page.locator('.node[data-node-id="tool:lookup"]').click();
  await until(page, `location.hash.includes('node=')`, 'the node in the address');
  t.same(params(await hashOf(page)), { run: older.runId, node: 'tool:lookup' }, 'the address names the chosen run and node');

  await page.reload();
  await page.locator('.run-title', { hasText: 'older-run' }).waitFor();
  await page.locator('.node.selected[data-node-id="tool:lookup"]').waitFor();
  t.pass('after a reload, the chosen run is shown with its node selected');
  await page.locator('.run.selected', { hasText: 'older-run' }).waitFor();
  // A run started now does not take the page away: it was a choice.
  const third = new RunEvents(runId('third'));
  reporter.send([third.started('third-run', {}, 'mcp-proxy')]);
  await page.locator('.run', { hasText: 'third-run' }).waitFor();
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.match(await page.locator('.run-title').textContent(), /older-run/, 'a new run does not replace the restored choice');

  // A link typed into the address bar moves the page too.
  await page.evaluate(`location.hash = ${JSON.stringify(`#${new URLSearchParams({ run: newer.runId, node: 'mcp:session' })}`)}`);
  await page.locator('.run-title', { hasText: 'newer-run' }).waitFor();
  await page.locator('.node.selected[data-node-id="mcp:session"]').waitFor();
  t.pass('a changed address opens the run and node it names');

  // The named run deleted: the page follows the newest run, and the address names nothing.
  t.equal((await api(server.port, server.token, 'DELETE', `/api/runs/${encodeURIComponent(older.runId)}`)).status, 204);
  const gone = await browser.newPage();
  t.teardown(() => gone.close());
  await gone.goto(`${server.url}#${new URLSearchParams({ run: older.runId, node: 'tool:lookup' })}`);
  await gone.locator('.run-title', { hasText: 'third-run' }).waitFor();
  await until(gone, `location.hash === ''`, 'the address to name nothing');
  t.pass('a named run that is gone: the newest run is followed');
  t.same(realProblems(problems, t.comment.bind(t)), [], 'no console errors, page errors or CSP violations');
});
