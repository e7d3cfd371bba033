// Defects an audit of `graphmind serve` found, each pinned by a test that
// failed before its fix: a deleted live run no longer stalls its session
// (fail open), --max-runs never deletes a live run, a reclaim is not logged
// twice, absolute-form request targets cannot get past the Host check, 405s
// carry Allow, and a viewer served on ::1 reaches its own live feed.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Run } from '../src/protocol/run-model.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { RunStore } from '../src/server/run-store.js';
import { startServer } from '../src/server/serve.js';
import { launchBrowser, openPage } from './helpers/browser.js';
import { hasIpv6Loopback } from './helpers/graph.js';
import { connectV1, setBreakpoints, waitForHold } from './helpers/gates.js';
import {
  RunEvents,
  api,
  eventually,
  fakeReporter,
  freshDataDir,
  liveClient,
  rawSocket,
  runId,
  runWhen,
  startServe,
  type CollectingSocket,
  type FakeReporter,
  type ServeProcess,
} from './helpers/serve.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

const echo = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' } as const;

async function serveFor(t: Teardown, args: readonly string[] = [], dataDir?: string): Promise<ServeProcess> {
  const server = await startServe(args, {}, dataDir === undefined ? {} : { dataDir });
  t.teardown(() => server.stop());
  return server;
}

async function reporterFor(t: Teardown, server: ServeProcess): Promise<FakeReporter> {
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  return reporter;
}

async function liveFor(t: Teardown, server: ServeProcess): Promise<CollectingSocket> {
  const live = await liveClient(server.port, server.token);
  t.teardown(() => live.ws.terminate());
  await live.next((m) => m.type === 'snapshot');
  return live;
}

