// The page's address names the run the user chose and the node selected in
// it, so a reload (or the link opened in another tab) comes back to the
// same place; while the page follows the newest run the address names
// nothing, and a run the address names that is gone falls back to following.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, fakeReporter, runId, startServe } from './helpers/serve.js';
import { NODES, inPage, restartableServe, serveOnPort, until } from './helpers/viewer.js';

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
  await page.locator('.detail [aria-expanded="true"]').waitFor();
  t.pass('and its latest call open, as a click on the node opens it');
  await page.locator('.run.selected', { hasText: 'older-run' }).waitFor();
  // A run started now does not take the page away: it was a choice.
  const third = new RunEvents(runId('third'));
  reporter.send([third.started('third-run', {}, 'mcp-proxy')]);
  await page.locator('.run', { hasText: 'third-run' }).waitFor();
  t.match(await page.locator('.run-title').textContent(), /older-run/, 'a new run does not replace the restored choice');

  // A link typed into the address bar moves the page too.
  await page.evaluate(`location.hash = ${JSON.stringify(`#${new URLSearchParams({ run: newer.runId, node: 'mcp:session' })}`)}`);
  await page.locator('.run-title', { hasText: 'newer-run' }).waitFor();
  await page.locator('.node.selected[data-node-id="mcp:session"]').waitFor();
  t.pass('a changed address opens the run and node it names');

  // A run the page does not know: the address goes back to where the page is.
  await page.evaluate(`location.hash = '#run=no-such-run'`);
  await until(page, `location.hash.includes(${JSON.stringify(`run=${newer.runId}`)})`, 'the address to name the shown run again');
  t.match(await page.locator('.run-title').textContent(), /newer-run/, 'an unknown run in the address changes nothing');
  // No run named: the page follows the newest run again.
  await page.evaluate(`location.hash = ''`);
  await page.locator('.run-title', { hasText: 'third-run' }).waitFor();
  t.equal(await hashOf(page), '', 'an emptied address follows the newest run');

  // The named run deleted: the page follows the newest run, and the address names nothing.
  t.equal((await api(server.port, server.token, 'DELETE', `/api/runs/${encodeURIComponent(older.runId)}`)).status, 204);
  const gone = await openPage(browser, `${server.url}#${new URLSearchParams({ run: older.runId, node: 'tool:lookup' })}`);
  await gone.page.locator('.run-title', { hasText: 'third-run' }).waitFor();
  await until(gone.page, `location.hash === ''`, 'the address to name nothing');
  t.pass('a named run that is gone: the newest run is followed');
  for (const { problems: found } of [{ problems }, gone]) t.same(realProblems(found, t.comment.bind(t)), [], 'no console errors, page errors or CSP violations');
});

t.test('a chosen run deleted while the page was away: it follows the newest again', async (t) => {
  const { server: first, dataDir, port } = await restartableServe(t);
  const reporter = await fakeReporter(port, first.token);
  const chosen = new RunEvents(runId('chosen'), Date.now() - 60_000);
  const other = new RunEvents(runId('other'));
  reporter.send([chosen.started('chosen-run', {}, 'mcp-proxy'), chosen.next({ type: 'run.finished', status: 'ok' })]);
  reporter.send([other.started('other-run', {}, 'mcp-proxy'), other.next({ type: 'run.finished', status: 'ok' })]);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, first.url);
  await page.locator('.run', { hasText: 'chosen-run' }).click();
  await until(page, `location.hash.includes('run=')`, 'the chosen run in the address');

  // The server goes; the chosen run's log goes with it; the server comes back without it.
  reporter.ws.terminate();
  await first.stop();
  await page.locator('.conn-reconnecting').waitFor();
  rmSync(join(dataDir, 'runs', `${chosen.runId}.jsonl`));
  const second = await serveOnPort(port, dataDir);
  t.teardown(() => second.stop());
  await page.locator('.conn-live').waitFor({ timeout: 20_000 });
  await page.locator('.run-title', { hasText: 'other-run' }).waitFor();
  await until(page, `location.hash === ''`, 'the address to name nothing');
  t.pass('the page shows the newest run, and follows again');

  // Following: a run started now is shown.
  const again = await fakeReporter(port, second.token);
  t.teardown(() => again.ws.terminate());
  const later = new RunEvents(runId('later'));
  again.send([later.started('later-run', {}, 'mcp-proxy')]);
  await page.locator('.run-title', { hasText: 'later-run' }).waitFor({ timeout: 10_000 });
  t.pass('a new run takes the page, as the newest does');
  // While the server was down the browser logged its refused reconnects (the live feed, and any fetch the page made then): expected here.
  // Chromium names the resource of a failed load only in the message's location, which can be empty; the page's CSP lets it reach no other origin.
  const refusedHere = (problem: string): boolean => problem.includes('net::ERR_CONNECTION_REFUSED') && (problem.includes(`127.0.0.1:${port}`) || !problem.includes('['));
  const real = realProblems(problems, t.comment.bind(t)).filter((problem) => !refusedHere(problem));
  t.same(real, [], 'no other console errors, page errors or CSP violations');
});
