// The REST control API of CONTROL-API.md against the real server: health,
// runs, breakpoints, holds, bad bodies and generic errors.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { RunEvent } from '../src/protocol/ingest.js';
import {
  RunEvents,
  api,
  eventually,
  fakeReporter,
  rawRequest,
  runId,
  runWhen,
  startServe,
  type FakeReporter,
  type HttpAnswer,
  type ServeProcess,
} from './helpers/serve.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The `t` a subtest gets. */
type TapTest = Parameters<Parameters<typeof t.test>[0]>[0];

/** A generic error: `{ error: <short text> }`, nothing else, no stack, nothing reflected. */
function checkGenericError(t: TapTest, answer: HttpAnswer, status: number, reflected: string[] = []): void {
  t.equal(answer.status, status, `status ${status}`);
  t.match(answer.headers['content-type'], /^application\/json/, 'JSON');
  const body = answer.json as Record<string, unknown>;
  t.same(Object.keys(body ?? {}), ['error'], 'only an error field');
  t.type(body?.error, 'string');
  t.notMatch(answer.text, /\bat .*\(|\.ts:\d|\.js:\d|node:internal|Error:/, 'no stack trace');
  for (const text of reflected) t.notMatch(answer.text, text, `does not reflect ${JSON.stringify(text)}`);
}

/** A finished run with one instance, sent by `reporter`; resolves when the server has it. */
async function recordRun(server: ServeProcess, reporter: FakeReporter, id: string, startT: number): Promise<void> {
  const run = new RunEvents(id, startT);
  reporter.send([
    run.started(`name of ${id}`),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'session' } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_1' }),
    run.next({ type: 'run.finished', status: 'ok' }),
  ]);
  await runWhen(server, id, (r) => r.status === 'ok');
}

let server: ServeProcess;

t.before(async () => {
  server = await startServe(['--max-body', '1024']);
});
t.teardown(() => server.stop());

t.test('health', async (t) => {
  const health = await api(server.port, server.token, 'GET', '/api/health');
  t.equal(health.status, 200);
  t.same(health.json, { ok: true, version: VERSION, breakpoints: { version: 1, reporters: 0, applied: 0 } }, 'the package version, and the breakpoints\' version');
  t.match(health.headers['content-type'], /^application\/json/);
});

