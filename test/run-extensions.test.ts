// The run model's extensions for the first hour (issue 21), unit by unit:
// a retried call keeps its earlier answers (Instance.attempts) and a held
// answer its delivery time (Instance.deliveredAt); a run summary names its
// server (RunSummary.server); `hold.updated` is a valid event, and the
// registry marks a hold given up; the proxy's gate reports a hold whose
// requester cancelled it or went away; a session label keeps paths apart.
import { EventEmitter, once } from 'node:events';
import { PassThrough } from 'node:stream';
import t from 'tap';
import type { Instance } from '../src/protocol/run-model.js';
import type { Hold, HoldAction } from '../src/protocol/control.js';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import { RunReplay } from '../src/protocol/run-replay.js';
import type { Reporter } from '../src/report/reporter.js';
import { HOST_CLOSED, RelayGate, cancelledBy } from '../src/relay/relay-gate.js';
import { labelPath, sessionLabel, type RelayRecorder } from '../src/relay/relay-recorder.js';
import { redactCommandLine } from '../src/report/hide.js';
import { HoldRegistry } from '../src/server/holds.js';
import { RunState, runServer } from '../src/protocol/run-state.js';
import { validateEvent } from '../src/protocol/validate-event.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { createRelay } from '../src/streams/create-relay.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';

const RUN = 'run_ext';
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 0);
const ECHO: NodeDeclaration = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' };

/** Events of one run, numbered. */
function events(): { next: (event: Record<string, unknown>, at: number) => RunEvent } {
  let seq = 0;
  return { next: (event, at) => ({ ...event, runId: RUN, seq: ++seq, t: T0 + at }) as unknown as RunEvent };
}

function replayOf(list: RunEvent[]): RunReplay {
  const replay = new RunReplay({ runId: RUN, name: RUN, source: 'mcp-proxy', status: 'running', startedAt: new Date(T0).toISOString(), endedAt: null });
  for (const event of list) replay.apply(event);
  return replay;
}

const iso = (at: number): string => new Date(T0 + at).toISOString();

t.test('a retried call keeps its earlier answers, and the time the client got the last one', async (t) => {
  const e = events();
  const list = [
    e.next({ type: 'instance.started', instanceId: 'mcp_5', node: ECHO, input: { name: 'echo' } }, 0),
    e.next({ type: 'instance.finished', instanceId: 'mcp_5', output: { first: true } }, 10),
    e.next({ type: 'hold.opened', holdId: 'hold_a', nodeId: 'tool:echo', instanceId: 'mcp_5', gate: 'after', method: 'tools/call', frame: {} }, 11),
    // Retry: the first answer is dropped, the request sent again.
    e.next({ type: 'instance.reopened', instanceId: 'mcp_5' }, 500),
    e.next({ type: 'hold.released', holdId: 'hold_a', action: 'retry' }, 500),
    e.next({ type: 'instance.error', instanceId: 'mcp_5', error: { name: 'JsonRpcError', message: 'second try failed', code: -32000 } }, 520),
    e.next({ type: 'hold.opened', holdId: 'hold_b', nodeId: 'tool:echo', instanceId: 'mcp_5', gate: 'error', method: 'tools/call', frame: {} }, 521),
    e.next({ type: 'instance.reopened', instanceId: 'mcp_5' }, 900),
    e.next({ type: 'hold.released', holdId: 'hold_b', action: 'retry' }, 900),
    e.next({ type: 'instance.finished', instanceId: 'mcp_5', output: { third: true } }, 930),
    e.next({ type: 'hold.opened', holdId: 'hold_c', nodeId: 'tool:echo', instanceId: 'mcp_5', gate: 'after', method: 'tools/call', frame: {} }, 931),
    e.next({ type: 'hold.released', holdId: 'hold_c', action: 'continue' }, 4000),
  ];
  const replay = replayOf(list);
  const instance = replay.byId.get('mcp_5') as Instance;
  t.equal(instance.status, 'ok', 'the call ends with its last answer');
  t.strictSame(instance.output, { third: true });
  t.equal(instance.endedAt, iso(930), 'ended when the last answer arrived');
  t.equal(instance.deliveredAt, iso(4000), 'and reached the client when its hold was continued');
  t.strictSame(
    instance.attempts,
    [
      { status: 'ok', endedAt: iso(10), retriedAt: iso(500), output: { first: true } },
      { status: 'error', endedAt: iso(520), retriedAt: iso(900), error: { name: 'JsonRpcError', message: 'second try failed', code: -32000 } },
    ],
    'both earlier answers, oldest first, with when each came and was dropped',
  );
  const node = replay.nodes.get('tool:echo');
  t.equal(node?.errors, 0, 'an error that was retried away is not counted');
  t.equal(node?.open, 0);

  // The same events twice (a reconnect's replay) change nothing.
  for (const event of list) t.notOk(replay.apply(event), `a repeat of ${event.type} is ignored`);
  t.equal(instance.attempts?.length, 2, 'still two attempts');
});

