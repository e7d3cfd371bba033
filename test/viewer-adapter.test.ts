// The viewer on the in-process adapter's runs: real SDK servers wrapped by
// graphmind-ai/adapter, real SDK clients over the in-memory transport, a real
// `graphmind serve`, a real Chromium. One run per request: the runs of one
// connection are one collapsible row with its counts; the list filters by
// source and by name; the connection's mcp:connect run draws what the
// server registered in grey; sampling a tool issued is drawn under that
// tool, held like any node; names and ids from the server are text. And the
// server side of it: RunSummary.group, as RunState builds it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageRequestSchema, CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import * as z from 'zod';
import { graphmind, type Graphmind } from '../src/adapter/index.js';
import type { RunSummary } from '../src/protocol/run-model.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { newRunId } from '../src/report/reporter.js';
import { RunState, runGroup } from '../src/protocol/run-state.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, attributes, computed, inPage, until } from './helpers/viewer.js';

type Group = NonNullable<RunSummary['group']>;

// ---------------------------------------------------------------------------
// RunSummary.group, as the server builds it (no browser).

/** A run.started event for RunState. */
function started(id: string, meta: Record<string, unknown>, source = 'mcp-adapter', name = 'tools/call:x'): RunEvent {
  return { type: 'run.started', runId: id, seq: 1, t: 1_700_000_000_000, name, source, meta };
}

/** The summary's group after a run.started. */
function groupOf(id: string, meta: Record<string, unknown>, source = 'mcp-adapter'): Group | undefined {
  const state = new RunState(id, 1_700_000_000_000);
  state.apply(started(id, meta, source));
  return state.summary.group;
}

t.test('RunSummary.group: the adapter connection of a run', async (t) => {
  const meta = { app: 'a', sdk: '@modelcontextprotocol/sdk', server: 'tasks', serverSdk: '@modelcontextprotocol/sdk', connection: 'c1' };
  const one = groupOf(newRunId(), meta);
  t.match(one, { server: 'tasks', connection: 'c1', id: String }, 'an mcp-adapter run with a server and a connection has a group');
  t.equal(one?.sessionId, undefined, 'no session without meta.sessionId');
  t.equal(groupOf(newRunId(), meta)?.id, one?.id, 'another run of this process on the same connection: the same group');
  t.not(groupOf(newRunId(), { ...meta, connection: 'c2' })?.id, one?.id, 'another connection: another group');
  t.not(groupOf(newRunId(), { ...meta, server: 'other' })?.id, one?.id, 'another server: another group');

  // The bundled reporter's ids carry 16 characters drawn once per process: another process's c1 is another connection.
  const mine = newRunId();
  t.match(mine, /^run_[0-9a-z]+_[A-Za-z0-9_-]{16}[0-9a-z]+$/, 'the reporter’s run ids have the shape the server reads');
  const otherProcess = mine.replace(/^(run_[0-9a-z]+_)[A-Za-z0-9_-]{16}/, '$1AAAAAAAAAAAAAAAA');
  t.not(otherProcess, mine);
  t.not(groupOf(otherProcess, meta)?.id, one?.id, 'the same server and connection from another process: another group');
  t.equal(groupOf(otherProcess.replace(/[0-9a-z]+$/, 'zz'), meta)?.id, groupOf(otherProcess, meta)?.id, 'two runs of that other process: one group');

  const http = groupOf(newRunId(), { ...meta, sessionId: 'sess-1' });
  t.equal(http?.sessionId, 'sess-1', 'the HTTP session is carried');
  t.equal(http?.id, one?.id, 'and does not split the connection (its mcp:connect run, made before any request, has none)');

  t.equal(groupOf(newRunId(), meta, 'mcp-proxy'), undefined, 'a proxy run has no group, whatever its meta');
  t.equal(groupOf(newRunId(), meta, 'test'), undefined, 'nor a run of another source');
  t.equal(groupOf(newRunId(), { server: 'tasks' }), undefined, 'no connection: no group');
  t.equal(groupOf(newRunId(), { connection: 'c1' }), undefined, 'no server: no group');
  t.equal(groupOf(newRunId(), { server: 42, connection: 'c1' }), undefined, 'a server that is not a string: no group');
  t.equal(groupOf(newRunId(), { server: '', connection: 'c1' }), undefined, 'an empty server: no group');
  t.equal(groupOf(newRunId(), { server: 'x'.repeat(513), connection: 'c1' }), undefined, 'an overlong server name: no group');
  t.equal(groupOf('custom-1', meta)?.id, groupOf('custom-2', meta)?.id, 'run ids of another shape: grouped by server and connection alone');
  t.equal(runGroup('custom-1', 'mcp-adapter', { ...meta, sessionId: 7 })?.sessionId, undefined, 'a session id that is not a string is left out');

  // Set by a later run.meta too, and part of the whole run as the API returns it.
  const id = newRunId();
  const state = new RunState(id, 1_700_000_000_000);
  state.apply(started(id, {}));
  t.equal(state.summary.group, undefined, 'no group before the meta names one');
  state.apply({ type: 'run.meta', runId: id, seq: 2, t: 1_700_000_000_001, meta: { server: 'late', connection: 'c9' } });
  t.match(state.summary.group, { server: 'late', connection: 'c9' }, 'a run.meta that names them sets it');
  t.match(state.toRun(), { group: { server: 'late', connection: 'c9' } }, 'GET /api/runs/:id has it');
  t.match({ ...state.summary }, { group: { server: 'late' } }, 'the summary copied for the list has it');
});

