// What the debugger did shows wherever the call shows (issue 30), in a real
// Chromium against a real `graphmind serve`:
//
//   1. A real SDK client through `graphmind mcp-proxy` to a real server: an
//      answer held at the after gate and replaced from the page's inject
//      editor carries a badge (injected by viewer) on its graph node, its
//      call in the node detail, its timeline row and its waterfall row; its
//      output is labelled as what the host got, never as the server's plain
//      output; the side-by-side diff sets the server's own answer beside the
//      injected one, as text (the injected markup is not run); its time is
//      split: server, held, what the client waited.
//   2. A Retry with two different answers (a reporter feeding the run, so
//      the times are exact): the diff sets attempt 1 beside attempt 2; the
//      held 3 s are apart from the server's 0.5 s in the detail, in the
//      waterfall's split bar and its "Slowest first" order (by server time:
//      the 2 s call first, not the retried call the client waited longest for).
import type { Page } from 'playwright-core';
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { connectV1, runIds, setBreakpoints, waitForHold } from './helpers/gates.js';
import { RunEvents, runId, startServe } from './helpers/serve.js';
import { NODES, decisionFor, holdingReporter, pending, shot } from './helpers/viewer.js';

const STEP_MS = 10_000;

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? '').trim();
}

async function texts(page: Page, selector: string): Promise<string[]> {
  return (await page.locator(selector).allTextContents()).map((s) => s.trim());
}

t.test('an answer injected at the after gate from the page', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  await page.locator('.empty-state').waitFor({ timeout: STEP_MS });
  const session = await connectV1(t, serve);
  await session.client.callTool({ name: 'echo', arguments: { text: 'left alone' } });
  await page.locator('.node[data-node-id="tool:echo"]').waitFor({ timeout: STEP_MS });
  t.equal(await page.locator('.changed-badge').count(), 0, 'a call the debugger left alone has no badge anywhere');

  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { after: true } } });
  const answer = pending(session.client.callTool({ name: 'echo', arguments: { text: 'from the server' } }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'after' });
  const card = page.locator(`.holds .hold[data-hold-id="${hold.holdId}"]`);
  await card.locator('button[data-action="inject"]').click();
  const editor = page.locator('.overlay .inject-text');
  await editor.waitFor({ timeout: STEP_MS });
  // Untrusted text: markup that would run if the page ever set it as HTML.
  const injected = { content: [{ type: 'text', text: '<img src=x onerror="window.__pwned=1"> made in the debugger' }] };
  await editor.fill(JSON.stringify(injected));
  await page.locator('button[data-action="inject-send"]').click();
  t.same(await answer, injected, 'the host got the injected answer');
  await setBreakpoints(serve, { pauseOnError: false, nodes: {} });

  const badge = 'injected by viewer';
  const row = `.timeline .tl[data-instance-id="${hold.instanceId}"]`;
  await page.locator(`${row} .changed-badge`).waitFor({ timeout: STEP_MS });
  t.equal(await text(page, `${row} .changed-badge`), badge, 'the timeline row says who changed it and how');
  t.equal(await page.locator(`${row} .changed-badge`).getAttribute('data-by'), 'viewer');
  t.equal(await page.locator(`${row} .changed-badge`).getAttribute('title'), "injected by viewer (replaced the server's answer) at the after gate: what the host got was decided in the debugger, not the server's own answer as it came", 'its tooltip: at which gate, and that it replaced the server\'s answer');
  t.equal(await text(page, '.node[data-node-id="tool:echo"] .node-changed'), `✎ ${badge}`, 'so does its node in the graph');

  await page.locator('.node[data-node-id="tool:echo"]').click();
  const call = page.locator(`.detail .inst[data-instance-id="${hold.instanceId}"]`);
  await call.waitFor({ timeout: STEP_MS });
  t.equal(await text(page, `.detail .inst[data-instance-id="${hold.instanceId}"] .inst-head .changed-badge`), badge, 'and its call in the node detail');
  t.match(await text(page, '.detail-info'), /1 changed by the debugger/, 'whose head counts it');
  if ((await call.locator('.inst-body').count()) === 0) await call.locator('.inst-head').click();
  await call.locator('.answer-diff').waitFor({ timeout: STEP_MS });
  const labels = await call.locator('.json-label').allTextContents();
  t.ok(labels.includes('output the host got (injected by viewer)'), `the output is labelled as what the host got (${labels.join(', ')})`);
  t.notOk(labels.includes('output'), 'never as the server\'s plain output');

  const diff = call.locator('.answer-diff[data-diff="server"]');
  t.match(await diff.locator('summary').textContent(), /The server's answer and what the host got: injected by viewer/);
  t.match(await diff.locator('.diff-title.diff-left').textContent(), /^ok the server's answer \(the host never got it\)$/, 'on the left, the server\'s own answer');
  t.match(await diff.locator('.diff-title.diff-right').textContent(), /^ok what the host got \(injected by viewer\)$/, 'on the right, what the host got');
  const left = await texts(page, `.detail .inst[data-instance-id="${hold.instanceId}"] .answer-diff[data-diff="server"] .diff-left.diff-mark`);
  const right = await texts(page, `.detail .inst[data-instance-id="${hold.instanceId}"] .answer-diff[data-diff="server"] .diff-right.diff-mark`);
  t.same(left, ['"text": "from the server"'], 'the line that differs, the server\'s side');
  t.same(right, ['"text": "<img src=x onerror=\\"window.__pwned=1\\"> made in the debugger"'], 'and the host\'s, as text');
  t.equal(await call.locator('.answer-diffs img').count(), 0, 'the injected markup made no element');
  t.equal(await page.evaluate('window.__pwned'), undefined, 'and ran nothing');

  const times = call.locator('.call-times');
  const held = Number(await times.getAttribute('data-held-ms'));
  const server = Number(await times.getAttribute('data-server-ms'));
  const waited = Number(await times.getAttribute('data-waited-ms'));
  t.comment(`server ${server} ms, held ${held} ms, client waited ${waited} ms`);
  t.ok(held > 0, 'the time held is kept apart');
  t.equal(server + held, waited, 'server time and held time add up to what the client waited');
  t.match(await times.textContent(), /^server \d+ ms\s*held \d+(\.\d+)? m?s\s*client waited \d+(\.\d+)? m?s$/, 'and the detail says all three');
  await diff.scrollIntoViewIfNeeded();
  await shot(page, 'changes-injected-detail');

  await page.locator('.tab[data-view="waterfall"]').click();
  const bar = page.locator(`.wf-row[data-instance-id="${hold.instanceId}"]`);
  await bar.waitFor({ timeout: STEP_MS });
  t.equal(await bar.locator('.changed-badge').textContent(), 'injected', 'the waterfall row has the badge too (short: the names are narrow)');
  const parts = await bar.locator('.wf-bar.split .wf-part').evaluateAll((els) => els.map((el) => el.className));
  t.equal(parts[parts.length - 1], 'wf-part wf-held', `its bar: the held part apart, at the end (the answer was held at the after gate): ${parts.join(', ')}`);
  t.match(await bar.locator('.wf-dur').textContent(), /^\d+ ms$/, 'its time column: the server\'s');
  t.match(await bar.locator('.wf-dur').getAttribute('title'), /the server's time \d+ ms, held \d+(\.\d+)? m?s by the debugger/, 'the held time apart, in its tooltip');
  await shot(page, 'changes-injected-waterfall');
  t.same(realProblems(problems, t.comment), [], 'no console errors, uncaught errors or CSP violations');
});

