// The exact bytes of what the proxy's graph recorder reports: every event a
// session produces (calls, answers, errors, noise, stderr, decisions, the
// end), as the debugger's ingest socket receives them, key order included.
// The recorder and the reporter build these events on their hot path; this
// pins their wire format against a snapshot (test/fixtures/report-wire.jsonl;
// UPDATE_WIRE_SNAPSHOT=1 rewrites it), attached and replayed after a detach.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { WebSocketServer } from 'ws';
import { RelayRecorder, MAX_RECORDED_FRAME_BYTES, PAIR_WAIT_MS, RECORD_DELAY_MS } from '../src/relay/relay-recorder.js';
import { IdSequence } from '../src/report/id-sequence.js';
import { Reporter } from '../src/report/reporter.js';
import { newFrame, type Direction, type Frame, type FrameType, type NodeRef } from '../src/streams/frame.js';
import { waitFor } from './helpers/cli.js';
import { freePort, tempDir } from './helpers/graph.js';
import { provingWss, STAND_IN_TOKEN } from './helpers/stand-in.js';

const keepAlive = setInterval(() => {}, 1000);
t.teardown(() => clearInterval(keepAlive));

const SNAPSHOT = fileURLToPath(new URL('./fixtures/report-wire.jsonl', import.meta.url));

const tool = (name: string): NodeRef => ({ nodeId: `tool:${name}`, kind: 'tool', parent: 'mcp:session', label: name });
const protocol = (method: string): NodeRef => ({ nodeId: `mcp:${method}`, kind: 'custom', parent: 'mcp:protocol', label: method });

/** A frame that passed at `at` (ms since the epoch; default now). */
function frameOf(message: unknown, direction: Direction, type: FrameType, extra: Partial<Frame> = {}, at?: number): Frame {
  const raw = typeof message === 'string' ? Buffer.from(`${message}\n`) : Buffer.from(`${JSON.stringify(message)}\n`);
  const frame = newFrame(raw, direction, 1, true, at);
  frame.type = type;
  Object.assign(frame, extra);
  return frame;
}

function call(id: number, method: string, params: unknown, node: NodeRef, seq = 1, direction: Direction = 'client-to-server'): Frame {
  return frameOf({ jsonrpc: '2.0', id, method, params }, direction, 'request', { method, id, node, seq });
}

/** The answer to `request`, passing at `at` (default now). */
function answer(request: Frame, result: unknown, isError?: boolean, at?: number): Frame {
  return frameOf({ jsonrpc: '2.0', id: request.id, result }, 'server-to-client', 'response', { method: request.method, id: request.id, request, isError }, at);
}

/**
 * Echo calls `from` to `to` (id, seq and argument `n` all `i`), handed to
 * the recorder in order, each answered at once with `resultOf(i)` unless
 * that is undefined.
 */
function echoCalls(recorder: RelayRecorder, from: number, to: number, resultOf: (i: number) => unknown = () => undefined): Frame[] {
  const calls: Frame[] = [];
  for (let i = from; i <= to; i++) {
    const request = call(i, 'tools/call', { name: 'echo', arguments: { n: i } }, tool('echo'), i);
    calls.push(request);
    recorder.onFrame(request);
    const result = resultOf(i);
    if (result !== undefined) recorder.onFrame(answer(request, result));
  }
  return calls;
}

function failure(request: Frame, error: unknown): Frame {
  return frameOf({ jsonrpc: '2.0', id: request.id, error }, 'server-to-client', 'error', { method: request.method, id: request.id, request });
}