// ---------------------------------------------------------------------------
// The viewer, on real adapter runs.

let serve: ServeProcess;
let gm: Graphmind;
t.before(async () => {
  // No error gate: a failing tool ends its run in error, without waiting for a decision.
  serve = await startServe(['--pause-on-error', 'off']);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND') && key !== 'NODE_ENV') env[key] = value;
  env.GRAPHMIND_DATA_DIR = serve.dataDir;
  gm = graphmind({ app: 'viewer-adapter-tests', url: `ws://127.0.0.1:${serve.port}/ingest`, env });
  if (!(await gm.ready(10_000))) throw new Error('the adapter did not attach to the test debugger');
});
t.teardown(async () => {
  await gm?.dispose();
  await serve?.stop();
});

/** Answers a client gives to sampling, and how many it gave. */
const sampled: string[] = [];

/**
 * A wrapped McpServer named `name` with tools echo, fail, ask (which
 * samples) and count_words, a resource and a prompt, connected to a fresh
 * client over the in-memory transport (a new adapter connection each).
 */
async function connection(t: Test, name: string): Promise<Client> {
  const server = gm.wrapServer(new McpServer({ name, version: '1.0.0' }));
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('fail', { inputSchema: { why: z.string() } }, async ({ why }) => {
    throw new Error(`failed: ${why}`);
  });
  server.registerTool('ask', { inputSchema: { q: z.string() } }, async ({ q }, extra) => {
    const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: q } }], maxTokens: 16 } }, CreateMessageResultSchema);
    return { content: [{ type: 'text', text: `model said: ${answer.content.type === 'text' ? answer.content.text : '?'}` }] };
  });
  server.registerResource('readme', 'doc://readme', { description: 'the readme' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'hello' }] }));
  server.registerPrompt('triage', { description: 'triage' }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'triage' } }] }));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'viewer-test-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content;
    const text = `answer to ${content !== undefined && 'text' in content ? String(content.text) : '?'}`;
    sampled.push(text);
    return { role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' };
  });
  await client.connect(clientSide);
  t.teardown(() => client.close().catch(() => {}));
  return client;
}

/** Every run summary the debugger lists. */
async function summaries(): Promise<RunSummary[]> {
  return (await api(serve.port, serve.token, 'GET', '/api/runs')).json as RunSummary[];
}