function holdOpened(run: RunEvents, holdId: string, instanceId: string): RunEvent {
  return run.next({
    type: 'hold.opened',
    holdId,
    nodeId: 'tool:echo',
    instanceId,
    gate: 'before',
    method: 'tools/call',
    frame: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
  });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const isDecision = (holdId: string) => (m: Record<string, unknown>) => m.type === 'decision' && m.holdId === holdId;

/** The lines of a run's log on disk, parsed. */
function logged(server: ServeProcess, id: string): RunEvent[] {
  const file = join(server.dataDir, 'runs', `${id}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RunEvent);
}

t.test('a live run deleted through the API never stalls its session', async (t) => {
  const server = await serveFor(t);
  const live = await liveFor(t, server);
  const reporter = await reporterFor(t, server);
  const id = runId('deleted_live');
  const run = new RunEvents(id);
  reporter.send([
    run.started(),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo }),
    holdOpened(run, 'h_open', 'mcp_1'),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: echo }),
    holdOpened(run, 'h_decided', 'mcp_2'),
  ]);
  await eventually(async () => ((await api(server.port, server.token, 'GET', '/api/holds')).json as unknown[]).length === 2 || undefined);
  // One hold decided (its reporter has the decision, the release has not come back yet), one still waiting.
  t.equal((await api(server.port, server.token, 'POST', '/api/holds/h_decided', { action: 'abort' })).status, 200);
  await reporter.next(isDecision('h_decided'));

  t.equal((await api(server.port, server.token, 'DELETE', `/api/runs/${id}`)).status, 204, 'DELETE of a live run: 204');
  const rejected = { type: 'rejected', runId: id, reason: 'the run was deleted' };
  t.strictSame(await reporter.next((m) => m.type === 'rejected', 5000, 'the rejection'), rejected, 'its reporter is told nothing more of the run is recorded');
  const released = await reporter.next(isDecision('h_open'), 5000, 'a decision for the hold open at the delete');
  t.strictSame(released, { type: 'decision', holdId: 'h_open', action: 'continue' }, 'the hold open at the delete is continued: its frame goes on unchanged');
  const liveReleased = await live.next((m) => m.type === 'hold.released' && m.holdId === 'h_open');
  t.strictSame(liveReleased, { type: 'hold.released', holdId: 'h_open', action: 'continue' }, 'viewers see it released');
  t.strictSame(await live.next((m) => m.type === 'hold.released' && m.holdId === 'h_decided'), { type: 'hold.released', holdId: 'h_decided', action: 'abort' });
  const deletedAt = live.messages.indexOf(await live.next((m) => m.type === 'run.deleted' && m.runId === id));
  t.strictSame((await api(server.port, server.token, 'GET', '/api/holds')).json, [], 'no hold of the deleted run is left');
  t.equal((await api(server.port, server.token, 'POST', '/api/holds/h_open', { action: 'continue' })).status, 409, 'a late decision is a conflict');

  // The reporter goes on reporting the run, and opens another hold.
  reporter.send([
    run.next({ type: 'hold.released', holdId: 'h_open', action: 'continue' }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_1' }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: echo }),
    holdOpened(run, 'h_after', 'mcp_3'),
  ]);
  const after = await reporter.next(isDecision('h_after'), 5000, 'a decision for a hold opened after the delete');
  t.strictSame(after, { type: 'decision', holdId: 'h_after', action: 'continue' }, 'a hold opened after the delete is continued at once');
  // Decisions come in order on one socket: a second one for h_decided, sent at the delete, would be here by now.
  t.equal(reporter.messages.filter(isDecision('h_decided')).length, 1, 'a hold already decided is not decided again');
  t.strictSame((await api(server.port, server.token, 'GET', '/api/holds')).json, [], 'and never listed');
  t.notOk(live.messages.some((m) => m.type === 'hold.opened' && (m.hold as { holdId: string }).holdId === 'h_after'), 'nor announced');
  t.equal((await api(server.port, server.token, 'GET', `/api/runs/${id}`)).status, 404, 'later events do not bring the run back');

  // It reconnects and reclaims the run, as a reporter does: it stays deleted, and its holds still go on.
  reporter.ws.terminate();
  const back = await reporterFor(t, server);
  back.send([{ ...(run.started() as RunEvent), seq: 1 }, holdOpened(run, 'h_reclaimed', 'mcp_3')]);
  t.strictSame(await back.next((m) => m.type === 'rejected', 5000, 'the rejection of the reclaim'), rejected, 'the reclaim is told so again: its proxy holds nothing after a reconnect either');
  t.strictSame(await back.next(isDecision('h_reclaimed')), { type: 'decision', holdId: 'h_reclaimed', action: 'continue' }, 'a hold after a reclaim is continued');
  t.equal((await api(server.port, server.token, 'GET', `/api/runs/${id}`)).status, 404, 'a reclaim does not bring the run back');
  t.notOk((await api(server.port, server.token, 'GET', '/api/runs')).text.includes(id), 'nor list it');
  // A run started after all that: once viewers hear of it, anything said about the deleted run came before it.
  const sentinel = runId('sentinel');
  back.send([{ type: 'run.started', runId: sentinel, seq: 1, t: Date.now(), name: 'sentinel', source: 'test', meta: {} }]);
  await live.next((m) => m.type === 'run.started' && (m.run as { runId?: string } | undefined)?.runId === sentinel);
  const aboutRun = (m: Record<string, unknown>): boolean => m.runId === id || (m.run as { runId?: string } | undefined)?.runId === id;
  const announced = live.messages.slice(deletedAt).filter(aboutRun);
  t.strictSame(announced.map((m) => m.type), ['run.deleted'], 'nor announce it');
  t.notOk(existsSync(join(server.dataDir, 'runs', `${id}.jsonl`)), 'nor write its log again');
});

t.test('a real proxy whose run was deleted keeps answering calls that hit a breakpoint', async (t) => {
  const server = await serveFor(t);
  await setBreakpoints(server, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const { client } = await connectV1(t, server);
  const first = client.callTool({ name: 'echo', arguments: { text: 'one' } });
  first.catch(() => {});
  const hold = await waitForHold(server, { nodeId: 'tool:echo' });
  t.equal((await api(server.port, server.token, 'DELETE', `/api/runs/${hold.runId}`)).status, 204);
  t.strictSame(await within(first, 5000, 'the held call'), { content: [{ type: 'text', text: 'one' }] }, 'the call held at the delete is answered');
  // The breakpoint still stops every echo, but the run is gone: nobody could decide the hold.
  t.strictSame(
    await client.callTool({ name: 'echo', arguments: { text: 'two' } }, undefined, { timeout: 5000 }),
    { content: [{ type: 'text', text: 'two' }] },
    'a call that hits the breakpoint after the delete is answered',
  );
  t.equal((await api(server.port, server.token, 'GET', `/api/runs/${hold.runId}`)).status, 404, 'and the run stays deleted');
});

t.test('--max-runs never deletes a live run', async (t) => {
  const server = await serveFor(t, ['--max-runs', '2']);
  const live = await liveFor(t, server);
  const reporter = await reporterFor(t, server);
  const base = Date.UTC(2036, 0, 1);
  const runs = [0, 1, 2, 3].map((i) => new RunEvents(`live_${i}_${process.pid}`, base + i * 1000));
  const ids = runs.map((run) => run.runId);
  for (const run of runs) reporter.send([run.started(), run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo })]);
  await runWhen(server, ids[3] as string, (r) => (r.instances as unknown[]).length === 1);
  const listed = async (): Promise<string[]> => ((await api(server.port, server.token, 'GET', '/api/runs')).json as Array<{ runId: string }>).map((r) => r.runId);
  t.strictSame(await listed(), [...ids].reverse(), 'four live runs over a limit of two: all kept');
  for (const id of ids) t.ok(existsSync(join(server.dataDir, 'runs', `${id}.jsonl`)), `${id}: its log is kept`);
  t.notOk(live.messages.some((m) => m.type === 'run.deleted'), 'nothing was deleted');

  // The oldest is still recorded: its holds reach the API.
  reporter.send([holdOpened(runs[0] as RunEvents, 'h_oldest', 'mcp_1')]);
  await waitForHold(server, { runId: ids[0] });
  t.pass('a hold of the oldest live run is listed');
  t.equal((await api(server.port, server.token, 'POST', '/api/holds/h_oldest', { action: 'continue' })).status, 200);
  t.strictSame(await reporter.next(isDecision('h_oldest')), { type: 'decision', holdId: 'h_oldest', action: 'continue' });
  reporter.send([(runs[0] as RunEvents).next({ type: 'hold.released', holdId: 'h_oldest', action: 'continue' })]);

  // As live runs finish, they are trimmed back to the limit, oldest first.
  reporter.send([(runs[1] as RunEvents).next({ type: 'run.finished', status: 'ok' })]);
  await live.next((m) => m.type === 'run.deleted' && m.runId === ids[1], 5000, 'the finished run trimmed');
  const updated = live.messages.findIndex((m) => m.type === 'run.updated' && (m.run as { runId: string }).runId === ids[1]);
  const deleted = live.messages.findIndex((m) => m.type === 'run.deleted' && m.runId === ids[1]);
  t.ok(updated !== -1 && updated < deleted, 'viewers hear it finished, then deleted');
  t.strictSame(await listed(), [ids[3], ids[2], ids[0]], 'the first to finish goes; the live ones stay');
  await eventually(async () => !existsSync(join(server.dataDir, 'runs', `${ids[1]}.jsonl`)) || undefined);
  t.pass('its log is deleted');

  reporter.send([(runs[3] as RunEvents).next({ type: 'run.finished', status: 'ok' })]);
  await live.next((m) => m.type === 'run.deleted' && m.runId === ids[3], 5000, 'the next finished run trimmed');
  t.strictSame(await listed(), [ids[2], ids[0]], 'back at the limit: two live runs');

  // A new run over the limit, with only live ones to delete: kept, nothing deleted.
  const fifth = new RunEvents(`live_4_${process.pid}`, base + 4000);
  reporter.send([fifth.started()]);
  await runWhen(server, fifth.runId, () => true);
  t.strictSame(await listed(), [fifth.runId, ids[2], ids[0]], 'a new live run joins the live ones');
  const oldest = (await runWhen(server, ids[0] as string, () => true)) as unknown as Run;
  t.equal(oldest.status, 'running', 'the oldest is still live');
});

t.test('a reclaim of a run the server has is applied but not logged again', async (t) => {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await serveFor(t, [], dataDir);
  const id = runId('reclaimed');
  const base = Date.UTC(2037, 0, 1);
  const run = new RunEvents(id, base);
  const start = run.started('reclaimed', { command: 'node' }, 'mcp-proxy');
  const reporter = await fakeReporter(first.port, first.token);
  reporter.send([start, run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo })]);
  await runWhen(first, id, (r) => (r.instances as unknown[]).length === 1);
  reporter.ws.terminate();
  await runWhen(first, id, (r) => r.status === 'error');

  const back = await reporterFor(t, first);
  back.send([start, run.next({ type: 'instance.finished', instanceId: 'mcp_1' }, base + 60_000)]);
  const reclaimed = (await runWhen(first, id, (r) => r.status === 'running' && (r.instances as Array<{ status: string }>)[0]?.status === 'ok')) as unknown as Run;
  t.equal(reclaimed.endedAt, null, 'the reclaim makes the run live again');
  await eventually(async () => logged(first, id).some((event) => event.type === 'instance.finished') || undefined);
  const lines = logged(first, id);
  t.equal(lines.filter((event) => event.type === 'run.started').length, 1, 'the log holds one run.started');
  const seqs = lines.map((event) => event.seq).filter((seq) => seq !== 0);
  t.strictSame(seqs, [1, 2, 3], 'each seq once');

  // The server dies while the reclaimed run is live: it comes back ended at its last event, not at the earlier drop.
  await first.stop('SIGKILL');
  back.ws.terminate();
  const second = await serveFor(t, [], dataDir);
  const reloaded = (await api(second.port, second.token, 'GET', `/api/runs/${id}`)).json as Run;
  t.equal(reloaded.status, 'error', 'live when the server stopped: an error after the restart');
  t.equal(reloaded.endedAt, new Date(base + 60_000).toISOString(), 'ended at its last event');
  t.equal(reloaded.instances[0]?.status, 'ok', 'with what the reclaim added');
});

t.test('an absolute-form request target is refused like a foreign Host', async (t) => {
  const server = await serveFor(t);
  const { port, token } = server;
  const request = (target: string, method = 'GET', extra = ''): Promise<string> =>
    rawSocket(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n${extra}Connection: close\r\n\r\n`);
  t.match(await request('/api/health'), /^HTTP\/1\.1 200 /, 'origin-form: served');
  for (const target of ['http://evil.example/api/health', `http://127.0.0.1:${port}/api/health`, 'http://evil.example/', `HTTP://evil.example/api/runs`]) {
    const answer = await request(target);
    t.match(answer, /^HTTP\/1\.1 403 /, `${target}: 403`);
    t.match(answer, /\r\n\r\n\{"error":"forbidden"\}$/, `${target}: the generic refusal, nothing served`);
  }
  t.match(await request('*', 'OPTIONS'), /^HTTP\/1\.1 403 /, 'asterisk-form: 403');
  const upgrade = await request(
    `http://evil.example/ingest`,
    'GET',
    'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
  );
  t.match(upgrade, /^HTTP\/1\.1 403 /, 'an upgrade with an absolute-form target: 403');
});

