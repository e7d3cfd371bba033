// The ingest socket and the live feed against the real server: events build
// the Run the API returns, the feed follows along, bad reporters are cut off
// alone, reporters are kept out of each other's runs, and holds go from a
// reporter to the API and back.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Run } from '../src/protocol/run-model.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import {
  RunEvents,
  api,
  eventually,
  fakeReporter,
  liveClient,
  openSocket,
  runId,
  runWhen,
  startServe,
  type FakeReporter,
  type ServeProcess,
} from './helpers/serve.js';

let server: ServeProcess;

t.before(async () => {
  server = await startServe();
});
t.teardown(() => server.stop());

async function reporter(t: { teardown(fn: () => void): void }): Promise<FakeReporter> {
  const r = await fakeReporter(server.port, server.token);
  t.teardown(() => r.ws.terminate());
  return r;
}

const session = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'my-server' } as const;
const echo = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' } as const;
const init = { nodeId: 'mcp:initialize', kind: 'custom', parent: 'mcp:session', label: 'initialize' } as const;

t.test('events build the run, and the live feed follows', async (t) => {
  const live = await liveClient(server.port, server.token);
  t.teardown(() => live.ws.terminate());
  const snapshot = await live.next((m) => m.type === 'snapshot');
  t.equal(live.messages[0], snapshot, 'the snapshot comes first');
  t.same(snapshot.breakpoints, { pauseOnError: true, nodes: {} });
  t.same(snapshot.holds, []);

  const r = await reporter(t);
  const id = runId('built');
  const start = Date.UTC(2031, 5, 1, 12, 0, 0);
  const run = new RunEvents(id, start);
  r.send([
    run.started('my-server', { command: 'node', args: ['server.js'] }, 'mcp-proxy'),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: session }),
    run.next({ type: 'instance.started', instanceId: 'mcp_2', node: init, input: { protocolVersion: '2025-06-18' } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { serverInfo: { name: 's' } } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_3', node: echo, input: { name: 'echo', arguments: { text: 'a' } } }),
    run.next({ type: 'instance.error', instanceId: 'mcp_3', error: { name: 'JsonRpcError', message: 'boom', code: -32000 } }),
    run.next({ type: 'instance.started', instanceId: 'mcp_4', node: echo, input: { name: 'echo', arguments: { text: 'b' } } }),
    run.next({ type: 'instance.finished', instanceId: 'mcp_4', output: { content: [] } }),
    run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'server says hi' }),
    run.next({ type: 'run.meta', meta: { protocolVersion: '2025-06-18' } }),
  ]);
  // Mid-run: the session is still open.
  const mid = (await runWhen(server, id, (r) => (r.logs as unknown[]).length === 1)) as unknown as Run;
  t.equal(mid.status, 'running');
  t.equal(mid.endedAt, null);
  t.same(
    mid.nodes.map((n) => [n.nodeId, n.status]),
    [
      ['mcp:session', 'open'],
      ['mcp:initialize', 'ok'],
      ['tool:echo', 'error'],
    ],
    'node status: error if any instance errored, else open if any is open, else ok',
  );
  r.send([
    run.next({ type: 'instance.finished', instanceId: 'mcp_1' }),
    run.next({ type: 'run.finished', status: 'ok' }),
  ]);
  const done = (await runWhen(server, id, (r) => r.status !== 'running')) as unknown as Run;
  t.same(done, {
    runId: id,
    name: 'my-server',
    source: 'mcp-proxy',
    status: 'ok',
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + 11).toISOString(),
    meta: { command: 'node', args: ['server.js'], protocolVersion: '2025-06-18' },
    // The summary's counts: initialize and two echo calls, one of them failed.
    calls: 3,
    failedCalls: 1,
    tools: ['echo'],
    nodes: [
      { ...session, status: 'ok' },
      { ...init, status: 'ok' },
      { ...echo, status: 'error' },
    ],
    instances: [
      { instanceId: 'mcp_1', nodeId: 'mcp:session', status: 'ok', startedAt: new Date(start + 1).toISOString(), endedAt: new Date(start + 10).toISOString() },
      {
        instanceId: 'mcp_2',
        nodeId: 'mcp:initialize',
        status: 'ok',
        input: { protocolVersion: '2025-06-18' },
        output: { serverInfo: { name: 's' } },
        startedAt: new Date(start + 2).toISOString(),
        endedAt: new Date(start + 3).toISOString(),
      },
      {
        instanceId: 'mcp_3',
        nodeId: 'tool:echo',
        status: 'error',
        input: { name: 'echo', arguments: { text: 'a' } },
        error: { name: 'JsonRpcError', message: 'boom', code: -32000 },
        startedAt: new Date(start + 4).toISOString(),
        endedAt: new Date(start + 5).toISOString(),
      },
      {
        instanceId: 'mcp_4',
        nodeId: 'tool:echo',
        status: 'ok',
        input: { name: 'echo', arguments: { text: 'b' } },
        output: { content: [] },
        startedAt: new Date(start + 6).toISOString(),
        endedAt: new Date(start + 7).toISOString(),
      },
    ],
    logs: [{ nodeId: 'mcp:session', stream: 'stderr', text: 'server says hi', at: new Date(start + 8).toISOString() }],
    droppedEvents: 0,
    lastSeq: 12,
  }, 'the whole Run');

  // The live feed saw it all, in order.
  await live.next((m) => m.type === 'run.updated' && (m.run as { status: string }).status === 'ok', 5000, 'run.updated ok');
  const forRun = live.messages.slice(1).filter((m) => m.runId === id || (m.run as { runId?: string } | undefined)?.runId === id);
  t.equal(forRun[0]?.type, 'run.started', 'run.started first');
  t.match(forRun[0], { run: { runId: id, status: 'running', name: 'my-server' } });
  const events = forRun.filter((m) => m.type === 'run.event');
  t.same(
    events.map((m) => (m.event as { seq: number }).seq),
    [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    'a run.event for every event after run.started',
  );
  t.match(events[0], { type: 'run.event', runId: id, event: { type: 'instance.started', instanceId: 'mcp_1', node: session } });
  t.match(forRun[forRun.length - 1], { type: 'run.updated', run: { runId: id, status: 'ok', endedAt: new Date(start + 11).toISOString() } });

  // A client that connects late gets the current state first.
  const late = await liveClient(server.port, server.token);
  t.teardown(() => late.ws.terminate());
  const lateSnapshot = await late.next((m) => m.type === 'snapshot');
  t.equal(late.messages[0], lateSnapshot);
  t.match(lateSnapshot.runs, [{ runId: id, status: 'ok', name: 'my-server', source: 'mcp-proxy' }]);
});