t.test('runs that start in the same millisecond: the one recorded last is listed first', async (t) => {
  const { port, token } = server;
  const reporter = await fakeReporter(port, token);
  t.teardown(() => reporter.ws.terminate());
  const same = Date.UTC(2031, 5, 1);
  const first = runId('tie-first');
  const second = runId('tie-second');
  await recordRun(server, reporter, first, same);
  await recordRun(server, reporter, second, same);
  const runs = (await api(port, token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  const order = runs.map((run) => run.runId).filter((id) => id === first || id === second);
  t.same(order, [second, first], 'newest first, also on a tie');
  // The next test lists every run: these two go.
  for (const id of [first, second]) t.equal((await api(port, token, 'DELETE', `/api/runs/${id}`)).status, 204);
});

t.test('runs: list, get, delete', async (t) => {
  const { port, token, dataDir } = server;
  const reporter = await fakeReporter(port, token);
  t.teardown(() => reporter.ws.terminate());
  const base = Date.UTC(2030, 0, 1);
  const ids = [runId('middle'), runId('oldest'), runId('newest')];
  const times = [base + 60_000, base, base + 120_000];
  for (let i = 0; i < ids.length; i++) await recordRun(server, reporter, ids[i] as string, times[i] as number);

  const list = await api(port, token, 'GET', '/api/runs');
  t.equal(list.status, 200);
  const runs = list.json as Array<Record<string, unknown>>;
  t.same(
    runs.map((run) => run.runId),
    [ids[2], ids[0], ids[1]],
    'newest first',
  );
  t.same(runs[0], {
    runId: ids[2],
    name: `name of ${ids[2]}`,
    source: 'test',
    status: 'ok',
    startedAt: new Date(base + 120_000).toISOString(),
    endedAt: new Date(base + 120_003).toISOString(),
  }, 'a RunSummary');

  const one = await api(port, token, 'GET', `/api/runs/${ids[1]}`);
  t.equal(one.status, 200);
  t.match(one.json, { runId: ids[1], status: 'ok', meta: {}, nodes: [{ nodeId: 'mcp:session', status: 'ok' }], instances: [{ instanceId: 'mcp_1' }], logs: [] });

  checkGenericError(t, await api(port, token, 'GET', '/api/runs/no_such_run'), 404);
  checkGenericError(t, await api(port, token, 'DELETE', '/api/runs/no_such_run'), 404);

  // Invalid ids are refused before any file is touched.
  const outside = join(dataDir, 'etc.jsonl');
  writeFileSync(outside, '{}\n');
  const long = 'a'.repeat(65);
  const longFile = join(dataDir, 'runs', `${long}.jsonl`);
  writeFileSync(longFile, '{}\n');
  for (const bad of ['..%2Fetc', '..%2F..%2Fetc', '%2E%2E%2Fetc', long, 'has.dot', 'a%00b', '%2Fetc%2Fpasswd']) {
    const get = await api(port, token, 'GET', `/api/runs/${bad}`);
    checkGenericError(t, get, 404, [bad, decodeURIComponent(bad).replace('\0', '')]);
    const del = await api(port, token, 'DELETE', `/api/runs/${bad}`);
    checkGenericError(t, del, 404);
  }
  t.ok(existsSync(outside), 'the file outside the runs dir is untouched');
  t.ok(existsSync(longFile), 'a file named by a too-long id is untouched');

  // Delete.
  const file = join(dataDir, 'runs', `${ids[0]}.jsonl`);
  t.ok(existsSync(file), 'the run is on disk');
  t.equal((await api(port, 'wrong', 'DELETE', `/api/runs/${ids[0]}`)).status, 401, 'a delete without the token: 401 …');
  t.equal((await api(port, undefined, 'DELETE', `/api/runs/${ids[0]}`)).status, 401);
  t.ok(existsSync(file), '… and nothing done');
  const deleted = await api(port, token, 'DELETE', `/api/runs/${ids[0]}`);
  t.equal(deleted.status, 204);
  t.equal(deleted.text, '', 'no body');
  t.notOk(existsSync(file), 'its file is gone');
  t.equal((await api(port, token, 'GET', `/api/runs/${ids[0]}`)).status, 404, 'then 404');
  t.equal((await api(port, token, 'DELETE', `/api/runs/${ids[0]}`)).status, 404, 'a second delete: 404');
  const after = (await api(port, token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  t.same(after.map((run) => run.runId), [ids[2], ids[1]]);
  t.same(readdirSync(join(dataDir, 'runs')).filter((name) => name.startsWith('middle_')), [], 'nothing left of it');
});

t.test('breakpoints', async (t) => {
  const { port, token } = server;
  t.same((await api(port, token, 'GET', '/api/breakpoints')).json, { pauseOnError: true, nodes: {} }, 'default: pause on error');

  // One that acks by hand (and, for the last PUT, never).
  const reporter = await fakeReporter(port, token, { ack: false });
  t.teardown(() => reporter.ws.terminate());
  const first = await reporter.next((m) => m.type === 'breakpoints');
  const version = first.version as number;
  t.same(first, { type: 'breakpoints', breakpoints: { pauseOnError: true, nodes: {} }, version }, 'a reporter hears the breakpoints on connect');
  t.ok(Number.isSafeInteger(version) && version > 0, 'numbered');
  reporter.sendRaw(JSON.stringify({ type: 'breakpoints.ack', version }));
  const applied = await eventually(async () => {
    const health = (await api(port, token, 'GET', '/api/health')).json as { breakpoints: { applied: number } };
    return health.breakpoints.applied === 1 ? health.breakpoints : undefined;
  }, 5000, 'health: the reporter applied them');
  t.same(applied, { version, reporters: 1, applied: 1 }, 'health: the reporter applied them');

  const next = { pauseOnError: false, nodes: { 'tool:echo': { before: true }, 'mcp:initialize': { after: true, before: false } } };
  let answered = false;
  const putting = api(port, token, 'PUT', '/api/breakpoints', next).finally(() => (answered = true));
  const pushed = await reporter.next((m) => m.type === 'breakpoints' && m !== first, 2000, 'the pushed breakpoints');
  t.same(pushed, { type: 'breakpoints', breakpoints: next, version: version + 1 }, 'pushed to the connected reporter at once, with the next version');
  t.same((await api(port, token, 'GET', '/api/health')).json, { ok: true, version: VERSION, breakpoints: { version: version + 1, reporters: 1, applied: 0 } }, 'health: not applied yet');
  t.equal(answered, false, 'the PUT waits for the reporter to apply them');
  reporter.sendRaw(JSON.stringify({ type: 'breakpoints.ack', version: version + 1 }));
  const put = await putting;
  t.equal(put.status, 200);
  t.same(put.json, next, 'PUT answers the new breakpoints once the reporter acked them');
  t.same((await api(port, token, 'GET', '/api/breakpoints')).json, next, 'GET reflects them');
  t.match((await api(port, token, 'GET', '/api/health')).json, { breakpoints: { version: version + 1, reporters: 1, applied: 1 } }, 'health: applied');

  const bad: unknown[] = [
    [],
    null,
    'text',
    42,
    {},
    { pauseOnError: true },
    { nodes: {} },
    { pauseOnError: 'yes', nodes: {} },
    { pauseOnError: true, nodes: [] },
    { pauseOnError: true, nodes: null },
    { pauseOnError: true, nodes: { 'tool:echo': true } },
    { pauseOnError: true, nodes: { 'tool:echo': { before: 'yes' } } },
    { pauseOnError: true, nodes: { 'tool:echo': { after: 1 } } },
    { pauseOnError: true, nodes: { 'tool:echo': { during: true } } },
    { pauseOnError: true, nodes: { '': { before: true } } },
    { pauseOnError: true, nodes: {}, '<img src=x onerror=alert(1)>': 1 },
  ];
  for (const body of bad) {
    const answer = await api(port, token, 'PUT', '/api/breakpoints', body === null ? 'null' : body);
    t.equal(answer.status, 400, `400 for ${JSON.stringify(body).slice(0, 80)}`);
    checkGenericError(t, answer, 400, ['<img', 'x'.repeat(100)]);
  }
  t.same((await api(port, token, 'GET', '/api/breakpoints')).json, next, 'bad PUTs changed nothing');
  t.equal(reporter.messages.filter((m) => m.type === 'breakpoints').length, 2, 'and pushed nothing');

  // Restore the default for the other subtests. A reporter that never acks (one older than the ack) holds the PUT up 2 s at most.
  const began = Date.now();
  t.equal((await api(port, token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: {} })).status, 200);
  const waited = Date.now() - began;
  t.ok(waited >= 1900 && waited < 4000, `a silent reporter is waited for up to the bound (${waited} ms)`);
});

t.test('--pause-on-error off', async (t) => {
  const off = await startServe(['--pause-on-error', 'off']);
  t.teardown(() => off.stop());
  t.same((await api(off.port, off.token, 'GET', '/api/breakpoints')).json, { pauseOnError: false, nodes: {} });
  const reporter = await fakeReporter(off.port, off.token);
  t.teardown(() => reporter.ws.terminate());
  t.same(await reporter.next((m) => m.type === 'breakpoints'), { type: 'breakpoints', breakpoints: { pauseOnError: false, nodes: {} }, version: 1 });
  // (This server has the default --max-body, so a long nodeId reaches the shape check.)
  const longId = await api(off.port, off.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: { ['x'.repeat(1025)]: { before: true } } });
  checkGenericError(t, longId, 400, ['x'.repeat(100)]);
  t.equal((await api(off.port, off.token, 'PUT', '/api/breakpoints', { pauseOnError: true, nodes: { ['x'.repeat(1024)]: { before: true } } })).status, 200);
});

t.test('holds', async (t) => {
  const { port, token } = server;
  t.same((await api(port, token, 'GET', '/api/holds')).json, [], 'none at first');
  checkGenericError(t, await api(port, token, 'POST', '/api/holds/no_such_hold', { action: 'continue' }), 404);
  checkGenericError(t, await api(port, token, 'POST', '/api/holds/..%2Fx', { action: 'continue' }), 404, ['..']);

  // A real hold, for the 400s (which must not decide it).
  const reporter = await fakeReporter(port, token);
  t.teardown(() => reporter.ws.terminate());
  const id = runId('holds');
  const run = new RunEvents(id);
  const events: RunEvent[] = [
    run.started(),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: { nodeId: 'tool:echo', kind: 'tool', parent: null, label: 'echo' } }),
    run.next({ type: 'hold.opened', holdId: 'hold_1', nodeId: 'tool:echo', instanceId: 'mcp_1', gate: 'before', method: 'tools/call', frame: { jsonrpc: '2.0', id: 1, method: 'tools/call' } }),
  ];
  reporter.send(events);
  await eventually(async () => (((await api(port, token, 'GET', '/api/holds')).json as unknown[]).length === 1 ? true : undefined));
  for (const body of [{}, { action: 'skip' }, { action: 'CONTINUE' }, { action: 42 }, [], 'null', { action: 'inject' }, { value: 1 }]) {
    const answer = await api(port, token, 'POST', '/api/holds/hold_1', body);
    checkGenericError(t, answer, 400, ['skip', 'CONTINUE']);
  }
  checkGenericError(t, await api(port, token, 'POST', '/api/holds/hold_1', 'not json'), 400, ['not json']);
  t.equal(((await api(port, token, 'GET', '/api/holds')).json as unknown[]).length, 1, 'the 400s decided nothing');
  t.notOk(reporter.messages.some((m) => m.type === 'decision'), 'and told the reporter nothing');

  const ok = await api(port, token, 'POST', '/api/holds/hold_1', { action: 'inject', value: null });
  t.equal(ok.status, 200, 'inject with a null value is a value');
  t.same(ok.json, { ok: true });
  t.same(await reporter.next((m) => m.type === 'decision'), { type: 'decision', holdId: 'hold_1', action: 'inject', value: null });
  checkGenericError(t, await api(port, token, 'POST', '/api/holds/hold_1', { action: 'continue' }), 409);
  // The reporter lets the frame go: a decision that comes later still hears "already decided", not "unknown".
  reporter.send([run.next({ type: 'hold.released', holdId: 'hold_1', action: 'inject' })]);
  await eventually(async () => (((await api(port, token, 'GET', `/api/runs/${id}`)).json as { lastSeq?: number }).lastSeq === run.seq ? true : undefined));
  checkGenericError(t, await api(port, token, 'POST', '/api/holds/hold_1', { action: 'continue' }), 409);
  checkGenericError(t, await api(port, token, 'GET', '/api/holds/hold_1'), 405);
});