t.test('405 answers say which methods the route allows', async (t) => {
  const server = await serveFor(t);
  const cases: Array<[string, string, string]> = [
    ['DELETE', '/api/health', 'GET'],
    ['POST', '/api/runs', 'GET'],
    ['PUT', '/api/runs/some_run', 'GET, DELETE'],
    ['POST', '/api/breakpoints', 'GET, PUT'],
    ['PUT', '/api/holds', 'GET'],
    ['GET', '/api/holds/some_hold', 'POST'],
    ['POST', '/', 'GET, HEAD'],
  ];
  for (const [method, path, allow] of cases) {
    const answer = await api(server.port, server.token, method, path);
    t.equal(answer.status, 405, `${method} ${path}: 405`);
    t.equal(answer.headers.allow, allow, `${method} ${path}: Allow: ${allow}`);
  }
});

t.test('a viewer served on ::1 reaches its own live feed, with a valid CSP', async (t) => {
  if (!(await hasIpv6Loopback())) {
    // Not passed silently: --host ::1 is a documented flag, and this machine cannot show it works.
    t.fail('this machine has no IPv6 loopback (::1), so serve --host ::1 cannot be tested here');
    return;
  }
  const server = await serveFor(t, ['--host', '::1']);
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, `${server.url}/`);
  // The page's own socket, as src/viewer/live.ts opens it (in-page code as text: no DOM types here).
  const first = await page.evaluate(`new Promise((resolve) => {
    const token = document.querySelector('meta[name="graphmind-token"]').content;
    const ws = new WebSocket('ws://' + location.host + '/api/live?token=' + encodeURIComponent(token));
    ws.onmessage = (event) => { resolve(JSON.parse(event.data).type); ws.close(); };
    ws.onerror = () => resolve('error');
  })`);
  t.equal(first, 'snapshot', `the page on ${server.url} opens ws://[::1]:${server.port}/api/live`);
  // CSP has no syntax for an IPv6 literal: 'self' is what allows that socket, and a ws://[::1] source would be an error in the console.
  t.strictSame(problems, [], 'no console error, no CSP violation');
});

