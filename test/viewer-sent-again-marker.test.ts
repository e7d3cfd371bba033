// A call the debugger sent itself (Send again: `instance.started` with
// `sentBy`) is marked wherever the call shows, in a real Chromium against a
// real `graphmind serve` (issue 30, "Send a call again"): its timeline row
// and its waterfall row carry the same "sent again" badge as its node
// detail (send-again.ts's `sentByBadge`), naming who had it sent; the
// host's own call of the same tool carries none. A reporter feeds the run,
// so which call is which is exact.
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, runId, startServe } from './helpers/serve.js';
import { NODES, holdingReporter, shot } from './helpers/viewer.js';

const STEP_MS = 10_000;

t.test('the timeline and the waterfall mark a call sent again', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const reporter = await holdingReporter(serve.port, serve.token, t);
  const t0 = Date.now() - 10_000;
  const run = new RunEvents(runId('sent-marker'), t0);
  const hello = (instanceId: string, at: number, sentBy?: string) =>
    run.next({ type: 'instance.started', instanceId, node: NODES.tool('hello'), input: { name: 'hello', arguments: { text: 'a' } }, ...(sentBy === undefined ? {} : { sentBy }) }, at);
  const done = (instanceId: string, at: number) => run.next({ type: 'instance.finished', instanceId, output: { content: [{ type: 'text', text: 'hi' }] } }, at);
  reporter.send([
    run.started('sent-server', {}, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }, t0),
    // The host's call, then the same request sent again by the debugger for the viewer.
    hello('mcp_2', t0 + 10),
    done('mcp_2', t0 + 60),
    hello('mcp_3', t0 + 1_000, 'viewer'),
    done('mcp_3', t0 + 1_040),
  ]);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, `${serve.url}/#run=${run.runId}`);
  const sentRow = '.timeline .tl[data-instance-id="mcp_3"]';
  await page.locator(sentRow).waitFor({ timeout: STEP_MS });
  const badge = page.locator(`${sentRow} .sent-badge`);
  t.equal(await badge.count(), 1, 'the timeline row of the call sent again has the badge');
  t.equal(await badge.textContent(), 'sent again', 'which says so');
  t.equal(await badge.getAttribute('data-sent-by'), 'viewer', 'and names who had it sent');
  t.match(await badge.getAttribute('title'), /^Sent by the debugger \(viewer\), not the client/, 'its tooltip: not the client\'s call');
  t.equal(await page.locator('.timeline .tl[data-instance-id="mcp_2"] .sent-badge').count(), 0, 'the host\'s own call has none');
  await shot(page, 'sent-again-timeline');

  await page.locator('.tab[data-view="waterfall"]').click();
  const bar = page.locator('.wf-row[data-instance-id="mcp_3"]');
  await bar.waitFor({ timeout: STEP_MS });
  t.equal(await bar.locator('.wf-name .sent-badge').getAttribute('data-sent-by'), 'viewer', 'the waterfall row has it too');
  t.equal(await page.locator('.wf-row[data-instance-id="mcp_2"] .sent-badge').count(), 0, 'and not on the host\'s call');
  await shot(page, 'sent-again-waterfall');
  t.same(realProblems(problems, t.comment), [], 'no console errors, uncaught errors or CSP violations');
});