t.test('a repeated seq is ignored', async (t) => {
  const r = await reporter(t);
  const id = runId('repeat');
  const run = new RunEvents(id);
  const started = run.started();
  const first = run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo });
  const log = run.next({ type: 'log', nodeId: 'tool:echo', stream: 'stderr', text: 'once' });
  r.send([started, first, log]);
  r.send([first, log]);
  // The same seq with other content is a repeat too.
  r.send([{ ...first, instanceId: 'mcp_99' } as RunEvent, { ...log, text: 'twice' } as RunEvent]);
  const last = run.next({ type: 'run.finished', status: 'ok' });
  r.send([last, last]);
  const done = (await runWhen(server, id, (r) => r.status === 'ok')) as unknown as Run;
  t.same(done.instances.map((i) => i.instanceId), ['mcp_1'], 'no duplicate instance');
  t.same(done.logs.map((l) => l.text), ['once'], 'no duplicate log');
  t.equal(done.nodes.length, 1);
  t.equal(done.nodes[0]?.status, 'open', 'the node stays open: its instance never finished');
});

t.test('a malformed message closes that connection only', async (t) => {
  const garbage: Array<[string, string]> = [
    ['not JSON', '{"type": "run.started", '],
    ['an invalid event', JSON.stringify([{ type: 'instance.started', runId: 'x', seq: 2, t: 1 }])],
    ['an unknown type', JSON.stringify([{ type: 'nope', runId: 'x', seq: 2, t: 1 }])],
    ['a bad run id', JSON.stringify([{ type: 'log', runId: '../x', seq: 2, t: 1, nodeId: 'n', stream: 's', text: '' }])],
  ];
  for (const [what, text] of garbage) {
    const bad = await reporter(t);
    const good = await reporter(t);
    const badId = runId('bad');
    const goodId = runId('good');
    const badRun = new RunEvents(badId);
    const goodRun = new RunEvents(goodId);
    bad.send([badRun.started(), badRun.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo })]);
    good.send([goodRun.started(), goodRun.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo })]);
    await runWhen(server, badId, (r) => (r.instances as unknown[]).length === 1);
    await runWhen(server, goodId, (r) => (r.instances as unknown[]).length === 1);

    bad.sendRaw(text);
    const closed = await bad.closed;
    t.equal(closed.code, 1008, `${what}: close code 1008`);
    const badRunNow = await runWhen(server, badId, (r) => r.status !== 'running');
    t.equal(badRunNow.status, 'error', `${what}: its running run ends in error`);
    t.type(badRunNow.endedAt, 'string');

    // The other reporter goes on as if nothing happened.
    t.equal(good.ws.readyState, good.ws.OPEN, `${what}: the other reporter is still connected`);
    good.send([goodRun.next({ type: 'instance.finished', instanceId: 'mcp_1' }), goodRun.next({ type: 'run.finished', status: 'ok' })]);
    const goodRunNow = (await runWhen(server, goodId, (r) => r.status !== 'running')) as unknown as Run;
    t.equal(goodRunNow.status, 'ok', `${what}: the other run is unaffected`);
    t.equal(goodRunNow.instances[0]?.status, 'ok');
  }

  // A batch with one bad event applies none of it.
  const r = await reporter(t);
  const id = runId('batch');
  const run = new RunEvents(id);
  r.send([run.started()]);
  await runWhen(server, id, () => true);
  r.sendRaw(JSON.stringify([run.next({ type: 'log', nodeId: 'n', stream: 's', text: 'valid' }), { type: 'log', runId: id }]));
  t.equal((await r.closed).code, 1008);
  const after = (await runWhen(server, id, (x) => x.status !== 'running')) as unknown as Run;
  t.same(after.logs, [], 'the valid half of a bad batch is not applied');

  // A binary message is read as UTF-8 JSON too; one that is not valid UTF-8 is malformed.
  const b = await reporter(t);
  const binaryId = runId('binary');
  const binaryRun = new RunEvents(binaryId);
  b.ws.send(Buffer.from(JSON.stringify([binaryRun.started('sent as binary'), binaryRun.next({ type: 'log', nodeId: 'n', stream: 's', text: 'h\u00e9' })])), { binary: true });
  const taken = (await runWhen(server, binaryId, (x) => (x.logs as unknown[]).length === 1)) as unknown as Run;
  t.equal(taken.name, 'sent as binary', 'a binary message of JSON events is applied');
  t.equal(taken.logs[0]?.text, 'h\u00e9', 'its text read as UTF-8');
  b.ws.send(Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d]), { binary: true });
  t.equal((await b.closed).code, 1008, 'a binary message that is not UTF-8: 1008');
  t.equal((await api(server.port, server.token, 'GET', '/api/health')).status, 200, 'the server is fine');
});

