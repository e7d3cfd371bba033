// Breakpoints from the page: clicking Break before / Break after on a node
// sets them on the server, the panel lists them all, pause-on-error toggles,
// and clearing works — each checked through GET /api/breakpoints.
import t from 'tap';
import type { Breakpoints } from '../src/protocol/control.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, eventually, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, noRules } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

/** Wait until the server's breakpoints satisfy `predicate`, and return them. */
function breakpointsWhen(predicate: (bp: Breakpoints) => boolean, what: string): Promise<Breakpoints> {
  return eventually(
    async () => {
      const bp = noRules((await api(server.port, server.token, 'GET', '/api/breakpoints')).json);
      return predicate(bp) ? bp : undefined;
    },
    5000,
    what,
  );
}

t.test('set, list, toggle and clear breakpoints by clicking', async (t) => {
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const run = new RunEvents(runId('bp'));
  reporter.send([
    run.started('bp-server', {}, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('echo'), input: { name: 'echo' } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: {} }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: NODES.tool('other'), input: { name: 'other' } }),
  ]);
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  t.same(noRules((await api(server.port, server.token, 'GET', '/api/breakpoints')).json), { pauseOnError: true, nodes: {} }, 'none to start with');

  await page.locator('.node[data-node-id="tool:echo"]').click();
  const before = page.locator('.detail button[data-gate="before"]');
  t.equal(await before.getAttribute('aria-pressed'), 'false');
  await before.click();
  const set = await breakpointsWhen((bp) => bp.nodes['tool:echo']?.before === true, 'the before breakpoint');
  t.same(set, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } }, 'clicking Break before sets exactly that');
  await page.locator('.detail button[data-gate="before"][aria-pressed="true"]').waitFor();
  await page.locator('.node[data-node-id="tool:echo"] .bp-mark').waitFor();
  t.match((await page.locator('.node[data-node-id="tool:echo"] .bp-marks').textContent()) ?? '', /before/, 'the card shows it');

  await page.locator('.detail button[data-gate="after"]').click();
  await breakpointsWhen((bp) => bp.nodes['tool:echo']?.after === true, 'the after breakpoint');
  await page.locator('.node[data-node-id="tool:other"]').click();
  await page.locator('.detail-title', { hasText: 'other' }).waitFor();
  await page.locator('.detail button[data-gate="after"]').click();
  const three = await breakpointsWhen((bp) => bp.nodes['tool:other']?.after === true, 'a breakpoint on a second node');
  t.same(three.nodes, { 'tool:echo': { before: true, after: true }, 'tool:other': { after: true } }, 'both nodes, every gate');

  const panel = page.locator('.breakpoints');
  await panel.locator('.bp[data-node-id="tool:other"]').waitFor();
  t.equal(await panel.locator('.bp').count(), 2, 'the panel lists every breakpoint');
  t.equal(await panel.locator('.bp[data-node-id="tool:echo"] button[data-gate]').count(), 2, 'with both gates of tool:echo');

  // Pause on error.
  const toggle = page.locator('#pause-on-error');
  t.equal(await toggle.isChecked(), true, 'pause on error shows as on');
  await toggle.click();
  await breakpointsWhen((bp) => !bp.pauseOnError, 'pause on error off');
  t.same(noRules((await api(server.port, server.token, 'GET', '/api/breakpoints')).json), { pauseOnError: false, nodes: three.nodes }, 'the toggle flips only pauseOnError');
  await toggle.click();
  await breakpointsWhen((bp) => bp.pauseOnError, 'pause on error on again');

  // Clearing: one gate from the panel, one node, then everything.
  await panel.locator('.bp[data-node-id="tool:echo"] button[data-gate="after"]').click();
  await breakpointsWhen((bp) => bp.nodes['tool:echo']?.after === undefined && bp.nodes['tool:echo']?.before === true, 'one gate cleared');
  await panel.locator('.bp[data-node-id="tool:other"] button[data-action="clear"]').click();
  const one = await breakpointsWhen((bp) => bp.nodes['tool:other'] === undefined, 'one node cleared');
  t.same(one, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } }, 'clearing leaves the rest');
  // Clicking the pressed toggle on the node clears it too.
  await page.locator('.node[data-node-id="tool:echo"]').click();
  await page.locator('.detail button[data-gate="before"][aria-pressed="true"]').click();
  await breakpointsWhen((bp) => Object.keys(bp.nodes).length === 0, 'cleared from the node');
  await page.locator('.detail button[data-gate="before"][aria-pressed="false"]').waitFor();

  // Set from elsewhere (the API), cleared by Clear all.
  await api(server.port, server.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: { 'tool:a': { before: true }, 'tool:b': { after: true } } });
  await panel.locator('.bp[data-node-id="tool:b"]').waitFor();
  t.pass('breakpoints set through the API show up in the panel live');
  await panel.locator('button[data-action="clear-all-breakpoints"]').click();
  const none = await breakpointsWhen((bp) => Object.keys(bp.nodes).length === 0, 'all cleared');
  t.same(none, { pauseOnError: true, nodes: {} }, 'Clear all keeps pause-on-error');
  await panel.locator('.bp').first().waitFor({ state: 'detached' });
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
