// Whose line it was, in a real browser (issue 30): a call's row in the node
// detail lists the lines the server printed while it was the only call in
// flight (a stderr line attributed to it, LogLine.instanceId; stdout noise
// naming it in its error data), a line that comes while the row is open
// is drawn, and the timeline still shows every line in order. A line on
// the session is on no call's row.
import t from 'tap';
import type { Locator } from 'playwright-core';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, until } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

const text = async (locator: Locator): Promise<string> => ((await locator.textContent()) ?? '').trim();

t.test('a call\'s row lists its own lines; the timeline keeps them all', async (t) => {
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.conn-live').waitFor();

  const id = runId('lines');
  const run = new RunEvents(id);
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  reporter.send([
    run.started('greeter', { command: 'node', args: ['server.js'] }, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session('node server.js') }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'server up' }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('greet'), input: { name: 'greet', arguments: { name: 'Ada' } } }),
    run.next({ type: 'log', nodeId: 'tool:greet', instanceId: 'mcp_2', stream: 'stderr', text: 'greet: looking up Ada' }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: NODES.protocol }),
    run.next({ type: 'instance.started', instanceId: 'mcp_4', node: NODES.noise, input: 'greet: debug output' }),
    run.next({
      type: 'instance.error',
      instanceId: 'mcp_4',
      error: { name: 'StdoutNoise', message: 'the server wrote a line to stdout that is not JSON-RPC', data: { during: { nodeId: 'tool:greet', instanceId: 'mcp_2' } } },
    }),
  ]);

  const greet = page.locator('.node[data-node-id="tool:greet"]');
  await greet.waitFor({ timeout: 10_000 });
  await greet.click();
  const row = page.locator('.detail .inst[data-instance-id="mcp_2"]');
  // Choosing a node opens its last call.
  await row.locator('.inst-body').waitFor();
  const lines = row.locator('.call-lines');
  await lines.waitFor();
  t.match(await text(lines.locator('.call-lines-title')), /only call in flight: 2 lines/);
  t.same(
    await lines.locator('.call-line').evaluateAll((items) => items.map((item) => [item.querySelector('.tl-tag')?.textContent, item.querySelector('.tl-text')?.textContent])),
    [
      ['stderr', 'greet: looking up Ada'],
      ['stdout', 'greet: debug output'],
    ],
    'its stderr line and its stdout noise, in order',
  );
  t.notMatch(await text(lines), /server up/, 'a line on the session is not the call\'s');

  // A line that comes while the row is open is drawn in it.
  reporter.send([run.next({ type: 'log', nodeId: 'tool:greet', instanceId: 'mcp_2', stream: 'stderr', text: 'greet: done' })]);
  await until(page, `document.querySelectorAll('.detail .inst[data-instance-id="mcp_2"] .call-line').length === 3`, 'the new line in the open row');
  t.match(await text(lines.locator('.call-line').last()), /greet: done/);

  const timeline = await page.locator('.timeline .tl-log .tl-text').allTextContents();
  for (const line of ['server up', 'greet: looking up Ada', 'greet: done']) t.ok(timeline.includes(line), `the timeline still shows "${line}"`);
  t.same(realProblems(problems, (line) => t.comment(line)), [], 'no console errors, page errors or CSP violations');
});
