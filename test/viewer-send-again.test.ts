// Send again in a real Chromium: a live `graphmind mcp-proxy --watch`
// session (a real SDK 1.x client, a real SDK server). A call's detail has
// Send again, Edit & send… and Copy as command; clicking Send again makes a
// new call of the run marked "sent again" (sentBy: viewer), answered by the
// server and never seen by the client; Edit & send… sends the params typed
// in the value editor; Copy as command shows and copies the Inspector line.
// The session's detail has no bar; an ended run's buttons are off.
import type { Locator } from 'playwright-core';
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { getRun, newRuns, runIds, startDebugger, waitForAsync } from './helpers/gates.js';
import { shot } from './helpers/viewer.js';
import { project, text, watchedV1 } from './fixtures/restart/sessions.js';

const STEP_MS = 20_000;

/** Open a call's row (choosing a node may have opened its last call already). */
async function expand(row: Locator): Promise<void> {
  const head = row.locator('.inst-head');
  await head.waitFor({ timeout: STEP_MS });
  if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
}

t.test('Send again, clicked in the viewer', async (t) => {
  const serve = await startDebugger(t);
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const before = new Set(await runIds(serve));
  const session = await watchedV1(t, p, { serve });
  const [runId] = await newRuns(serve, before);
  const seen: unknown[] = [];
  const transport = session.client.transport as NonNullable<typeof session.client.transport>;
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    seen.push(message);
    deliver?.(message, extra);
  };
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'a' } })), 'gen0: a');
  await waitForAsync(async () => (await getRun(serve, runId as string)).instances.some((call) => call.nodeId === 'tool:hello' && call.status === 'ok'), 10_000, 'the call recorded');

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, `${serve.url}/#run=${runId}`);
  await page.locator(`.run-header .run-title[data-run-id="${runId}"]`).waitFor({ timeout: STEP_MS });
  await page.locator('.node[data-node-id="tool:hello"]').click();
  const rows = page.locator('.detail .inst');
  await rows.first().waitFor({ timeout: STEP_MS }).catch(async (error: unknown) => {
    t.comment(problems.join('\n'));
    await shot(page, 'viewer-send-again-fail');
    throw error;
  });
  await expand(rows.first());
  const bar = rows.first().locator('.send-again');
  await bar.waitFor({ timeout: STEP_MS });

  // Copy as command: the Inspector line for this call, shown and copied.
  await browser.contexts()[0]?.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.url });
  await bar.locator('button[data-action="copy-command"]').click();
  const first = bar.locator('.send-command code').first();
  await first.waitFor({ timeout: STEP_MS });
  const line = (await first.textContent()) ?? '';
  t.match(line, /^npx @modelcontextprotocol\/inspector --cli \S+ \S+server\.mjs --method tools\/call --tool-name hello --tool-arg text=a --cwd /, 'the Inspector line against the server');
  t.equal(await page.evaluate('navigator.clipboard.readText()'), line, 'copied');
  t.match(await bar.locator('.send-command code').nth(1).textContent(), new RegExp(`^npx @modelcontextprotocol/inspector --cli graphmind replay ${runId} --method tools/call`), 'and the line against the replay');

  // Send again: a new call, marked, answered by the server, never the client's.
  await bar.locator('button[data-action="send-again"]').click();
  await page.locator('.notice.shown').filter({ hasText: /^Sent again/ }).waitFor({ timeout: STEP_MS });
  const sentRow = page.locator('.detail .inst:has(.sent-badge)');
  await sentRow.first().waitFor({ timeout: STEP_MS });
  t.equal(await sentRow.first().locator('.sent-badge').getAttribute('data-sent-by'), 'viewer', 'the new call is marked as sent by the debugger, from the viewer');
  await waitForAsync(async () => (await getRun(serve, runId as string)).instances.some((call) => (call as { sentBy?: string }).sentBy === 'viewer' && call.status === 'ok'), STEP_MS, 'the sent call answered');
  const sent = (await getRun(serve, runId as string)).instances.filter((call) => (call as { sentBy?: string }).sentBy !== undefined);
  t.equal(sent.length, 1, 'one call sent');
  t.equal(text(sent[0]?.output), 'gen0: a', "the server's answer is recorded");

  // Edit & send…: the params typed in the editor go to the server.
  await bar.locator('button[data-action="send-again-edit"]').click();
  const area = page.locator('.overlay[data-send-instance] textarea');
  await area.waitFor({ timeout: STEP_MS });
  t.same(JSON.parse(await area.inputValue()), { name: 'hello', arguments: { text: 'a' } }, 'the editor starts from the recorded params');
  await area.fill('not json');
  t.equal(await page.locator('.overlay [data-action="send-again-send"]').isDisabled(), true, 'text that is not JSON cannot be sent');
  await area.fill('{ "name": "hello", "arguments": { "text": "from the editor" } }');
  await page.locator('.overlay [data-action="send-again-send"]').click();
  await page.locator('.overlay[data-send-instance]').waitFor({ state: 'detached', timeout: STEP_MS });
  await waitForAsync(async () => (await getRun(serve, runId as string)).instances.some((call) => call.output !== undefined && text(call.output) === 'gen0: from the editor'), STEP_MS, 'the edited call answered');
  await sentRow.nth(1).waitFor({ timeout: STEP_MS });
  await shot(page, 'viewer-send-again');

  // The client never saw any of it, and goes on.
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'b' } })), 'gen0: b');
  t.notOk(JSON.stringify(seen).includes('graphmind-send'), 'no answer of the debugger reached the client');
  t.equal(seen.length, 2, 'the client got its own two answers only');

  // The session is not a request: no bar.
  await page.locator('.node[data-node-id="mcp:session"]').click();
  await expand(page.locator('.detail .inst').first());
  await page.locator('.detail .inst .inst-body').first().waitFor({ timeout: STEP_MS });
  t.equal(await page.locator('.detail .send-again').count(), 0, 'no Send again on the session');

  // The run ended: Send again is off and says why; Copy as command still works.
  await session.close();
  await page.locator('.run-header .pill.status-ok, .run-header .pill.status-error').first().waitFor({ timeout: STEP_MS });
  await page.locator('.node[data-node-id="tool:hello"]').click();
  const again = page.locator('.detail .inst').first().locator('button[data-action="send-again"]');
  await again.waitFor({ timeout: STEP_MS });
  t.equal(await again.isDisabled(), true, 'an ended run cannot send');
  t.match(await again.getAttribute('title'), /not live/, 'and the button says why');
  t.strictSame(realProblems(problems, (line) => t.comment(line)), [], 'no console errors, page errors or CSP violations');
});
