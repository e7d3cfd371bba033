// A large run: 10,000 executions on 200 nodes and 2,000 log lines. It arrives
// live in a few big batches, loads cold after a reload, and its long lists
// scroll to the end while only the rows in view exist in the page.
import t from 'tap';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, inPage, scrollTo, until } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

const INSTANCES = 10_000;
const NODE_COUNT = 200;
const HOT_CALLS = 5_000;

/** The events of the large run, in four batches. */
function largeRun(id: string): { batches: RunEvent[][]; lastHot: string; lastInstance: string; lastLog: string } {
  const run = new RunEvents(id, Date.now() - 600_000);
  const fixed: NodeDeclaration[] = [NODES.session('node big-server.js'), NODES.protocol, NODES.proto('initialize'), NODES.proto('tools/list')];
  const tools: NodeDeclaration[] = [NODES.tool('hot')];
  for (let i = 1; tools.length + fixed.length < NODE_COUNT; i++) tools.push(NODES.tool(`tool_${String(i).padStart(3, '0')}`));
  const events: RunEvent[] = [run.started('big-server', { command: 'node', args: ['big-server.js'] }, 'mcp-proxy')];
  let n = 0;
  for (const node of fixed) {
    n++;
    events.push(run.next({ type: 'instance.started', instanceId: `mcp_${n}`, node, input: { method: node.label } }));
    if (node.nodeId !== 'mcp:session' && node.nodeId !== 'mcp:protocol') events.push(run.next({ type: 'instance.finished', instanceId: `mcp_${n}`, output: { ok: true } }));
  }
  let hot = 0;
  let lastHot = '';
  let logs = 0;
  let lastLog = '';
  while (n < INSTANCES) {
    n++;
    const instanceId = `mcp_${n}`;
    // Every other call, and all of the last ones if that falls short: exactly HOT_CALLS.
    const useHot = hot < HOT_CALLS && (n % 2 === 0 || INSTANCES - n < HOT_CALLS - hot);
    const node = useHot ? (tools[0] as NodeDeclaration) : (tools[1 + (n % (tools.length - 1))] as NodeDeclaration);
    if (useHot) {
      hot++;
      lastHot = instanceId;
    }
    events.push(run.next({ type: 'instance.started', instanceId, node, input: { name: node.label, arguments: { n, text: `request number ${n}` } } }));
    if (n % 5 === 0) {
      logs++;
      lastLog = `log line ${logs} about ${instanceId}`;
      events.push(run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: lastLog }));
    }
    if (n % 7 === 0) events.push(run.next({ type: 'instance.error', instanceId, error: { name: 'JsonRpcError', message: `failed ${n}`, code: -32603 } }));
    else events.push(run.next({ type: 'instance.finished', instanceId, output: { content: [{ type: 'text', text: `answer ${n}` }] } }));
  }
  const size = Math.ceil(events.length / 4);
  const batches = [0, 1, 2, 3].map((i) => events.slice(i * size, (i + 1) * size));
  return { batches, lastHot, lastInstance: `mcp_${n}`, lastLog };
}

