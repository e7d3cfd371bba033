// The parts of a restart on their own: what SessionMemory keeps of a
// session (and what it does not), the line with an id of ours (withId), the
// RestartGate's states (up, restarting, down), its stale answers and the
// requests it counts as in flight, and the --watch file watcher.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ignoredChange, watchFiles } from '../src/proxy/file-watch.js';
import { NOT_RUNNING_CODE, RestartGate } from '../src/proxy/restart-gate.js';
import { SessionMemory, withId } from '../src/proxy/session-memory.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';
import type { FrameGate } from '../src/streams/gate-transform.js';

/** A session's frames, classified as the relay classifies them (one correlator for both directions). */
class Wire {
  readonly correlator = new Correlator();
  #seq = 0;

  frame(direction: Direction, message: Record<string, unknown> | string): Frame {
    const line = typeof message === 'string' ? message : JSON.stringify({ jsonrpc: '2.0', ...message });
    return classify(newFrame(Buffer.from(`${line}\n`), direction, ++this.#seq, true), this.correlator);
  }

  host(message: Record<string, unknown> | string): Frame {
    return this.frame('client-to-server', message);
  }

  server(message: Record<string, unknown> | string): Frame {
    return this.frame('server-to-client', message);
  }
}

const INIT = '{"jsonrpc":"2.0", "id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}';

t.test('SessionMemory keeps what the host set up, as the host sent it', async (t) => {
  const wire = new Wire();
  const memory = new SessionMemory();
  const see = (frame: Frame): Frame => {
    memory.observe(frame);
    return frame;
  };
  const init = see(wire.host(INIT));
  t.equal(memory.initialize?.toString(), `${INIT}\n`, 'initialize: its exact bytes (spacing included)');
  init.raw.fill(0x20);
  t.equal(memory.initialize?.toString(), `${INIT}\n`, 'a copy: not a view of the chunk the relay reuses');
  see(wire.server({ id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 's', version: '1' } } }));
  t.strictSame(memory.capabilities, { tools: { listChanged: true } }, "the server's capabilities, from its answer");
  see(wire.host({ method: 'notifications/initialized' }));
  t.equal(memory.initialized?.toString(), '{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

  see(wire.host({ id: 2, method: 'logging/setLevel', params: { level: 'info' } }));
  see(wire.host({ id: 3, method: 'logging/setLevel', params: { level: 'debug' } }));
  t.match(memory.logLevel?.toString(), /"level":"debug"/, 'the last log level');

  see(wire.host({ id: 4, method: 'resources/subscribe', params: { uri: 'a://1' } }));
  see(wire.host({ id: 5, method: 'resources/subscribe', params: { uri: 'a://2' } }));
  see(wire.host({ id: 6, method: 'resources/unsubscribe', params: { uri: 'a://1' } }));
  see(wire.host({ id: 7, method: 'resources/subscribe', params: {} }));
  t.strictSame([...memory.subscriptions.keys()], ['a://2'], 'subscriptions: subscribed, less unsubscribed, one without a uri ignored');

  const list = see(wire.host({ id: 8, method: 'tools/list', params: {} }));
  see(wire.server({ id: 8, result: { tools: [{ name: 'zeta' }, { name: 'alpha' }, { nope: 1 }], nextCursor: 'c1' } }));
  t.strictSame(memory.lists.get('tools'), ['alpha', 'zeta'], 'the first page of tools, by name, sorted');
  t.equal(memory.listRequests.get('tools')?.toString(), list.raw.toString(), "with the host's request for it");
  see(wire.host({ id: 9, method: 'tools/list', params: { cursor: 'c1' } }));
  see(wire.server({ id: 9, result: { tools: [{ name: 'omega' }] } }));
  t.strictSame(memory.lists.get('tools'), ['alpha', 'zeta'], 'a later page does not stand for the list');
  see(wire.host({ id: 10, method: 'resources/list' }));
  see(wire.server({ id: 10, result: { resources: [{ uri: 'b://x', name: 'x' }] } }));
  t.strictSame(memory.lists.get('resources'), ['b://x'], 'resources by uri');
  see(wire.host({ id: 11, method: 'prompts/list' }));
  see(wire.server({ id: 11, error: { code: -32601, message: 'no prompts' } }));
  t.notOk(memory.lists.has('prompts'), 'a list the server refused is not known');

  // What it ignores: calls, the server's own requests and notifications, answers to the server.
  see(wire.host({ id: 12, method: 'tools/call', params: { name: 'alpha' } }));
  see(wire.server({ id: 12, result: { content: [] } }));
  see(wire.server({ id: 's1', method: 'roots/list' }));
  see(wire.host({ id: 's1', result: { roots: [] } }));
  see(wire.server({ method: 'notifications/tools/list_changed' }));
  see(wire.host({ method: 'notifications/cancelled', params: { requestId: 12 } }));
  see(wire.host('not json'));
  t.strictSame([...memory.lists.keys()].sort(), ['resources', 'tools']);
  t.match(memory.logLevel?.toString(), /debug/);
});

t.test('SessionMemory in the 2026-07-28 era: no handshake, and the list requests carry the version', async (t) => {
  const wire = new Wire();
  const memory = new SessionMemory();
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  memory.observe(wire.host({ id: 'd', method: 'server/discover', params: { _meta: meta } }));
  memory.observe(wire.server({ id: 'd', result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } } }));
  t.equal(memory.initialize, undefined, 'no initialize (server/discover is not one)');
  t.equal(memory.initialized, undefined);
  const list = wire.host({ id: 1, method: 'tools/list', params: { _meta: meta } });
  memory.observe(list);
  memory.observe(wire.server({ id: 1, result: { tools: [{ name: 't' }], resultType: 'complete' } }));
  t.match(memory.listRequests.get('tools')?.toString(), /2026-07-28/, "the host's list request, with its version");
});

