// A screenshot of the viewer during a session with a held frame, for the
// README: docs/viewer.png. The session is what the proxy would report for a
// small task-tracker server; the hold comes from a reporter at the before gate.
// Every run takes the screenshot and checks it; only
// GRAPHMIND_UPDATE_SCREENSHOT=1 writes it over docs/viewer.png, so that a
// test run does not leave the working tree changed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, decisionFor, holdingReporter } from './helpers/viewer.js';

const UPDATE = process.env.GRAPHMIND_UPDATE_SCREENSHOT === '1';
const scratch = UPDATE ? undefined : mkdtempSync(join(tmpdir(), 'graphmind-screenshot-'));
const SCREENSHOT = scratch === undefined ? fileURLToPath(new URL('../docs/viewer.png', import.meta.url)) : join(scratch, 'viewer.png');
if (scratch !== undefined) t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

t.test('a session with a held frame, as a developer sees it', async (t) => {
  const reporter = await holdingReporter(server.port, server.token, t);
  const id = runId('tracker');
  const run = new RunEvents(id, Date.now() - 42_000);
  const session = NODES.session('node server.js');
  const list = NODES.tool('list_tasks');
  const get = NODES.tool('get_task');
  const update = NODES.tool('update_task');
  const readme = { nodeId: 'resource:file:///srv/tracker/README.md', kind: 'resource', parent: 'mcp:session', label: 'file:///srv/tracker/README.md' } as const;
  const tasks = [
    { id: 'PAY-101', title: 'Retry failed card payments', status: 'in_progress' },
    { id: 'PAY-102', title: 'Refund flow for partial captures', status: 'open' },
  ];
  reporter.send([
    run.started('node server.js', { command: 'node', args: ['/home/dev/tracker/build/server.js'], serverInfo: { name: 'tracker', version: '0.3.1' }, clientInfo: { name: 'claude-code', version: '2.1.0' }, protocolVersion: '2025-06-18' }, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: session, input: { command: 'node', args: ['/home/dev/tracker/build/server.js'] } }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'tracker: connected to sqlite at /srv/tracker/tasks.db' }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.protocol }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: NODES.proto('initialize'), input: { protocolVersion: '2025-06-18', clientInfo: { name: 'claude-code' } } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_3', output: { protocolVersion: '2025-06-18', serverInfo: { name: 'tracker', version: '0.3.1' } } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_4', node: NODES.proto('notifications/initialized') }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_4' }),
    run.next({ type: 'instance.started', instanceId: 'mcp_5', node: NODES.proto('tools/list') }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_5', output: { tools: [{ name: 'list_tasks' }, { name: 'get_task' }, { name: 'update_task' }] } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_6', node: list, input: { name: 'list_tasks', arguments: { status: 'open' } } }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'list_tasks: 2 rows in 3 ms' }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_6', output: { content: [{ type: 'text', text: JSON.stringify(tasks) }], structuredContent: { tasks } } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_7', node: readme, input: { uri: 'file:///srv/tracker/README.md' } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_7', output: { contents: [{ uri: 'file:///srv/tracker/README.md', text: '# Tracker' }] } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_8', node: get, input: { name: 'get_task', arguments: { id: 'PAY-102' } } }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: "get_task: TypeError: Cannot read properties of undefined (reading 'status')" }),
    run.next({ type: 'instance.error', instanceId: 'mcp_8', output: { content: [{ type: 'text', text: 'task lookup failed' }], isError: true }, error: { name: 'ToolError', message: 'task lookup failed' } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_9', node: list, input: { name: 'list_tasks', arguments: { status: 'in_progress' } } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_9', output: { content: [{ type: 'text', text: JSON.stringify(tasks.slice(0, 1)) }] } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_10', node: update, input: { name: 'update_task', arguments: { id: 'PAY-102', status: 'blocked' } } }),
    run.next({
      type: 'hold.opened',
      holdId: 'h_update_1',
      nodeId: update.nodeId,
      instanceId: 'mcp_10',
      gate: 'before',
      method: 'tools/call',
      frame: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'update_task', arguments: { id: 'PAY-102', status: 'blocked' } } },
    }),
  ]);
  await api(server.port, server.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: { 'tool:update_task': { before: true } } });

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url, { width: 1440, height: 900 });
  await page.locator('.hold[data-hold-id="h_update_1"]').waitFor();
  await page.locator('.node.held[data-node-id="tool:update_task"]').waitFor();
  await page.locator('.detail .inst[data-instance-id="mcp_10"] .inst-body').waitFor();
  await page.locator('.bp[data-node-id="tool:update_task"]').waitFor();
  // Let the animations settle on a visible frame.
  await page.evaluate('document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 0; })');
  await page.screenshot({ path: SCREENSHOT });

  const png = readFileSync(SCREENSHOT);
  t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the screenshot is a PNG');
  t.equal(png.readUInt32BE(16), 1440, 'as wide as the viewport');
  t.equal(png.readUInt32BE(20), 900, 'and as high');
  t.ok(png.length > 30_000, 'with something on it');

  // The hold in the picture is real: continuing it reaches the reporter.
  await page.locator('.hold[data-hold-id="h_update_1"] button[data-action="continue"]').click();
  t.equal((await decisionFor(reporter, 'h_update_1')).action, 'continue');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