t.test('bodies', async (t) => {
  const { port, token } = server;
  checkGenericError(t, await api(port, token, 'PUT', '/api/breakpoints', '{"pauseOnError": tru'), 400, ['tru']);
  checkGenericError(t, await api(port, token, 'PUT', '/api/breakpoints', ''), 400);

  // Over --max-body 1024, with a Content-Length …
  const big = JSON.stringify({ pauseOnError: true, nodes: { ['n'.repeat(2000)]: {} } });
  const declared = await api(port, token, 'PUT', '/api/breakpoints', big);
  checkGenericError(t, declared, 413);
  t.equal((await api(port, token, 'GET', '/api/health')).status, 200, 'still serving');

  // … and chunked, without one.
  const chunked = await rawRequest(port, {
    method: 'PUT',
    path: '/api/breakpoints',
    headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, 'transfer-encoding': 'chunked', 'content-type': 'application/json' },
    body: big,
  });
  t.equal(chunked.status, 413, 'chunked over the limit: 413');
  t.equal((await api(port, token, 'GET', '/api/health')).status, 200, 'still serving');

  // Much larger, so the server stops reading mid-upload.
  const huge = await rawRequest(port, {
    method: 'POST',
    path: '/api/holds/some_hold',
    headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, 'transfer-encoding': 'chunked' },
    body: Buffer.alloc(4 * 1024 * 1024, 0x20),
  }).catch((error: Error) => error);
  if (!(huge instanceof Error)) t.equal(huge.status, 413, 'a huge body: 413 (or the connection is cut)');
  else t.pass('a huge body: the connection was cut');
  t.same((await api(port, token, 'GET', '/api/breakpoints')).json, { pauseOnError: true, nodes: {} }, 'nothing changed');
  t.equal((await api(port, token, 'GET', '/api/health')).status, 200, 'still serving');

  // Exactly at the limit is fine.
  const padded = JSON.stringify({ pauseOnError: true, nodes: {} });
  const atLimit = padded + ' '.repeat(1024 - padded.length);
  t.equal((await api(port, token, 'PUT', '/api/breakpoints', atLimit)).status, 200, 'a body of exactly --max-body bytes');
});

