// A person's first hour (issue 21): the page says why a call holds and what
// happened to it. A real `graphmind serve`, the viewer in Chromium, and a
// real SDK 1.x client through `graphmind mcp-proxy` to the logging fixture:
//
//   the timeline's first rows are the session (not a call) and the protocol's
//   calls, labelled by what they are; a loop hold says it is one, names the
//   tool and GRAPHMIND_LOOP_ALLOW, and opens the held call (its JSON-RPC id,
//   the #id of the HOLDING line, beside its instance id), not the node's
//   first; breakpoint and error holds say so; a held answer shows as held
//   until it goes on; a Retry shows the attempts and the time the client
//   waited; a hold whose client cancelled the request is marked given up and
//   can still be continued; so is one whose host closed its input.
import { spawn } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import t from 'tap';
import type { Instance } from '../src/protocol/run-model.js';
import type { Hold } from '../src/protocol/control.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { CLI } from './helpers/cli.js';
import { connectV1, getRun, listHolds, proxyEnv, runIds, setBreakpoints, sleep, waitForAsync, waitForHold, type ServeProcess } from './helpers/gates.js';
import { api, startServe } from './helpers/serve.js';
import { heldFrameId, pending, shot, until } from './helpers/viewer.js';

const STEP_MS = 10_000;

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? '').trim();
}

/** A new hold that matches, not one of `seen`. */
async function newHold(serve: ServeProcess, match: Partial<Hold>, seen: Set<string>): Promise<Hold> {
  let found: Hold | undefined;
  await waitForAsync(async () => {
    found = (await listHolds(serve)).find((h) => !seen.has(h.holdId) && Object.entries(match).every(([k, v]) => (h as unknown as Record<string, unknown>)[k] === v));
    return found !== undefined;
  }, STEP_MS, `a hold like ${JSON.stringify(match)}`);
  seen.add((found as Hold).holdId);
  return found as Hold;
}