/** One whole session, through every path of the recorder. */
function session(recorder: RelayRecorder): void {
  recorder.onSpawned(4321);
  recorder.onStderr(['server: starting', 'server: ready']);
  const init = call(1, 'initialize', { protocolVersion: '2025-06-18', clientInfo: { name: 'wire-test', version: '1' }, capabilities: {} }, protocol('initialize'));
  recorder.onFrame(init);
  recorder.onFrame(answer(init, { protocolVersion: '2025-06-18', serverInfo: { name: 'wire-server', version: '2' }, capabilities: {} }));
  recorder.onFrame(frameOf({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'client-to-server', 'notification', { method: 'notifications/initialized', node: protocol('notifications/initialized') }));
  const echo = call(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }, tool('echo'));
  recorder.onFrame(echo);
  recorder.onFrame(answer(echo, { content: [{ type: 'text', text: 'hi' }] }));
  const failing = call(3, 'tools/call', { name: 'fail', arguments: {} }, tool('fail'));
  recorder.onFrame(failing);
  recorder.onFrame(answer(failing, { content: [{ type: 'text', text: 'it failed' }, { type: 'image' }, { type: 'text', text: 'twice' }], isError: true }, true));
  const broken = call(4, 'tools/call', { name: 'broken' }, tool('broken'));
  recorder.onFrame(broken);
  recorder.onFrame(failure(broken, { code: -32602, message: 'bad params', data: { why: 'no' } }));
  const list = call(5, 'tools/list', {}, protocol('tools/list'));
  recorder.onFrame(list);
  recorder.onFrame(failure(list, { code: -32601 }));
  recorder.onFrame(frameOf('not json at all', 'server-to-client', 'noise'));
  recorder.onFrame(frameOf('client noise is not recorded', 'client-to-server', 'noise'));
  const retried = call(6, 'tools/call', { name: 'echo', arguments: { n: 6 } }, tool('echo'));
  recorder.onFrame(retried);
  recorder.onFrame(answer(retried, { content: [] }));
  recorder.onDecision(retried, 'after', 'retry');
  recorder.onDecision(retried, 'after', 'inject', { content: [{ type: 'text', text: 'injected' }] });
  const aborted = call(7, 'prompts/get', { name: 'p' }, { nodeId: 'prompt:p', kind: 'prompt', parent: 'mcp:session', label: 'p' });
  recorder.onFrame(aborted);
  recorder.onDecision(aborted, 'before', 'abort');
  const huge = call(8, 'tools/call', { name: 'echo', arguments: { text: 'x'.repeat(MAX_RECORDED_FRAME_BYTES) } }, tool('echo'));
  recorder.onFrame(huge);
  recorder.onFrame(answer(huge, { content: [{ type: 'text', text: 'big' }] }));
  const longName = 'y'.repeat(1500);
  const long = call(9, 'tools/call', { name: longName }, tool(longName));
  recorder.onFrame(long);
  const unanswered = call(10, 'tools/call', { name: 'slow' }, tool('slow'));
  recorder.onFrame(unanswered);
  recorder.onFrame(answer(long, { content: [] }));
  recorder.finish({ exitCode: 3, signal: null });
}

/** What the socket received, one event a line, runIds and times made stable. */
function normalized(texts: string[]): string[] {
  const runIds = new Map<string, string>();
  const lines: string[] = [];
  for (const text of texts) {
    for (const event of JSON.parse(text) as Array<Record<string, unknown>>) {
      const runId = event.runId as string;
      if (!runIds.has(runId)) runIds.set(runId, `run${runIds.size + 1}`);
      if (typeof event.t !== 'number' || !(Math.abs(event.t - Date.now()) < 60_000)) throw new Error(`bad t in ${JSON.stringify(event)}`);
      // A call recorded with its answer ends when (or after) it starts.
      if ('endT' in event && !(typeof event.endT === 'number' && event.endT >= event.t && event.endT - event.t < 60_000)) throw new Error(`bad endT in ${JSON.stringify(event)}`);
      const copy: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(event)) copy[key] = key === 'runId' ? runIds.get(runId) : key === 't' || key === 'endT' ? 0 : value;
      if (copy.type === 'run.started') {
        const meta = copy.meta as Record<string, unknown>;
        meta.proxyPid = 0;
        if ('cwd' in meta) meta.cwd = 'CWD';
      }
      lines.push(JSON.stringify(copy));
    }
  }
  return lines;
}

/**
 * A WebSocket server on `port` that keeps every message it receives in
 * `texts`; closed at teardown. It proves it holds the token the reporters
 * here are given ({@link PROVEN}), as a client asks before it sends it.
 */
async function listen(t: Test, port: number, texts: string[]): Promise<{ wss: WebSocketServer; close(): Promise<void> }> {
  const server = await provingWss(port);
  server.wss.on('connection', (ws) => ws.on('message', (data) => texts.push(data.toString())));
  t.teardown(server.close);
  return server;
}

/** The environment of a reporter that talks to {@link listen}'s stand-in. */
const PROVEN = { GRAPHMIND_TOKEN: STAND_IN_TOKEN };

/** A recorder reporting to a socket that keeps every message in `texts`, attached before it starts. */
async function attachedRecorder(t: Test, options: { toolResults?: boolean; maxBufferedEvents?: number } = {}): Promise<{ reporter: Reporter; recorder: RelayRecorder; texts: string[] }> {
  const port = await freePort();
  const texts: string[] = [];
  await listen(t, port, texts);
  const reporter = new Reporter({ port, env: PROVEN, dataDir: tempDir(), reconnectMs: 20, ...(options.maxBufferedEvents === undefined ? {} : { maxBufferedEvents: options.maxBufferedEvents }) });
  t.teardown(() => reporter.close());
  t.ok(await reporter.waitForAttach(5000), 'attached');
  const recorder = new RelayRecorder({ reporter, command: 'node', args: [], hide: { inputs: false, toolResults: options.toolResults ?? false } });
  return { reporter, recorder, texts };
}

/** A recorder whose reporter has nobody to talk to yet: its port is free until {@link attachLater} listens on it. */
async function detachedRecorder(t: Test, maxBufferedEvents?: number): Promise<{ port: number; texts: string[]; reporter: Reporter; recorder: RelayRecorder }> {
  const port = await freePort();
  const texts: string[] = [];
  const reporter = new Reporter({ port, env: PROVEN, dataDir: tempDir(), reconnectMs: 20, ...(maxBufferedEvents === undefined ? {} : { maxBufferedEvents }) });
  t.teardown(() => reporter.close());
  const recorder = new RelayRecorder({ reporter, command: 'node', args: [], hide: { inputs: false, toolResults: false } });
  return { port, texts, reporter, recorder };
}