t.test('retention may delete an abandoned run, and its reporter coming back reclaims it as a new run', async (t) => {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const store = new RunStore({ dir: join(dataDir, 'runs'), maxRuns: 1 });
  t.teardown(() => store.close());
  const start = (id: string, at: number): RunEvent => ({ type: 'run.started', runId: id, seq: 1, t: at, name: id, source: 'test', meta: {} });
  const older = runId('older');
  const newer = runId('newer');
  store.append(start(older, 1_000));
  store.append(start(newer, 2_000));
  t.equal(store.list().length, 2, 'two live runs over --max-runs 1: both kept');
  // The older one's reporter vanishes: the run ends error, and may now go.
  store.abandon(older, 3_000);
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(store.has(older), 'the abandoned run is trimmed');
  t.ok(store.has(newer), 'the live one stays');
  // Its reporter reconnects and reclaims it: not refused like a run deleted on request.
  t.ok(store.append(start(older, 1_000)), 'the reclaim creates the run again');
  t.equal(store.get(older)?.summary.status, 'running', 'live again');
  t.ok(store.delete(newer, true), 'a delete on request');
  t.notOk(store.append(start(newer, 2_000)), 'and that run stays deleted');
});

t.test('hostile input cannot take the server down', async (t) => {
  const server = await serveFor(t);
  const health = async (): Promise<number> => (await api(server.port, server.token, 'GET', '/api/health')).status;

  // Targets the URL parser rejects, before any token is asked for: a request, and an upgrade.
  for (const target of ['//[', '//a:99999/', '//@/', '/\\[']) {
    const answer = await rawSocket(server.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`);
    t.match(answer, /^HTTP\/1\.1 400 /, `GET ${target}: 400`);
    const upgrade = await rawSocket(
      server.port,
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    t.match(upgrade, /^HTTP\/1\.1 400 /, `upgrade to ${target}: 400`);
  }
  t.equal(await health(), 200, 'still up after unparseable targets');

  // A reporter's event holding a value nested too deep to serialise again: that connection ends, nothing else.
  const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  const reporter = await reporterFor(t, server);
  const run = new RunEvents(runId('deep'));
  reporter.send([run.started()]);
  reporter.sendRaw(`{"type":"run.meta","runId":"${run.runId}","seq":2,"t":${Date.now()},"meta":{"x":${deep(20_000)}}}`);
  t.equal((await reporter.closed).code, 1008, 'the reporter that sent it is closed as malformed');
  t.equal(await health(), 200, 'still up after a value nested too deep');
  // The same in a batch (an array): refused whole, as the fast reader refuses it, rather than kept and failing every read of the run.
  const batcher = await reporterFor(t, server);
  const batched = new RunEvents(runId('deep-batch'));
  batcher.sendRaw(`[${JSON.stringify(batched.started())},{"type":"run.meta","runId":"${batched.runId}","seq":2,"t":${Date.now()},"meta":{"x":${deep(5_000)}}}]`);
  t.equal((await batcher.closed).code, 1008, 'a batch holding it is malformed too');
  t.equal((await api(server.port, server.token, 'GET', `/api/runs/${batched.runId}`)).status, 404, 'nothing of it was kept');
  t.equal((await api(server.port, server.token, 'GET', '/api/runs')).status, 200, 'and the run list still reads');
  const live = await liveFor(t, server);
  t.ok(live.messages.some((m) => m.type === 'snapshot'), 'and a viewer still connects');

  // An inject value too deep to send to the reporter: the decision fails, and the hold can still be decided.
  const owner = await reporterFor(t, server);
  const held = new RunEvents(runId('held'));
  owner.send([held.started(), held.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo }), holdOpened(held, 'h_deep', 'mcp_1')]);
  await eventually(async () => ((await api(server.port, server.token, 'GET', '/api/holds')).json as unknown[]).length === 1 || undefined);
  const bad = await rawRequestJson(server, '/api/holds/h_deep', `{"action":"inject","value":${deep(100_000)}}`);
  t.equal(bad, 400, 'an inject too deep to pass on is refused as a bad body');
  t.equal(await health(), 200, 'still up');
  t.equal((await api(server.port, server.token, 'POST', '/api/holds/h_deep', { action: 'continue' })).status, 200, 'the hold can still be decided');
  t.strictSame(await owner.next((m) => m.type === 'decision'), { type: 'decision', holdId: 'h_deep', action: 'continue' }, 'and its reporter is told');
});

/** POST `body` as it is (not stringified again); the status. */
async function rawRequestJson(server: ServeProcess, path: string, body: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body,
  });
  await res.text();
  return res.status;
}

t.test('line breaks inside an event cannot split the log, nor smuggle a line into it', async (t) => {
  const server = await serveFor(t);
  const reporter = await reporterFor(t, server);
  const id = runId('breaks');
  const now = Date.now();
  const smuggled = `{"type":"log","runId":"${id}","seq":9,"t":${now},"nodeId":"mcp:session","stream":"stderr","text":"smuggled"}`;
  const node = JSON.stringify(echo);
  // JSON allows line breaks as whitespace, inside values too. Both ways in: as text, and as the bytes a reporter batch is read from.
  const message = (seq: number, instanceId: string): string =>
    `{"type":"instance.started","runId":"${id}","seq":${seq},"t":${now},"instanceId":"${instanceId}","node":${node},"input":{"a":\r\n${smuggled}\n}}`;
  reporter.sendRaw(`[{"type":"run.started","runId":"${id}","seq":1,"t":${now},"name":"breaks","source":"test","meta":{}},\n${message(2, 'i1')}]`);
  reporter.ws.send(Buffer.from(`[${message(3, 'i2')}]`), { binary: false });
  const file = join(server.dataDir, 'runs', `${id}.jsonl`);
  await eventually(async () => (existsSync(file) && readFileSync(file, 'utf8').split('\n').filter(Boolean).length >= 3) || undefined, 5000, 'the log');
  const logged = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  t.equal(logged.length, 3, 'one line per event');
  const events = logged.map((line) => JSON.parse(line) as RunEvent & { input?: unknown });
  t.same(events.map((e) => e.type), ['run.started', 'instance.started', 'instance.started'], 'no smuggled event');
  t.same(events[1]?.input, { a: JSON.parse(smuggled) }, 'the input kept whole, as its value');
  t.same(events[2]?.input, { a: JSON.parse(smuggled) });
});

t.test('a request whose body stalls is dropped within the request timeout, not kept waiting for minutes', async (t) => {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const server = await startServer({ port: 0, dataDir, env: {}, requestTimeoutMs: 400 });
  t.teardown(() => server.close());
  const started = Date.now();
  // Declares 100 bytes of body, sends 10, then nothing.
  const answer = await rawSocket(
    server.port,
    `PUT /api/breakpoints HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"nodes":{`,
    10_000,
  );
  // Node ends it (with a 408 when nothing has been answered yet, or just a close once the body is being read).
  t.ok(answer === '' || /^HTTP\/1\.1 408 /.test(answer), `closed, or told 408 (${JSON.stringify(answer.slice(0, 40))})`);
  t.ok(Date.now() - started < 5_000, `within the request timeout, not Node's five minutes (${Date.now() - started} ms)`);
  t.equal((await api(server.port, server.token, 'GET', '/api/health')).status, 200, 'and the server goes on');
});