t.test('the page says why a call holds, and what happened to it', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  await page.locator('.empty-state').waitFor({ timeout: STEP_MS });

  const session = await connectV1(t, serve);
  const { client } = session;
  const call = (c: Client, name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) => c.callTool({ name, arguments: args }, undefined, signal === undefined ? undefined : { signal });
  await call(client, 'echo', { text: 'first' });
  const [runId] = await runIds(serve);
  await page.locator('.node[data-node-id="tool:echo"]').waitFor({ timeout: STEP_MS });

  // 1. The timeline's first rows: the session is a marker, not a call; the protocol card is no row.
  const sessionRow = page.locator('.timeline .tl-session');
  await sessionRow.waitFor({ timeout: STEP_MS });
  t.equal(await sessionRow.locator('.pill').textContent(), 'running', 'the session row says the session runs');
  t.match((await sessionRow.textContent()) ?? '', /session started/, 'and that it is where the session started');
  t.equal(await page.locator('.timeline .tl-call[data-instance-id="mcp_1"], .timeline .tl-call[data-instance-id="mcp_2"]').count(), 0, 'neither the session (mcp_1) nor the protocol card (mcp_2) is a call row');
  t.equal(await page.locator('.timeline .tl-call .pill', { hasText: /^open$/ }).count(), 0, 'nothing in the timeline reads like a hung request');
  const run = await getRun(serve, runId as string);
  const calls = run.instances.filter((i) => i.nodeId !== 'mcp:session' && i.nodeId !== 'mcp:protocol').length;
  t.equal(calls, 3, 'the run has three calls (initialize, notifications/initialized, echo) beside its session and protocol card');
  t.match(await text(page, '.timeline .pane-head'), /^.*3 calls · 0 log lines$/, 'the head counts three calls, and its plurals agree');
  // Protocol children say what they are.
  await page.locator('.node.container[data-node-id="mcp:protocol"]').click();
  await page.locator('.node[data-node-id="mcp:initialize"]').waitFor({ timeout: STEP_MS });
  t.equal(await text(page, '.node[data-node-id="mcp:initialize"] .kind'), 'request', 'initialize is a request, not CUSTOM');
  t.equal(await text(page, '.node[data-node-id="mcp:notifications/initialized"] .kind'), 'notification', 'notifications/initialized is a notification');
  t.equal(await text(page, '.node[data-node-id="mcp:protocol"] .kind'), 'protocol', 'the card itself is the protocol');
  await page.locator('.node[data-node-id="mcp:initialize"]').click();
  t.equal(await text(page, '.detail-title .kind'), 'request', 'and so says the detail');
  await page.locator('.node.container[data-node-id="mcp:protocol"]').click();

  // 2. The loop hold: the third identical call. The page is on another node; the hold opens the held call.
  await page.locator('.node[data-node-id="tool:echo"]').click();
  await call(client, 'poll');
  await call(client, 'poll');
  const seen = new Set<string>();
  const looping = pending(call(client, 'poll'));
  const loop = await newHold(serve, { reason: 'loop' }, seen);
  const card = page.locator(`.holds .hold[data-hold-id="${loop.holdId}"]`);
  await card.waitFor({ timeout: STEP_MS });
  t.equal(await card.getAttribute('data-reason'), 'loop', 'the hold panel has its reason');
  t.equal(await card.locator('.reason').textContent(), 'loop hold', 'and says it is the loop hold');
  await shot(page, 'first-hour-loop');
  const why = (await card.locator('.hold-why').textContent()) ?? '';
  t.match(why, /third identical call to poll in a row/, 'the third identical call, naming the tool');
  t.match(why, /GRAPHMIND_LOOP_ALLOW=poll/, 'and how to allow it');
  t.match(why, /proxy’s environment/, 'where that goes');
  t.match(await text(page, '.node[data-node-id="tool:poll"] .held-badge'), /^HELD at before · loop hold$/, 'the card says it too');
  // The detail pane moved to the held call: poll's third call, expanded, its first not.
  await page.locator('.detail-title', { hasText: 'poll' }).waitFor({ timeout: STEP_MS });
  const heldRow = page.locator(`.detail .inst[data-instance-id="${loop.instanceId}"]`);
  await heldRow.locator('.inst-body').waitFor({ timeout: STEP_MS });
  t.equal(await heldRow.locator('.inst-head').getAttribute('aria-expanded'), 'true', 'the held call is open in the detail pane');
  const first = (await getRun(serve, runId as string)).instances.find((i) => i.nodeId === 'tool:poll') as Instance;
  t.not(first.instanceId, loop.instanceId, 'the held call is not the node’s first');
  t.equal(await page.locator(`.detail .inst[data-instance-id="${first.instanceId}"] .inst-body`).count(), 0, 'the node’s first call is not the one opened');
  const rpcId = String(heldFrameId(loop));
  t.equal(await heldRow.locator('.rpc-id').textContent(), `#${rpcId}`, 'the held call shows its JSON-RPC id beside its instance id');
  t.equal(await text(page, '.detail .held-call .inst-id'), loop.instanceId, 'and so does the head: the instance');
  t.equal(await text(page, '.detail .held-call .rpc-id'), `#${rpcId}`, 'with the id of the request');
  t.ok(session.stderr.holdingLines().some((line) => line.includes(`tools/call #${rpcId} `)), 'the same #id as the proxy’s HOLDING line');
  t.equal(await card.locator('.hold-rpc-id').textContent(), `#${rpcId}`, 'and the hold panel');
  t.match(await text(page, `.timeline .tl[data-instance-id="${loop.instanceId}"] .held-badge`), /loop hold/, 'the timeline row says why too');
  await card.locator('button[data-action="continue"]').click();
  t.match(await looping, { content: [{ text: 'still running' }] }, 'continued from the page: the call runs');

  // 3. A breakpoint says so; so does pause on error.
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const breaking = pending(call(client, 'echo', { text: 'break' }));
  const bp = await newHold(serve, { nodeId: 'tool:echo', gate: 'before' }, seen);
  const bpCard = page.locator(`.holds .hold[data-hold-id="${bp.holdId}"]`);
  await bpCard.waitFor({ timeout: STEP_MS });
  t.equal(await bpCard.locator('.reason').textContent(), 'breakpoint', 'a breakpoint hold says breakpoint');
  t.match((await bpCard.locator('.hold-why').textContent()) ?? '', /Break before is set on tool:echo/, 'and which');
  await bpCard.locator('button[data-action="continue"]').click();
  await breaking;
  const failing = pending(call(client, 'fail'));
  const err = await newHold(serve, { gate: 'error' }, seen);
  const errCard = page.locator(`.holds .hold[data-hold-id="${err.holdId}"]`);
  await errCard.waitFor({ timeout: STEP_MS });
  t.equal(await errCard.locator('.reason').textContent(), 'pause on error', 'an error hold says pause on error');
  t.match(await text(page, '.node[data-node-id="tool:fail"] .held-badge'), /pause on error/, 'on its card too');
  await errCard.locator('button[data-action="continue"]').click();
  t.match(await failing, { isError: true }, 'continued: the client gets the failure');

  // 4. A held answer is held, not "ok": the client has not received it. Then Retry, and Continue.
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { after: true } } });
  let delivered = false;
  const retried = pending(call(client, 'echo', { text: 'retry me' })).then((result) => {
    delivered = true;
    return result;
  });
  const h1 = await newHold(serve, { nodeId: 'tool:echo', gate: 'after' }, seen);
  const row = page.locator(`.detail .inst[data-instance-id="${h1.instanceId}"]`);
  await row.waitFor({ timeout: STEP_MS });
  const line = page.locator(`.timeline .tl[data-instance-id="${h1.instanceId}"]`);
  await line.waitFor({ timeout: STEP_MS });
  const recorded = (await getRun(serve, runId as string)).instances.find((i) => i.instanceId === h1.instanceId) as Instance;
  t.equal(recorded.status, 'ok', 'the record has the answer (it came)…');
  t.equal(await row.locator('.inst-head .pill').textContent(), 'held', '…but the page shows the call held, not ok');
  t.match(await row.locator('.inst-head .inst-dur').textContent(), /^waiting /, 'with the time the client has been waiting');
  t.equal(await line.locator('.pill').textContent(), 'held', 'the timeline too');
  t.match(await line.locator('.tl-dur').textContent(), /^waiting /, 'waiting, not a duration');
  t.match((await row.locator('.held-note').textContent()) ?? '', /the client has not received it/, 'the open call says the answer is held');
  t.notOk(delivered, 'and indeed the client has nothing yet');
  await shot(page, 'first-hour-held-answer');
  const h1Card = page.locator(`.holds .hold[data-hold-id="${h1.holdId}"]`);
  await h1Card.locator('button[data-action="retry"]').click();
  const h2 = await newHold(serve, { nodeId: 'tool:echo', gate: 'after' }, seen);
  t.equal(h2.instanceId, h1.instanceId, 'the second answer to the same call holds again');
  const h2Card = page.locator(`.holds .hold[data-hold-id="${h2.holdId}"]`);
  await h2Card.waitFor({ timeout: STEP_MS });
  await sleep(1100);
  await h2Card.locator('button[data-action="continue"]').click();
  t.match(await retried, { content: [{ text: 'retry me' }] }, 'continue: the client gets the second answer');
  await page.locator(`.detail .inst[data-instance-id="${h1.instanceId}"][data-state="ok"]`).waitFor({ timeout: STEP_MS });
  t.equal(await row.locator('.inst-head .pill').textContent(), 'ok', 'once it went on, the call is ok');
  t.equal(await row.locator('.retried').textContent(), 'sent 2×', 'sent twice');
  // The hold leaves the page when it is decided; the time it went on comes with its release, a moment later.
  await until(page, `/ held$/.test(document.querySelector('.detail .inst[data-instance-id="${h1.instanceId}"] .inst-head .inst-dur')?.textContent ?? '')`, 'the client’s wait as the duration', STEP_MS);
  const took = (await row.locator('.inst-head .inst-dur').textContent()) ?? '';
  // Issue 30: the server's time first, the time held apart (it is the debugger's, not the server's).
  t.match(took, /^\d+(\.\d+)? m?s \+ \d+\.\d+ s held$/, `its duration is the server's time with the time held apart (${took})`);
  t.match(
    (await row.locator('.inst-head .inst-dur').getAttribute('title')) ?? '',
    /the client waited \d+\.\d+ s from the request to the answer it got: the server's time .*, held \d+\.\d+ s by the debugger; the answer was held .* at the gate; the request was sent 2 times/,
    'which its tooltip explains, with what the client waited',
  );
  const attempts = row.locator('.attempts .attempt');
  t.equal(await attempts.count(), 2, 'the attempts: the dropped answer and the one the client got');
  t.match((await attempts.nth(0).textContent()) ?? '', /^1st answer ok at [\d:.]+ \(\d+ ms\) — dropped at [\d:.]+, request sent again/, 'the first answer, and when it was dropped and sent again');
  t.match((await attempts.nth(1).textContent()) ?? '', /^2nd answer ok at [\d:.]+ .*reached the client at [\d:.]+; the client waited \d+\.\d+ s in all/, 'the second, when the client got it, and its whole wait');
  const api1 = (await getRun(serve, runId as string)).instances.find((i) => i.instanceId === h1.instanceId) as Instance;
  t.equal(api1.attempts?.length, 1, 'the API has the dropped answer too');
  await shot(page, 'first-hour-retried');
  t.ok(api1.deliveredAt !== undefined && api1.deliveredAt > (api1.endedAt as string), 'and when the answer reached the client');

  // 5. The client gives up on a held answer (notifications/cancelled): marked, and continuing is still allowed.
  const abort = new AbortController();
  const abandoned = call(client, 'echo', { text: 'give up' }, abort.signal).then(
    () => 'answered',
    () => 'cancelled',
  );
  const h3 = await newHold(serve, { nodeId: 'tool:echo', gate: 'after' }, seen);
  const h3Card = page.locator(`.holds .hold[data-hold-id="${h3.holdId}"]`);
  await h3Card.waitFor({ timeout: STEP_MS });
  t.equal(await h3Card.getAttribute('data-given-up'), null, 'not given up while the client waits');
  abort.abort('the user pressed Esc');
  t.equal(await abandoned, 'cancelled', 'the client gave up');
  await page.locator(`.holds .hold[data-hold-id="${h3.holdId}"][data-given-up="true"]`).waitFor({ timeout: STEP_MS });
  t.match((await h3Card.locator('.given-up-text').textContent()) ?? '', /the client cancelled the request \(notifications\/cancelled: the user pressed Esc\)/, 'the card says who gave up, and why');
  t.equal(await h3Card.locator('.given-up-badge').textContent(), 'given up', 'with a badge');
  await shot(page, 'first-hour-given-up');
  t.match(await text(page, '.node[data-node-id="tool:echo"] .held-badge'), /given up/, 'the card in the graph too');
  t.match(await text(page, `.detail .inst[data-instance-id="${h3.instanceId}"] .given-up-text`), /^Given up: the client cancelled the request/, 'and the held call');
  t.equal((await listHolds(serve)).find((h) => h.holdId === h3.holdId)?.givenUp, 'the client cancelled the request (notifications/cancelled: the user pressed Esc)', 'GET /api/holds has it');
  await h3Card.locator('button[data-action="continue"]').click();
  await h3Card.waitFor({ state: 'detached', timeout: STEP_MS });
  t.equal(await page.locator('.notice.shown').count(), 0, 'continuing it was accepted (no complaint)');
  await setBreakpoints(serve, { pauseOnError: true, nodes: {} });
  t.strictSame(await client.callTool({ name: 'echo', arguments: { text: 'after' } }), { content: [{ type: 'text', text: 'after' }] }, 'the session goes on');

  t.same(realProblems(problems, (line) => t.comment(line)), [], 'no console errors, page errors or CSP violations');
  await session.close();
});