/**
 * Start the debugger's socket for a {@link detachedRecorder} whose session
 * has ended, and take in everything: the run's events, how many were
 * counted as dropped, and the kept ones other than the run's and the
 * session's start.
 */
async function attachLater(
  t: Test,
  { port, texts, reporter, recorder }: { port: number; texts: string[]; reporter: Reporter; recorder: RelayRecorder },
): Promise<{ dropped: number; kept: Array<Record<string, unknown>> }> {
  await listen(t, port, texts);
  t.ok(await reporter.waitForAttach(5000), 'attached later');
  t.ok(await reporter.flush(5000), 'flushed');
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 5000, 'the end');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>).filter((e) => e.runId === recorder.runId);
  const dropped = events.filter((e) => e.type === 'events.dropped').reduce((sum, e) => sum + (e.count as number), 0);
  const kept = events.filter((e) => e.type !== 'events.dropped' && e.type !== 'run.started' && !(e.type === 'instance.started' && (e.node as NodeRef).nodeId === 'mcp:session'));
  return { dropped, kept };
}

async function capture(t: Test, attachFirst: boolean): Promise<string[]> {
  const port = await freePort();
  const texts: string[] = [];
  const startServer = (): Promise<unknown> => listen(t, port, texts);
  if (attachFirst) await startServer();
  const reporter = new Reporter({ port, env: PROVEN, dataDir: tempDir(), reconnectMs: 20 });
  t.teardown(() => reporter.close());
  if (attachFirst) t.ok(await reporter.waitForAttach(5000), 'attached');
  const shown = new RelayRecorder({ reporter, command: '/usr/bin/node', args: ['/srv/server.js', '--flag'], hide: { inputs: false, toolResults: false } });
  session(shown);
  const hidden = new RelayRecorder({ reporter, command: '/usr/bin/node', args: ['/srv/server.js', '--token=secret'], hide: { inputs: true, toolResults: true } });
  session(hidden);
  if (!attachFirst) {
    t.equal(reporter.attached, false, 'detached while the session ran');
    await startServer();
    t.ok(await reporter.waitForAttach(5000), 'attached later');
  }
  t.ok(await reporter.flush(5000), 'flushed');
  await waitFor(() => normalized(texts).filter((line) => line.includes('"run.finished"')).length === 2, 5000, 'both runs');
  return normalized(texts);
}

t.test('attached: the events of a session, byte for byte', async (t) => {
  const lines = await capture(t, true);
  if (process.env.UPDATE_WIRE_SNAPSHOT === '1') {
    // Rewriting the snapshot is a deliberate, local act: never on CI, where it would make this test pass by definition.
    if (process.env.CI) return void t.fail('UPDATE_WIRE_SNAPSHOT=1 is refused with CI set: rewrite the snapshot locally and commit it');
    writeFileSync(SNAPSHOT, `${lines.join('\n')}\n`);
    t.comment(`rewrote ${SNAPSHOT}: review its diff before committing`);
  }
  if (!existsSync(SNAPSHOT)) return void t.fail(`${SNAPSHOT} is missing: run UPDATE_WIRE_SNAPSHOT=1 locally and commit it`);
  const expected = readFileSync(SNAPSHOT, 'utf8').split('\n').filter((line) => line !== '');
  t.equal(lines.length, expected.length, `${expected.length} events`);
  for (let i = 0; i < Math.max(lines.length, expected.length); i++) t.equal(lines[i], expected[i], `event ${i + 1}`);
});

t.test('detached, then attached: the same events, replayed from the buffer', async (t) => {
  // Both runs have ended by the time the debugger comes: nothing to reclaim,
  // the buffer is replayed as it was recorded.
  const lines = await capture(t, false);
  if (!existsSync(SNAPSHOT)) return void t.fail(`${SNAPSHOT} is missing: run UPDATE_WIRE_SNAPSHOT=1 locally and commit it`);
  const expected = readFileSync(SNAPSHOT, 'utf8').split('\n').filter((line) => line !== '');
  t.same(lines, expected, 'everything, in order');
});

t.test('instance ids: mcp_1, mcp_2, … spelled right across every carry', async (t) => {
  const ids = new IdSequence('mcp_');
  let wrong = 0;
  for (let n = 1; n <= 250_000; n++) if (ids.next() !== `mcp_${n}`) wrong++;
  t.equal(wrong, 0, 'the first 250,000 ids');
  const other = new IdSequence('');
  t.same([other.next(), other.next()], ['1', '2'], 'any prefix, even none');
});