t.test('reporters are kept out of each other runs', async (t) => {
  const owner = await reporter(t);
  const intruder = await reporter(t);
  const id = runId('owned');
  const run = new RunEvents(id);
  owner.send([run.started('mine'), run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo })]);
  await runWhen(server, id, (r) => (r.instances as unknown[]).length === 1);

  // Writing into it: ignored.
  intruder.send([
    { type: 'log', runId: id, seq: 50, t: Date.now(), nodeId: 'tool:echo', stream: 'stderr', text: 'injected' },
    { type: 'instance.finished', runId: id, seq: 51, t: Date.now(), instanceId: 'mcp_1', output: 'forged' },
    { type: 'run.finished', runId: id, seq: 52, t: Date.now(), status: 'error' },
  ]);
  // Reclaiming it while the owner is connected: rejected.
  intruder.send([{ type: 'run.started', runId: id, seq: 1, t: Date.now(), name: 'stolen', source: 'evil', meta: { evil: true } }]);
  const rejected = await intruder.next((m) => m.type === 'rejected');
  t.match(rejected, { type: 'rejected', runId: id });
  intruder.send([{ type: 'log', runId: id, seq: 60, t: Date.now(), nodeId: 'tool:echo', stream: 'stderr', text: 'injected after reclaim' }]);
  // Its hold requests on that run are ignored too.
  intruder.send([{ type: 'hold.opened', runId: id, seq: 61, t: Date.now(), holdId: 'stolen_hold', nodeId: 'tool:echo', instanceId: 'mcp_1', gate: 'before', method: 'tools/call', frame: {} }]);

  // The owner's next events still land, with its own seq numbers.
  owner.send([run.next({ type: 'log', nodeId: 'tool:echo', stream: 'stderr', text: 'from the owner' })]);
  const now = (await runWhen(server, id, (r) => (r.logs as unknown[]).length >= 1)) as unknown as Run;
  t.same(now.logs.map((l) => l.text), ['from the owner'], 'nothing of the intruder');
  t.equal(now.name, 'mine');
  t.same(now.meta, {});
  t.equal(now.status, 'running');
  t.equal(now.instances[0]?.status, 'open');
  t.equal(now.instances[0]?.output, undefined);
  t.same((await api(server.port, server.token, 'GET', '/api/holds')).json, [], 'no hold for the intruder');
  t.equal(intruder.ws.readyState, intruder.ws.OPEN, 'ignored, not disconnected');
  t.notOk(owner.messages.some((m) => m.type === 'rejected'), 'the owner was not disturbed');
  owner.send([run.next({ type: 'run.finished', status: 'ok' })]);
  t.equal(((await runWhen(server, id, (r) => r.status !== 'running')) as unknown as Run).status, 'ok');
});

