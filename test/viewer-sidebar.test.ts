// The sidebar with many runs, and the page before the first one (issue 21).
//
//   The empty state's recipe carries what this server needs (its port, its
//   data dir) as flags and as GRAPHMIND_DATA_DIR, wraps instead of cutting
//   lines off, has a Copy button per block, and works as pasted: a host
//   started with its exact proxy command line, and no environment of ours,
//   attaches. Runs of two servers both started as `node …/index.mjs` are told
//   apart (their labels keep the folder), and are named by the server's own
//   serverInfo.name once it is known. With many runs the list scrolls in its
//   own area and the breakpoints stay in view; "Delete finished" asks first,
//   then deletes every finished run and nothing running. Run rows keep to one
//   line, cut names have tooltips, counts have their plurals.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Page } from 'playwright-core';
import t from 'tap';
import type { RunSummary } from '../src/protocol/run-model.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { CLI, PROXY_FIXTURES } from './helpers/cli.js';
import { waitForAsync } from './helpers/gates.js';
import { RunEvents, api, fakeReporter, runId, startServe, type ServeProcess } from './helpers/serve.js';
import { NODES, shot, until } from './helpers/viewer.js';

const STEP_MS = 15_000;

/** GET /api/runs. */
async function runs(serve: ServeProcess): Promise<RunSummary[]> {
  return (await api(serve.port, serve.token, 'GET', '/api/runs')).json as RunSummary[];
}

/** This process's environment without anything of ours that would steer a proxy to the debugger. */
function bareEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) env[key] = value;
  return env;
}

/** Two copies of the echo fixture, each as `<dir>/index.mjs` in its own project folder. */
function twoServers(t: { teardown(fn: () => void): void }): { alpha: string; beta: string } {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-sidebar-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const place = (project: string): string => {
    const dir = join(root, project, 'dist');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(PROXY_FIXTURES, 'echo-server.mjs'), join(dir, 'index.mjs'));
    writeFileSync(join(root, project, 'package.json'), '{"type":"module"}\n');
    return join(dir, 'index.mjs');
  };
  return { alpha: place('alpha-tools'), beta: place('beta-tools') };
}

/** A host (an SDK client) that starts `command args…` as its server, with only the environment given. */
async function host(t: { teardown(fn: () => Promise<void>): void }, command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  (transport.stderr as Readable | null)?.resume();
  const client = new Client({ name: 'sidebar-host', version: '1.0.0' });
  t.teardown(async () => {
    await client.close().catch(() => {});
  });
  await client.connect(transport);
  return client;
}

async function box(page: Page, selector: string): Promise<{ top: number; bottom: number; height: number; scrollHeight: number; clientHeight: number; scrollWidth: number; clientWidth: number }> {
  return page.evaluate(`(() => {
    const e = document.querySelector(${JSON.stringify(selector)});
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height, scrollHeight: e.scrollHeight, clientHeight: e.clientHeight, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth };
  })()`);
}