t.test('calls left open end in the order they were opened, however many are in flight', async (t) => {
  const { reporter, recorder, texts } = await attachedRecorder(t, { maxBufferedEvents: 100_000 });
  // What the recorder must do, modelled with a Map (insertion order).
  const model = new Map<Frame, true>();
  const frames: Frame[] = [];
  const open = (frame: Frame): void => {
    recorder.onFrame(frame);
    frames.push(frame);
    model.set(frame, true);
  };
  const answerIt = (frame: Frame): void => {
    recorder.onFrame(answer(frame, { n: frame.id }));
    model.delete(frame);
  };
  // Thousands in flight each way, sequence numbers that collide (the same
  // seq again, seqs 2^16 apart), answers out of order, retries.
  for (let i = 1; i <= 3000; i++) open(call(i, 'tools/call', { name: 'echo' }, tool('echo'), i));
  for (let i = 1; i <= 500; i++) open(call(10_000 + i, 'sampling/createMessage', {}, protocol('sampling'), i, 'server-to-client'));
  for (let i = 1; i <= 50; i++) open(call(20_000 + i, 'tools/call', { name: 'echo' }, tool('echo'), i * 65_536 + 7));
  for (let i = 1; i <= 20; i++) open(call(30_000 + i, 'tools/call', { name: 'echo' }, tool('echo'), 7));
  for (let i = 0; i < frames.length; i += 3) answerIt(frames[i] as Frame);
  for (let i = frames.length - 1; i >= 0; i -= 7) if (model.has(frames[i] as Frame)) answerIt(frames[i] as Frame);
  for (const i of [0, 3, 6, 3001]) {
    const frame = frames[i] as Frame;
    recorder.onDecision(frame, 'after', 'retry');
    model.set(frame, true);
  }
  recorder.onDecision(frames[1] as Frame, 'before', 'abort');
  model.delete(frames[1] as Frame);
  // An answer to a call that is not open any more is not recorded again.
  recorder.onFrame(answer(frames[1] as Frame, {}));
  recorder.onFrame(answer(frames[9] as Frame, {}));
  recorder.finish({ exitCode: 0, signal: null });
  t.ok(await reporter.flush(10_000));
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 10_000, 'the end');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>);
  const noAnswer = events.filter((e) => e.type === 'instance.error' && (e.error as { name: string }).name === 'NoAnswer').map((e) => e.instanceId);
  t.same(noAnswer, [...model.keys()].map((frame) => frame.instanceId), `the ${model.size} calls still open, oldest first`);
  const finishedTwice = events.filter((e) => (e.type === 'instance.finished' || e.type === 'instance.completed') && (e.instanceId === frames[1]?.instanceId || e.instanceId === frames[9]?.instanceId));
  t.equal(finishedTwice.length, 1, 'a late answer to a closed call records nothing (frames[9] was answered once)');
});

t.test('frames are recorded a little after they pass, each at the time it passed', async (t) => {
  const { reporter, recorder, texts } = await attachedRecorder(t);
  const before = reporter.pending;
  const request = call(1, 'tools/call', { name: 'echo' }, tool('echo'));
  // The time a frame passed is its own (read once per chunk by the relay): the events must carry exactly it.
  const passed = request.at;
  recorder.onFrame(request);
  t.equal(reporter.pending, before, 'nothing is recorded while the relay is still busy with the frame');
  t.equal(request.instanceId, undefined, 'no instance yet');
  // Look the moment it is recorded: it goes to the debugger in that same turn.
  const deadline = Date.now() + RECORD_DELAY_MS + 1000;
  while (request.instanceId === undefined && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  t.type(request.instanceId, 'string', 'recorded once the delay is over, with no other call');
  t.equal(reporter.pending, 0, 'and sent to the debugger with the batch, not held for the reporter\'s own batching');
  // The answer passes 40 ms after the request (its frame says so; no need to wait for it).
  recorder.onFrame(answer(request, { content: [] }, undefined, passed + RECORD_DELAY_MS + 40));
  // Another call waits for the timer; asking for its instance records it at once (a hold needs it).
  const second = call(2, 'tools/call', { name: 'echo' }, tool('echo'));
  recorder.onFrame(second);
  t.type(recorder.instanceIdOf(second), 'string', 'instanceIdOf records what is waiting first');
  recorder.finish({ exitCode: 0, signal: null });
  t.ok(await reporter.flush(5000));
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 5000, 'the end');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>);
  const started = events.find((e) => e.type === 'instance.started' && e.instanceId === request.instanceId);
  const finished = events.find((e) => e.type === 'instance.finished' && e.instanceId === request.instanceId);
  t.ok(started && started.t === passed, 'the start carries the time the request passed, not the time it was recorded');
  t.ok(finished && (finished.t as number) - (started?.t as number) >= RECORD_DELAY_MS + 30, 'the end carries the time the answer passed');
  const order = events.filter((e) => e.runId === recorder.runId).map((e) => e.seq as number);
  t.same(order, [...order].sort((a, b) => a - b), 'events go out in order');
});