t.test('unknown routes and methods', async (t) => {
  const { port, token } = server;
  for (const path of ['/api', '/api/', '/api/nope', '/api/runs/a/b', '/api/health/x', '/api/<script>alert(1)</script>']) {
    checkGenericError(t, await api(port, token, 'GET', path), 404, ['<script>', 'alert']);
  }
  // The live feed's path without an upgrade: told to upgrade, as /ingest does.
  checkGenericError(t, await api(port, token, 'GET', '/api/live'), 426);
  checkGenericError(t, await api(port, token, 'POST', '/api/health', '{}'), 405);
  checkGenericError(t, await api(port, token, 'PUT', '/api/runs', '{}'), 405);
  checkGenericError(t, await api(port, token, 'POST', '/api/runs/some_run', '{}'), 405);
  checkGenericError(t, await api(port, token, 'DELETE', '/api/holds', undefined), 405);
  checkGenericError(t, await api(port, undefined, 'GET', '/no/such/file.js'), 404, ['such']);
});

t.test('GRAPHMIND_DATA_DIR, and the flag wins', async (t) => {
  const fromEnv = join(server.dataDir, '..', 'from-env');
  mkdirSync(fromEnv, { recursive: true });
  // startServe passes --data-dir; the environment names another directory.
  const other = await startServe([], { GRAPHMIND_DATA_DIR: fromEnv });
  t.teardown(() => other.stop());
  t.ok(existsSync(join(other.dataDir, 'token')), 'the flag wins');
  t.notOk(existsSync(join(fromEnv, 'token')), 'the env dir is not used');
});