t.test('the recipe carries this server’s port and data dir, wraps, copies, and works as pasted', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.url });
  await page.locator('.empty-state').waitFor();
  await shot(page, 'sidebar-empty-state');
  const html = (await api(serve.port, serve.token, 'GET', '/')).text;
  t.match(html, `<meta name="graphmind-port" content="${serve.port}">`, 'the server writes its port into the page');
  t.match(html, `<meta name="graphmind-data-dir" content="${serve.dataDir}">`, 'and its data dir, which is not the default');

  const blocks = page.locator('.empty-state .recipe-block');
  const texts = await blocks.locator('pre').allTextContents();
  t.ok(texts.length >= 6, `the recipe's blocks (${texts.length})`);
  t.equal(await blocks.locator('button.recipe-copy').count(), texts.length, 'each with its Copy button');
  t.match(await page.locator('.recipe-needs').textContent(), `--port ${serve.port} and --data-dir ${serve.dataDir}`, 'the page says what this debugger runs with');
  const after = (texts[0] ?? '').split('\n').at(-1) ?? '';
  t.match(after, ` mcp-proxy --port ${serve.port} --data-dir ${serve.dataDir} -- node build/server.js`, 'the wrapped command passes the port and the data dir');
  t.match(texts[1] ?? '', `claude mcp add my-server -- node `, 'the claude mcp add line');
  t.match(texts[1] ?? '', `--port ${serve.port} --data-dir ${serve.dataDir} --`, 'with both flags');
  const config = JSON.parse(texts[2] ?? '{}') as { mcpServers: Record<string, { args: string[] }> };
  t.strictSame(config.mcpServers['my-server']?.args.slice(1, 7), ['mcp-proxy', '--port', String(serve.port), '--data-dir', serve.dataDir, '--'], 'the config entry, as JSON');
  t.match(texts[3] ?? '', `claude mcp add my-server -e GRAPHMIND_DATA_DIR=${serve.dataDir} -- node `, 'the env form for claude mcp add');
  const withEnv = JSON.parse(texts[4] ?? '{}') as { mcpServers: Record<string, { args: string[]; env: Record<string, string> }> };
  t.strictSame(withEnv.mcpServers['my-server']?.env, { GRAPHMIND_DATA_DIR: serve.dataDir }, 'and for a config file');
  t.notOk(withEnv.mcpServers['my-server']?.args.includes('--data-dir'), 'which then has no --data-dir flag');
  // Nothing is cut off on the right: every block wraps within its width.
  const widths = await page.evaluate(`[...document.querySelectorAll('.empty-state pre.recipe-code')].map((e) => e.scrollWidth - e.clientWidth)`);
  t.strictSame(widths, (widths as number[]).map(() => 0), 'no block overflows its width');
  // Copy: exactly the block's text.
  await blocks.nth(2).locator('button.recipe-copy').click();
  await page.locator('.empty-state .recipe-block').nth(2).locator('button', { hasText: 'Copied' }).waitFor();
  t.equal(await page.evaluate('navigator.clipboard.readText()'), texts[2], 'Copy puts the block on the clipboard');

  // As pasted: the wrapped command line, with our server, and none of our environment.
  const words = after.split(' ');
  const cut = words.indexOf('--');
  const client = await host(t, words[0] === 'node' ? process.execPath : (words[0] as string), [...words.slice(1, cut + 1), process.execPath, join(PROXY_FIXTURES, 'echo-server.mjs')], bareEnv());
  t.match(client.getServerVersion(), { name: 'echo-server' }, 'the host reaches its server through the proxy');
  await waitForAsync(async () => (await runs(serve)).length === 1, STEP_MS, 'the run');
  await page.locator('.runs .run').first().waitFor({ timeout: STEP_MS });
  t.pass('the proxy found this debugger and its token from the recipe alone: the run is on the page');
  await shot(page, 'sidebar-after-recipe');
  t.same(realProblems(problems, (line) => t.comment(line)), [], 'no console errors');
});