/** Wait until the debugger lists `count` finished runs of server `name`'s connection `conn` (any, if undefined); returns them, newest first. */
async function groupRuns(name: string, conn: string | undefined, count: number): Promise<RunSummary[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const runs = (await summaries()).filter((run) => run.group?.server === name && (conn === undefined || run.group.connection === conn));
    if (runs.length >= count && runs.every((run) => run.status !== 'running')) return runs;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} runs of ${name} · ${conn} (have ${runs.length})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The list's top-level rows, in order: `group:<label>` or `run:<name>`. */
function topRows(page: Page): Promise<string[]> {
  return inPage<string[]>(
    page,
    `[...document.querySelectorAll('.side ol.runs[aria-label="runs"] > li')].map((li) => li.classList.contains('run-group') ? 'group:' + li.querySelector('.group-name').textContent : li.classList.contains('run') ? 'run:' + li.querySelector('.run-name').textContent : 'other:' + li.textContent)`,
  );
}

/** The group row of server `name`'s connection `conn`. */
function groupRow(page: Page, name: string, conn: string) {
  return page.locator('.run-group').filter({ has: page.locator('.group-name', { hasText: `${name} · ${conn}` }) });
}

t.test('one connection’s runs are one row; filters by source and name; the grey hint; sampling under its tool', async (t) => {
  // A proxy session first (the oldest row), as the proxy reports one.
  const reporter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => reporter.ws.terminate());
  const proxyRun = new RunEvents(runId('proxy'));
  reporter.send([
    proxyRun.started('proxy-session', { command: 'node', args: ['server.js'] }, 'mcp-proxy'),
    proxyRun.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session('proxy-session') }),
    proxyRun.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool('echo'), input: { name: 'echo' } }),
    proxyRun.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { content: [] } }),
  ]);

  // Connection c1 of server alpha: its mcp:connect run, 12 echoes, 2 failures, a resource, a prompt.
  const alpha = await connection(t, 'alpha');
  for (let i = 0; i < 12; i++) await alpha.callTool({ name: 'echo', arguments: { text: `hello ${i}` } });
  for (const why of ['one', 'two']) t.match(await alpha.callTool({ name: 'fail', arguments: { why } }), { isError: true }, `fail ${why}: an isError result`);
  await alpha.readResource({ uri: 'doc://readme' });
  await alpha.getPrompt({ name: 'triage' });
  const alphaRuns = await groupRuns('alpha', 'c1', 17);
  t.equal(alphaRuns.length, 17, 'the debugger has 17 runs of alpha · c1 (mcp:connect and 16 requests)');
  t.equal(new Set(alphaRuns.map((run) => run.group?.id)).size, 1, 'all with one group id');
  t.equal(alphaRuns.filter((run) => run.status === 'error').length, 2, 'two of them failed');
  const proxySummary = (await summaries()).find((run) => run.name === 'proxy-session');
  t.ok(proxySummary !== undefined && !('group' in proxySummary), 'the proxy run’s summary has no group');

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  const alphaRow = groupRow(page, 'alpha', 'c1');
  await alphaRow.waitFor();
  t.same(await topRows(page), ['group:alpha · c1', 'run:proxy-session'], 'the 17 runs of alpha · c1 are one row above the older proxy run (from the snapshot)');
  t.equal(await alphaRow.getAttribute('data-runs'), '17');
  t.equal(await alphaRow.getAttribute('data-errors'), '2');
  t.match(await alphaRow.locator('.group-counts').textContent(), /^17 runs, 2 errors$/, 'the row says how many runs, and how many failed');
  t.equal(await alphaRow.locator('.dot').getAttribute('class'), 'dot status-error', 'its dot is red: some failed');
  t.equal(await alphaRow.locator('.group-head').getAttribute('aria-expanded'), 'false', 'closed');
  t.equal(await alphaRow.locator('.run').count(), 0, 'closed, it lists none of its runs');
  t.equal(await page.locator('.side .run').count(), 1, 'the only run row is the proxy run');

  // A second connection, while the page is open: its runs arrive on the live feed and make a row of their own.
  const beta = await connection(t, 'alpha');
  for (let i = 0; i < 3; i++) await beta.callTool({ name: 'echo', arguments: { text: `beta ${i}` } });
  await groupRuns('alpha', 'c2', 4);
  const betaRow = groupRow(page, 'alpha', 'c2');
  await until(page, `document.querySelector('.run-group[data-runs="4"]') !== null`, 'the c2 row with its 4 runs');
  t.same(await topRows(page), ['group:alpha · c2', 'group:alpha · c1', 'run:proxy-session'], 'newest first: the new connection on top, from the live feed');
  t.match(await betaRow.locator('.group-counts').textContent(), /^4 runs$/);
  t.equal(await betaRow.locator('.dot').getAttribute('class'), 'dot status-ok');
  t.equal(await alphaRow.getAttribute('data-runs'), '17', 'the c1 row did not take c2’s runs');

  // Open c1 (from the keyboard): its runs, newest first, in the order the debugger lists them; close it again.
  await alphaRow.locator('.group-head').focus();
  // A live update redraws the list while the keyboard is on the row: the focus stays on its (new) head.
  await beta.callTool({ name: 'echo', arguments: { text: 'beta 3' } });
  await groupRuns('alpha', 'c2', 5);
  await until(page, `document.querySelector('.run-group[data-runs="5"]') !== null`, 'the c2 row with its 5 runs');
  t.ok(
    await inPage<boolean>(page, `document.activeElement?.classList.contains('group-head') === true && document.activeElement.closest('.run-group').querySelector('.group-name').textContent === 'alpha · c1'`),
    'a redraw of the list keeps the focus on the row it was on',
  );
  await page.keyboard.press('Enter');
  await until(page, `document.querySelectorAll('.run-group.open .group-runs .run').length === 17`, 'the 17 runs of the open row');
  t.ok(await inPage<boolean>(page, `document.activeElement?.classList.contains('group-head') === true && document.activeElement.closest('.run-group').classList.contains('open')`), 'the focus stays on the row’s head');
  t.equal(await alphaRow.locator('.group-head').getAttribute('aria-expanded'), 'true', 'open');
  t.same(await attributes(alphaRow.locator('.group-runs .run'), 'data-run-id'), alphaRuns.map((run) => run.runId), 'every run of the connection, newest first');
  t.same(
    await alphaRow.locator('.group-runs .run.status-error .run-name').allTextContents(),
    ['tools/call:fail', 'tools/call:fail'],
    'the failed runs are the two fail calls',
  );
  t.equal(await alphaRow.locator('.group-runs .run').last().locator('.run-name').textContent(), 'mcp:connect alpha', 'the oldest is the connection’s mcp:connect run');
  await alphaRow.locator('.group-head').click();
  await until(page, `document.querySelectorAll('.group-runs .run').length === 0`, 'the row closed');

  // Source filter.
  await page.locator('[data-source="proxy"]').click();
  await until(page, `document.querySelectorAll('.run-group').length === 0`, 'no adapter rows under the proxy filter');
  t.same(await topRows(page), ['run:proxy-session'], 'proxy: only the proxy run');
  t.equal(await page.locator('[data-source="proxy"]').getAttribute('aria-pressed'), 'true');
  t.equal(await page.locator('[data-source="proxy"]').textContent(), 'proxy 1', 'the chip counts the proxy’s runs');
  t.equal(await page.locator('.run-header h2').textContent(), 'proxy-session', 'the page follows the newest run the list shows');
  // A flood of adapter runs does not move a page that shows only the proxy's.
  await beta.callTool({ name: 'echo', arguments: { text: 'while filtered' } });
  await groupRuns('alpha', 'c2', 6);
  await page.waitForTimeout(300);
  t.equal(await page.locator('.run-header h2').textContent(), 'proxy-session', 'a new adapter run, filtered out, is not followed');
  await page.locator('[data-source="adapter"]').click();
  await until(page, `document.querySelectorAll('.side .run').length === 0 && document.querySelectorAll('.run-group').length === 2`, 'only the adapter rows');
  t.same(await topRows(page), ['group:alpha · c2', 'group:alpha · c1'], 'adapter: the two connections, no proxy run');
  t.equal(await page.locator('[data-source="adapter"]').textContent(), 'adapter 23');
  await page.locator('[data-source="all"]').click();
  await until(page, `document.querySelectorAll('.side ol.runs[aria-label="runs"] > li').length === 3`, 'everything again');

  // Text filter: the run's name.
  await page.locator('.run-search').fill('FAIL');
  await until(page, `document.querySelectorAll('.run-group').length === 1`, 'one row matching "fail"');
  t.same(await topRows(page), ['group:alpha · c1'], 'only the connection with fail calls is listed');
  t.match(await alphaRow.locator('.group-counts').textContent(), /^2 of 17 runs, 2 errors$/, 'the row counts what matches, out of all its runs');
  await alphaRow.locator('.group-head').click();
  t.same(await alphaRow.locator('.group-runs .run-name').allTextContents(), ['tools/call:fail', 'tools/call:fail'], 'open, it lists only the matching runs');
  await page.locator('.run-search').fill('no such run');
  await until(page, `document.querySelector('.side .none')?.textContent === 'No runs match the filters.'`, 'nothing matches');
  await page.locator('.run-search').press('Escape');
  await until(page, `document.querySelectorAll('.side ol.runs[aria-label="runs"] > li').length === 3`, 'Escape clears the text filter');
  t.equal(await page.locator('.run-search').inputValue(), '');

  // The mcp:connect run: the registered surface, grey, under the server node.
  await alphaRow.locator('.group-runs .run', { hasText: 'mcp:connect alpha' }).locator('.run-body').click();
  await until(page, `document.querySelector('.run-header h2')?.textContent === 'mcp:connect alpha'`, 'the mcp:connect run');
  await page.locator('.node[data-node-id="tool:echo"]').waitFor();
  const hinted = ['tool:echo', 'tool:fail', 'tool:ask', 'resource:readme', 'prompt:triage'];
  t.same(
    await attributes(page.locator('.graph .node[data-hinted="true"]'), 'data-node-id'),
    hinted,
    'every registration is drawn, in the order registered, marked as hinted',
  );
  const underServer = await attributes(page.locator('.graph .branch:has(> .node[data-node-id="server:alpha"]) > .children > .branch > .node'), 'data-node-id');
  t.same(underServer, hinted, 'all of them under the server node');
  const echoHint = page.locator('.node[data-node-id="tool:echo"]');
  t.equal(await echoHint.getAttribute('data-status'), 'not-run');
  t.equal(await echoHint.locator('.pill').textContent(), 'not run', 'its pill says it did not run');
  t.equal(await echoHint.locator('.count').count(), 0, 'no call count');
  t.equal(await computed(echoHint, 'border-top-style'), 'dashed', 'drawn dashed');
  t.equal(await computed(echoHint, 'color'), await computed(page.locator('.run-header .muted').first(), 'color'), 'in the muted grey');
  t.equal(await page.locator('.node[data-node-id="server:alpha"]').getAttribute('data-status'), 'ok', 'the server node itself ran (the connection)');
  t.match(await page.locator('.run-header .hint-summary').textContent(), /3 tools, 1 resource, 1 prompt/, 'the header says what is drawn grey');
  t.match(await page.locator('.run-header').textContent(), /connection c1/, 'and names the connection');
  await echoHint.click();
  t.match(await page.locator('.detail .hinted-note').textContent(), /not called in this run/, 'its detail says it was not called');
  t.equal(await page.locator('.detail button[data-gate="before"]').count(), 1, 'and offers a breakpoint on it');

  // A run of the connection that did run tool:echo draws it as usual.
  await alphaRow.locator('.group-runs .run', { hasText: 'tools/call:echo' }).first().locator('.run-body').click();
  await until(page, `document.querySelector('.run-header h2')?.textContent === 'tools/call:echo'`, 'an echo run');
  const echoRan = page.locator('.node[data-node-id="tool:echo"]');
  await echoRan.waitFor();
  t.equal(await echoRan.getAttribute('data-hinted'), null, 'not hinted');
  t.equal(await echoRan.getAttribute('data-status'), 'ok');
  t.equal(await echoRan.locator('.count').textContent(), '×1');
  t.equal(await computed(echoRan, 'border-top-style'), 'solid');
  t.equal(await page.locator('.graph .node').count(), 2, 'the server and the tool it ran, nothing else');

  // Nested sampling: llm:sampling under the tool that issued it.
  await alpha.callTool({ name: 'ask', arguments: { q: 'why' } });
  await until(page, `document.querySelector('.run-group.open .group-runs .run .run-name')?.textContent === 'tools/call:ask'`, 'the ask run at the top of its open row');
  await alphaRow.locator('.group-runs .run', { hasText: 'tools/call:ask' }).locator('.run-body').click();
  const nested = page.locator('.graph .branch:has(> .node[data-node-id="tool:ask"]) > .children > .branch > .node[data-node-id="llm:sampling"]');
  await nested.waitFor();
  t.equal(await nested.getAttribute('data-status'), 'ok', 'the sampling node, under its tool, ran ok');
  t.same(await attributes(page.locator('.graph .branch:has(> .node[data-node-id="server:alpha"]) > .children > .branch > .node'), 'data-node-id'), ['tool:ask'], 'the server’s only child is the tool, not the sampling');
  const toolBox = await page.locator('.node[data-node-id="tool:ask"]').boundingBox();
  const llmBox = await nested.boundingBox();
  t.ok(toolBox !== null && llmBox !== null && llmBox.y > toolBox.y + toolBox.height, 'drawn below the tool card');
  await nested.click();
  await page.locator('.detail .inst .inst-id', { hasText: /^c1:\d+:sampling:1$/ }).waitFor();
  t.pass('its call is listed with its nested instance id');

  t.same(realProblems(problems, t.comment.bind(t)), [], 'no console errors, page errors or CSP violations');
});

