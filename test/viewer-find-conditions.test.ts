// The find bar speaks the condition language (issue 33), in Chromium
// against a real `graphmind serve` fed by a fake reporter:
//
//   an expression narrows the timeline and a node's calls to the calls it
//   matches (on an argument, on an error, on the server's time); plain words
//   still search text; a bad expression shows its error with a caret under
//   the character at its position, and narrows nothing; the "?" opens the
//   syntax hint; a logpoint's line shows in the timeline apart from stderr,
//   with its rule and values; a frame held by a rule names the rule, one
//   held for drift says the tool list changed. Expressions are shown as text.
import t from 'tap';
import { compileCondition } from '../src/conditions/index.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, shot, until } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

/** The run: searches (two on PAY- queries, one slow), a read that fails, a stderr line and a logpoint line. */
function theRun(run: RunEvents, start: number): RunEvent[] {
  const call = (n: number, tool: string, args: Record<string, unknown>, ms: number, fail = false): RunEvent[] => {
    const at = start + n * 1000;
    const instanceId = `mcp_${n}`;
    const begin = run.next({ type: 'instance.started', instanceId, node: NODES.tool(tool), input: { name: tool, arguments: args } }, at);
    const end = fail
      ? run.next({ type: 'instance.error', instanceId, error: { name: 'JsonRpcError', message: 'no such file', code: -32602 } }, at + ms)
      : run.next({ type: 'instance.finished', instanceId, output: { content: [{ type: 'text', text: `${tool} ok ${n}` }] } }, at + ms);
    return [begin, end];
  };
  return [
    run.started('cond-server', { serverInfo: { name: 'cond-server', version: '1.0.0' } }, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session() }, start),
    ...call(2, 'search', { q: 'PAY-17 refund' }, 5),
    ...call(3, 'search', { q: 'weather' }, 5),
    ...call(4, 'search', { q: 'pay-99' }, 2500),
    ...call(5, 'read', { path: '/etc/passwd' }, 5, true),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'a stderr line' }, start + 5500),
    run.next({ type: 'log', nodeId: 'tool:search', instanceId: 'mcp_2', stream: 'logpoint', text: 'rule-1: $.params.arguments.q = "PAY-17 refund"', ruleId: 'rule-1', values: [{ at: '$.params.arguments.q', value: 'PAY-17 refund' }] } as unknown as RunEvent, start + 5600),
  ];
}

