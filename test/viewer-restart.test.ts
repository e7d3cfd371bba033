// The Restart server button, in a real Chromium: a live `graphmind
// mcp-proxy --watch` session (a real SDK 1.x client, a real SDK server);
// the button in the run header restarts the server through
// POST /api/runs/:runId/restart; the page says how it went, lists the
// restart (when, why, the pid, the handshake time), marks it on the
// timeline, says which server answered a call, and the session still
// answers. A fix that does not parse shows as a failed restart. A run
// that is not a live proxy's has no button.
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { runIds, startDebugger, newRuns } from './helpers/gates.js';
import { runWhen } from './helpers/serve.js';
import { shot } from './helpers/viewer.js';
import { project, text, watchedV1 } from './fixtures/restart/sessions.js';

const STEP_MS = 20_000;

t.test('Restart server: clicked on a live proxy session, recorded, and the session goes on', async (t) => {
  const serve = await startDebugger(t);
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const before = new Set(await runIds(serve));
  const session = await watchedV1(t, p, { serve });
  const [runId] = await newRuns(serve, before);
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'a' } })), 'gen0: a');

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, `${serve.url}/#run=${runId}`);
  const header = page.locator('.run-header');
  await header.locator(`.run-title[data-run-id="${runId}"]`).waitFor({ timeout: STEP_MS });
  const restart = header.locator('button[data-action="restart-server"]');
  await restart.waitFor({ timeout: STEP_MS });
  t.equal(await restart.textContent(), '⟳ Restart server', 'a live proxy run has the button');
  t.equal(await header.locator('.restart-count').textContent(), 'not restarted');

  await restart.click();
  const notice = page.locator('.notice.shown');
  await notice.filter({ hasText: /^Server restarted: pid \d+, ready in \d+ ms\.$/ }).waitFor({ timeout: STEP_MS });
  t.pass('the notice says the server restarted, with its pid and time');
  const row = header.locator('.restart-list li[data-restart="1"]');
  await row.waitFor({ timeout: STEP_MS });
  const starts = p.starts();
  t.equal(starts.length, 2, 'a second server was started');
  t.match(await row.textContent(), new RegExp(`^#1 \\d\\d:\\d\\d:\\d\\d\\.\\d{3} the debugger — pid ${starts[1]?.pid}, ready in \\d+ ms$`), 'the restart is listed: when, why, the new pid, the handshake time');
  t.equal(await header.locator('.restart-count').textContent(), 'restarted 1 time');
  t.equal(await restart.isEnabled(), true, 'the button is ready again');

  const marker = page.locator('.timeline-list .tl-restart');
  await marker.first().waitFor({ timeout: STEP_MS });
  t.match(await marker.first().textContent(), /⟳ restart.*the MCP server was restarted \(the debugger\); new pid \d+/, 'the timeline marks it');

  // The same session answers, from the new server, and the page says which one answered.
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'b' } })), 'gen0: b', 'the session still answers');
  const run = await runWhen(serve, runId as string, (r) => (r.instances as unknown[]).length >= 2);
  t.ok(run, 'recorded');
  await page.locator('.node[data-node-id="tool:hello"]').click();
  const calls = page.locator('.detail .inst');
  await calls.nth(1).waitFor({ timeout: STEP_MS });
  await page.locator('.detail .inst .generation').first().waitFor({ timeout: STEP_MS });
  const generations = await page.locator('.detail .inst .generation').allTextContents();
  t.ok(generations.includes('Answered by server generation 1 (started by restart #1).'), `the second call says the restarted server answered it (${JSON.stringify(generations)})`);

  // A fix that does not parse: a failed restart, in red, with its error.
  p.save({ sdk: 1, tag: 'gen1', broken: true });
  const failed = header.locator('.restart-list li.restart-failed[data-restart="2"]');
  await failed.waitFor({ timeout: STEP_MS });
  t.match(await failed.textContent(), /^#2 .* file change \(server\.mjs\) — did not come back: the new server exited with code 1 before answering the replayed initialize: SyntaxError/, 'a failed restart shows its error');
  await restart.click();
  await notice.filter({ hasText: /^The server did not come back: the new server exited with code 1/ }).waitFor({ timeout: STEP_MS });
  t.pass('a restart from the button that fails says so');
  await shot(page, 'viewer-restart');

  // The run ended: no button, the restarts stay listed.
  p.save({ sdk: 1, tag: 'gen2' });
  await header.locator('.restart-list li.restart-ok[data-restart="4"]').waitFor({ timeout: STEP_MS });
  await session.close();
  await header.locator('.pill.status-ok, .pill.status-error').first().waitFor({ timeout: STEP_MS });
  await restart.waitFor({ state: 'detached', timeout: STEP_MS });
  t.equal(await header.locator('.restart-list li').count(), 4, 'an ended run keeps its restarts listed, without the button');
  t.strictSame(realProblems(problems, (text) => t.comment(text)), [], 'no console errors, page errors or CSP violations');
});