t.test('detached, frames wait unrecorded until a debugger attaches, then go at once with their own times', async (t) => {
  const { port, texts, reporter, recorder } = await detachedRecorder(t);
  const before = reporter.pending;
  const request = call(1, 'tools/call', { name: 'echo', arguments: { text: 'early' } }, tool('echo'));
  const passed = request.at;
  recorder.onFrame(request);
  recorder.onFrame(answer(request, { content: [{ type: 'text', text: 'early' }] }));
  await new Promise((resolve) => setTimeout(resolve, RECORD_DELAY_MS * 4));
  t.equal(reporter.attached, false, 'nobody is listening yet');
  t.equal(request.instanceId, undefined, 'no instance built while nobody could see it');
  t.equal(reporter.pending, before, 'no event queued for the frames');
  await listen(t, port, texts);
  t.ok(await reporter.waitForAttach(5000), 'attached later');
  await waitFor(() => texts.some((text) => text.includes('"instance.completed"')), 5000, 'the call, sent once attached');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>).filter((e) => e.runId === recorder.runId);
  const completed = events.find((e) => e.type === 'instance.completed');
  t.equal(completed?.instanceId, request.instanceId, 'recorded on attach as one event');
  t.same(completed?.input, { name: 'echo', arguments: { text: 'early' } });
  t.ok(completed && completed.t === passed, 'it carries the time the request passed, not the time of the attach');
  recorder.finish({ exitCode: 0, signal: null });
});
t.test('a full ring is recorded up to the first call in flight, past calls already answered, an error included', async (t) => {
  const { reporter, recorder, texts } = await attachedRecorder(t);
  const node = tool('echo');
  // A burst: 5,000 calls go out, the first 3,000 are answered (the very
  // first with a JSON-RPC error, before the next call goes: an answer
  // recorded on its own between a call's request and its answer would keep
  // that call from being paired), then more calls fill the ring (8,192 frames).
  const requests = Array.from({ length: 5192 }, (_, i) => call(i + 1, 'tools/call', { name: 'echo', arguments: { n: i + 1 } }, node, i + 1));
  recorder.onFrame(requests[0] as Frame);
  recorder.onFrame(failure(requests[0] as Frame, { code: -32000, message: 'no' }));
  for (const request of requests.slice(1, 5000)) recorder.onFrame(request);
  for (const request of requests.slice(1, 3000)) recorder.onFrame(answer(request, { n: request.id }));
  for (const request of requests.slice(5000)) recorder.onFrame(request);
  // The rest is answered before the session ends.
  for (const request of requests.slice(3000)) recorder.onFrame(answer(request, { n: request.id }));
  recorder.finish({ exitCode: 0, signal: null });
  t.ok(await reporter.flush(5000));
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 5000, 'the end');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>);
  const kinds = new Map<string, string[]>();
  for (const event of events) if (typeof event.instanceId === 'string') kinds.set(event.instanceId, [...(kinds.get(event.instanceId) ?? []), event.type as string]);
  t.same(kinds.get(requests[0]?.instanceId as string), ['instance.started', 'instance.error'], 'the failed call: a start and an error');
  const split = requests.slice(1).filter((request) => kinds.get(request.instanceId as string)?.join() !== 'instance.completed');
  t.equal(split.length, 0, `every other call is one event (split: ${split.slice(0, 3).map((r) => r.id).join(', ')}…)`);
});

t.test('a call answered before it is recorded is one event; one answered later, a start and an end', async (t) => {
  const { reporter, recorder, texts } = await attachedRecorder(t, { toolResults: true });
  const quick = call(1, 'tools/call', { name: 'echo' }, tool('echo'), 1);
  const slow = call(2, 'tools/call', { name: 'slow' }, tool('slow'), 2);
  const failing = call(3, 'tools/call', { name: 'fail' }, tool('fail'), 3);
  const listing = call(4, 'tools/list', {}, protocol('tools/list'), 4);
  for (const frame of [quick, slow, failing, listing]) recorder.onFrame(frame);
  // The answers pass 5 ms after their requests (their frames say so; no need to wait for it).
  // (The failing call's answer last: recorded on its own, it keeps any call answered after it from being paired.)
  recorder.onFrame(answer(quick, { content: [{ type: 'text', text: 'hi' }] }, undefined, quick.at + 5));
  recorder.onFrame(answer(listing, { tools: [] }, undefined, listing.at + 5));
  recorder.onFrame(answer(failing, { content: [], isError: true }, true, failing.at + 5));
  // Recorded now: the slow call's answer comes in a later batch.
  t.type(recorder.instanceIdOf(slow), 'string');
  recorder.onFrame(answer(slow, { content: [] }));
  recorder.finish({ exitCode: 0, signal: null });
  t.ok(await reporter.flush(5000));
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 5000, 'the end');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>);
  const of = (frame: Frame): string[] => events.filter((e) => e.instanceId === frame.instanceId).map((e) => e.type as string);
  t.same(of(quick), ['instance.completed'], 'answered in the same batch: one event');
  t.same(of(listing), ['instance.completed'], 'a protocol call too');
  t.same(of(slow), ['instance.started', 'instance.finished'], 'answered after its batch: a start, then an end');
  t.same(of(failing), ['instance.started', 'instance.error'], 'a failure is recorded as it always is');
  const completed = events.find((e) => e.instanceId === quick.instanceId) as Record<string, unknown>;
  t.equal(completed.output, '[hidden]', 'hidden results stay hidden in the one event');
  t.same(completed.input, { name: 'echo' });
  t.ok((completed.endT as number) - (completed.t as number) >= 4, 'it starts when the request passed and ends when the answer did');
  const protocolEnd = events.find((e) => e.type === 'instance.finished' && (e.output as { calls?: number } | undefined)?.calls !== undefined);
  t.same(protocolEnd?.output, { calls: 1, errors: 0, stdoutNoise: 0 }, 'the protocol totals count it');
  const order = events.filter((e) => e.runId === recorder.runId && e.seq !== 0).map((e) => e.seq as number);
  t.same(order, [...order].sort((a, b) => a - b), 'events go out in order, each call where its request stands');
  const ids = [quick, slow, failing, listing].map((f) => f.instanceId);
  const starts = events.filter((e) => ids.includes(e.instanceId as string) && (e.type === 'instance.completed' || e.type === 'instance.started'));
  t.same(starts.map((e) => e.instanceId), ids, 'in the order the requests came');
});

