// Recorded runs on disk: they survive a restart of the server, a torn last
// line is skipped, --max-runs bounds them, and a run that was running when
// the server went away is an error afterwards.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Run } from '../src/protocol/run-model.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { waitFor } from './helpers/cli.js';
import { RunEvents, api, fakeReporter, freshDataDir, liveClient, runId, runWhen, startServe, type ServeProcess } from './helpers/serve.js';

const echo = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' } as const;
const session = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'srv' } as const;

/** A data dir that outlives the servers started on it. */
function sharedDataDir(t: { teardown(fn: () => void): void }): string {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return dataDir;
}

async function serveOn(t: { teardown(fn: () => Promise<void>): void }, dataDir: string, args: string[] = []): Promise<ServeProcess> {
  const server = await startServe(args, {}, { dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  return server;
}

/** The events of a complete run with `calls` tool calls (every third one failing) and some logs. */
function completeRun(id: string, startT: number, calls: number): RunEvent[] {
  const run = new RunEvents(id, startT);
  const events = [run.started(`server ${id}`, { command: 'node', args: ['s.js'] }, 'mcp-proxy')];
  events.push(run.next({ type: 'instance.started', instanceId: 'mcp_0', node: session }));
  for (let i = 1; i <= calls; i++) {
    events.push(run.next({ type: 'instance.started', instanceId: `mcp_${i}`, node: echo, input: { name: 'echo', arguments: { i, text: 'é😀"\n' } } }));
    if (i % 3 === 0) events.push(run.next({ type: 'instance.error', instanceId: `mcp_${i}`, error: { name: 'JsonRpcError', message: `failed ${i}`, code: -32603, data: { i } } }));
    else events.push(run.next({ type: 'instance.finished', instanceId: `mcp_${i}`, output: { content: [{ type: 'text', text: `${i}` }] } }));
    events.push(run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: `line ${i}` }));
  }
  events.push(run.next({ type: 'run.meta', meta: { protocolVersion: '2025-06-18' } }));
  events.push(run.next({ type: 'events.dropped', count: 2 }));
  events.push(run.next({ type: 'instance.finished', instanceId: 'mcp_0' }));
  events.push(run.next({ type: 'run.finished', status: 'ok' }));
  return events;
}