/** A server that answers initialize and tools/call, and stays up when its stdin ends (so the session outlives the host's input for a while). */
const STAYING_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'staying', version: '1.0.0' } } });
  else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'late answer' }] } });
});
setInterval(() => {}, 1000);
`;

t.test('a held answer whose host closed its input is marked given up', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  await api(serve.port, serve.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: { 'tool:slow': { after: true } } });
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  await page.locator('.empty-state').waitFor({ timeout: STEP_MS });
  const proxy = spawn(process.execPath, [CLI, 'mcp-proxy', '--port', String(serve.port), '--wait-for-attach', '--', process.execPath, '-e', STAYING_SERVER], { stdio: 'pipe', env: proxyEnv(serve) });
  // SIGTERM, so the proxy stops its server too (a SIGKILLed proxy would leave it running); SIGKILL only if it does not exit.
  t.teardown(async () => {
    if (proxy.exitCode !== null || proxy.signalCode !== null) return;
    const exited = new Promise((resolve) => proxy.once('exit', resolve));
    proxy.kill('SIGTERM');
    const timer = setTimeout(() => proxy.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  });
  proxy.stdout.resume();
  proxy.stderr.resume();
  proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } })}\n`);
  proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } })}\n`);
  const hold = await waitForHold(serve, { nodeId: 'tool:slow', gate: 'after' }, STEP_MS);
  const card = page.locator(`.holds .hold[data-hold-id="${hold.holdId}"]`);
  await card.waitFor({ timeout: STEP_MS });
  t.equal(await card.getAttribute('data-given-up'), null, 'held, with the host still there');
  // Show call: from the panel to the held call, wherever the page is.
  await page.locator('.node[data-node-id="mcp:session"]').click();
  await page.locator('.detail .node-id', { hasText: 'mcp:session' }).waitFor({ timeout: STEP_MS });
  await card.getByRole('button', { name: 'Show call' }).click();
  await page.locator(`.detail .inst.active[data-instance-id="${hold.instanceId}"] .inst-body`).waitFor({ timeout: STEP_MS });
  t.equal(await page.locator(`.detail .inst[data-instance-id="${hold.instanceId}"] .rpc-id`).textContent(), '#2', 'Show call opens the held call, with its id');
  proxy.stdin.end();
  await page.locator(`.holds .hold[data-hold-id="${hold.holdId}"][data-given-up="true"]`).waitFor({ timeout: STEP_MS });
  t.match((await card.locator('.given-up-text').textContent()) ?? '', /the host closed the session \(the proxy's stdin ended\)/, 'the host closing its input gives the hold up');
  await card.locator('button[data-action="continue"]').click();
  await card.waitFor({ state: 'detached', timeout: STEP_MS });
  t.pass('and it can still be continued');
  t.same(realProblems(problems, (line) => t.comment(line)), [], 'no console errors');
});