t.test('the find bar: expressions, their mistakes, logpoint lines, rule holds', async (t) => {
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const start = Date.now() - 60_000;
  const run = new RunEvents(runId('cond'), start);
  reporter.send(theRun(run, start));
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  const head = page.locator('.timeline .pane-head');
  await until(page, `document.querySelector('.timeline .pane-head')?.textContent?.includes('4 calls · 2 log lines')`, 'the run');
  const find = page.getByRole('searchbox', { name: 'find calls' });
  const shownCalls = async (): Promise<string[]> => page.locator('.timeline .tl-call').evaluateAll((nodes) => nodes.map((n) => (n as unknown as { getAttribute(name: string): string }).getAttribute('data-instance-id')));

  // A logpoint's line: apart from stderr, with its rule and the value it looked at.
  const lp = page.locator('.timeline .tl-logpoint');
  await lp.waitFor();
  t.equal(await lp.getAttribute('data-rule-id'), 'rule-1', 'the logpoint line names its rule');
  t.match(await lp.textContent(), /logpoint.*rule-1.*mcp_2.*\$\.params\.arguments\.q = "PAY-17 refund"/, 'its tag, rule, call and value');
  t.equal(await page.locator('.timeline .tl-log:not(.tl-logpoint)').count(), 1, 'the stderr line is a row of its own kind');

  // An expression on an argument: a case-insensitive regular expression.
  await find.fill('tool:search and $.params.arguments.q ~ "pay-"');
  await until(page, `/2 of 4 calls/.test(document.querySelector('.timeline .pane-head')?.textContent ?? '')`, 'the PAY- searches');
  t.same(await shownCalls(), ['mcp_2', 'mcp_4'], 'only the searches whose query matches');
  t.equal(await page.locator('.timeline .tl-logpoint').count(), 1, 'with the logpoint line of a call it shows');
  t.equal(await page.locator('.timeline .tl-log:not(.tl-logpoint)').count(), 0, 'not the stderr line, which is about no call shown');
  t.equal(await page.locator('.cond-bar .cond-badge').textContent(), 'expression', 'the bar says it reads an expression');
  t.equal(await page.locator('.find-text.cond').count(), 1, 'and the box shows it');
  // The node's list narrows too.
  await page.locator('.node[data-node-id="tool:search"]').click();
  await page.locator('.detail-title', { hasText: 'search' }).waitFor();
  t.match(await page.locator('.detail .find-note').textContent(), /^2 of 3 calls match the find bar/, 'a node’s calls narrow as the timeline does');

  // The server's time, and errors.
  await find.fill('dur>2s');
  await until(page, `/1 of 4 calls/.test(document.querySelector('.timeline .pane-head')?.textContent ?? '')`, 'the slow call');
  t.same(await shownCalls(), ['mcp_4'], 'dur>2s: the slow search only');
  await find.fill('is:error or resource:*');
  // Also one call of four, as before: wait for the one this filter shows.
  await until(page, `/1 of 4 calls/.test(document.querySelector('.timeline .pane-head')?.textContent ?? '') && document.querySelector('.timeline .tl-call')?.getAttribute('data-instance-id') === 'mcp_5'`, 'the failed call');
  t.same(await shownCalls(), ['mcp_5'], 'is:error: the failed read');

  // Plain words search text as before.
  await find.fill('weather');
  await until(page, `/1 of 4 calls/.test(document.querySelector('.timeline .pane-head')?.textContent ?? '') && document.querySelector('.timeline .tl-call')?.getAttribute('data-instance-id') === 'mcp_3'`, 'the words');
  t.same(await shownCalls(), ['mcp_3'], 'words are a text search');
  t.equal(await page.locator('.cond-bar .cond-badge').count(), 0, 'with no expression badge');

  // A mistake: its message, and a caret under the character where it is; the list is not narrowed.
  const bad = 'tool:search and ($.params.arguments.q ~ "PAY-" or';
  const compiled = compileCondition(bad);
  t.notOk(compiled.ok, 'the expression is bad');
  const position = compiled.ok ? -1 : compiled.position;
  await find.fill(bad);
  const error = page.locator('.cond-bar .cond-error');
  await error.waitFor();
  await shot(page, 'find-expression-error');
  t.equal(await error.getAttribute('data-position'), String(position), 'the error carries the position the language gives');
  t.match(await error.locator('.cond-error-message').textContent(), new RegExp(`\\(at character ${position + 1}\\)$`), 'and says it in words');
  const caret = (await error.locator('.cond-caret').textContent()) ?? '';
  const before = (await error.locator('.cond-error-text span').first().textContent()) ?? '';
  t.equal(caret.indexOf('^'), before.length, 'the caret sits under the marked character');
  t.equal(await page.locator('.find-text.invalid[aria-invalid="true"]').count(), 1, 'the box is marked invalid');
  await until(page, `/^Timeline\\s*Waterfall\\s*4 calls · 2 log lines$/.test(document.querySelector('.timeline .pane-head')?.textContent ?? '')`, 'nothing narrowed');
  t.pass('a bad expression narrows nothing');
  t.equal(await page.locator('button[data-action="break-when"]').count(), 0, 'and offers no Break when');

  // Text, never markup: an expression with tags in it stays text.
  await find.fill('$.params.arguments.q == "<img src=x onerror=alert(1)>"');
  await until(page, `/0 of 4 calls/.test(document.querySelector('.timeline .pane-head')?.textContent ?? '')`, 'no match');
  t.equal(await page.locator('img').count(), 0, 'no element made from the expression');

  // The syntax hint.
  await page.locator('button[data-action="condition-help"]').click();
  const help = page.getByTestId('condition-help');
  await help.waitFor();
  t.match(await help.textContent(), /docs\/conditions\.md/, 'the hint points to the language’s page');
  t.match(await help.textContent(), /dur>500ms/, 'with the atoms');
  await find.fill('');
  await until(page, `/^Timeline\\s*Waterfall\\s*4 calls · 2 log lines$/.test(document.querySelector('.timeline .pane-head')?.textContent ?? '')`, 'everything again');
  t.match(await head.textContent(), /4 calls/, 'clearing the box shows everything');

  // A frame held by a rule names the rule (and its expression, from the breakpoints); drift says the tool list changed.
  reporter.send([
    run.next({ type: 'hold.opened', holdId: 'hold_r1', nodeId: 'tool:search', instanceId: 'mcp_3', gate: 'before', method: 'tools/call', frame: { jsonrpc: '2.0', id: 9, method: 'tools/call' }, reason: 'rule', ruleId: 'rule-7' } as unknown as RunEvent),
    run.next({ type: 'hold.opened', holdId: 'hold_d1', nodeId: 'tool:search', instanceId: 'mcp_4', gate: 'after', method: 'tools/list', frame: { jsonrpc: '2.0', id: 10, result: { tools: [] } }, reason: 'drift' }),
  ]);
  const card = page.locator('.hold[data-hold-id="hold_r1"]');
  await card.waitFor();
  t.equal(await card.getAttribute('data-reason'), 'rule', 'the hold’s reason');
  t.match(await card.locator('.reason').textContent(), /rule rule-7/, 'the badge names the rule');
  t.match(await card.locator('.hold-why').textContent(), /Rule: rule-7/, 'and the sentence under it');
  const drift = page.locator('.hold[data-hold-id="hold_d1"]');
  await drift.waitFor();
  t.match(await drift.locator('.reason').textContent(), /the tool list changed/, 'a drift hold says the tool list changed');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