t.test('withId: the line with our id, and nothing else changed', async (t) => {
  t.equal(withId(Buffer.from(`${INIT}\n`), '"graphmind-restart-1-1"')?.toString(), `${INIT.replace('"id":1', '"id":"graphmind-restart-1-1"')}\n`);
  t.equal(withId(Buffer.from('{"id":"a\\"b","jsonrpc":"2.0","method":"m"}\n'), '"x"')?.toString(), '{"id":"x","jsonrpc":"2.0","method":"m"}\n', 'a string id with an escape');
  t.equal(withId(Buffer.from('{"jsonrpc":"2.0","method":"n"}\n'), '"x"'), undefined, 'no id: nothing to replace');
  t.equal(withId(Buffer.from('garbage\n'), '"x"'), undefined);
});

/** An inner gate whose holds the test decides. */
class HoldingGate implements FrameGate {
  readonly holds = new Map<Frame, (frames: readonly Frame[]) => void>();
  holdAll = false;
  check(frame: Frame): Promise<readonly Frame[]> | undefined {
    if (!this.holdAll) return undefined;
    return new Promise((resolve) => this.holds.set(frame, resolve));
  }
  mayHold(): boolean {
    return this.holdAll;
  }
  decide(frame: Frame, frames: readonly Frame[]): void {
    this.holds.get(frame)?.(frames);
    this.holds.delete(frame);
  }
}