t.test('holds, from a reporter to the API and back', async (t) => {
  const live = await liveClient(server.port, server.token);
  t.teardown(() => live.ws.terminate());
  const r = await reporter(t);
  const other = await reporter(t);
  const id = runId('held');
  const run = new RunEvents(id);
  const frame = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } };
  r.send([
    run.started(),
    run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo, input: frame.params }),
    run.next({ type: 'hold.opened', holdId: 'hold_a', nodeId: 'tool:echo', instanceId: 'mcp_1', gate: 'before', method: 'tools/call', frame }),
  ]);
  const holds = await eventually(async () => {
    const list = (await api(server.port, server.token, 'GET', '/api/holds')).json as Array<Record<string, unknown>>;
    return list.length > 0 ? list : undefined;
  });
  t.same(holds, [
    { holdId: 'hold_a', runId: id, nodeId: 'tool:echo', instanceId: 'mcp_1', gate: 'before', method: 'tools/call', frame, since: new Date(run.t).toISOString() },
  ], 'GET /api/holds lists it');
  const opened = await live.next((m) => m.type === 'hold.opened');
  t.same(opened.hold, holds[0], 'the live feed announced it');

  // The other reporter cannot release it.
  other.send([{ type: 'hold.released', runId: id, seq: 99, t: Date.now(), holdId: 'hold_a', action: 'continue' }]);

  const decided = await api(server.port, server.token, 'POST', '/api/holds/hold_a', { action: 'inject', value: { x: 1 } });
  t.equal(decided.status, 200);
  t.same(decided.json, { ok: true });
  const decision = await r.next((m) => m.type === 'decision');
  t.same(decision, { type: 'decision', holdId: 'hold_a', action: 'inject', value: { x: 1 } }, 'the reporter hears the decision');
  t.notOk(other.messages.some((m) => m.type === 'decision'), 'no other reporter does');
  const again = await api(server.port, server.token, 'POST', '/api/holds/hold_a', { action: 'continue' });
  t.equal(again.status, 409, 'a second decision: 409');
  await live.next((m) => m.type === 'hold.decided' && m.holdId === 'hold_a');

  r.send([run.next({ type: 'hold.released', holdId: 'hold_a', action: 'inject' })]);
  await live.next((m) => m.type === 'hold.released' && m.holdId === 'hold_a');
  t.same((await api(server.port, server.token, 'GET', '/api/holds')).json, [], 'gone after the release');
  t.equal((await api(server.port, server.token, 'POST', '/api/holds/hold_a', { action: 'continue' })).status, 409, 'and still already decided, not unknown');
  t.equal(r.messages.filter((m) => m.type === 'decision').length, 1, 'one decision only');

  // A reporter that goes away with a hold open.
  r.send([run.next({ type: 'hold.opened', holdId: 'hold_b', nodeId: 'tool:echo', instanceId: 'mcp_1', gate: 'after', method: 'tools/call', frame })]);
  await eventually(async () => (((await api(server.port, server.token, 'GET', '/api/holds')).json as unknown[]).length === 1 ? true : undefined));
  r.ws.terminate();
  await eventually(async () => (((await api(server.port, server.token, 'GET', '/api/holds')).json as unknown[]).length === 0 ? true : undefined), 5000, 'the hold to go');
  await live.next((m) => m.type === 'hold.released' && m.holdId === 'hold_b', 5000, 'hold_b released on the feed');
  t.equal((await api(server.port, server.token, 'POST', '/api/holds/hold_b', { action: 'continue' })).status, 404, 'it cannot be decided any more');
  const ended = await runWhen(server, id, (x) => x.status !== 'running');
  t.equal(ended.status, 'error', 'its run ends in error');
  await live.next((m) => m.type === 'run.updated' && (m.run as { runId: string; status: string }).runId === id && (m.run as { status: string }).status === 'error');
});

