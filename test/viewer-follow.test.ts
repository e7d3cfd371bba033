// The timeline follows the end of a live run while you are at its bottom,
// also when the new rows turn out taller than a line (wrapped stderr): they
// are measured after they are laid out, and the end they push down is
// followed, instead of the list staying where the estimate put it.
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, fakeReporter, runId, startServe } from './helpers/serve.js';
import { NODES, inPage, until } from './helpers/viewer.js';

t.test('the timeline keeps the newest row in view as tall rows arrive', async (t) => {
  const server = await startServe();
  t.teardown(() => server.stop());
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const run = new RunEvents(runId('follow'));
  reporter.send([run.started('follow'), run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session('follow') })]);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.timeline .vlist').waitFor();
  const atBottom = `(() => { const e = document.querySelector('.timeline .vlist'); return e !== null && e.scrollTop + e.clientHeight >= e.scrollHeight - 8; })()`;
  t.ok(await inPage<boolean>(page, atBottom), 'the timeline starts at its bottom');

  // Lines that wrap to several rows of text, one message at a time, as a server logs.
  const words = 'a long line of stderr that wraps across the width of the timeline '.repeat(4);
  for (let i = 1; i <= 60; i++) {
    reporter.send([run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: `line ${i}: ${words}` })]);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  const lastDrawn = `document.querySelector('.timeline')?.textContent?.includes('line 60:') === true`;
  await until(page, lastDrawn, 'the last line in view', 5000).catch(() => {});
  t.ok(await inPage<boolean>(page, lastDrawn), 'the newest line is drawn: the list is where the run ends');
  const tall = await inPage<number>(page, `Math.max(...[...document.querySelectorAll('.timeline .vrow')].map((row) => row.offsetHeight))`);
  t.ok(tall > 30, `the rows are taller than one line of text (${tall} px)`);
  t.ok(await inPage<boolean>(page, atBottom), 'and the timeline is still at its bottom');
  t.same(realProblems(problems, t.comment.bind(t)), [], 'no console errors, page errors or CSP violations');
});