t.test('deliveredAt: only a continued answer that was held', async (t) => {
  const e = events();
  const replay = replayOf([
    e.next({ type: 'instance.started', instanceId: 'mcp_1', node: ECHO }, 0),
    e.next({ type: 'hold.opened', holdId: 'hold_before', nodeId: 'tool:echo', instanceId: 'mcp_1', gate: 'before', method: 'tools/call', frame: {} }, 1),
    e.next({ type: 'hold.released', holdId: 'hold_before', action: 'continue' }, 300),
    e.next({ type: 'instance.finished', instanceId: 'mcp_1', output: 1 }, 310),
    e.next({ type: 'instance.started', instanceId: 'mcp_2', node: ECHO }, 400),
    e.next({ type: 'instance.finished', instanceId: 'mcp_2', output: 'real' }, 410),
    e.next({ type: 'hold.opened', holdId: 'hold_inject', nodeId: 'tool:echo', instanceId: 'mcp_2', gate: 'after', method: 'tools/call', frame: {} }, 411),
    // An inject at the after gate ends the call again, with what the client got.
    e.next({ type: 'instance.finished', instanceId: 'mcp_2', output: 'injected' }, 900),
    e.next({ type: 'hold.released', holdId: 'hold_inject', action: 'inject' }, 900),
  ]);
  const first = replay.byId.get('mcp_1') as Instance;
  t.equal(first.deliveredAt, undefined, 'a request held before it ran: its answer went on as it came');
  t.equal(first.attempts, undefined, 'no attempts on a call never retried');
  const second = replay.byId.get('mcp_2') as Instance;
  t.equal(second.endedAt, iso(900), 'an injected answer ends the call at the decision');
  t.equal(second.deliveredAt, undefined, 'and needs no delivery time of its own');
  t.strictSame(second.output, 'injected');
});

t.test('RunSummary.server from meta.serverInfo', async (t) => {
  t.strictSame(runServer({ serverInfo: { name: 'mcp-servers/everything', version: '2.0.0' } }), { name: 'mcp-servers/everything', version: '2.0.0' });
  t.strictSame(runServer({ serverInfo: { name: 'x', version: 3 } }), { name: 'x' }, 'a version that is not a string is left out');
  for (const meta of [{}, { serverInfo: null }, { serverInfo: 'x' }, { serverInfo: { name: '' } }, { serverInfo: { name: 'x'.repeat(257) } }, { serverInfo: [] }]) {
    t.equal(runServer(meta), undefined, `no server from ${JSON.stringify(meta).slice(0, 40)}`);
  }
  const state = new RunState(RUN, T0);
  state.apply({ type: 'run.started', runId: RUN, seq: 1, t: T0, name: 'node y/index.js', source: 'mcp-proxy', meta: { command: 'node' } });
  t.equal(state.summary.server, undefined, 'none before initialize is answered');
  state.apply({ type: 'run.meta', runId: RUN, seq: 2, t: T0 + 5, meta: { protocolVersion: '2025-11-25', serverInfo: { name: 'tracker', version: '0.3.1' } } });
  t.strictSame(state.summary.server, { name: 'tracker', version: '0.3.1' }, 'the summary names the server once the meta has it');
  t.strictSame(state.toRun().server, { name: 'tracker', version: '0.3.1' }, 'and so does the whole run');
});

t.test('hold.updated: a playbook for validateEvent', async (t) => {
  const base = { runId: RUN, seq: 3, t: T0 };
  const playbook: Array<[string, Record<string, unknown>, boolean]> = [
    ['a given-up hold', { type: 'hold.updated', holdId: 'hold_abc-_1', givenUp: 'the client cancelled the request' }, true],
    ['the longest reason', { type: 'hold.updated', holdId: 'hold_1', givenUp: 'x'.repeat(1024) }, true],
    ['a reason too long', { type: 'hold.updated', holdId: 'hold_1', givenUp: 'x'.repeat(1025) }, false],
    ['an empty reason', { type: 'hold.updated', holdId: 'hold_1', givenUp: '' }, false],
    ['no reason', { type: 'hold.updated', holdId: 'hold_1' }, false],
    ['a reason that is not text', { type: 'hold.updated', holdId: 'hold_1', givenUp: true }, false],
    ['no hold id', { type: 'hold.updated', givenUp: 'gone' }, false],
    ['a hold id with a slash', { type: 'hold.updated', holdId: 'hold/1', givenUp: 'gone' }, false],
    ['a hold id that is not text', { type: 'hold.updated', holdId: 7, givenUp: 'gone' }, false],
    ['a reopened call, as before', { type: 'instance.reopened', instanceId: 'mcp_5' }, true],
    ['a hold.opened with its reason, as before', { type: 'hold.opened', holdId: 'hold_1', nodeId: 'tool:poll', instanceId: 'mcp_9', gate: 'before', method: 'tools/call', frame: {}, reason: 'loop' }, true],
  ];
  for (const [name, fields, valid] of playbook) {
    t.equal(validateEvent({ ...base, ...fields }) !== undefined, valid, `${name}: ${valid ? 'valid' : 'refused'}`);
  }
});