t.test('10,000 instances on 200 nodes: live, cold, and scrolling', async (t) => {
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.empty-state').waitFor();
  const id = runId('large');
  const { batches, lastHot, lastInstance, lastLog } = largeRun(id);
  t.equal(batches.flat().filter((e) => e.type === 'instance.started').length, INSTANCES, '10,000 instances in the run');

  // Live: the run arrives while the page is open.
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const liveStart = Date.now();
  for (const batch of batches) reporter.send(batch);
  await page.locator('.node[data-node-id="mcp:session"]').waitFor({ timeout: 30_000 });
  const liveFirst = Date.now() - liveStart;
  // 10,000 instances, of which the session and the protocol card are not calls (the timeline does not count them).
  await until(page, `document.querySelector('.timeline .pane-head')?.textContent?.includes('9,998 calls')`, 'all 10,000 instances live', 60_000);
  const liveAll = Date.now() - liveStart;
  t.comment(`live: first render ${liveFirst} ms after the first batch was sent; all 10,000 instances shown after ${liveAll} ms`);

  // Cold: reload and load the whole run from the API.
  const coldStart = Date.now();
  await page.reload();
  await until(page, `document.querySelectorAll('.graph .node').length >= 5`, 'the graph after a reload', 30_000);
  const coldFirst = Date.now() - coldStart;
  const mark = await inPage<number>(page, `performance.getEntriesByName('graphmind:first-run-render')[0]?.startTime ?? -1`);
  t.ok(mark > 0, 'the page marks its first render of a run');
  t.comment(`cold: time to first render of the 10,000-instance run ${Math.round(mark)} ms after navigation start (${coldFirst} ms wall clock from reload)`);
  t.match((await page.locator('.timeline .pane-head').textContent()) ?? '', /9,998 calls · 2,000 log lines/, 'the timeline counts every call and log line (the session and the protocol card are not calls)');

  // The graph: 200 nodes (the protocol card folded holds two of them).
  await page.locator('.node[data-node-id="mcp:protocol"]').click();
  await until(page, `document.querySelectorAll('.graph .node').length === ${NODE_COUNT}`, 'every node drawn once unfolded', 10_000);
  t.equal(await page.locator('.graph .node').count(), NODE_COUNT, '200 node cards');
  t.match((await page.locator('.node[data-node-id="tool:hot"] .count').textContent()) ?? '', /×5000/, 'the hot tool counts its 5,000 calls');

  // The hot node's 5,000 instances: only rows in view exist; scroll to the end.
  await page.locator('.node[data-node-id="tool:hot"]').click();
  const list = page.locator('.detail .vlist');
  await page.locator('.detail .inst').first().waitFor();
  await scrollTo(list, 'top');
  await page.locator('.detail .inst[data-instance-id="mcp_6"]').waitFor();
  const rowsAtTop = await page.locator('.detail .inst').count();
  t.ok(rowsAtTop > 0 && rowsAtTop < 100, `only the rows in view are in the page (${rowsAtTop} of 5,000)`);
  t.equal(await page.locator(`.detail .inst[data-instance-id="${lastHot}"]`).count(), 0, 'the last one is not, at the top');
  const scrollStart = Date.now();
  await scrollTo(list, 'bottom');
  await page.locator(`.detail .inst[data-instance-id="${lastHot}"]`).waitFor({ state: 'visible' });
  t.comment(`scrolled 5,000 instances to the end in ${Date.now() - scrollStart} ms`);
  t.match((await page.locator(`.detail .inst[data-instance-id="${lastHot}"] .inst-n`).textContent()) ?? '', /#5000/, 'the last instance, numbered 5000');
  t.ok((await page.locator('.detail .inst').count()) < 100, 'still only the rows in view');

  // The timeline: 12,000 rows, scroll to the top and back to the end.
  const timeline = page.locator('.timeline .vlist');
  await scrollTo(timeline, 'top');
  await page.locator('.timeline .tl[data-instance-id="mcp_1"]').waitFor();
  t.equal(await page.locator(`.timeline .tl[data-instance-id="${lastInstance}"]`).count(), 0, 'the timeline’s end is not drawn at its top');
  await scrollTo(timeline, 'bottom');
  await page.locator(`.timeline .tl[data-instance-id="${lastInstance}"]`).waitFor({ state: 'visible' });
  t.ok(await page.locator('.timeline .tl-log', { hasText: lastLog }).isVisible(), 'the last log line is at the end of the timeline');
  t.ok((await page.locator('.timeline .tl').count()) < 150, 'the timeline draws only the rows in view');

  // Still responsive: a click on another node answers quickly.
  const clickStart = Date.now();
  await page.locator('.node[data-node-id="tool:tool_001"]').click();
  await page.locator('.detail-title', { hasText: 'tool_001' }).waitFor();
  t.comment(`switching nodes took ${Date.now() - clickStart} ms`);
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
