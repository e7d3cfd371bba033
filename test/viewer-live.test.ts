// The viewer in a real browser, live: the bare URL loads under the strict CSP
// without a console error, shows the proxy recipe while there is no run, then
// a real proxy session appears as it happens (no reload), with the folded
// protocol card; and a run with failures, an unanswered request, stdout noise
// and stderr shows each the way a developer needs to see it.
import t from 'tap';
import { CLI, PROXY_FIXTURES, startProxy, waitFor } from './helpers/cli.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, computed, inPage, rowTexts, until } from './helpers/viewer.js';

let server: ServeProcess;
t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

const line = (message: unknown): string => `${JSON.stringify(message)}\n`;

t.test('the page goes from the empty state to a live session, and shows what happened', async (t) => {
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'the bare URL, no token in it');

  // Empty state, with the recipe.
  await page.locator('.empty-state').waitFor({ state: 'visible' });
  const recipe = (await page.locator('.empty-state').textContent()) ?? '';
  t.match(recipe, /mcp-proxy/, 'the recipe names the proxy');
  t.match(recipe, /claude mcp add/, 'and how to add it to Claude Code');
  t.match(recipe, new RegExp(`--port ${server.port}`), 'with this server’s port, since it is not the default');
  t.match(recipe, /"mcpServers"/, 'and a config-file entry');
  t.ok(recipe.includes(`node ${CLI} mcp-proxy --port ${server.port}`), 'naming this installation\'s own CLI, as the package is not on npm yet');
  await page.locator('.conn-live').waitFor();
  await inPage(page, 'window.__sameDocument = true');

  // A real session through the real proxy.
  const env: NodeJS.ProcessEnv = { ...process.env, GRAPHMIND_DATA_DIR: server.dataDir };
  delete env.GRAPHMIND_TOKEN;
  const proxy = startProxy(['--port', String(server.port)], ['node', `${PROXY_FIXTURES}echo-server.mjs`], { env });
  t.teardown(() => {
    proxy.child.kill('SIGKILL');
  });
  proxy.child.stdin.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'viewer-test', version: '1' } } }));
  await waitFor(() => proxy.stdout().toString().includes('"id":1'), 10_000, 'the initialize answer');
  proxy.child.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  proxy.child.stdin.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
  proxy.child.stdin.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello from the test' } } }));
  await waitFor(() => proxy.stdout().toString().includes('"id":3'), 10_000, 'the tools/call answer');

  await page.locator('.node[data-node-id="tool:echo"][data-status="ok"]').waitFor({ timeout: 10_000 });
  t.equal(await inPage(page, 'window.__sameDocument'), true, 'the run appeared without a reload');
  t.ok(await page.locator('.empty-state').isHidden(), 'the empty state is gone');
  const protocol = page.locator('.node[data-node-id="mcp:protocol"]');
  await until(page, `document.querySelector('.node[data-node-id="mcp:protocol"]')?.getAttribute('data-calls') === '3'`, 'three protocol calls');
  t.equal(await protocol.getAttribute('aria-expanded'), 'false', 'the protocol card is folded');
  t.match((await protocol.textContent()) ?? '', /3 calls inside/, 'with a count of the calls inside');
  t.equal(await page.locator('.node[data-node-id="mcp:initialize"]').count(), 0, 'its calls are not drawn while folded');
  await protocol.click();
  await page.locator('.node[data-node-id="mcp:initialize"]').waitFor();
  t.equal(await page.locator('.node[data-node-id="mcp:tools/list"]').count(), 1, 'unfolded, it shows tools/list');
  t.equal(await page.locator('.node[data-node-id="mcp:protocol"]').getAttribute('aria-expanded'), 'true');
  const proxyRun = page.locator('.run[data-status="running"]');
  t.match((await proxyRun.textContent()) ?? '', /mcp-proxy/, 'the run list shows the source');
  t.match((await page.locator('.timeline').textContent()) ?? '', /echo-server: \{/, 'the server’s stderr is in the timeline');

  proxy.child.stdin.end();
  await proxy.exited;
  await page.locator('.run[data-status="ok"]').waitFor({ timeout: 10_000 });
  t.equal(await page.locator('.node[data-node-id="mcp:session"]').getAttribute('data-status'), 'ok', 'the session node is ok once the server exits cleanly');

  // A run with everything that can go wrong, from a reporter.
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const id = runId('mixed');
  const run = new RunEvents(id);
  const echoOutput = { content: [{ type: 'text', text: 'hi' }], structuredContent: { nested: { list: [1, 2, 3], flag: true } } };
  reporter.send([
    run.started('mixed-server', { command: 'node', args: ['mixed.js'], serverInfo: { name: 'mixed', version: '2.0.0' } }, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session('node mixed.js') }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.protocol }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: NODES.proto('initialize'), input: { protocolVersion: '2025-06-18' } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_3', output: { serverInfo: { name: 'mixed' } } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_4', node: NODES.noise, input: 'console.log debugging "x"' }),
    run.next({ type: 'instance.error', instanceId: 'mcp_4', error: { name: 'StdoutNoise', message: 'the server wrote a line to stdout that is not JSON-RPC' } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_5', node: NODES.tool('echo'), input: { name: 'echo', arguments: { text: 'hi' } } }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'echo handler: got hi' }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_5', output: echoOutput }),
    run.next({ type: 'instance.started', instanceId: 'mcp_6', node: NODES.tool('broken'), input: { name: 'broken', arguments: {} } }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'broken handler: TypeError: x is undefined' }),
    run.next({ type: 'instance.error', instanceId: 'mcp_6', error: { name: 'JsonRpcError', message: 'Internal error', code: -32603 } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_7', node: NODES.tool('slow'), input: { name: 'slow', arguments: {} } }),
  ]);

  const broken = page.locator('.node[data-node-id="tool:broken"]');
  // The live feed may draw the batch in more than one frame: wait for its last event, then for the failure.
  await page.locator('.node[data-node-id="tool:slow"]').waitFor({ timeout: 10_000 });
  await page.locator('.node[data-node-id="tool:broken"][data-status="error"]').waitFor({ timeout: 10_000 }).catch(() => {});
  t.equal(await broken.getAttribute('data-status'), 'error', 'the failed tool is in error');
  const red = await computed(broken, 'border-left-color');
  t.equal(red, 'rgb(220, 38, 38)', 'and drawn red');
  const slow = page.locator('.node[data-node-id="tool:slow"]');
  t.equal(await slow.getAttribute('data-status'), 'open', 'the unanswered request is open');
  t.match((await slow.textContent()) ?? '', /no answer yet/, 'visibly');
  t.equal(await computed(slow, 'border-top-style'), 'dashed', 'with a dashed border');
  const card = page.locator('.node[data-node-id="mcp:protocol"]');
  t.equal(await card.getAttribute('aria-expanded'), 'false', 'a new run starts with its protocol card folded');
  t.equal(await card.getAttribute('data-status'), 'error', 'stdout noise inside turns the folded card red');
  t.match((await card.textContent()) ?? '', /2 calls inside · 1 failed/);
  t.equal(await page.locator('.node[data-node-id="mcp:session"]').getAttribute('data-status'), 'open', 'the running session is open');

  // Node detail: instances, pretty JSON, copy.
  await page.locator('.node[data-node-id="tool:echo"]').click();
  const detail = page.locator('.detail');
  await detail.locator('.inst[data-instance-id="mcp_5"] .inst-body').waitFor();
  const outputText = await detail.locator('.inst[data-instance-id="mcp_5"] details.json-block', { hasText: 'output' }).locator('pre').textContent();
  t.equal(outputText, JSON.stringify(echoOutput, null, 2), 'the output as pretty JSON');
  const inputText = await detail.locator('.inst[data-instance-id="mcp_5"] details.json-block', { hasText: 'input' }).locator('pre').textContent();
  t.equal(inputText, JSON.stringify({ name: 'echo', arguments: { text: 'hi' } }, null, 2), 'the input as pretty JSON');
  t.equal(await detail.locator('.inst[data-instance-id="mcp_5"] button.copy').count(), 2, 'a copy button per value');
  await detail.locator('.inst[data-instance-id="mcp_5"] details.json-block', { hasText: 'output' }).locator('summary .json-label').click();
  t.equal(await detail.locator('.inst[data-instance-id="mcp_5"] details.json-block', { hasText: 'output' }).getAttribute('open'), null, 'the JSON folds');
  await detail.locator('.inst[data-instance-id="mcp_5"] .inst-head').click();
  await detail.locator('.inst[data-instance-id="mcp_5"] .inst-body').waitFor({ state: 'detached' });
  t.pass('and the instance collapses');

  await page.locator('.node[data-node-id="tool:broken"]').click();
  await detail.locator('.inst[data-instance-id="mcp_6"] details.json-block.error').waitFor();
  t.match((await detail.locator('.inst[data-instance-id="mcp_6"] details.json-block.error pre').textContent()) ?? '', /"message": "Internal error"/, 'the error as JSON');

  // The timeline interleaves stderr with the calls, and quotes stdout noise.
  const rows = await rowTexts(page.locator('.timeline .tl'));
  const at = (pattern: RegExp): number => rows.findIndex((text) => pattern.test(text));
  t.notOk(rows.some((text) => text.includes('echo-server:')), 'nothing of the previous run is left in the timeline');
  t.ok(at(/echo handler: got hi/) >= 0 && at(/echo mcp_5/) >= 0, 'the log line and its request are both there');
  t.ok(at(/stdout noise "console\.log debugging \\"x\\""/) >= 0, 'stdout noise with its text quoted');
  // In its node, a folded noise record previews the line it quotes, not the error that names such lines.
  await page.locator('.node.container[data-node-id="mcp:protocol"]').click();
  await page.locator('.node[data-node-id="mcp:stdout-noise"]').click();
  const noiseHead = detail.locator('.inst[data-instance-id="mcp_4"] .inst-head');
  await noiseHead.waitFor();
  if ((await noiseHead.getAttribute('aria-expanded')) === 'true') await noiseHead.click();
  t.equal(await detail.locator('.inst[data-instance-id="mcp_4"] .inst-preview').textContent(), '"console.log debugging \\"x\\""', 'the noise row previews its line');
  await page.locator('.node.container[data-node-id="mcp:protocol"]').click();
  t.ok(at(/echo mcp_5/) < at(/echo handler: got hi/), 'the log line comes after its request');
  t.ok(at(/echo handler: got hi/) < at(/broken mcp_6/), 'and before the next one');
  t.ok(at(/broken mcp_6/) < at(/broken handler: TypeError/) && at(/broken handler: TypeError/) < at(/slow mcp_7/), 'each log line sits with its request');

  await page.locator('.timeline .tl', { hasText: 'slow mcp_7' }).click();
  await page.locator('.detail .inst[data-instance-id="mcp_7"]').waitFor();
  t.match((await page.locator('.detail-title').textContent()) ?? '', /slow/, 'clicking a call in the timeline opens its node');

  // Back to the first run: its own timeline, nothing of the other one.
  await page.locator('.run', { hasText: 'mcp-proxy' }).filter({ hasNotText: 'mixed-server' }).click();
  await page.locator('.timeline .tl-log', { hasText: 'echo-server:' }).waitFor();
  const firstRows = await rowTexts(page.locator('.timeline .tl'));
  t.notOk(firstRows.some((text) => /handler/.test(text)), 'switching runs leaves no row of the other run behind');
  t.ok(firstRows.some((text) => /echo mcp_\d+/.test(text)), 'and shows this run’s calls');

  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors, page errors or CSP violations');
});
