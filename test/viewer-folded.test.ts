// The folded protocol card stands for the nodes inside it: a hold or a
// breakpoint on one of them shows on the card. Cards name their node's kind
// as it is, and an open call's detail keeps its state while its duration
// ticks. Buttons are found by their names, as a user (or a test) asks.
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, eventually, runId, startServe, type FakeReporter, type ServeProcess } from './helpers/serve.js';
import { NODES, decisionFor, holdingReporter, noRules } from './helpers/viewer.js';
import type { OutgoingEvent } from '../src/report/reporter.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

/** A reporter (closed at teardown) with a run begun on it: its session node, then `events`. */
async function session(t: Parameters<typeof holdingReporter>[2], name: string, events: OutgoingEvent[]): Promise<{ reporter: FakeReporter; run: RunEvents }> {
  const reporter = await holdingReporter(server.port, server.token, t);
  const run = new RunEvents(runId(name));
  reporter.send([
    run.started(`${name}-server`, {}, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
    ...events.map((event) => run.next(event)),
  ]);
  return { reporter, run };
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };

t.test('a hold inside the folded protocol card shows on the card, with its gate and node', async (t) => {
  const { reporter, run } = await session(t, 'folded', [
    { type: 'instance.started', instanceId: 'mcp_2', node: NODES.protocol },
    { type: 'instance.started', instanceId: 'mcp_3', node: NODES.proto('initialize'), input: INIT.params },
    { type: 'instance.started', instanceId: 'mcp_4', node: { nodeId: 'mcp:completion/complete', kind: 'custom', parent: 'mcp:session', label: 'completion/complete' } },
  ]);
  await api(server.port, server.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: { 'mcp:initialize': { before: true }, 'mcp:tools/list': { after: true } } });
  t.teardown(() => api(server.port, server.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: {} }));
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);

  const card = page.locator('.node.container[data-node-id="mcp:protocol"]');
  await card.waitFor();
  t.match(await card.getAttribute('class'), /folded/, 'the protocol card starts folded');
  await card.locator('.bp-mark', { hasText: '1 inside' }).waitFor();
  t.pass('a breakpoint on a node folded inside is marked on the card');
  t.equal(await page.locator('.node[data-node-id="mcp:completion/complete"] .kind').textContent(), 'custom', 'a custom node outside the fold is called custom, not protocol');
  t.equal(await card.locator('.kind').textContent(), 'protocol', 'the card itself is the protocol');

  reporter.send([run.next({ type: 'hold.opened', holdId: 'hold_init', nodeId: 'mcp:initialize', instanceId: 'mcp_3', gate: 'before', method: 'initialize', frame: INIT })]);
  await page.locator('.node.container.held[data-node-id="mcp:protocol"]').waitFor();
  t.match((await card.locator('.held-badge').textContent()) ?? '', /^HELD at before · initialize$/, 'the folded card is held: its gate, and which node inside');
  t.match(await card.getAttribute('class'), /folded/, 'still folded: the card says it without unfolding');

  // The inject dialog keeps the keyboard while open, and gives the focus back when it closes.
  const inject = page.getByRole('button', { name: 'Inject…' });
  await inject.click();
  const dialog = page.getByRole('dialog', { name: 'Inject a value' });
  await dialog.waitFor();
  t.equal(await dialog.locator('textarea:focus').count(), 1, 'the editor has the focus');
  for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
  t.equal(await dialog.locator(':focus').count(), 1, 'Tab goes round the dialog, never behind it');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  t.equal(await dialog.locator(':focus').count(), 1, 'and so does Shift+Tab');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  t.equal(await page.locator('button[data-action="inject"]:focus').count(), 1, 'Esc closes it, and the focus is back on Inject…');

  const resume = page.getByRole('button', { name: 'Continue', exact: true });
  t.equal(await resume.count(), 1, 'the oldest hold has a button named Continue');
  t.equal(await resume.getAttribute('aria-keyshortcuts'), 'c', 'whose shortcut is c');
  t.equal(await page.getByRole('article', { name: 'initialize held at the before gate' }).count(), 1, 'the hold is an article named for what is held');
  await resume.click();
  t.same(await decisionFor(reporter, 'hold_init'), { type: 'decision', holdId: 'hold_init', action: 'continue' }, 'Continue, found by its name, decides');
  reporter.send([run.next({ type: 'hold.released', holdId: 'hold_init', action: 'continue' })]);
  await page.locator('.node.container.held[data-node-id="mcp:protocol"]').waitFor({ state: 'detached' });
  t.equal(await card.locator('.held-badge').count(), 0, 'released: the card is no longer held');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});