async function allRuns(server: ServeProcess): Promise<{ list: unknown; runs: Record<string, unknown> }> {
  const list = (await api(server.port, server.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  const runs: Record<string, unknown> = {};
  for (const { runId: id } of list) runs[id] = (await api(server.port, server.token, 'GET', `/api/runs/${id}`)).json;
  return { list, runs };
}

t.test('runs survive a restart', async (t) => {
  const dataDir = sharedDataDir(t);
  const first = await serveOn(t, dataDir);
  const reporter = await fakeReporter(first.port, first.token);
  const base = Date.UTC(2032, 0, 1);
  const ids = [runId('small'), runId('big'), runId('errored')];
  reporter.send(completeRun(ids[0] as string, base, 3));
  // A large run whose last events arrive just before the server stops.
  reporter.send(completeRun(ids[1] as string, base + 10_000, 1000));
  const errored = new RunEvents(ids[2] as string, base + 20_000);
  reporter.send([
    errored.started('errored', {}, 'mcp-adapter'),
    errored.next({ type: 'instance.started', instanceId: 'a', node: echo }),
    errored.next({ type: 'instance.reopened', instanceId: 'a' }),
    errored.next({ type: 'instance.error', instanceId: 'a', error: { name: 'McpServerExitedEarly', message: 'gone', data: 'stderr tail' } }),
    errored.next({ type: 'run.finished', status: 'error' }),
  ]);
  for (const id of ids) await runWhen(first, id, (r) => r.status !== 'running', 10_000);
  const before = await allRuns(first);
  t.equal((before.list as unknown[]).length, 3);
  t.equal(((before.runs[ids[1] as string] as Run).instances).length, 1001);
  reporter.ws.terminate();
  await first.stop();

  const second = await serveOn(t, dataDir);
  const after = await allRuns(second);
  t.same(after.list, before.list, 'the same list, in the same order');
  for (const id of ids) t.same(after.runs[id], before.runs[id], `run ${id} is identical`);
  t.equal(readdirSync(join(dataDir, 'runs')).length, 3, 'one log per run');
  t.notMatch(second.stdout(), /skipped/, 'no unreadable lines after a clean stop');
  await second.stop();

  // And after a crash (SIGKILL) of a server that only read them.
  const third = await serveOn(t, dataDir);
  await third.stop('SIGKILL');
  const fourth = await serveOn(t, dataDir);
  t.same(await allRuns(fourth), after, 'still identical');
});

t.test('a clean stop right after a run finished keeps all of it', async (t) => {
  const dataDir = sharedDataDir(t);
  const ids = [runId('quick_a'), runId('quick_b'), runId('quick_c')];
  const expected: Record<string, unknown> = {};
  for (let round = 0; round < 3; round++) {
    const server = await serveOn(t, dataDir);
    const reporter = await fakeReporter(server.port, server.token);
    const id = ids[round] as string;
    reporter.send(completeRun(id, Date.UTC(2032, 0, 2, round), 200));
    expected[id] = await runWhen(server, id, (r) => r.status === 'ok');
    // Stop at once: the server must not exit before its logs are on disk.
    await server.stop();
    reporter.ws.terminate();
  }
  const last = await serveOn(t, dataDir);
  for (const id of ids) t.same((await api(last.port, last.token, 'GET', `/api/runs/${id}`)).json, expected[id], `${id} complete after the restart`);
});

t.test('a torn last line is skipped and the rest loads', async (t) => {
  const dataDir = sharedDataDir(t);
  const first = await serveOn(t, dataDir);
  const reporter = await fakeReporter(first.port, first.token);
  const id = runId('torn');
  const events = completeRun(id, Date.UTC(2032, 1, 1), 4);
  // Everything but run.finished: the run is live when the server dies.
  const last = events.pop() as RunEvent;
  reporter.send(events);
  const live = (await runWhen(first, id, (r) => (r.logs as unknown[]).length === 4)) as unknown as Run;
  // The log is written asynchronously: let it reach the disk before the crash.
  const logFile = join(dataDir, 'runs', `${id}.jsonl`);
  await waitFor(() => existsSync(logFile) && readFileSync(logFile, 'utf8').split('\n').length === events.length + 1, 5000, 'the log on disk');
  await first.stop('SIGKILL');
  reporter.ws.terminate();

  const file = join(dataDir, 'runs', `${id}.jsonl`);
  const torn = JSON.stringify({ type: 'log', runId: id, seq: last.seq, t: last.t, nodeId: 'mcp:session', stream: 'stderr', text: 'never whole' });
  appendFileSync(file, torn.slice(0, 40));

  const second = await serveOn(t, dataDir);
  await waitFor(() => /skipped 1 unreadable line/.test(second.stdout()), 5000, 'the skipped line to be reported');
  t.pass('the skipped line is reported');
  const loaded = (await api(second.port, second.token, 'GET', `/api/runs/${id}`)).json as Run;
  t.same(loaded.instances, live.instances, 'every instance before the torn line');
  t.same(loaded.logs, live.logs, 'every log line before it');
  t.same(loaded.meta, live.meta);
  t.equal(loaded.status, 'error', 'a run that was running when the server died is an error');
  t.equal(loaded.endedAt, new Date(events[events.length - 1]?.t as number).toISOString(), 'ended at its last event');

  // Its reporter comes back and reclaims the run; what it adds is kept.
  const back = await fakeReporter(second.port, second.token);
  back.send([events[0] as RunEvent, last]);
  await runWhen(second, id, (r) => r.status === 'ok');
  const reclaimed = (await api(second.port, second.token, 'GET', `/api/runs/${id}`)).json as Run;
  back.ws.terminate();
  await second.stop();

  const third = await serveOn(t, dataDir);
  const reloaded = (await api(third.port, third.token, 'GET', `/api/runs/${id}`)).json as Run;
  t.equal(reloaded.status, 'ok', 'the events written after a torn line are not lost');
  t.same(reloaded, reclaimed, 'identical after the next restart');
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
  const unreadable = lines.filter((line) => {
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  t.same(unreadable, [torn.slice(0, 40)], 'only the torn fragment is unreadable: what came after it starts a new line');
  t.equal(lines.length, events.length + 1 + 1, 'every event is on disk: the first life, the torn line, and the end sent after the reclaim (the reclaim itself makes the run live again but is not logged twice)');
});

t.test('--max-runs keeps the newest finished runs', async (t) => {
  const dataDir = sharedDataDir(t);
  const server = await serveOn(t, dataDir, ['--max-runs', '3']);
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const live = await liveClient(server.port, server.token);
  t.teardown(() => live.close());
  const base = Date.UTC(2033, 0, 1);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const id = `keep_${i}_${process.pid}`;
    ids.push(id);
    reporter.send(completeRun(id, base + i * 1000, 1));
    await runWhen(server, id, (r) => r.status === 'ok');
  }
  const list = (await api(server.port, server.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  t.same(list.map((r) => r.runId), [ids[4], ids[3], ids[2]], 'the 3 newest');
  const files = (): string[] => readdirSync(join(dataDir, 'runs')).sort();
  t.same(files(), [ids[2], ids[3], ids[4]].map((id) => `${id}.jsonl`).sort(), 'the files of the others are deleted');
  for (const id of [ids[0], ids[1]]) t.equal((await api(server.port, server.token, 'GET', `/api/runs/${id}`)).status, 404);
  for (const id of [ids[0], ids[1]]) await live.next((m) => m.type === 'run.deleted' && m.runId === id, 5000, `run.deleted ${id} on the live feed`);
  t.pass('the viewers were told of the runs retention deleted');

  // A running run is not dropped while finished ones can go.
  const running = new RunEvents(`keep_running_${process.pid}`, base - 1_000_000);
  reporter.send([running.started()]);
  await runWhen(server, running.runId, () => true);
  const withRunning = (await api(server.port, server.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  t.same(withRunning.map((r) => r.runId), [ids[4], ids[3], running.runId], 'the oldest finished run made room for the running one');
  reporter.ws.terminate();
  await server.stop();

  // A restart with a smaller bound applies it to what is on disk.
  const smaller = await serveOn(t, dataDir, ['--max-runs', '2']);
  const kept = (await api(smaller.port, smaller.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  t.same(kept.map((r) => r.runId), [ids[4], ids[3]], 'the 2 newest after a restart with --max-runs 2');
  t.same(files(), [ids[3], ids[4]].map((id) => `${id}.jsonl`).sort(), 'and only their files', {
    contents: files().map((name) => [name, readFileSync(join(dataDir, 'runs', name), 'utf8').slice(0, 300)]),
  });
  t.notOk(existsSync(join(dataDir, 'runs', `${ids[2]}.jsonl`)));
});

t.test('--max-runs deletes the files of runs dropped within one batch', async (t) => {
  const dataDir = sharedDataDir(t);
  const server = await serveOn(t, dataDir, ['--max-runs', '3']);
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  // Six runs in one message: the older ones are dropped before their logs are even open.
  const ids = [0, 1, 2, 3, 4, 5].map((i) => `batch_${i}_${process.pid}`);
  reporter.send(ids.flatMap((id, i) => completeRun(id, Date.UTC(2034, 0, 1) + i * 1000, 1)));
  await runWhen(server, ids[5] as string, (r) => r.status === 'ok');
  const list = (await api(server.port, server.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  t.same(list.map((r) => r.runId), [ids[5], ids[4], ids[3]]);
  // Give any late write a chance to (wrongly) bring a deleted log back.
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.same(readdirSync(join(dataDir, 'runs')).sort(), [ids[3], ids[4], ids[5]].map((id) => `${id}.jsonl`).sort(), 'only the kept runs have files');
});

t.test('a run that was running when the server stopped is an error after restart', async (t) => {
  const dataDir = sharedDataDir(t);
  const first = await serveOn(t, dataDir);
  const reporter = await fakeReporter(first.port, first.token);
  const ids = [runId('clean_stop'), runId('also_running')];
  for (const id of ids) {
    const run = new RunEvents(id);
    reporter.send([run.started(), run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo })]);
    await runWhen(first, id, (r) => (r.instances as unknown[]).length === 1);
  }
  await first.stop();
  const second = await serveOn(t, dataDir);
  for (const id of ids) {
    const run = (await api(second.port, second.token, 'GET', `/api/runs/${id}`)).json as Run;
    t.equal(run.status, 'error', `${id}: error`);
    t.type(run.endedAt, 'string', 'with an end time');
    t.equal(run.instances[0]?.status, 'open', 'its unfinished instance stays as it was');
  }
  const summaries = (await api(second.port, second.token, 'GET', '/api/runs')).json as Array<{ status: string }>;
  t.same(summaries.map((s) => s.status), ['error', 'error'], 'the list says so too');
});

t.test('a log line no reporter could have sent is skipped on load', async (t) => {
  const dataDir = sharedDataDir(t);
  const id = runId('edited');
  const run = new RunEvents(id, Date.UTC(2032, 2, 1));
  const good = [run.started('srv'), run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo })];
  const outOfRange = { ...run.next({ type: 'instance.started', instanceId: 'mcp_2', node: echo }), t: 1e20 };
  const badShape = { ...run.next({ type: 'instance.started', instanceId: 'mcp_3', node: echo }), node: { nodeId: 'x' } };
  const after = run.next({ type: 'instance.finished', instanceId: 'mcp_1' });
  mkdirSync(join(dataDir, 'runs'), { recursive: true });
  writeFileSync(join(dataDir, 'runs', `${id}.jsonl`), [...good, outOfRange, badShape, after].map((e) => `${JSON.stringify(e)}\n`).join(''));
  const server = await serveOn(t, dataDir);
  await waitFor(() => /skipped 2 unreadable line/.test(server.stdout()), 5000, 'the skipped lines to be reported');
  const loaded = (await api(server.port, server.token, 'GET', `/api/runs/${id}`)).json as Run;
  t.same(loaded.instances.map((i) => [i.instanceId, i.status]), [['mcp_1', 'ok']], 'the lines around them load');
});