t.test('many runs: a list that scrolls, names that tell servers apart, Delete finished', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url, { width: 1400, height: 800 });
  await page.locator('.empty-state').waitFor();

  // Sixty finished runs, one with a long tool name, calls and a log line.
  const reporter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => reporter.ws.terminate());
  const longName = `search_the_whole_knowledge_base_for_documents_matching_${'x'.repeat(60)}`;
  for (let i = 0; i < 60; i++) {
    const run = new RunEvents(runId(`old${String(i).padStart(2, '0')}`), Date.now() - 3_600_000 + i * 1000);
    const events = [run.started(`node old-${i}/server.js`, {}, 'mcp-proxy'), run.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session(`node old-${i}/server.js`) })];
    if (i === 59) {
      events.push(run.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.tool(longName), input: { n: 1 } }));
      events.push(run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: {} }));
      events.push(run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'one line' }));
    }
    events.push(run.next({ type: 'instance.finished', instanceId: 'mcp_1', output: {} }), run.next({ type: 'run.finished', status: i % 9 === 0 ? 'error' : 'ok' }));
    reporter.send(events);
  }
  await until(page, `document.querySelectorAll('.runs .run').length === 60`, 'sixty runs');

  // Two live servers, both started as `node …/dist/index.mjs`, through real proxies.
  const { alpha, beta } = twoServers(t);
  const env = { ...bareEnv(), GRAPHMIND_DATA_DIR: serve.dataDir };
  const proxyArgs = (server: string): string[] => [CLI, 'mcp-proxy', '--port', String(serve.port), '--wait-for-attach', '--', process.execPath, server];
  await host(t, process.execPath, proxyArgs(alpha), env);
  await host(t, process.execPath, proxyArgs(beta), env);
  await waitForAsync(async () => (await runs(serve)).filter((r) => r.status === 'running').length === 2, STEP_MS, 'two live runs');
  const live = (await runs(serve)).filter((r) => r.status === 'running');
  t.strictSame(live.map((r) => r.name).sort(), ['node alpha-tools/dist/index.mjs', 'node beta-tools/dist/index.mjs'], 'their labels keep the folder: two servers called index.mjs are two names');
  await waitForAsync(async () => (await runs(serve)).filter((r) => r.server?.name === 'echo-server').length === 2, STEP_MS, 'the server names');
  t.pass('the summaries name the server (serverInfo.name)');
  for (const run of live) {
    const row = page.locator(`.runs li[data-run-id="${run.runId}"]`);
    await row.locator('.run-name', { hasText: /^echo-server$/ }).waitFor({ timeout: STEP_MS });
    t.equal(await row.locator('.run-label').textContent(), run.name, `named echo-server, with ${run.name} below`);
    t.match(await row.locator('.run-name').getAttribute('title'), `echo-server 1.0.0 · ${run.name}`, 'and both in its tooltip');
  }

  // The list scrolls inside its own area; the breakpoints below it stay in the viewport.
  const list = await box(page, '.run-list > .runs');
  t.ok(list.scrollHeight > list.clientHeight + 100, `the run list scrolls (${list.scrollHeight} px in ${list.clientHeight})`);
  await shot(page, 'sidebar-many-runs');
  const bps = await box(page, '.side > .breakpoints');
  t.ok(bps.top > list.top && bps.bottom <= 800, `the breakpoints panel is below it, in view (${Math.round(bps.top)}–${Math.round(bps.bottom)} of 800)`);
  await page.locator('#pause-on-error').click();
  await waitForAsync(async () => ((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json as { pauseOnError: boolean }).pauseOnError === false, STEP_MS, 'pause on error off');
  t.pass('and can be used without scrolling the page');
  await page.locator('#pause-on-error').click();

  // Each run's facts on one line: the duration does not wrap.
  const lines = await page.evaluate(`[...document.querySelectorAll('.runs .run')].map((li) => {
    const facts = li.querySelector('.run-facts-line');
    const status = facts.querySelector('.run-status').getBoundingClientRect();
    const took = facts.querySelector('.run-dur').getBoundingClientRect();
    return Math.abs(status.top - took.top) < 2 && took.right <= li.getBoundingClientRect().right;
  })`);
  t.ok((lines as boolean[]).every(Boolean), `every run row keeps its duration on the line (${(lines as boolean[]).length} rows)`);

  // A long tool name is cut, with the whole name in a tooltip; counts have their plurals.
  const old = (await runs(serve)).find((r) => r.name === 'node old-59/server.js') as RunSummary;
  await page.locator(`.runs li[data-run-id="${old.runId}"] .run-body`).click();
  const card = page.locator(`.node[data-node-id="tool:${longName}"]`);
  await card.waitFor({ timeout: STEP_MS });
  t.equal(await card.locator('.node-label').getAttribute('title'), longName, 'the card’s cut label has the whole name as its tooltip');
  t.equal(await page.locator(`.timeline .tl-call .tl-node`).first().getAttribute('title'), longName, 'so has the timeline’s');
  t.match(await page.locator('.timeline .pane-head').textContent(), /1 call · 1 log line$/, '“1 call · 1 log line”, not “1 log lines”');
  await card.click();
  t.equal(await page.locator('.detail-title h2').getAttribute('title'), longName, 'the detail’s title too');
  t.match(await page.locator('.detail-info').textContent(), /1 call$/, 'one call, in the singular');

  // Delete finished: asks first, then deletes every finished run and nothing running.
  const button = page.locator('button[data-action="delete-finished"]');
  t.equal(await button.textContent(), 'Delete finished (60)', 'the button counts the finished runs');
  await button.click();
  t.equal(await button.textContent(), 'Delete 60 runs?', 'the first click asks to be sure');
  await shot(page, 'sidebar-delete-confirm');
  t.equal((await runs(serve)).length, 62, 'nothing is deleted yet');
  await button.click();
  await waitForAsync(async () => (await runs(serve)).length === 2, STEP_MS, 'the finished runs deleted');
  t.strictSame((await runs(serve)).map((r) => r.status), ['running', 'running'], 'the two running runs stay');
  await until(page, `document.querySelectorAll('.runs .run').length === 2`, 'the list of two');
  t.equal(await button.isDisabled(), true, 'nothing finished is left to delete');
  t.same(realProblems(problems, (line) => t.comment(line)), [], 'no console errors');
});
