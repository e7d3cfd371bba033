// One end-to-end debugging session through the page only: a real
// `graphmind serve`, the viewer in Chromium at the bare URL, and a real SDK
// 1.x client spawning `graphmind mcp-proxy --wait-for-attach` in front of
// the logging fixture. Breakpoints are set and every hold is decided by
// clicking in the page; the REST API is only read, to assert and to wait.
//
//   before + Inject…  the client gets the lifted value; the server never sees the request
//   before + Abort    the client gets McpError -32099; the server never sees the request
//   after  + Retry    the same request bytes reach the server twice; the new answer
//                     holds again; Continue gives the client the real answer
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import t from 'tap';
import type { Breakpoints, Hold } from '../src/protocol/control.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { ABORT, connectV1, listHolds, runIds, waitForAsync, type LoggedMessage, type ServerLog } from './helpers/gates.js';
import { api, startServe, type ServeProcess } from './helpers/serve.js';
import { noRules } from './helpers/viewer.js';

/** The whole session must stay well under the file's budget. */
const STEP_MS = 10_000;

/** Mark a call's rejection as handled now; awaiting it later still throws. */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The JSON-RPC id of a held frame. */
function idOf(hold: Hold): string | number {
  return (hold.frame as { id: string | number }).id;
}

/** The lines the server received for one tools/call request id. */
function received(log: ServerLog, id: string | number): string[] {
  return log.lines().filter((line) => {
    const m = JSON.parse(line) as LoggedMessage;
    return m.method === 'tools/call' && m.id === id;
  });
}