t.test('a Retry: attempt 1 beside attempt 2, and the held time apart', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const reporter = await holdingReporter(serve.port, serve.token, t);
  const t0 = Date.now() - 20_000;
  const run = new RunEvents(runId('changes'), t0);
  const tool = (instanceId: string, at: number, name: string) => run.next({ type: 'instance.started', instanceId, node: NODES.tool(name), input: { name, arguments: {} } }, at);
  const done = (instanceId: string, at: number, text: string) => run.next({ type: 'instance.finished', instanceId, output: { content: [{ type: 'text', text }] } }, at);
  reporter.send([
    run.started('retried-server', {}, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }, t0),
    // A quick call (50 ms), a slow one (2 s, never held), and one retried after being held 3 s.
    tool('mcp_2', t0 + 10, 'quick'),
    done('mcp_2', t0 + 60, 'quick'),
    tool('mcp_3', t0 + 100, 'slow'),
    done('mcp_3', t0 + 2100, 'slow'),
    tool('mcp_4', t0 + 3000, 'flaky'),
    done('mcp_4', t0 + 3200, 'first answer: try later'),
    run.next({ type: 'hold.opened', holdId: 'hold_r', nodeId: 'tool:flaky', instanceId: 'mcp_4', gate: 'after', method: 'tools/call', frame: { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'first answer: try later' }] } } }, t0 + 3201),
  ]);
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  const card = page.locator('.holds .hold[data-hold-id="hold_r"]');
  await card.locator('button[data-action="retry"]').click();
  t.same(await decisionFor(reporter, 'hold_r'), { type: 'decision', holdId: 'hold_r', action: 'retry' }, 'Retry from the page');
  // As the proxy does: the hold goes (held 3 s), the request is sent again, the server answers otherwise (in 300 ms).
  reporter.send([
    run.next({ type: 'hold.released', holdId: 'hold_r', action: 'retry' }, t0 + 6201),
    run.next({ type: 'instance.reopened', instanceId: 'mcp_4' }, t0 + 6202),
    done('mcp_4', t0 + 6502, 'second answer: all good'),
  ]);

  const row = '.timeline .tl[data-instance-id="mcp_4"]';
  await page.locator(`${row} .changed-badge`).waitFor({ timeout: STEP_MS });
  t.equal(await text(page, `${row} .changed-badge`), 'retried by viewer', 'the timeline row: retried by viewer');
  t.equal(await text(page, '.node[data-node-id="tool:flaky"] .node-changed'), '✎ retried by viewer', 'the graph node');
  await page.locator('.node[data-node-id="tool:flaky"]').click();
  const call = page.locator('.detail .inst[data-instance-id="mcp_4"]');
  await call.waitFor({ timeout: STEP_MS });
  t.equal(await call.locator('.inst-head .changed-badge').textContent(), 'retried by viewer', 'the call in the node detail');
  if ((await call.locator('.inst-body').count()) === 0) await call.locator('.inst-head').click();
  const diff = call.locator('.answer-diff[data-diff="attempt-1"]');
  await diff.waitFor({ timeout: STEP_MS });
  t.match(await diff.locator('summary').textContent(), /Retry: the 1st answer and the 2nd/);
  t.match(await diff.locator('.diff-title.diff-left').textContent(), /1st answer \(dropped, the request sent again\)/);
  t.match(await diff.locator('.diff-title.diff-right').textContent(), /2nd answer \(what the host got\)/);
  t.same(await texts(page, '.detail .inst[data-instance-id="mcp_4"] .answer-diff[data-diff="attempt-1"] .diff-left.diff-mark'), ['"text": "first answer: try later"'], 'attempt 1');
  t.same(await texts(page, '.detail .inst[data-instance-id="mcp_4"] .answer-diff[data-diff="attempt-1"] .diff-right.diff-mark'), ['"text": "second answer: all good"'], 'beside attempt 2');
  t.equal(await call.locator('.answer-diff[data-diff="server"]').count(), 0, 'a Retry replaced no answer of the server\'s: no server diff');
  await diff.scrollIntoViewIfNeeded();
  await shot(page, 'changes-retry-detail');

  // Held 3 s (3,201 → 6,201 ms); the client waited 3,502 ms; the server's time is the rest.
  const times = call.locator('.call-times');
  t.equal(await times.getAttribute('data-held-ms'), '3000', 'held 3 s');
  t.equal(await times.getAttribute('data-waited-ms'), '3502', 'the client waited 3.5 s');
  t.equal(await times.getAttribute('data-server-ms'), '502', 'the server\'s time: 502 ms');
  t.equal(await times.textContent(), 'server 502 msheld 3.00 sclient waited 3.50 s', 'the detail says all three, apart');
  t.equal(await call.locator('.inst-head .inst-dur').textContent(), '502 ms + 3.00 s held', 'the call\'s duration: the server\'s, the held apart');

  await page.locator('.tab[data-view="waterfall"]').click();
  const bar = page.locator('.wf-row[data-instance-id="mcp_4"]');
  await bar.waitFor({ timeout: STEP_MS });
  t.equal(await bar.locator('.changed-badge').textContent(), 'retried', 'the waterfall row has the badge');
  t.equal(await bar.locator('.wf-dur').textContent(), '502 ms', 'its time column: the server\'s 502 ms, not the 3.5 s the client waited');
  const parts = await bar.locator('.wf-bar.split .wf-part').evaluateAll((els) => els.map((el) => `${el.className}:${(el as unknown as { style: { width: string } }).style.width}`));
  // Where the hold was: between the first answer (200 ms in) and the request sent again, then the second attempt's 302 ms.
  t.same(parts, ['wf-part wf-server:5.711%', 'wf-part wf-held:85.665%', 'wf-part wf-server:8.624%'], 'its bar: the first attempt\'s 200 ms, the 3,000 ms held between the attempts, the second attempt\'s 302 ms');
  t.equal(await page.locator('.wf-row[data-instance-id="mcp_3"] .wf-bar.split').count(), 0, 'a call never held is one bar');
  const order = () => page.locator('.waterfall .wf-row').evaluateAll((els) => els.map((el) => el.getAttribute('data-instance-id')));
  t.same(await order(), ['mcp_2', 'mcp_3', 'mcp_4'], 'in start order');
  await page.locator('button[data-action="slowest"]').click();
  await page.locator('button[data-action="slowest"][aria-pressed="true"]').waitFor({ timeout: STEP_MS });
  t.same(await order(), ['mcp_3', 'mcp_4', 'mcp_2'], 'slowest first by the server\'s time: the 2 s call, then the retried one (502 ms, though the client waited 3.5 s)');
  await shot(page, 'changes-retry-waterfall');
  await page.locator('button[data-action="slowest"]').click();
  t.same(await order(), ['mcp_2', 'mcp_3', 'mcp_4'], 'and back in start order');
  t.same(realProblems(problems, t.comment), [], 'no console errors, uncaught errors or CSP violations');
});