t.test('the timer waits for calls in flight: answered soon, one event; slow, a start once it is old enough', async (t) => {
  const { reporter, recorder, texts } = await attachedRecorder(t);
  // When each message reached the debugger, by its position in `texts`.
  const arrived: number[] = [];
  const seen = setInterval(() => {
    while (arrived.length < texts.length) arrived.push(Date.now());
  }, 1);
  t.teardown(() => clearInterval(seen));
  // A request every 2 ms for ~120 ms (several timer turns), each answered
  // after 0, 1 or 3 ms, every fifth after 30 ms.
  const delays: number[] = [];
  const calls: Frame[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 1; i <= 60; i++) {
    const request = call(i, 'tools/call', { name: 'echo', arguments: { n: i } }, tool('echo'), i);
    calls.push(request);
    recorder.onFrame(request);
    const delay = i % 5 === 0 ? 30 : [0, 1, 3][i % 3] as number;
    delays.push(delay);
    pending.push(new Promise((resolve) => setTimeout(resolve, delay)).then(() => recorder.onFrame(answer(request, { content: [] }))));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(pending);
  // Everything is answered: the timer records the rest on its own.
  await waitFor(() => calls.every((c) => c.instanceId !== undefined), 2000, 'every call recorded by the timer');
  // And at the debugger: each call's end (one event, or the end after a start) has arrived.
  await waitFor(() => {
    const ended = new Set(texts.flatMap((text) => (JSON.parse(text) as Array<Record<string, unknown>>).filter((e) => e.type === 'instance.completed' || e.type === 'instance.finished').map((e) => e.instanceId)));
    return calls.every((c) => ended.has(c.instanceId));
  }, 2000, 'every call recorded by the timer to reach the debugger');
  const byTimer = texts.length;
  while (arrived.length < texts.length) arrived.push(Date.now());
  clearInterval(seen);
  recorder.finish({ exitCode: 0, signal: null });
  t.ok(await reporter.flush(5000));
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 5000, 'the end');
  const sent = texts.slice(0, byTimer).flatMap((text, i) => (JSON.parse(text) as Array<Record<string, unknown>>).map((e) => ({ e, at: arrived[i] as number })));
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>);
  const of = (frame: Frame) => events.filter((e) => e.instanceId === frame.instanceId);
  let split = 0;
  for (const [i, request] of calls.entries()) {
    const mine = of(request);
    if (mine.length === 1) {
      t.equal(mine[0]?.type, 'instance.completed');
      continue;
    }
    split++;
    t.same(mine.map((e) => e.type), ['instance.started', 'instance.finished'], `call ${i + 1}: a start and an end`);
    const took = (mine[1]?.t as number) - (mine[0]?.t as number);
    // Or a slower call's answer, recorded on its own, came between its start and its end: paired, its answer
    // would have gone before that one, and a debugger killed between the two would keep them out of order.
    const between = events.slice(events.indexOf(mine[0] as Record<string, unknown>) + 1, events.indexOf(mine[1] as Record<string, unknown>));
    const crossed = between.some((e) => e.type === 'instance.finished' && e.instanceId !== request.instanceId);
    t.ok(took >= PAIR_WAIT_MS || crossed, `call ${i + 1} was split only because its answer took ${took} ms (>= ${PAIR_WAIT_MS}) or another call's answer came first (${crossed}); asked to take ${delays[i]} ms`);
  }
  t.ok(split > 0 && split < calls.length, `the slow calls show as running before they end (${split} of ${calls.length} split)`);
  for (const { e, at } of sent) {
    if (e.type !== 'instance.started' || (e.node as NodeRef).nodeId !== 'tool:echo') continue;
    t.ok(at - (e.t as number) >= PAIR_WAIT_MS, `a call in flight went out as running only once ${PAIR_WAIT_MS} ms old (${at - (e.t as number)} ms)`);
  }
  const order = events.filter((e) => e.runId === recorder.runId).map((e) => e.seq as number);
  t.same(order, [...order].sort((a, b) => a - b), 'events go out in order');
  const starts = events.filter((e) => e.type === 'instance.completed' || (e.type === 'instance.started' && (e.node as NodeRef).nodeId === 'tool:echo'));
  t.same(starts.map((e) => e.instanceId), calls.map((c) => c.instanceId), 'each call where its request stands');
});