t.test('a held sampling shows on its nested node, and is decided from the page', async (t) => {
  const client = await connection(t, 'sampler');
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  await page.locator('.run-group').filter({ has: page.locator('.group-name', { hasText: /^sampler · c\d+$/ }) }).waitFor();
  const put = await api(serve.port, serve.token, 'PUT', '/api/breakpoints', { pauseOnError: false, nodes: { 'llm:sampling': { before: true } } });
  t.equal(put.status, 200); // answered once the adapter (attached: its run group shows) applied them
  const before = sampled.length;
  const call = client.callTool({ name: 'ask', arguments: { q: 'held?' } });

  // The page follows the hold to its run and its node.
  const held = page.locator('.graph .branch:has(> .node[data-node-id="tool:ask"]) > .children > .branch > .node[data-node-id="llm:sampling"].held');
  await held.waitFor();
  t.match(await held.locator('.held-badge').textContent(), /^HELD at before$/, 'the nested node says where it is held');
  t.equal(await page.locator('.run-header h2').textContent(), 'tools/call:ask');
  t.equal(await page.locator('.node[data-node-id="tool:ask"]').getAttribute('data-status'), 'open', 'its tool waits for it');
  const panel = page.locator('.hold').first();
  await panel.waitFor();
  t.match(await panel.textContent(), /llm:sampling|sampling/, 'the hold panel names the node');
  t.equal(sampled.length, before, 'the client was not asked yet');
  await panel.locator('button[data-action="continue"]').click();
  t.match(await call, { content: [{ type: 'text', text: 'model said: answer to held?' }] }, 'continued: the client answered and the tool returned');
  await until(page, `document.querySelector('.node[data-node-id="llm:sampling"]')?.getAttribute('data-status') === 'ok' && document.querySelector('.node.held') === null`, 'the sampling node done, not held');
  t.equal(await page.locator('.hold').count(), 0, 'the hold panel is gone');
  await api(serve.port, serve.token, 'PUT', '/api/breakpoints', { pauseOnError: false, nodes: {} });
  t.same(realProblems(problems, t.comment.bind(t)), [], 'no console errors, page errors or CSP violations');
});

