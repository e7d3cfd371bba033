// The run list tells what really failed and who talked (issue 30), in a
// real Chromium: a real host (an SDK client) through the real proxy makes 8
// good and 4 failed tool calls; while the session still runs, its row says
// "N calls · 4 failed" and "list-host 3.1.4 → sdk1-fixture …", and the error
// chip counts it; once it ends ok it still does (a run with failed calls is
// among the runs with errors, not among the ok ones). The text filter finds
// runs by command, client, server and tool; http-proxy runs have their own
// source chip.
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import type { RunSummary } from '../src/protocol/run-model.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { CLI, PROXY_FIXTURES } from './helpers/cli.js';
import { RunEvents, api, eventually, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { inPage, until } from './helpers/viewer.js';

async function runs(serve: ServeProcess): Promise<RunSummary[]> {
  return (await api(serve.port, serve.token, 'GET', '/api/runs')).json as RunSummary[];
}

/** The chips' texts, by their data attribute (`filter` or `source`). */
function chips(page: Page, kind: 'filter' | 'source'): Promise<Record<string, string>> {
  return inPage(page, `Object.fromEntries([...document.querySelectorAll('[data-${kind}]')].map((b) => [b.getAttribute('data-${kind}'), b.textContent]))`);
}

/** The run ids the list shows, top to bottom. */
function listed(page: Page): Promise<string[]> {
  return inPage(page, `[...document.querySelectorAll('li.run[data-run-id]')].map((li) => li.getAttribute('data-run-id'))`);
}

/** A line of a row as read: its parts, joined by spaces. */
async function lineText(page: Page, selector: string): Promise<string> {
  return (await page.locator(`${selector} span`).allTextContents()).join(' ');
}

/** Type `text` in the run filter and wait for the list to show exactly `expected`. */
async function filterBy(t: Test, page: Page, text: string, expected: string[], what: string): Promise<void> {
  await page.locator('.run-search').fill(text);
  const want = JSON.stringify([...expected].sort());
  await until(page, `JSON.stringify([...document.querySelectorAll('li.run[data-run-id]')].map((li) => li.getAttribute('data-run-id')).sort()) === ${JSON.stringify(want)}`, `the filter "${text}"`).catch(() => {});
  t.strictSame([...(await listed(page))].sort(), [...expected].sort(), what);
}

t.test('counts, client and server on the row; error chip, filters and the http-proxy chip', async (t) => {
  const serve = await startServe(['--pause-on-error', 'off']);
  t.teardown(() => serve.stop());
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  await page.locator('.run-list').waitFor();

  // A real host through the real proxy.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp-proxy', '--port', String(serve.port), '--data-dir', serve.dataDir, '--', process.execPath, `${PROXY_FIXTURES}sdk1-server.mjs`],
    stderr: 'pipe',
  });
  (transport.stderr as Readable | null)?.resume();
  const client = new Client({ name: 'list-host', version: '3.1.4' });
  let closed = false;
  t.teardown(async () => {
    if (!closed) await client.close().catch(() => {});
  });
  await client.connect(transport);
  for (let i = 0; i < 8; i++) await client.callTool({ name: 'echo', arguments: { text: `hello ${i}` } });
  // Arguments that differ each time: the same call over and over is held as a loop.
  for (let i = 0; i < 4; i++) await client.callTool({ name: 'nope', arguments: { attempt: i } }).catch(() => undefined);

  const proxyRun = await eventually(async () => (await runs(serve)).find((run) => run.source === 'mcp-proxy' && run.failedCalls === 4), 10_000, 'the proxy run with its 4 failed calls');
  const id = proxyRun.runId;
  const calls = proxyRun.calls ?? 0;
  t.ok(calls >= 12, `the 12 tool calls and the handshake are calls (${calls})`);
  t.equal(proxyRun.status, 'running');
  await until(page, `document.querySelector('li.run[data-run-id="${id}"] .run-counts')?.getAttribute('data-calls') === '${calls}'`, 'the row’s counts, live');
  const rowSelector = `li.run[data-run-id="${id}"]`;
  t.equal(await lineText(page, `${rowSelector} .run-counts`), `${calls} calls · 4 failed`, 'the row says N calls · 4 failed while the session runs');
  t.match(await lineText(page, `${rowSelector} .run-peers`), /^list-host 3\.1\.4 → sdk1-fixture \d+\.\d+\.\d+$/, 'the client and the server');
  t.strictSame(await chips(page, 'filter'), { all: 'all 1', running: 'running 1', ok: 'ok 0', error: 'error 1' }, 'running, with failed calls: counted by running and by error');

  // Two runs of other reporters: an http-proxy session and a quiet ok run.
  const reporter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => reporter.ws.terminate());
  const httpId = runId('http');
  const http = new RunEvents(httpId);
  reporter.send([http.started('http', {}, 'mcp-http-proxy'), http.next({ type: 'run.finished', status: 'ok' })]);
  const quietId = runId('quiet');
  const quiet = new RunEvents(quietId);
  reporter.send([quiet.started('node quiet.js', {}, 'mcp-proxy'), quiet.next({ type: 'run.finished', status: 'ok' })]);
  await until(page, `document.querySelectorAll('li.run[data-run-id]').length === 3`, 'the three runs');
  t.strictSame(await chips(page, 'filter'), { all: 'all 3', running: 'running 1', ok: 'ok 2', error: 'error 1' });
  t.strictSame(await chips(page, 'source'), { all: 'any source 3', proxy: 'proxy 2', http: 'http proxy 1', adapter: 'adapter 0' }, 'the HTTP proxy has its own chip');
  await page.locator('[data-source="http"]').click();
  await until(page, `document.querySelectorAll('li.run[data-run-id]').length === 1`, 'only the http-proxy run');
  t.strictSame(await listed(page), [httpId], 'http proxy: its run only');
  await page.locator('[data-source="all"]').click();

  // The text filter: command, client, server, tool; case ignored.
  await filterBy(t, page, 'sdk1-server', [id], 'by command');
  await filterBy(t, page, 'LIST-HOST', [id], 'by client');
  await filterBy(t, page, 'sdk1-fixture', [id], 'by server');
  await filterBy(t, page, 'nope', [id], 'by a tool it called');
  await filterBy(t, page, 'quiet', [quietId], 'by the run’s name');
  await filterBy(t, page, 'no such thing', [], 'nothing');
  await page.locator('.run-search').press('Escape');
  await until(page, `document.querySelectorAll('li.run[data-run-id]').length === 3`, 'Escape clears the filter');

  // The session ends ok: its failed calls still count it among the runs with errors.
  await client.close();
  closed = true;
  await until(page, `document.querySelector('li.run[data-run-id="${id}"]')?.getAttribute('data-status') === 'ok'`, 'the session ended ok');
  t.strictSame(await chips(page, 'filter'), { all: 'all 3', running: 'running 0', ok: 'ok 2', error: 'error 1' }, 'an ok run with 4 failed calls: the error chip counts it, the ok chip does not');
  await page.locator('[data-filter="error"]').click();
  await until(page, `document.querySelectorAll('li.run[data-run-id]').length === 1`, 'the error filter');
  t.strictSame(await listed(page), [id], 'the error filter lists it');
  await page.locator('[data-filter="ok"]').click();
  await until(page, `document.querySelectorAll('li.run[data-run-id]').length === 2`, 'the ok filter');
  t.strictSame([...(await listed(page))].sort(), [httpId, quietId].sort(), 'the ok filter does not');
  await page.locator('[data-filter="all"]').click();

  // A fresh page (the snapshot) says the same.
  await page.reload();
  await until(page, `document.querySelector('li.run[data-run-id="${id}"] .run-counts') !== null`, 'the row after a reload');
  t.equal(await lineText(page, `${rowSelector} .run-counts`), `${calls} calls · 4 failed`, 'after a reload');
  t.equal(await page.locator(`li.run[data-run-id="${quietId}"] .run-counts`).count(), 0, 'a run with no call shows no counts');
  t.strictSame(realProblems(problems, (text) => t.comment(text)), [], 'no console errors, no CSP violations');
});
