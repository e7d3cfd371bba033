// Holds from the page: a reporter holds frames; the page shows method, gate
// and frame, and every action reaches the reporter as the decision it means.
// Inject… sends JSON when the text parses, a string otherwise; an after gate
// starts the editor from the current result; Esc closes the editor; `c`
// continues the oldest hold.
import t from 'tap';
import type { GatePoint } from '../src/protocol/control.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, runId, startServe, type FakeReporter, type ServeProcess } from './helpers/serve.js';
import { NODES, decisionFor, holdingReporter } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

t.test('continue, inject, retry and abort from the page', async (t) => {
  const reporter = await holdingReporter(server.port, server.token, t);
  const run = new RunEvents(runId('holds'));
  reporter.send([run.started('held-server', {}, 'mcp-proxy'), run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() })]);
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.node[data-node-id="mcp:session"]').waitFor();

  let n = 1;
  /** Start a call and hold it; returns its hold id. */
  const hold = (gate: GatePoint, frame: unknown): string => {
    n++;
    const holdId = `hold_${n}`;
    const events: RunEvent[] = [run.next({ type: 'instance.started', instanceId: `mcp_${n}`, node: NODES.tool('echo'), input: { name: 'echo', arguments: { n } } })];
    events.push(run.next({ type: 'hold.opened', holdId, nodeId: 'tool:echo', instanceId: `mcp_${n}`, gate, method: 'tools/call', frame }));
    reporter.send(events);
    return holdId;
  };
  /** The reporter lets the frame go, as the proxy does after a decision. */
  const release = (r: FakeReporter, holdId: string, action: 'continue' | 'inject' | 'retry' | 'abort'): void => {
    r.send([run.next({ type: 'hold.released', holdId, action })]);
  };
  const request = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` } } });

  // 1. Inject JSON at a before gate.
  const h1 = hold('before', request(11));
  const card1 = page.locator(`.hold[data-hold-id="${h1}"]`);
  await card1.waitFor();
  t.equal(await card1.locator('.hold-method').textContent(), 'tools/call', 'the method');
  t.match((await card1.locator('.gate').textContent()) ?? '', /before/, 'the gate');
  t.equal(await card1.locator('pre.json').textContent(), JSON.stringify(request(11), null, 2), 'the frame, pretty');
  t.equal(await card1.locator('button[data-action="retry"]').count(), 0, 'no Retry at a before gate (it would be Continue)');
  await page.locator('.node.held[data-node-id="tool:echo"]').waitFor();
  t.match((await page.locator('.node[data-node-id="tool:echo"] .held-badge').textContent()) ?? '', /HELD at before/, 'the held node says so, with its gate');
  await card1.locator('button[data-action="inject"]').click();
  const editor = page.locator('.overlay .inject-text');
  await editor.waitFor();
  t.equal(await editor.inputValue(), '', 'a before gate starts from an empty editor');
  await editor.fill('{"x":1}');
  t.match((await page.locator('.inject-kind').textContent()) ?? '', /JSON: an object/, 'the editor says what it will send');
  await page.locator('button[data-action="inject-send"]').click();
  const d1 = await decisionFor(reporter, h1);
  t.same(d1, { type: 'decision', holdId: h1, action: 'inject', value: { x: 1 } }, 'JSON text is sent as JSON');
  await page.locator('.overlay').waitFor({ state: 'detached' });
  release(reporter, h1, 'inject');
  await card1.waitFor({ state: 'detached' });
  t.pass('the hold leaves the page once decided');
  t.equal(await page.locator('.notice.shown').count(), 0, 'without a notice: this page decided it');

  // 2. Inject text that is not JSON.
  const h2 = hold('before', request(12));
  await page.locator(`.hold[data-hold-id="${h2}"] button[data-action="inject"]`).click();
  await editor.fill('plain text');
  t.match((await page.locator('.inject-kind').textContent()) ?? '', /string/);
  await editor.press('Control+Enter');
  t.same(await decisionFor(reporter, h2), { type: 'decision', holdId: h2, action: 'inject', value: 'plain text' }, 'anything else is sent as a string (Ctrl+Enter sends)');
  release(reporter, h2, 'inject');

  // 3. Abort.
  const h3 = hold('before', request(13));
  await page.locator(`.hold[data-hold-id="${h3}"] button[data-action="abort"]`).click();
  t.same(await decisionFor(reporter, h3), { type: 'decision', holdId: h3, action: 'abort' }, 'Abort');
  release(reporter, h3, 'abort');

  // 4. Continue, by button.
  const h4 = hold('before', request(14));
  await page.locator(`.hold[data-hold-id="${h4}"] button[data-action="continue"]`).click();
  t.same(await decisionFor(reporter, h4), { type: 'decision', holdId: h4, action: 'continue' }, 'Continue');
  release(reporter, h4, 'continue');
  await page.locator(`.hold[data-hold-id="${h4}"]`).waitFor({ state: 'detached' });

  // 5. Esc closes the editor without deciding; then `c` continues the oldest hold.
  const h5 = hold('before', request(15));
  const h6 = hold('before', request(16));
  await page.locator(`.hold[data-hold-id="${h6}"]`).waitFor();
  await page.locator(`.hold[data-hold-id="${h5}"] button[data-action="inject"]`).click();
  await editor.waitFor();
  await editor.fill('{"not": "sent"}');
  await page.keyboard.press('Escape');
  await page.locator('.overlay').waitFor({ state: 'detached' });
  t.pass('Esc closes the editor');
  await page.locator('.node[data-node-id="tool:echo"]').click();
  await page.keyboard.press('c');
  t.same(await decisionFor(reporter, h5), { type: 'decision', holdId: h5, action: 'continue' }, 'c continues the oldest hold');
  t.notOk(reporter.messages.some((m) => m.type === 'decision' && m.holdId === h5 && m.action === 'inject'), 'the closed editor sent nothing');
  release(reporter, h5, 'continue');
  await page.locator(`.hold[data-hold-id="${h5}"]`).waitFor({ state: 'detached' });
  t.notOk(reporter.messages.some((m) => m.type === 'decision' && m.holdId === h6), 'and only the oldest');
  await page.keyboard.press('c');
  t.same(await decisionFor(reporter, h6), { type: 'decision', holdId: h6, action: 'continue' }, 'then the next one');
  release(reporter, h6, 'continue');

  // 6. An after gate: the editor starts from the current result; Retry is offered and sent.
  const result = { content: [{ type: 'text', text: 'the original answer' }], structuredContent: { ok: true } };
  const h7 = hold('after', { jsonrpc: '2.0', id: 17, result });
  const card7 = page.locator(`.hold[data-hold-id="${h7}"]`);
  await card7.waitFor();
  t.match((await card7.locator('.gate').textContent()) ?? '', /after/);
  await card7.locator('button[data-action="inject"]').click();
  await editor.waitFor();
  t.equal(await editor.inputValue(), JSON.stringify(result, null, 2), 'an after gate starts from the held result');
  await page.locator('button[data-action="inject-cancel"]').click();
  await page.locator('.overlay').waitFor({ state: 'detached' });
  await card7.locator('button[data-action="retry"]').click();
  t.same(await decisionFor(reporter, h7), { type: 'decision', holdId: h7, action: 'retry' }, 'Retry at an after gate');
  release(reporter, h7, 'retry');

  // 7. An after gate edited in place.
  const h8 = hold('after', { jsonrpc: '2.0', id: 18, result });
  await page.locator(`.hold[data-hold-id="${h8}"] button[data-action="inject"]`).click();
  await editor.waitFor();
  await editor.fill(JSON.stringify({ ...result, structuredContent: { ok: false } }));
  await page.locator('button[data-action="inject-send"]').click();
  t.same((await decisionFor(reporter, h8)).value, { ...result, structuredContent: { ok: false } }, 'the edited result is sent');
  release(reporter, h8, 'inject');

  // 8. A hold decided elsewhere (another tab, a script) leaves this page too.
  const h9 = hold('error', { jsonrpc: '2.0', id: 19, error: { code: -32603, message: 'boom' } });
  await page.locator(`.hold[data-hold-id="${h9}"] button[data-action="retry"]`).waitFor();
  t.pass('Retry is offered at the error gate');
  const res = await fetch(`${server.url}/api/holds/${h9}`, { method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: '{"action":"abort"}' });
  t.equal(res.status, 200);
  await page.locator(`.hold[data-hold-id="${h9}"]`).waitFor({ state: 'detached' });
  t.pass('a hold decided elsewhere disappears');
  t.equal(await page.locator('.holds .hold').count(), 0, 'nothing is left held');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
