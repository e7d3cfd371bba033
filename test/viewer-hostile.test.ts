// Hostile content: a server whose names, labels, tool output, errors, stderr
// and held frames carry markup. The page shows all of it as text, no script
// runs, no element is made from it, and a javascript: URL is not a link.
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, holdingReporter, inPage } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

const IMG = '<img src=x onerror=window.__pwned=1>';
const SCRIPT = '<script>window.__pwned=1</script>';
const BOTH = `${IMG}${SCRIPT}`;

t.test('markup from the server is text, and nothing runs', async (t) => {
  const reporter = await holdingReporter(server.port, server.token, t);
  const run = new RunEvents(runId('hostile'));
  const tool = { nodeId: `tool:${BOTH}`, kind: 'tool', parent: 'mcp:session', label: BOTH } as const;
  reporter.send([
    run.started(`name ${BOTH}`, { command: BOTH, homepage: 'javascript:window.__pwned=1', docs: 'https://example.com/docs', serverInfo: { name: IMG, version: SCRIPT } }, `source ${SCRIPT}`),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session(`session ${IMG}`) }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: tool, input: { name: BOTH, arguments: { html: BOTH } } }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: `stderr ${BOTH}` }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { content: [{ type: 'text', text: `output ${BOTH}` }] } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: tool, input: { name: BOTH } }),
    run.next({ type: 'instance.error', instanceId: 'mcp_3', error: { name: `Error${IMG}`, message: `message ${BOTH}`, data: BOTH } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_4', node: NODES.protocol }),
    run.next({ type: 'instance.started', instanceId: 'mcp_5', node: NODES.noise, input: `noise ${BOTH}` }),
    run.next({ type: 'instance.error', instanceId: 'mcp_5', error: { name: 'StdoutNoise', message: 'not JSON-RPC' } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_6', node: tool, input: { name: BOTH } }),
    run.next({ type: 'hold.opened', holdId: 'hostile_hold', nodeId: tool.nodeId, instanceId: 'mcp_6', gate: 'after', method: `tools/call${IMG}`, frame: { jsonrpc: '2.0', id: 1, result: { text: BOTH } } }),
  ]);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  const card = page.locator('.node[data-node-id^="tool:<img"]');
  await card.waitFor();
  await page.locator('.hold[data-hold-id="hostile_hold"]').waitFor();
  await card.click();
  await page.locator('.detail .inst[data-instance-id="mcp_2"] .inst-head').click();
  await page.locator('.detail .inst[data-instance-id="mcp_2"] .inst-body').waitFor();
  await page.locator('.detail .inst[data-instance-id="mcp_3"] .inst-head').click();
  await page.locator('.detail .inst[data-instance-id="mcp_3"] .inst-body').waitFor();
  t.match((await page.locator('.detail .inst[data-instance-id="mcp_2"] details.json-block', { hasText: 'output' }).locator('pre').textContent()) ?? '', `output ${BOTH}`, 'the tool output, as text');
  t.match((await page.locator('.detail .inst[data-instance-id="mcp_3"] details.json-block.error pre').textContent()) ?? '', 'Error<img src=x onerror=window.__pwned=1>', 'the error, as text');
  await page.locator('.node[data-node-id="mcp:protocol"]').click();
  await page.locator('.node[data-node-id="mcp:stdout-noise"]').click();
  await page.locator('.detail .inst[data-instance-id="mcp_5"] .inst-body').waitFor();
  await page.locator('.hold button[data-action="inject"]').click();
  await page.locator('.overlay .inject-text').waitFor();
  await page.waitForTimeout(300);

  const text = (await page.locator('body').textContent()) ?? '';
  t.match(text, `name ${BOTH}`, 'the run name, as text');
  t.match(text, `stderr ${BOTH}`, 'stderr, as text');
  t.match(text, `noise ${BOTH}`.replace(/"/g, '\\"'), 'stdout noise, as text');
  t.match(text, `message ${BOTH}`, 'the error message, as text');
  t.match(text, `tools/call${IMG}`, 'the held method, as text');
  t.match(text, `session ${IMG}`, 'a node label, as text');
  t.match(await page.locator('.overlay .inject-text').inputValue(), BOTH, 'the editor shows the held result as text');

  t.equal(await inPage(page, 'window.__pwned'), undefined, 'no script ran');
  t.equal(await page.locator('img').count(), 0, 'no image was created from data');
  t.equal(await page.locator('script').count(), 1, 'the only script is the viewer’s');
  t.equal(await inPage(page, '[...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length'), 0, 'no element has an event-handler attribute');
  t.equal(await page.locator('a[href^="javascript:"]').count(), 0, 'a javascript: URL is not a link');
  t.equal(await page.locator('a[href="https://example.com/docs"]').count(), 1, 'an https: URL is');
  t.equal(await page.locator('a[href="https://example.com/docs"]').getAttribute('rel'), 'noopener noreferrer');
  t.match(await inPage<string>(page, 'document.title'), /GraphMind/, 'the title is ours');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors or CSP violations (nothing even tried to load)');
});
