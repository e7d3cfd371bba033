// Two tabs see the same state (breakpoints, holds, deletions), and the page
// keeps going across a restart of the server — a new token included —
// without a reload.
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, eventually, fakeReporter, runId } from './helpers/serve.js';
import { NODES, decisionFor, inPage, restartableServe, serveOnPort } from './helpers/viewer.js';

t.test('a second tab, and a server restart', async (t) => {
  const { server: first, dataDir, port } = await restartableServe(t);

  const reporter = await fakeReporter(port, first.token);
  t.teardown(() => reporter.ws.terminate());
  // Older than the shared run, so that the page (which follows the newest run) opens the shared one.
  const kept = new RunEvents(runId('kept'), Date.now() - 60_000);
  reporter.send([kept.started('kept-run', {}, 'mcp-proxy'), kept.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }), kept.next({ type: 'run.finished', status: 'ok' })]);
  const run = new RunEvents(runId('shared'));
  reporter.send([
    run.started('shared-run', {}, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('echo'), input: { name: 'echo' } }),
  ]);

  const browser = await launchBrowser(t);
  const a = await openPage(browser, first.url);
  const b = await openPage(browser, first.url);
  for (const { page } of [a, b]) await page.locator('.run-title', { hasText: 'shared-run' }).waitFor();

  // A breakpoint set in tab A shows in tab B.
  await a.page.locator('.node[data-node-id="tool:echo"]').click();
  await a.page.locator('.detail button[data-gate="before"]').click();
  await b.page.locator('.breakpoints .bp[data-node-id="tool:echo"]').waitFor();
  await b.page.locator('.node[data-node-id="tool:echo"] .bp-mark').waitFor();
  t.pass('a breakpoint set in one tab shows in the other');

  // A hold shows in both; decided in A, it leaves B.
  reporter.send([run.next({ type: 'hold.opened', holdId: 'shared_hold', nodeId: 'tool:echo', instanceId: 'mcp_2', gate: 'before', method: 'tools/call', frame: { jsonrpc: '2.0', id: 2, method: 'tools/call' } })]);
  for (const { page } of [a, b]) await page.locator('.hold[data-hold-id="shared_hold"]').waitFor();
  await a.page.locator('.hold[data-hold-id="shared_hold"] button[data-action="continue"]').click();
  t.equal((await decisionFor(reporter, 'shared_hold')).action, 'continue');
  await b.page.locator('.hold[data-hold-id="shared_hold"]').waitFor({ state: 'detached' });
  t.pass('a hold decided in one tab leaves the other');

  // Deleting a run in B removes it from A.
  reporter.send([run.next({ type: 'hold.released', holdId: 'shared_hold', action: 'continue' }), run.next({ type: 'run.finished', status: 'ok' })]);
  const item = b.page.locator('.run', { hasText: 'shared-run' });
  await item.locator('button[data-action="delete"]').click();
  await item.locator('button[data-action="delete"]', { hasText: 'Delete?' }).click();
  await a.page.locator('.run', { hasText: 'shared-run' }).waitFor({ state: 'detached' });
  t.equal((await api(port, first.token, 'GET', `/api/runs/${run.runId}`)).status, 404, 'deleted on the server');
  await a.page.locator('.run-title', { hasText: 'kept-run' }).waitFor();
  t.pass('a run deleted in one tab leaves the other, which shows the next one');
  t.same(realProblems(a.problems, (text) => t.comment(text)), [], 'no console errors in tab A');
  t.same(realProblems(b.problems, (text) => t.comment(text)), [], 'no console errors in tab B');

  // Restart the server on the same port: a new token.
  await inPage(a.page, 'window.__sameDocument = true');
  reporter.ws.terminate();
  await first.stop();
  await a.page.locator('.conn-reconnecting').waitFor();
  t.pass('the page says it is reconnecting');
  const second = await serveOnPort(port, dataDir);
  t.teardown(() => second.stop());
  t.not(second.token, first.token, 'the restarted server has a new token');
  await a.page.locator('.conn-live').waitFor({ timeout: 20_000 });
  t.pass('and reconnects by itself');
  await a.page.locator('.run', { hasText: 'kept-run' }).waitFor();

  const again = await fakeReporter(port, second.token);
  t.teardown(() => again.ws.terminate());
  const after = new RunEvents(runId('after'));
  again.send([after.started('after-restart', {}, 'mcp-proxy'), after.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() })]);
  await a.page.locator('.run-title', { hasText: 'after-restart' }).waitFor({ timeout: 20_000 });
  t.equal(await inPage(a.page, 'window.__sameDocument'), true, 'a run on the restarted server shows up live, without a reload');
  await a.page.locator('#pause-on-error').click();
  await eventually(async () => (((await api(port, second.token, 'GET', '/api/breakpoints')).json as { pauseOnError: boolean }).pauseOnError === false ? true : undefined), 5000, 'pause on error off');
  t.pass('and the API works with the new token');
});