function gateWith(inner?: FrameGate): { gate: RestartGate; answered: Array<{ id: unknown; code: number; message: string }>; resent: Frame[] } {
  const answered: Array<{ id: unknown; code: number; message: string }> = [];
  const resent: Frame[] = [];
  const gate = new RestartGate({ inner, answer: (request, code, message) => answered.push({ id: request.id, code, message }), resend: (request) => resent.push(request) });
  return { gate, answered, resent };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether a promise has settled by the next turn, and with what. */
async function settled<T>(promise: Promise<T> | undefined): Promise<{ done: boolean; value?: T }> {
  if (promise === undefined) return { done: true };
  let out: { done: boolean; value?: T } = { done: false };
  void promise.then((value) => (out = { done: true, value }));
  await tick();
  return out;
}

t.test('RestartGate: up, restarting, down', async (t) => {
  const wire = new Wire();
  const { gate, answered } = gateWith();
  t.equal(gate.standing, 'up');
  t.equal(gate.mayHold('client-to-server'), false, 'up, nothing behind it: holds nothing (long lines may stream)');
  const a = wire.host({ id: 1, method: 'tools/call', params: { name: 'x' } });
  t.equal(gate.check(a), undefined, 'up: a request passes at once');
  const note = wire.host({ method: 'notifications/progress', params: {} });
  t.equal(gate.check(note), undefined, 'and a notification');
  t.equal(gate.check(wire.server({ method: 'notifications/message', params: {} })), undefined, "the server's frames are the inner gate's (none here)");

  gate.pause();
  t.equal(gate.standing, 'restarting');
  t.equal(gate.mayHold('client-to-server'), true, 'restarting: it holds');
  t.equal(gate.mayHold('server-to-client'), false, "but not the server's frames");
  const b = wire.host({ id: 2, method: 'tools/call', params: { name: 'y' } });
  const c = wire.host({ method: 'notifications/cancelled', params: { requestId: 1 } });
  const waitB = gate.check(b);
  t.notOk((await settled(waitB)).done, 'restarting: a request waits');
  gate.up();
  t.strictSame((await settled(waitB)).value, [b], 'up again: it goes on');
  t.equal(gate.check(c), undefined);
  t.strictSame(gate.takeInFlight(wire.correlator.outstanding('client-to-server')).map((f) => f.id), [1, 2], 'both requests reached the server: in flight');
  t.strictSame(gate.takeInFlight(wire.correlator.outstanding('client-to-server')), [], 'taken: the next server starts with none');

  gate.pause();
  const d = wire.host({ id: 3, method: 'tools/call', params: { name: 'z' } });
  const waitD = gate.check(d);
  gate.down('it exited with code 1; fix it and save to restart it');
  t.strictSame((await settled(waitD)).value, [], 'down: a waiting request goes no further');
  t.strictSame(answered, [{ id: 3, code: NOT_RUNNING_CODE, message: 'the MCP server is not running: it exited with code 1; fix it and save to restart it' }], 'it is answered -32097 with the reason');
  const e = wire.host({ id: 4, method: 'ping' });
  t.strictSame(await gate.check(e), [], 'down: a new request too');
  t.equal(answered.length, 2);
  t.strictSame(await gate.check(wire.host({ method: 'notifications/initialized' })), [], 'a notification is dropped, unanswered');
  t.equal(answered.length, 2);
  t.equal(gate.mayHold('client-to-server'), true);
  gate.up();
  t.equal(gate.check(wire.host({ id: 5, method: 'ping' })), undefined, 'up after down: passes again');
});

t.test('RestartGate: stale answers are dropped, in every state', async (t) => {
  const wire = new Wire();
  const { gate } = gateWith();
  const ask = wire.server({ id: 'srv-1', method: 'sampling/createMessage', params: {} });
  // The restart forgets the old server's requests (Restarter does this), and marks their ids stale.
  wire.correlator.take('client-to-server', ask.id as string);
  gate.stale.add('srv-1');
  t.equal(gate.mayHold('client-to-server'), true, 'while an answer is expected to be dropped, it must be seen before it is written');
  t.strictSame(await gate.check(wire.host({ id: 'srv-1', result: {} })), [], "the host's late answer is dropped");
  t.equal(gate.stale.size, 0, 'once');
  t.equal(gate.mayHold('client-to-server'), false);
  t.equal(gate.check(wire.host({ id: 'srv-1', result: {} })), undefined, 'a second one (not stale any more) passes');
});

t.test('RestartGate: held frames and decisions across a restart', async (t) => {
  const wire = new Wire();
  const inner = new HoldingGate();
  const { gate, answered, resent } = gateWith(inner);
  inner.holdAll = true;

  // Held before the server, decided during a restart: it waits for the new server.
  const a = wire.host({ id: 1, method: 'tools/call', params: { name: 'a' } });
  const heldA = gate.check(a);
  gate.pause();
  t.strictSame(gate.takeInFlight(wire.correlator.outstanding('client-to-server')), [], 'a held request is not in flight');
  inner.decide(a, [a]);
  t.notOk((await settled(heldA)).done, 'let go during the restart: it waits');
  gate.up();
  t.strictSame((await settled(heldA)).value, [a], 'the new server gets it');
  t.strictSame(gate.takeInFlight(wire.correlator.outstanding('client-to-server')).map((f) => f.id), [1], 'and it is in flight there');

  // Held, then let go while down: refused.
  const b = wire.host({ id: 2, method: 'tools/call', params: { name: 'b' } });
  const heldB = gate.check(b);
  gate.pause();
  gate.down('no server');
  inner.decide(b, [b]);
  t.strictSame((await settled(heldB)).value, [], 'let go while down: not forwarded');
  t.match(answered.at(-1), { id: 2, code: NOT_RUNNING_CODE });
  gate.up();

  // An answer held after the server, retried (dropped, its request written again).
  /** A call that reached the server, and its answer held; `retry()` decides it (its request goes out again, as RelayGate does). */
  const heldAnswer = (id: number): { request: Frame; retry: () => Promise<void> } => {
    inner.holdAll = false;
    const request = wire.host({ id, method: 'tools/call', params: { name: 'c' } });
    gate.check(request);
    inner.holdAll = true;
    const answer = wire.server({ id, result: { content: [] } });
    const after = gate.check(answer);
    return {
      request,
      async retry() {
        inner.decide(answer, []);
        t.strictSame(await after, [], `the held answer to ${id} is dropped`);
        wire.correlator.track(request);
      },
    };
  };
  const inFlight = (): unknown[] => gate.takeInFlight(wire.correlator.outstanding('client-to-server')).map((f) => f.id);

  const c = heldAnswer(3);
  t.strictSame(inFlight(), [], 'answered (the answer is held): not in flight');
  await c.retry();
  t.strictSame(inFlight(), [3], 'retried while up: its request is in flight at the server again');

  const d = heldAnswer(4);
  gate.pause();
  inFlight();
  await d.retry();
  t.strictSame(resent, [], 'retried during a restart: not sent yet');
  gate.up();
  t.strictSame(resent.map((f) => f.id), [4], 'sent again once the new server is up');
  t.strictSame(inFlight(), [4], 'and in flight there');

  const e = heldAnswer(5);
  gate.pause();
  await e.retry();
  gate.down('gone');
  t.match(answered.at(-1), { id: 5, code: NOT_RUNNING_CODE }, 'retried during a restart that failed: -32097');

  const f = heldAnswer(6);
  await f.retry();
  t.match(answered.at(-1), { id: 6, code: NOT_RUNNING_CODE }, 'retried while down: -32097 at once');
  t.equal(resent.length, 1);
});

t.test('ignoredChange: dependencies, VCS data, build output, editor files, logs', async (t) => {
  for (const path of ['node_modules/x/index.js', '.git/HEAD', 'a/dist/server.js', 'build/x.js', 'coverage/lcov.info', 'src/__pycache__/m.pyc', 'x.js~', '.#x.js', '.x.js.swp', '4913', 'server.log', 'logs/out.log']) {
    t.ok(ignoredChange(path), `${path}: ignored`);
  }
  for (const path of ['server.js', 'src/tool.ts', 'a/b/c.py', 'dist.js', 'builder/x.js', 'package.json']) t.notOk(ignoredChange(path), `${path}: watched`);
});

t.test('watchFiles: a file (saved in place or by rename), a folder tree, what is left out', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-watch-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const src = join(root, 'src');
  mkdirSync(join(src, 'deep'), { recursive: true });
  mkdirSync(join(src, 'node_modules'), { recursive: true });
  mkdirSync(join(root, 'dist'), { recursive: true });
  const file = join(root, 'server.js');
  writeFileSync(file, '1');
  const changes: string[] = [];
  const problems: string[] = [];
  const watching = watchFiles([file, src, join(root, 'dist'), join(root, 'missing')], (changed) => changes.push(changed), (problem) => problems.push(problem), { debounceMs: 80 });
  t.teardown(() => watching.close());
  t.strictSame(problems, [`cannot watch ${join(root, 'missing')}: it does not exist`], 'a path that does not exist is reported, the rest watched');
  const next = async (what: string): Promise<string | undefined> => {
    const before = changes.length;
    const deadline = Date.now() + 5000;
    while (changes.length === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal(changes.length, before + 1, what);
    return changes.at(-1);
  };
  const quiet = async (what: string): Promise<void> => {
    const before = changes.length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    t.equal(changes.length, before, what);
  };

  writeFileSync(file, '2');
  t.equal(await next('a named file saved in place'), file);
  for (let i = 0; i < 3; i++) {
    writeFileSync(`${file}.tmp`, `v${i}`);
    renameSync(`${file}.tmp`, file);
    t.equal(await next(`saved by rename (${i + 1})`), file, 'still watched after its inode changed');
  }
  writeFileSync(join(root, 'other.js'), 'x');
  await quiet('another file in the named file’s folder: nothing');

  for (let i = 0; i < 5; i++) writeFileSync(join(src, 'tool.js'), `burst ${i}`);
  t.equal(await next('five writes in a row: one change'), join(src, 'tool.js'));
  await quiet('and no more');
  writeFileSync(join(src, 'deep', 'x.ts'), 'x');
  t.equal(await next('a file in a folder below'), join(src, 'deep', 'x.ts'));
  writeFileSync(join(src, 'node_modules', 'dep.js'), 'x');
  writeFileSync(join(src, 'server.log'), 'a line');
  writeFileSync(join(src, 'tool.js~'), 'backup');
  await quiet('node_modules, a log file, an editor backup: nothing');
  mkdirSync(join(src, 'later'));
  await next('a folder made (a change in its parent)');
  writeFileSync(join(src, 'later', 'new.js'), 'x');
  t.equal(await next('a file in a folder made after the start'), join(src, 'later', 'new.js'));
  writeFileSync(join(root, 'dist', 'out.js'), 'x');
  t.equal(await next('a build folder named on its own is watched'), join(root, 'dist', 'out.js'));

  watching.close();
  writeFileSync(file, 'after close');
  await quiet('closed: nothing');
});