t.test('a hold id is only taken once', async (t) => {
  const a = await reporter(t);
  const b = await reporter(t);
  const runA = new RunEvents(runId('ha'));
  const runB = new RunEvents(runId('hb'));
  a.send([runA.started(), runA.next({ type: 'hold.opened', holdId: 'same_id', nodeId: 'n', instanceId: 'i', gate: 'error', method: 'tools/call', frame: { from: 'a' } })]);
  await eventually(async () => (((await api(server.port, server.token, 'GET', '/api/holds')).json as unknown[]).length === 1 ? true : undefined));
  b.send([runB.started(), runB.next({ type: 'hold.opened', holdId: 'same_id', nodeId: 'n', instanceId: 'i', gate: 'error', method: 'tools/call', frame: { from: 'b' } })]);
  await runWhen(server, runB.runId, () => true);
  const list = (await api(server.port, server.token, 'GET', '/api/holds')).json as Array<{ frame: { from: string } }>;
  t.same(list.map((h) => h.frame.from), ['a'], 'the second reporter cannot take over the hold');
  // Its own frame is not left waiting for a decision nobody could make.
  t.same(await b.next((m) => m.type === 'decision'), { type: 'decision', holdId: 'same_id', action: 'continue' }, 'the second reporter is told to continue at once');
  // The owner sending it again (a replay) changes nothing for it.
  a.send([runA.next({ type: 'hold.opened', holdId: 'same_id', nodeId: 'n', instanceId: 'i', gate: 'error', method: 'tools/call', frame: { from: 'a' } })]);
  // A round trip after it, so the replay has surely been taken in before the decision.
  a.send([runA.next({ type: 'log', nodeId: 'n', stream: 'stderr', text: 'after the replay' })]);
  await runWhen(server, runA.runId, (r) => (r.logs as unknown[]).length === 1);
  t.same((await api(server.port, server.token, 'GET', '/api/holds')).json, list, 'still the one hold, the owner\'s');
  t.equal((await api(server.port, server.token, 'POST', '/api/holds/same_id', { action: 'abort' })).status, 200);
  t.same(await a.next((m) => m.type === 'decision'), { type: 'decision', holdId: 'same_id', action: 'abort' }, 'the owner hears the decision, and only that one');
  t.equal(a.messages.filter((m) => m.type === 'decision').length, 1, 'no continue for the owner');
  t.equal(b.messages.filter((m) => m.type === 'decision').length, 1, 'the second reporter does not hear the owner\'s decision');
});