t.test('server names, run names and instance ids from the adapter are text', async (t) => {
  const IMG = '<img src=x onerror=window.__pwned=1>';
  const server = gm.wrapServer(new McpServer({ name: `srv ${IMG}`, version: '1.0.0' }));
  server.registerTool(`tool${IMG}`, { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: `out ${IMG}` }] }));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // A raw client, to choose the request id: the instance id is the connection's and the request's.
  const answers: unknown[] = [];
  clientSide.onmessage = (message) => void answers.push(message);
  await clientSide.start();
  t.teardown(() => clientSide.close());
  await clientSide.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await clientSide.send({ jsonrpc: '2.0', id: `id${IMG}`, method: 'tools/call', params: { name: `tool${IMG}`, arguments: {} } });
  const deadline = Date.now() + 5000;
  while (answers.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  t.match(answers[1], { id: `id${IMG}`, result: { content: [{ text: `out ${IMG}` }] } }, 'the raw call was answered');

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  const row = page.locator('.run-group').filter({ has: page.locator('.group-name', { hasText: `srv ${IMG}` }) });
  await row.waitFor();
  t.match(await row.locator('.group-name').textContent(), new RegExp(`^srv ${IMG.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · c\\d+$`), 'the server name is the row’s text');
  await row.locator('.group-head').click();
  await row.locator('.group-runs .run', { hasText: `tools/call:tool${IMG}` }).locator('.run-body').click();
  const card = page.locator('.node.kind-tool');
  await card.waitFor();
  t.equal(await card.locator('.node-label').textContent(), `tool${IMG}`, 'the tool label, as text');
  await card.click();
  const instanceId = page.locator('.detail .inst-id');
  await instanceId.waitFor();
  t.match(await instanceId.textContent(), new RegExp(`^c\\d+:id<img src=x onerror=window.__pwned=1>$`), 'the instance id (connection and request id), as text');
  t.match(await page.locator('.run-header h2').textContent(), `tools/call:tool${IMG}`, 'the run name, as text');

  // A graph hint is reporter data too: markup in it is text, entries of the wrong shape are left out, and it is capped.
  const reporter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => reporter.ws.terminate());
  const evil = new RunEvents(runId('evil'));
  const root = { nodeId: 'server:evil', kind: 'server', parent: null, label: `evil ${IMG}` } as const;
  const nodes: unknown[] = [
    { nodeId: `tool:${IMG}`, kind: 'tool', parent: 'server:evil', label: `label ${IMG}` },
    { nodeId: `tool:${IMG}`, kind: 'tool', parent: 'server:evil', label: 'a repeat' },
    { nodeId: 7, kind: 'tool', parent: 'server:evil', label: 'no string id' },
    null,
    { nodeId: 'odd:kind', kind: '<script>', parent: 'server:evil', label: 42 },
    ...Array.from({ length: 600 }, (_, i) => ({ nodeId: `tool:t${i}`, kind: 'tool', parent: 'server:evil', label: `t${i}` })),
  ];
  reporter.send([
    evil.started(`mcp:connect evil ${IMG}`, { app: 'evil', server: 'evil', connection: 'c1' }, 'mcp-adapter'),
    evil.next({ type: 'instance.started', instanceId: 'server', node: root }),
    evil.next({ type: 'run.meta', meta: { transport: IMG, graphHint: { nodes } } }),
    evil.next({ type: 'instance.finished', instanceId: 'server' }),
    evil.next({ type: 'run.finished', status: 'ok' }),
  ]);
  const evilRow = page.locator('.run-group').filter({ has: page.locator('.group-name', { hasText: 'evil · c1' }) });
  await evilRow.locator('.group-head').click();
  await evilRow.locator('.run .run-body').click();
  await page.locator('.node[data-hinted="true"]').first().waitFor();
  t.equal(await page.locator('.node[data-hinted="true"]').count(), 500, 'at most 500 hinted nodes are drawn');
  t.equal(await page.locator('.node[data-hinted="true"]').first().locator('.node-label').textContent(), `label ${IMG}`, 'a hinted label, as text');
  t.equal(await page.locator('.node[data-hinted="true"]').nth(1).getAttribute('data-node-id'), 'odd:kind', 'the repeat and the entries without a string id are left out');
  t.match(await page.locator('.node[data-node-id="odd:kind"]').getAttribute('class'), /\bkind-custom\b/, 'an unknown kind is drawn as custom');
  t.equal(await page.locator('.node[data-node-id="odd:kind"] .node-label').textContent(), 'odd:kind', 'a label that is not a string: the node id');
  t.match(await page.locator('.run-header').textContent(), `transport ${IMG}`, 'the transport, as text');

  t.equal(await inPage(page, 'window.__pwned'), undefined, 'no script ran');
  t.equal(await page.locator('img').count(), 0, 'no image was made from the data');
  t.same(realProblems(problems, t.comment.bind(t)), [], 'no console errors, page errors or CSP violations');
});