t.test("an open call's detail keeps its folds while its duration ticks", async (t) => {
  await session(t, 'ticking', [{ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('slow'), input: { name: 'slow', arguments: { big: { nested: [1, 2, 3] } } } }]);
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.node[data-node-id="tool:slow"]').click();
  const row = page.locator('.inst[data-instance-id="mcp_2"]');
  // Selecting a node may open its latest call already; open it if not.
  const head = row.locator('.inst-head');
  await head.waitFor();
  if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
  await row.locator('.inst-head[aria-expanded="true"]').waitFor();
  const input = row.locator('details').first();
  await input.waitFor();
  const open = await input.evaluate((d) => (d as unknown as { open: boolean }).open);
  // This very element, to ask later whether it is still in the page (a locator would find its replacement).
  const element = await input.elementHandle();
  await input.locator('summary .json-label').click();
  t.equal(await input.evaluate((d) => (d as unknown as { open: boolean }).open), !open, 'the input block was toggled');
  const before = await row.locator('.inst-dur').textContent();
  // It ticks: wait for the next text (at most 10 s) rather than a fixed while.
  const after = await eventually(async () => {
    const now = await row.locator('.inst-dur').textContent();
    return now !== before ? now : undefined;
  }, 10_000, 'the open call\'s duration to tick').catch(() => before);
  t.not(after, before, `the open call's duration went on (${before} → ${after})`);
  t.match(after ?? '', /^open /);
  t.equal(await input.evaluate((d) => (d as unknown as { open: boolean }).open), !open, 'and the block is still as the user left it');
  t.equal(await element?.evaluate((d) => d.isConnected), true, 'the same element: the row was not redrawn');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});

t.test('a breakpoint by node id, for a node no run has shown yet; the delete button is named', async (t) => {
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  const form = page.getByRole('form', { name: 'add a breakpoint by node id' });
  await form.getByRole('textbox', { name: 'node id' }).fill('  mcp:initialize ');
  await form.getByRole('button', { name: 'Add breakpoint' }).click();
  await page.locator('.bp[data-node-id="mcp:initialize"]').waitFor();
  t.same(noRules((await api(server.port, server.token, 'GET', '/api/breakpoints')).json), { pauseOnError: true, nodes: { 'mcp:initialize': { before: true } } }, 'set on the server, trimmed');
  await form.getByRole('combobox', { name: 'gate' }).selectOption('after');
  await form.getByRole('textbox', { name: 'node id' }).fill('tool:first_call');
  await form.getByRole('textbox', { name: 'node id' }).press('Enter');
  await page.locator('.bp[data-node-id="tool:first_call"]').waitFor();
  t.same(
    noRules((await api(server.port, server.token, 'GET', '/api/breakpoints')).json),
    { pauseOnError: true, nodes: { 'mcp:initialize': { before: true }, 'tool:first_call': { after: true } } },
    'Enter adds too, at the gate chosen',
  );
  t.equal(await form.getByRole('textbox', { name: 'node id' }).inputValue(), '', 'the field is emptied for the next one');
  await form.getByRole('button', { name: 'Add breakpoint' }).click();
  t.equal(await form.getByRole('textbox', { name: 'node id' }).evaluate((input) => input === input.ownerDocument.activeElement), true, 'an empty id: the field gets the focus back');
  await page.waitForTimeout(300);
  t.equal(Object.keys(((await api(server.port, server.token, 'GET', '/api/breakpoints')).json as { nodes: object }).nodes).length, 2, 'an empty id adds nothing');
  await api(server.port, server.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: {} });

  const reporter = await holdingReporter(server.port, server.token, t);
  const run = new RunEvents(runId('named'));
  reporter.send([run.started('named-server', {}, 'mcp-proxy'), run.next({ type: 'run.finished', status: 'ok' })]);
  const item = page.locator(`.run[data-run-id="${run.runId}"]`);
  await item.waitFor();
  t.equal(await page.getByRole('listitem').filter({ hasText: 'named-server' }).count(), 1, 'a run is a list item');
  const choose = item.getByRole('button', { name: 'named-server', exact: true });
  t.equal(await choose.count(), 1, 'holding a button named for the run, beside (not around) its delete button');
  const facts = await choose.getAttribute('aria-describedby');
  t.match(await page.locator(`[id="${facts ?? ''}"]`).textContent(), /^okmcp-proxy/, 'described by its status, source and the rest');
  const del = item.getByRole('button', { name: 'Delete this run' });
  t.equal(await del.count(), 1, 'the × button is named Delete this run');
  await del.click();
  t.equal(await item.getByRole('button', { name: /Click again to confirm/ }).count(), 1, 'then asks to be sure, by name too');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
