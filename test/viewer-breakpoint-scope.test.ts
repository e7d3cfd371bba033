// Scoped breakpoints in a real Chromium: on a node of a run whose server is
// known, Break before holds on "this server" by default (the run's
// serverInfo.name); the scope can be switched to every server (and back);
// a breakpoint for another server says so on that node; the add form takes
// a scope; and the strip in the top bar shows the breakpoints in force on
// every run, with their scopes, and opens the panel when clicked. Each step
// checked through GET /api/breakpoints.
import t from 'tap';
import type { Breakpoints } from '../src/protocol/control.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, eventually, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, noRules, until } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

/** Wait until the server's breakpoints are exactly `expected`. */
function breakpointsBecome(expected: Breakpoints, what: string): Promise<Breakpoints> {
  const want = JSON.stringify(expected);
  return eventually(
    async () => {
      const bp = noRules((await api(server.port, server.token, 'GET', '/api/breakpoints')).json);
      return JSON.stringify(bp) === want ? bp : undefined;
    },
    5000,
    what,
  );
}

t.test('breakpoints scoped to a server, set and seen from the page', async (t) => {
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const weather = new RunEvents(runId('weather'));
  const files = new RunEvents(runId('files'));
  const run = (events: RunEvents, name: string) => [
    events.started(`node ${name}.js`, { serverInfo: { name, version: '1.0.0' } }, 'mcp-proxy'),
    events.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session(`node ${name}.js`) }),
    events.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('echo'), input: { name: 'echo' } }),
    events.next({ type: 'instance.finished', instanceId: 'mcp_2', output: {} }),
    events.next({ type: 'instance.started', instanceId: 'mcp_3', node: NODES.tool('other'), input: { name: 'other' } }),
  ];
  reporter.send(run(weather, 'weather'));
  reporter.send(run(files, 'files'));
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  const strip = page.locator('.top [data-testid="bp-strip"]');
  await strip.waitFor();
  t.equal(await strip.getAttribute('data-count'), '0', 'the strip is there with no breakpoints');
  t.match(await strip.textContent(), /no breakpoints.*pause on error/, 'and says failing calls pause');

  // The weather run: Break before on tool:echo holds on this server.
  await page.locator(`.runs li[data-run-id="${weather.runId}"]`).click();
  await page.locator('.run-header h2', { hasText: 'weather' }).waitFor();
  await page.locator('.node[data-node-id="tool:echo"]').click();
  const scope = page.locator('.detail select[data-testid="bp-scope"]');
  await scope.waitFor();
  t.equal(await scope.inputValue(), 'this', 'a new breakpoint goes on this server by default');
  t.match(await scope.locator('option[value="this"]').textContent(), /this server \("weather"\)/, 'named by its serverInfo.name');
  await page.locator('.detail button[data-gate="before"]').click();
  await breakpointsBecome({ pauseOnError: true, nodes: { 'tool:echo': { before: true, server: 'weather' } } }, 'a before breakpoint on weather');
  t.pass('Break before set a breakpoint scoped to this server');
  await until(page, `document.querySelector('[data-testid="bp-strip"]')?.getAttribute('data-count') === '1'`, 'the strip to count it');
  t.ok(await strip.evaluate((node) => (node as { classList: { contains(c: string): boolean } }).classList.contains('armed')), 'the strip stands out while a breakpoint is set');
  const weatherChip = strip.locator('.bp-strip-scope[data-scope="weather"]');
  t.match(await weatherChip.textContent(), /"weather" ×1/, 'the strip names its server and count');
  t.match((await weatherChip.getAttribute('class')) ?? '', /\bhere\b/, 'marked as holding this run');

  // The files run: the same node shows the breakpoint as another server's, and the strip is there too.
  await page.locator(`.runs li[data-run-id="${files.runId}"]`).click();
  await page.locator('.run-header h2', { hasText: 'files' }).waitFor();
  await page.locator('.node[data-node-id="tool:echo"]').click();
  await page.locator('.detail .bp-elsewhere').waitFor();
  t.match(await page.locator('.detail .bp-elsewhere').textContent(), /Set for server "weather".*"files".*do not hold here/, 'the node says the breakpoint is for another server');
  t.equal(await scope.inputValue(), 'other', 'its scope shows as that server');
  t.equal(await page.locator('.node[data-node-id="tool:echo"] .bp-mark.elsewhere').count(), 1, 'its card marks the breakpoint as not holding here');
  t.notMatch((await weatherChip.getAttribute('class')) ?? '', /\bhere\b/, 'on this run the strip does not mark it as holding');
  t.equal(await strip.getAttribute('data-count'), '1', 'the strip shows on every run');

  // Widened to every server from here; then back to this server (files).
  await scope.selectOption('every');
  await breakpointsBecome({ pauseOnError: true, nodes: { 'tool:echo': { before: true } } }, 'widened to every server');
  await strip.locator('.bp-strip-scope[data-scope="*"]').waitFor();
  t.match(await strip.locator('.bp-strip-scope[data-scope="*"]').textContent(), /every server ×1/, 'the strip says every server');
  await page.locator('.detail .bp-elsewhere').waitFor({ state: 'detached' });
  await page.locator('.node[data-node-id="tool:echo"] .bp-mark.elsewhere').waitFor({ state: 'detached' });
  await scope.selectOption('this');
  await breakpointsBecome({ pauseOnError: true, nodes: { 'tool:echo': { before: true, server: 'files' } } }, 'scoped to files');
  t.pass('the scope select moves an existing breakpoint between every server and this one');

  // A new breakpoint on every server, picked before clicking.
  await page.locator('.node[data-node-id="tool:other"]').click();
  await page.locator('.detail-title', { hasText: 'other' }).waitFor();
  await scope.selectOption('every');
  await page.locator('.detail button[data-gate="after"]').click();
  await breakpointsBecome({ pauseOnError: true, nodes: { 'tool:echo': { before: true, server: 'files' }, 'tool:other': { after: true } } }, 'an after breakpoint on every server');
  t.pass('picking every server first sets it for every server');

  // The panel shows each scope; its add form takes one.
  const panel = page.locator('.breakpoints');
  t.equal(await panel.locator('.bp[data-node-id="tool:echo"] .bp-scope-chip').textContent(), 'server "files"', 'the panel names the scope');
  t.equal(await panel.locator('.bp[data-node-id="tool:other"] .bp-scope-chip').textContent(), 'every server', 'or every server');
  await panel.locator('.bp-add-node').fill('tool:late');
  await panel.locator('.bp-add-scope').selectOption('weather');
  await panel.locator('button[data-action="add-breakpoint"]').click();
  await breakpointsBecome(
    { pauseOnError: true, nodes: { 'tool:echo': { before: true, server: 'files' }, 'tool:other': { after: true }, 'tool:late': { before: true, server: 'weather' } } },
    'a breakpoint added by id on one server',
  );
  await until(page, `document.querySelector('[data-testid="bp-strip"]')?.getAttribute('data-count') === '3'`, 'the strip to count three');
  t.same(await strip.locator('.bp-strip-scope').allTextContents(), ['every server ×1', '"files" ×1', '"weather" ×1'], 'the strip lists every scope with its count');

  // Clicking the strip brings the panel to the eye.
  await strip.click();
  await until(page, `document.querySelector('.breakpoints')?.classList.contains('flash') && document.activeElement?.textContent === 'Breakpoints'`, 'the panel to be shown');
  t.pass('clicking the strip opens the breakpoints panel');

  // Set elsewhere (the API): the strip follows live.
  await api(server.port, server.token, 'PUT', '/api/breakpoints', { pauseOnError: false, nodes: {} });
  await until(page, `document.querySelector('[data-testid="bp-strip"]')?.getAttribute('data-count') === '0'`, 'the strip to empty');
  t.notMatch(await strip.textContent(), /pause on error/, 'and says so when failing calls do not pause');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
