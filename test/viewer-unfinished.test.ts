// A run whose reporter vanished mid-call, in a real browser: the server ends
// the run in error but keeps its open calls open (nobody knows how they
// ended, and a reclaim may still finish them). The page must not show them
// as running: the graph, the node detail and the timeline say `unfinished`,
// with no ticking time, and the call's body says its outcome is unknown.
// When a reporter reclaims the run, the same calls are open again, by
// themselves, and can still finish.
import t from 'tap';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, until } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

const UNKNOWN = 'The run ended before this call finished, so its outcome is unknown.';

const text = async (locator: Locator): Promise<string> => ((await locator.textContent()) ?? '').trim();
const classes = async (locator: Locator): Promise<string[]> => ((await locator.getAttribute('class')) ?? '').split(/\s+/);

/** Wait until the text of the first element matching `selector` is `expected`. */
function textIs(page: Page, selector: string, expected: string, what: string): Promise<void> {
  return until(page, `document.querySelector(${JSON.stringify(selector)})?.textContent?.trim() === ${JSON.stringify(expected)}`, what);
}

t.test('calls left open by a vanished reporter show as unfinished until the run is reclaimed', async (t) => {
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.conn-live').waitFor();

  const id = runId('unfinished');
  const run = new RunEvents(id);
  const started = run.started('half-done', { command: 'node', args: ['server.js'] }, 'mcp-proxy');
  const first = await fakeReporter(server.port, server.token);
  t.teardown(() => first.ws.terminate());
  first.send([
    started,
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session('node server.js') }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('slow'), input: { name: 'slow', arguments: {} } }),
  ]);

  const runRow = page.locator(`.runs li[data-run-id="${id}"]`);
  const tool = page.locator('.node[data-node-id="tool:slow"]');
  const session = page.locator('.node[data-node-id="mcp:session"]');
  const toolRow = page.locator('.detail .inst[data-instance-id="mcp_2"]');
  const toolLine = page.locator('.timeline .tl[data-instance-id="mcp_2"]');
  const sessionLine = page.locator('.timeline .tl[data-instance-id="mcp_1"]');

  // While the run is running: open, and the call's time ticks.
  await tool.waitFor({ timeout: 10_000 });
  t.equal(await runRow.getAttribute('data-status'), 'running', 'the run is running');
  t.equal(await text(tool.locator('.pill')), 'open', 'the unanswered call is open');
  t.equal(await text(session.locator('.pill')), 'running', 'the session is running');
  t.match(await text(tool.locator('.open-note')), /^no answer yet$/, 'waiting for its answer');
  await tool.click();
  await toolRow.locator('.inst-body').waitFor();
  t.match(await text(toolRow.locator('.inst-dur')), /^open \d/, 'its row shows how long it has been open');
  t.match(await text(toolRow.locator('.inst-body')), /Waiting for an answer…/, 'its body waits for the answer');
  t.equal(await text(toolLine.locator('.tl-dur')), 'open', 'the timeline shows it open');

  // The reporter vanishes (a proxy killed with SIGKILL): the server ends the run in error.
  first.ws.terminate();
  await page.locator(`.runs li[data-run-id="${id}"][data-status="error"]`).waitFor({ timeout: 10_000 });
  t.pass('the run shows error');
  await textIs(page, '.node[data-node-id="tool:slow"] .pill', 'unfinished', 'the tool card to turn unfinished');

  t.equal(await tool.getAttribute('data-status'), 'open', 'the call is still open in the data');
  t.ok((await classes(tool)).includes('unfinished'), 'the tool card is drawn unfinished');
  t.ok((await classes(tool.locator('.pill'))).includes('unfinished'), 'its pill too');
  t.equal(await text(tool.locator('.open-note')), 'no answer: the run ended first', 'the card no longer waits for an answer');
  t.equal(await text(session.locator('.pill')), 'unfinished', 'the session is unfinished, not running');
  t.ok((await classes(session)).includes('unfinished'), 'and drawn so');

  t.equal(await text(page.locator('.detail-title .pill')), 'unfinished', 'the detail title says unfinished');
  t.match(await text(page.locator('.detail-info')), /1 unfinished/, 'and counts the call as unfinished');
  t.equal(await text(toolRow.locator('.pill')), 'unfinished', 'the call’s row says unfinished');
  const duration = await text(toolRow.locator('.inst-dur'));
  t.equal(duration, 'unfinished', 'with no time in place of a duration');
  const body = await text(toolRow.locator('.inst-body'));
  t.match(body, UNKNOWN, 'its body says the outcome is unknown');
  t.notMatch(body, /Waiting for an answer/, 'and no longer waits for one');
  t.ok((await classes(toolRow)).includes('unfinished'), 'the row is marked unfinished');

  t.equal(await text(toolLine.locator('.pill')), 'unfinished', 'the timeline’s call says unfinished');
  t.equal(await text(toolLine.locator('.tl-dur')), 'unfinished', 'with no duration');
  t.equal(await text(sessionLine.locator('.pill')), 'unfinished', 'the session’s line too');

  // Nothing ticks: a second later the same text.
  await page.waitForTimeout(1300);
  t.equal(await text(toolRow.locator('.inst-dur')), duration, 'the row does not tick');
  t.equal(await text(toolLine.locator('.tl-dur')), 'unfinished', 'nor does the timeline');

  await session.click();
  const sessionRow = page.locator('.detail .inst[data-instance-id="mcp_1"]');
  await sessionRow.locator('.inst-body').waitFor();
  t.equal(await text(sessionRow.locator('.pill')), 'unfinished', 'the session’s own call is unfinished');
  t.equal(await text(sessionRow.locator('.inst-dur')), 'unfinished', 'without a ticking time');
  t.match(await text(sessionRow.locator('.inst-body')), UNKNOWN, 'and its outcome is unknown');

  // A reporter reconnects and reclaims the run: it is running again, and so are its calls.
  const second = await fakeReporter(server.port, server.token);
  t.teardown(() => second.ws.terminate());
  second.send([started]);
  await page.locator(`.runs li[data-run-id="${id}"][data-status="running"]`).waitFor({ timeout: 10_000 });
  t.pass('the reclaimed run is running again');
  await textIs(page, '.node[data-node-id="mcp:session"] .pill', 'running', 'the session to run again');
  t.equal(await text(tool.locator('.pill')), 'open', 'the tool call is open again');
  t.notOk((await classes(tool)).includes('unfinished'), 'and no longer drawn unfinished');
  t.equal(await text(tool.locator('.open-note')), 'no answer yet', 'waiting for its answer again');
  t.equal(await text(sessionRow.locator('.pill')), 'open', 'the session’s call is open again');
  t.match(await text(sessionRow.locator('.inst-dur')), /^open \d/, 'with its time ticking');
  t.match(await text(sessionRow.locator('.inst-body')), /Waiting for an answer…/, 'waiting for an answer');
  t.equal(await text(toolLine.locator('.pill')), 'open', 'the timeline shows the call open');
  t.equal(await text(toolLine.locator('.tl-dur')), 'open', 'without the unfinished mark');

  // The reclaiming reporter can still finish the call.
  second.send([run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { content: [{ type: 'text', text: 'late' }] } })]);
  await page.locator('.node[data-node-id="tool:slow"][data-status="ok"]').waitFor({ timeout: 10_000 });
  t.equal(await text(tool.locator('.pill')), 'ok', 'the call finished after the reclaim');

  t.same(realProblems(problems, (line) => t.comment(line)), [], 'no console errors, page errors or CSP violations');
});