t.test('deleting a connection’s row deletes its runs', async (t) => {
  const client = await connection(t, 'doomed');
  for (let i = 0; i < 3; i++) await client.callTool({ name: 'echo', arguments: { text: `bye ${i}` } });
  const runs = await groupRuns('doomed', undefined, 4);
  t.equal(new Set(runs.map((run) => run.group?.id)).size, 1, 'one connection');
  const browser = await launchBrowser(t);
  // Opened at an address that names one of its runs (the second newest): its row opens to show it.
  const named = runs[1] as RunSummary;
  const { page, problems } = await openPage(browser, `${serve.url}/#run=${named.runId}`);
  const row = page.locator('.run-group').filter({ has: page.locator('.group-name', { hasText: /^doomed · / }) });
  await row.locator(`.group-runs .run.selected[data-run-id="${named.runId}"]`).waitFor();
  t.equal(await row.locator('.group-head').getAttribute('aria-expanded'), 'true', 'a run named by the address opens its row');
  await row.locator('.group-head').click();
  t.equal(await row.locator('.group-runs').count(), 0, 'which the user may close again');
  t.match(await row.locator('.group-viewing').textContent(), /^viewing /, 'closed, it says it holds the run on view');
  const del = row.locator('button[data-action="delete-group"]');
  await del.click();
  t.equal(await del.textContent(), 'Delete 4?', 'the first click asks, with the count');
  t.equal(await row.locator('.group-runs').count(), 0, 'and does not open the row');
  await del.click();
  await row.waitFor({ state: 'detached' });
  t.pass('the row leaves the list at once');
  const ids = new Set(runs.map((run) => run.runId));
  const deadline = Date.now() + 10_000;
  let left = runs;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = (await summaries()).filter((run) => ids.has(run.runId));
  }
  t.same(left, [], 'and the debugger deletes every one of its runs');
  t.equal(await page.locator('.run-group').filter({ has: page.locator('.group-name', { hasText: /^doomed · / }) }).count(), 0, 'it does not come back');
  const gone = JSON.stringify([...ids]);
  await until(page, `(() => { const id = document.querySelector('.run-title')?.getAttribute('data-run-id'); return id != null && !${gone}.includes(id); })()`, 'the page on a run that is left');
  const onView = await page.locator('.run-title').getAttribute('data-run-id');
  t.equal(onView, (await summaries())[0]?.runId, 'the page moved off the deleted runs, to the newest left');
  t.same(realProblems(problems, t.comment.bind(t)), [], 'no console errors, page errors or CSP violations');
});