t.test('HoldRegistry.giveUp: the owner marks an undecided hold, which stays open', async (t) => {
  const registry = new HoldRegistry();
  const decisions: Array<[string, HoldAction]> = [];
  const owner = { decide: (holdId: string, action: HoldAction) => void decisions.push([holdId, action]) };
  const other = { decide: () => {} };
  const hold: Hold = { holdId: 'hold_1', runId: RUN, nodeId: 'tool:echo', instanceId: 'mcp_2', gate: 'after', method: 'tools/call', frame: { id: 2 }, since: iso(0) };
  registry.open(hold, owner);
  t.equal(registry.giveUp('hold_1', other, 'gone'), undefined, 'another connection cannot mark it');
  t.equal(registry.giveUp('hold_2', owner, 'gone'), undefined, 'an unknown hold: nothing');
  const marked = registry.giveUp('hold_1', owner, 'the client cancelled the request');
  t.equal(marked?.givenUp, 'the client cancelled the request', 'the owner marks it');
  t.equal(hold.givenUp, undefined, 'the hold handed out before is not changed under its holder');
  t.equal(registry.giveUp('hold_1', owner, 'the client cancelled the request'), undefined, 'the same reason again: no change to tell');
  t.equal(registry.list()[0]?.givenUp, 'the client cancelled the request', 'listed as given up');
  t.equal(registry.decide('hold_1', 'continue', undefined), 'ok', 'and it can still be continued');
  t.strictSame(decisions, [['hold_1', 'continue']]);
  t.equal(registry.giveUp('hold_1', owner, 'the host closed the session'), undefined, 'a decided hold is not marked any more');
});

/** A reporter that records what it is sent, for an in-process gate. */
function fakeReporter(): EventEmitter & { attached: boolean; url: string; sent: Array<Record<string, unknown>>; send(runId: string, event: Record<string, unknown>): void } {
  return Object.assign(new EventEmitter(), {
    attached: true,
    url: 'http://127.0.0.1:4747',
    sent: [] as Array<Record<string, unknown>>,
    send(_runId: string, event: Record<string, unknown>) {
      this.sent.push(event);
    },
  });
}

t.test('the gate reports a held answer whose requester cancelled it', async (t) => {
  const reporter = fakeReporter();
  const recorder = { runId: RUN, instanceIdOf: () => 'mcp_2', onDecision: () => {} };
  const gate = new RelayGate({ reporter: reporter as unknown as Reporter, recorder: recorder as unknown as RelayRecorder });
  reporter.emit('breakpoints', { pauseOnError: true, nodes: { 'tool:echo': { after: true } } });
  const correlator = new Correlator();
  let seq = 0;
  const frameOf = (text: string, direction: Direction): Frame => classify(newFrame(Buffer.from(`${text}\n`), direction, ++seq, true), correlator);
  const request = frameOf('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}', 'client-to-server');
  t.equal(gate.check(request), undefined, 'the request goes on');
  const answer = frameOf('{"jsonrpc":"2.0","id":2,"result":{"content":[]}}', 'server-to-client');
  const held = gate.check(answer);
  if (held === undefined) throw new Error('expected the answer to hold');
  const opened = reporter.sent.at(-1) as { type: string; holdId: string };
  t.equal(opened.type, 'hold.opened');

  // Cancels that do not name it, or come the other way, change nothing.
  gate.check(frameOf('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}', 'client-to-server'));
  gate.check(frameOf('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"2"}}', 'client-to-server'));
  gate.check(frameOf('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}', 'server-to-client'));
  t.equal(reporter.sent.length, 1, 'only the hold.opened so far');

  gate.check(frameOf('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"timed out"}}', 'client-to-server'));
  t.strictSame(reporter.sent.at(-1), { type: 'hold.updated', holdId: opened.holdId, givenUp: 'the client cancelled the request (notifications/cancelled: timed out)' }, 'the cancel of its request gives the hold up');
  gate.check(frameOf('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"timed out"}}', 'client-to-server'));
  t.equal(reporter.sent.length, 2, 'told once');

  reporter.emit('decision', { holdId: opened.holdId, action: 'continue' });
  t.strictSame(await held, [answer], 'it can still be continued: the answer goes on');
  gate.check(frameOf('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}', 'client-to-server'));
  t.equal(reporter.sent.filter((e) => e.type === 'hold.updated').length, 1, 'a decided hold is not reported again');
  t.equal(cancelledBy('server-to-client', ''), 'the server cancelled its request (notifications/cancelled)', 'a server cancelling its own request says so');
  t.equal(cancelledBy('client-to-server', 'x'.repeat(500)).length, 'the client cancelled the request (notifications/cancelled: )'.length + 200, 'a long reason is cut');
});