t.test('the live feed is one-way and bounded', async (t) => {
  const live = await openSocket(`ws://127.0.0.1:${server.port}/api/live?token=${server.token}`);
  t.teardown(() => live.ws.terminate());
  await live.next((m) => m.type === 'snapshot');
  live.ws.send('{"type":"run.started"}');
  live.ws.send(Buffer.alloc(128 * 1024, 0x20));
  const closed = await live.closed;
  t.equal(closed.code, 1009, 'an oversized message closes that client (1009)');
  t.equal((await api(server.port, server.token, 'GET', '/api/health')).status, 200);
});

t.test('a time a Date cannot hold is malformed: that connection closes, the server stays', async (t) => {
  for (const bad of [1e20, 8.64e15 + 1, -8.64e15 - 1]) {
    const r = await reporter(t);
    r.send([{ type: 'run.started', runId: runId('time'), seq: 1, t: bad, name: 'n', source: 's', meta: {} }]);
    t.equal((await r.closed).code, 1008, `t=${bad}: 1008`);
  }
  const r = await reporter(t);
  const id = runId('edge');
  r.send([{ type: 'run.started', runId: id, seq: 1, t: 8.64e15, name: 'n', source: 's', meta: {} }]);
  const run = await runWhen(server, id, () => true);
  t.equal(run.startedAt, '+275760-09-13T00:00:00.000Z', 'the last time a Date holds is fine');
  t.equal((await api(server.port, server.token, 'GET', '/api/health')).status, 200, 'the server is fine');
});

t.test('the log holds each applied event once, in order, one per line, whatever the batch looks like', async (t) => {
  const live = await liveClient(server.port, server.token);
  t.teardown(() => live.ws.terminate());
  await live.next((m) => m.type === 'snapshot');
  const r = await reporter(t);
  const id = runId('lines');
  const run = new RunEvents(id, Date.UTC(2031, 7, 1));
  const started = run.started('srv', { command: 'node' }, 'mcp-proxy');
  const call = (n: number, text: string): RunEvent => run.next({ type: 'instance.started', instanceId: `mcp_${n}`, node: echo, input: { name: 'echo', arguments: { text } } });
  const tricky = 'quote " backslash \\ brace },{"type":"x"} newline \n tab \t';
  const compact = [started, call(1, 'ascii'), call(2, tricky)];
  const unicode = [call(3, 'é 😀 \u2028'), run.next({ type: 'instance.finished', instanceId: 'mcp_3', output: { content: [{ type: 'text', text: 'ü' }] } })];
  const pretty = [call(4, 'pretty'), run.next({ type: 'log', nodeId: 'tool:echo', stream: 'stderr', text: 'a\nb' })];
  const single = call(5, 'alone');
  const last = run.next({ type: 'run.finished', status: 'ok' });
  r.send(compact);
  r.send([compact[1] as RunEvent, ...unicode]); // a repeat first: ignored, not logged
  r.sendRaw(JSON.stringify(pretty, null, 2));
  r.sendRaw(JSON.stringify(single));
  r.send([single, last]);
  const applied = [...compact, ...unicode, ...pretty, single, last];
  await runWhen(server, id, (x) => x.status === 'ok');

  const file = join(server.dataDir, 'runs', `${id}.jsonl`);
  const expected = applied.map((e) => `${JSON.stringify(e)}\n`).join('');
  await eventually(async () => (existsSync(file) && readFileSync(file, 'utf8').length >= expected.length ? true : undefined), 5000, 'the log on disk');
  t.equal(readFileSync(file, 'utf8'), expected, 'exactly JSON.stringify of each event, one per line');

  const fed = await live.next((m) => m.type === 'run.updated' && (m.run as { runId: string }).runId === id && (m.run as { status: string }).status === 'ok');
  t.ok(fed);
  const events = live.messages.filter((m) => m.type === 'run.event' && m.runId === id);
  t.same(events, applied.slice(1).map((event) => ({ type: 'run.event', runId: id, event })), 'the live feed sends each as its own run.event');
});