t.test('attached, a burst larger than the frames that may wait: the older half goes, pairing across both halves', async (t) => {
  const { reporter, recorder, texts } = await attachedRecorder(t);
  // 3,000 requests, then their answers, in one turn: more than the 4,096 frames that wait.
  const calls = echoCalls(recorder, 1, 3000);
  for (const request of calls) recorder.onFrame(answer(request, { content: [] }));
  recorder.finish({ exitCode: 0, signal: null });
  t.ok(await reporter.flush(10_000));
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 10_000, 'the end');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>).filter((e) => e.runId === recorder.runId);
  const ids = new Set(calls.map((c) => c.instanceId));
  const count = (type: string): number => events.filter((e) => e.type === type && ids.has(e.instanceId as string)).length;
  // Full at 4,096 (3,000 requests, 1,096 answers): recording all of them
  // would split the 1,904 calls whose answers had not come; recording the
  // older 2,048 splits only the 952 of those among them.
  t.equal(count('instance.completed') + count('instance.started'), 3000, 'every call recorded once');
  t.equal(count('instance.started'), count('instance.finished'), 'each split call ends');
  t.ok(count('instance.completed') >= 2000, `most calls are one event (${count('instance.completed')} of 3000)`);
});

t.test('detached, a burst longer than the buffer: the newest events are kept, the rest are counted as dropped', async (t) => {
  const detached = await detachedRecorder(t, 50);
  const { recorder } = detached;
  // 300 tool calls and 30 failing protocol calls, all waiting at once: 660 frames, 660 events.
  const calls = echoCalls(recorder, 1, 300, (i) => ({ content: [{ type: 'text', text: `r${i}` }] }));
  for (let i = 1; i <= 30; i++) {
    const ping = call(1000 + i, 'ping', {}, protocol('ping'), 300 + i);
    recorder.onFrame(ping);
    recorder.onFrame(failure(ping, { code: -32601, message: 'no' }));
  }
  recorder.flush();
  t.ok((calls[0] as Frame).instanceId !== undefined && (calls[299] as Frame).instanceId !== undefined, 'every call has its instance, recorded or not');
  const open = call(2000, 'tools/call', { name: 'slow' }, tool('slow'), 400);
  recorder.onFrame(open);
  recorder.finish({ exitCode: 0, signal: null });
  const { dropped, kept } = await attachLater(t, detached);
  // 1 protocol start + 600 tool events + 60 ping events + the open call, its NoAnswer, the protocol's end, the session's end, run.finished.
  t.equal(kept.length + dropped, 1 + 600 + 60 + 5, 'every event is either kept or counted as dropped');
  t.ok(kept.length <= 50, `no more kept than the buffer holds (${kept.length})`);
  const last = kept.filter((e) => e.type === 'instance.error' && (e.error as { name: string }).name === 'JsonRpcError');
  t.ok(last.length > 0, 'the newest answers are among what is kept');
  const protocolEnd = kept.find((e) => e.type === 'instance.finished' && (e.output as { calls?: number } | undefined)?.calls !== undefined);
  t.same(protocolEnd?.output, { calls: 30, errors: 30, stdoutNoise: 0 }, 'the protocol totals count the calls whose events were dropped');
  t.ok(kept.some((e) => e.type === 'instance.error' && e.instanceId === open.instanceId), 'the call left open ends as unanswered');
});

t.test('detached, calls pushed out and never answered: their ends are counted as dropped too', async (t) => {
  const detached = await detachedRecorder(t, 10);
  const { recorder } = detached;
  // 30 calls the server never answers, 10 answered ones among them.
  const calls = echoCalls(recorder, 1, 40, (i) => (i % 4 === 0 ? { content: [] } : undefined));
  recorder.finish({ exitCode: 0, signal: null });
  const { dropped, kept } = await attachLater(t, detached);
  // Recorded with nothing dropped, the session is 72 events: the 10 answered
  // calls one each, the 30 unanswered a start and a NoAnswer each, the
  // session's end and run.finished. A call whose events are only counted
  // counts as a start and an end, so up to 82.
  const total = kept.length + dropped;
  t.ok(total >= 72 && total <= 82, `every event is either kept or counted as dropped (${kept.length} kept, ${dropped} dropped)`);
  const unanswered = kept.filter((e) => e.type === 'instance.error' && (e.error as { name: string }).name === 'NoAnswer');
  t.ok(unanswered.length > 0, 'the newest unanswered calls end as unanswered');
  t.ok(unanswered.every((e) => calls.slice(-10).some((c) => c.instanceId === e.instanceId)), 'only calls that were kept have events');
});