/** Read the breakpoints (GET /api/breakpoints) until they equal `expected`. */
async function breakpointsBecome(serve: ServeProcess, expected: Breakpoints): Promise<void> {
  const want = JSON.stringify(expected);
  await waitForAsync(async () => JSON.stringify(noRules((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json)) === want, STEP_MS, `breakpoints ${want}`);
}

/** Click a card in the graph and wait until the detail shows that node. */
async function selectNode(page: Page, nodeId: string): Promise<void> {
  await page.locator(`.node[data-node-id="${nodeId}"]`).click();
  await page.locator('.detail .node-id', { hasText: nodeId }).waitFor({ timeout: STEP_MS });
}

/**
 * Wait for a hold on `tool:echo` at `gate` that is not one of `seen`: read
 * from the API (to know its id), then required in the page as a card.
 */
async function holdInPage(page: Page, serve: ServeProcess, gate: 'before' | 'after', seen: ReadonlySet<string> = new Set()) {
  await waitForAsync(async () => (await listHolds(serve)).some((h) => h.nodeId === 'tool:echo' && h.gate === gate && !seen.has(h.holdId)), STEP_MS, `a new ${gate} hold`);
  const hold = (await listHolds(serve)).find((h) => h.nodeId === 'tool:echo' && h.gate === gate && !seen.has(h.holdId)) as Hold;
  const card = page.locator(`.holds .hold[data-hold-id="${hold.holdId}"]`);
  await card.waitFor({ timeout: STEP_MS });
  return { hold, card };
}

t.test('a debugging session driven from the page: inject, abort, retry', async (t) => {
  const started = Date.now();
  const serve = await startServe();
  t.teardown(() => serve.stop());

  // The page, opened at the bare URL before anything ran: the recipe shows.
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  await page.locator('.empty-state').waitFor({ timeout: STEP_MS });
  t.pass('the bare URL opens the page, with the recipe while there are no runs');

  // A real client through the real proxy; the run shows up live in the page.
  const session = await connectV1(t, serve);
  const { client, log } = session;
  const echo = (c: Client, text: string) => c.callTool({ name: 'echo', arguments: { text } });
  const [runId] = await waitForRunIds(serve);
  const runRow = page.locator(`.runs li[data-run-id="${runId}"]`);
  await runRow.waitFor({ timeout: STEP_MS });
  t.equal(await runRow.getAttribute('data-status'), 'running', 'the run shows in the page, running');
  await page.locator('.node[data-node-id="mcp:session"]').waitFor({ timeout: STEP_MS });
  t.ok(await page.locator('.empty-state').isHidden(), 'the recipe gives way to the run');

  // One normal call, so the tool's card exists.
  t.strictSame(await echo(client, 'warm-up'), { content: [{ type: 'text', text: 'warm-up' }] }, 'a call without breakpoints goes through');
  await page.locator('.node[data-node-id="tool:echo"]').waitFor({ timeout: STEP_MS });

  // Break before, by clicking.
  await selectNode(page, 'tool:echo');
  await page.locator('.detail button[data-gate="before"][aria-pressed="false"]').click();
  await page.locator('.detail button[data-gate="before"][aria-pressed="true"]').waitFor({ timeout: STEP_MS });
  // On this run's server by default (the fixture's serverInfo.name), so that another server's sessions go on.
  await breakpointsBecome(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true, server: 'logging-fixture' } } });
  t.pass('clicking Break before set exactly that breakpoint, on this server');

  // 1. before + Inject…: typed JSON, lifted into the result; the server never gets it.
  const injected = later(echo(client, 'inject-me'));
  const h1 = await holdInPage(page, serve, 'before');
  t.equal(await h1.card.locator('.hold-method').textContent(), 'tools/call', 'the hold shows the method');
  t.match((await h1.card.locator('.gate').textContent()) ?? '', /before/, 'and the gate');
  t.equal(await h1.card.locator('.hold-node').textContent(), 'tool:echo', 'and the node');
  t.match((await h1.card.locator('pre.json').textContent()) ?? '', /inject-me/, 'and the frame');
  await page.locator('.node.held[data-node-id="tool:echo"]').waitFor({ timeout: STEP_MS });
  t.equal(await h1.card.locator('button[data-action="retry"]').count(), 0, 'no Retry at a before gate');
  await h1.card.locator('button[data-action="inject"]').click();
  const editor = page.locator('.overlay .inject-text');
  await editor.waitFor({ timeout: STEP_MS });
  await editor.pressSequentially('{"answer":42}');
  t.match((await page.locator('.inject-kind').textContent()) ?? '', /JSON: an object/, 'the editor says it will send JSON');
  await page.locator('.overlay button[data-action="inject-send"]').click();
  t.strictSame(
    await injected,
    { content: [{ type: 'text', text: '{"answer":42}' }], structuredContent: { answer: 42 } },
    'inject before: the client received exactly the lifted value',
  );
  await page.locator('.overlay').waitFor({ state: 'detached', timeout: STEP_MS });
  await h1.card.waitFor({ state: 'detached', timeout: STEP_MS });
  // A round trip that is not held: everything sent before it has reached the server by its answer.
  await client.listTools();
  t.strictSame(received(log, idOf(h1.hold)), [], 'inject before: the server never got the request');
  t.strictSame(log.linesWith('inject-me'), [], 'no trace of it in the server log');

  // 2. before + Abort: the client gets McpError -32099; the server never gets it.
  const aborted = later(echo(client, 'abort-me'));
  const h2 = await holdInPage(page, serve, 'before', new Set([h1.hold.holdId]));
  await h2.card.locator('button[data-action="abort"]').click();
  const abortError = await aborted.then(
    () => undefined,
    (error: unknown) => error,
  );
  t.ok(abortError instanceof McpError, 'abort before: the call fails with an McpError');
  t.equal((abortError as McpError | undefined)?.code, ABORT, 'with code -32099');
  await h2.card.waitFor({ state: 'detached', timeout: STEP_MS });
  await client.listTools();
  t.strictSame(received(log, idOf(h2.hold)), [], 'abort before: the server never got the request');
  t.strictSame(log.linesWith('abort-me'), [], 'no trace of it in the server log');

  // Swap the breakpoint by clicking: clear before, set after.
  await selectNode(page, 'tool:echo');
  await page.locator('.detail button[data-gate="before"][aria-pressed="true"]').click();
  await page.locator('.detail button[data-gate="before"][aria-pressed="false"]').waitFor({ timeout: STEP_MS });
  await page.locator('.detail button[data-gate="after"][aria-pressed="false"]').click();
  await page.locator('.detail button[data-gate="after"][aria-pressed="true"]').waitFor({ timeout: STEP_MS });
  await breakpointsBecome(serve, { pauseOnError: true, nodes: { 'tool:echo': { after: true, server: 'logging-fixture' } } });
  t.pass('clicking cleared the before breakpoint and set an after one');

  // 3. after + Retry: the same bytes go again, the new answer holds, Continue delivers it.
  const retried = later(echo(client, 'retry-me'));
  const h3 = await holdInPage(page, serve, 'after');
  t.ok('result' in (h3.hold.frame as object), 'the after hold is the answer');
  t.match((await h3.card.locator('.gate').textContent()) ?? '', /after/, 'the page shows the after gate');
  const once = received(log, idOf(h3.hold));
  t.equal(once.length, 1, 'the request reached the server once so far');
  await h3.card.locator('button[data-action="retry"]').click();
  const h4 = await holdInPage(page, serve, 'after', new Set([h3.hold.holdId]));
  t.equal(idOf(h4.hold), idOf(h3.hold), 'the new answer, to the same request, holds at the after gate again');
  await h3.card.waitFor({ state: 'detached', timeout: STEP_MS });
  const twice = received(log, idOf(h3.hold));
  t.equal(twice.length, 2, 'retry after: the request reached the server twice');
  t.equal(twice[1], twice[0], 'the same request bytes both times');
  await h4.card.locator('button[data-action="continue"]').click();
  t.strictSame(await retried, { content: [{ type: 'text', text: 'retry-me' }] }, 'continue: the client gets the real answer');
  await h4.card.waitFor({ state: 'detached', timeout: STEP_MS });

  t.strictSame(await listHolds(serve), [], 'nothing is left held');
  t.equal(log.requests('tools/call', 'echo').length, 3, 'the server got the warm-up once and the retried call twice, nothing else');
  t.same(realProblems(problems, (text) => t.comment(text)), [], 'no console errors in the page');
  await session.close();
  t.comment(`session took ${Date.now() - started} ms`);
});

/** The debugger's runs, once there is one. */
async function waitForRunIds(serve: ServeProcess): Promise<string[]> {
  let ids: string[] = [];
  await waitForAsync(async () => (ids = await runIds(serve)).length > 0, STEP_MS, 'the run');
  return ids;
}