t.test('the gate reports held answers to the host as given up when its input ends', async (t) => {
  const reporter = fakeReporter();
  const recorder = { runId: RUN, instanceIdOf: () => 'mcp_2', onDecision: () => {} };
  const gate = new RelayGate({ reporter: reporter as unknown as Reporter, recorder: recorder as unknown as RelayRecorder });
  reporter.emit('breakpoints', { pauseOnError: true, nodes: { 'tool:echo': { after: true } } });
  const host = { readable: new PassThrough(), writable: new PassThrough() };
  const server = { readable: new PassThrough(), writable: new PassThrough() };
  server.writable.resume();
  host.writable.resume();
  const relay = createRelay({ client: { ...host, end: false }, server, gate });
  gate.attach(relay);
  // The request has reached the server's side before its answer comes.
  const forwarded = once(server.writable, 'data');
  host.readable.write('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}\n');
  await forwarded;
  server.readable.write('{"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n');
  const deadline = Date.now() + 2000;
  while (!reporter.sent.some((e) => e.type === 'hold.opened') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const opened = reporter.sent.find((e) => e.type === 'hold.opened') as { holdId: string };
  t.ok(opened, 'the answer holds');
  host.readable.end();
  while (!reporter.sent.some((e) => e.type === 'hold.updated') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  t.strictSame(reporter.sent.find((e) => e.type === 'hold.updated'), { type: 'hold.updated', holdId: opened.holdId, givenUp: HOST_CLOSED }, 'the host closing its input gives it up');
  // An answer held after that is given up at once.
  server.readable.write('{"jsonrpc":"2.0","id":8,"result":{}}\n');
  gate.stop();
  relay.destroy();
});

t.test('session labels: the last segments of a path, hidden inputs as they are', async (t) => {
  const playbook: Array<[string, string[], string]> = [
    ['node', ['/x/y/index.js'], 'node y/index.js'],
    ['node', ['/a/b/index.js'], 'node b/index.js'],
    ['/usr/bin/node', ['/home/me/tracker/build/server.js'], 'node tracker/build/server.js'],
    ['node', ['/w/node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'], 'node server-everything/dist/index.js stdio'],
    ['npx', ['-y', '@modelcontextprotocol/server-everything'], 'npx -y @modelcontextprotocol/server-everything'],
    ['uv', ['run', '--directory', '/home/me/weather', 'server.py'], 'uv run --directory me/weather server.py'],
    ['node', ['--config=/etc/app/conf.json', 'server.js'], 'node --config=/etc/app/conf.json server.js'],
    ['node', ['proxy.js', 'https://example.com/mcp/v1'], 'node proxy.js https://example.com/mcp/v1'],
    ['node', ['./server.js'], 'node server.js'],
    ['node', ['/srv/server.js', '--flag'], 'node srv/server.js --flag'],
    ['node', ['../up/server.js'], 'node up/server.js'],
    ['python.exe', ['C:\\work\\weather\\server.py'], 'python.exe weather\\server.py'],
  ];
  for (const [command, args, label] of playbook) t.equal(sessionLabel(command, args, undefined), label, `${command} ${args.join(' ')}`);
  t.not(sessionLabel('node', ['/x/y/index.js'], undefined), sessionLabel('node', ['/a/b/index.js'], undefined), 'two servers named index.js are two labels');
  t.equal(labelPath('/a/dist/lib/src/x.js'), 'dist/lib/src/x.js', 'at most four segments');
  const redacted = redactCommandLine('/usr/bin/node', ['/home/me/secret-project/build/index.js', '--token=abc'], () => false);
  t.equal(sessionLabel('/usr/bin/node', ['/home/me/secret-project/build/index.js', '--token=abc'], redacted), 'node index.js', 'hidden inputs keep only file names, as before');
});