t.test('detached, the calls after a burst get the ids they would have had if nothing were dropped', async (t) => {
  const reporter = new Reporter({ port: await freePort(), env: {}, dataDir: tempDir(), connect: false, maxBufferedEvents: 3 });
  t.teardown(() => reporter.close());
  const recorder = new RelayRecorder({ reporter, command: 'node', args: [], hide: { inputs: false, toolResults: false } });
  // mcp_1 is the session; the first noise line opens the protocol node (mcp_2).
  for (let i = 0; i < 6; i++) recorder.onFrame(frameOf(`noise ${i}`, 'server-to-client', 'noise'));
  const calls: Frame[] = [];
  for (let i = 1; i <= 6; i++) {
    const request = call(i, 'tools/call', { name: 'echo' }, tool('echo'), i);
    calls.push(request);
    recorder.onFrame(request);
  }
  recorder.flush();
  t.same(
    calls.map((frame) => recorder.instanceIdOf(frame)),
    [undefined, undefined, undefined, 'mcp_12', 'mcp_13', 'mcp_14'],
    'six noise lines take mcp_3 to mcp_8, and the three calls pushed out (only counted, no id anybody sees) mcp_9 to mcp_11',
  );
});

t.test('a debugger that goes away while frames wait for the timer: they wait for the next one, and every call is told once', async (t) => {
  const port = await freePort();
  const texts: string[] = [];
  const first = await listen(t, port, texts);
  const reporter = new Reporter({ port, env: PROVEN, dataDir: tempDir(), reconnectMs: 20 });
  t.teardown(() => reporter.close());
  t.ok(await reporter.waitForAttach(5000), 'attached');
  const recorder = new RelayRecorder({ reporter, command: 'node', args: [], hide: { inputs: false, toolResults: false } });
  await waitFor(() => texts.some((text) => text.includes('"run.started"')), 5000, 'the run is known');
  // Ten calls answered at once and ten still in flight, all waiting for the timer's turn.
  const calls = echoCalls(recorder, 1, 20, (i) => (i <= 10 ? { content: [] } : undefined));
  const before = texts.length;
  // The debugger goes before the timer fires.
  await first.close();
  await waitFor(() => !reporter.attached, 5000, 'detached');
  t.equal(texts.length, before, 'nothing of the calls went out before the debugger left');
  // Long enough for any armed turn to come and go, detached.
  await new Promise((resolve) => setTimeout(resolve, RECORD_DELAY_MS + PAIR_WAIT_MS + 40));
  for (const request of calls.slice(10)) recorder.onFrame(answer(request, { content: [] }));
  calls.push(...echoCalls(recorder, 21, 25, () => ({ content: [] })));
  // A debugger comes back: what waited goes to it.
  await listen(t, port, texts);
  t.ok(await reporter.waitForAttach(5000), 'attached again');
  await waitFor(() => calls.every((c) => c.instanceId !== undefined), 5000, 'every call recorded once attached again');
  recorder.finish({ exitCode: 0, signal: null });
  t.ok(await reporter.flush(5000), 'flushed');
  await waitFor(() => texts.some((text) => text.includes('"run.finished"')), 5000, 'the end');
  const events = texts.flatMap((text) => JSON.parse(text) as Array<Record<string, unknown>>).filter((e) => e.runId === recorder.runId);
  t.equal(events.filter((e) => e.type === 'events.dropped').length, 0, 'nothing dropped');
  for (const [i, request] of calls.entries()) {
    const types = events.filter((e) => e.instanceId === request.instanceId).map((e) => e.type);
    t.ok(
      (types.length === 1 && types[0] === 'instance.completed') || (types.length === 2 && types[0] === 'instance.started' && types[1] === 'instance.finished'),
      `call ${i + 1}: one start and one end (${types.join(', ')})`,
    );
  }
  const starts = events.filter((e) => e.type === 'instance.completed' || (e.type === 'instance.started' && (e.node as NodeRef).nodeId === 'tool:echo'));
  t.same(starts.map((e) => e.instanceId), calls.map((c) => c.instanceId), 'in the order the requests came');
  // The new connection is told of the live run again (run.started, seq 1),
  // which the server ignores as a repeat; everything else comes once, in order.
  const repeats = events.filter((e, i) => events.findIndex((o) => o.seq === e.seq) !== i);
  t.same(repeats.map((e) => e.type), ['run.started'], 'only the run\'s start is told twice, once per connection');
  const order = events.filter((e) => !repeats.includes(e)).map((e) => e.seq as number);
  t.same(order, [...order].sort((a, b) => a - b), 'events in order');
});
