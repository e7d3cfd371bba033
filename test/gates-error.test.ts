// The error gate: armed by default by `graphmind serve`, it holds a
// JSON-RPC error and a tools/call result with isError: true, with no
// breakpoints configured. `--pause-on-error off` (or pauseOnError: false)
// disarms it; a debugger that goes away mid-hold lets every held frame go on.
import { EventEmitter } from 'node:events';
import t from 'tap';
import type { RelayRecorder } from '../src/relay/relay-recorder.js';
import { holding } from '../src/relay/messages.js';
import { idForDisplay } from '../src/streams/exact-id.js';
import { RelayGate } from '../src/relay/relay-gate.js';
import type { Reporter } from '../src/report/reporter.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';
import type { Hold } from '../src/protocol/control.js';
import {
  ABORT,
  connectV1,
  decide,
  holdingLine,
  listHolds,
  rejection,
  setBreakpoints,
  sleep,
  startDebugger,
  waitFor,
  waitForHold,
  type LoggedMessage,
} from './helpers/gates.js';
import { api } from './helpers/serve.js';

/** Mark a call's rejection as handled now; awaiting it later still throws. */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

function idOf(hold: Hold): string | number {
  return (hold.frame as { id: string | number }).id;
}

/** A call that must not be held: it fails fast instead of waiting for a decision. */
const QUICK = { timeout: 5000 };

const FAILED = { content: [{ type: 'text', text: 'it failed' }], isError: true };

/** One debugger for the first two tests: a fresh one, then with pauseOnError switched off. */
const shared = await startDebugger(t);

t.test('with no breakpoints configured, failures hold at the error gate', async (t) => {
  const serve = shared;
  const breakpoints = await api(serve.port, serve.token, 'GET', '/api/breakpoints');
  t.strictSame(breakpoints.json, { pauseOnError: true, nodes: {} }, 'a fresh debugger has no breakpoints, and pause-on-error on');
  const { client, log, stderr } = await connectV1(t, serve);
  const expected: string[] = [];

  // An isError result.
  let pending: Promise<unknown> = later(client.callTool({ name: 'fail' }));
  const failed = await waitForHold(serve, { nodeId: 'tool:fail' });
  t.equal(failed.gate, 'error', 'the isError result holds at the error gate');
  t.equal(failed.reason, 'error');
  t.equal(failed.method, 'tools/call');
  t.strictSame((failed.frame as LoggedMessage).result, FAILED, 'the held frame is the failing result');
  expected.push(holdingLine('tools/call', idOf(failed), 'error', serve.port));
  await waitFor(() => stderr.holdingLines().length === 1, 5000, 'the HOLDING line');
  t.equal(stderr.holdingLines()[0], expected[0], 'the proxy says so on stderr, where hosts show server logs');
  await decide(serve, failed.holdId, 'continue');
  t.strictSame(await pending, FAILED, 'continue: the client gets the original result');

  // A JSON-RPC error.
  pending = later(client.callTool({ name: 'boom' }));
  const boom = await waitForHold(serve, { nodeId: 'tool:boom' });
  t.equal(boom.gate, 'error', 'the JSON-RPC error holds at the error gate');
  t.equal((boom.frame as LoggedMessage).error?.code, -32000, 'the held frame is the error');
  expected.push(holdingLine('tools/call', idOf(boom), 'error', serve.port));
  await decide(serve, boom.holdId, 'continue');
  const error = await rejection(pending);
  t.equal(error.code, -32000, 'continue: the client gets the original error');
  t.match(error.message, /boom: the tool blew up/);

  // The other actions at the error gate.
  pending = later(client.callTool({ name: 'boom' }));
  const injected = await waitForHold(serve, { nodeId: 'tool:boom', gate: 'error' });
  expected.push(holdingLine('tools/call', idOf(injected), 'error', serve.port));
  await decide(serve, injected.holdId, 'inject', 'recovered');
  t.strictSame(await pending, { content: [{ type: 'text', text: 'recovered' }] }, 'inject at the error gate: the client gets the lifted value');

  pending = later(client.callTool({ name: 'fail' }));
  const aborted = await waitForHold(serve, { nodeId: 'tool:fail', gate: 'error' });
  expected.push(holdingLine('tools/call', idOf(aborted), 'error', serve.port));
  await decide(serve, aborted.holdId, 'abort');
  t.equal((await rejection(pending)).code, ABORT, 'abort at the error gate: the client gets -32099');

  pending = later(client.callTool({ name: 'fail' }));
  const retried = await waitForHold(serve, { nodeId: 'tool:fail', gate: 'error' });
  expected.push(holdingLine('tools/call', idOf(retried), 'error', serve.port));
  await decide(serve, retried.holdId, 'retry');
  const again = await waitForHold(serve, { nodeId: 'tool:fail', gate: 'error' });
  expected.push(holdingLine('tools/call', idOf(again), 'error', serve.port));
  t.equal(idOf(again), idOf(retried), 'retry at the error gate: the new answer fails and holds again');
  const sent = log.lines().filter((line) => (JSON.parse(line) as LoggedMessage).id === idOf(retried));
  t.equal(sent.length, 2, 'the request reached the server twice');
  t.equal(sent[0], sent[1], 'byte-identical');
  await decide(serve, again.holdId, 'continue');
  t.strictSame(await pending, FAILED);

  await waitFor(() => stderr.holdingLines().length >= expected.length, 5000, 'HOLDING lines').catch(() => {});
  t.strictSame(stderr.holdingLines(), expected, 'one HOLDING line per hold');
});

t.test('a failure longer than a pipe read is held whole: not one byte of it reaches the client first', async (t) => {
  const serve = shared;
  const { client } = await connectV1(t, serve);
  let settled = false;
  const pending = later(client.callTool({ name: 'bigfail' }));
  pending.then(() => (settled = true), () => (settled = true));
  const held = await waitForHold(serve, { nodeId: 'tool:bigfail', gate: 'error' });
  const result = (held.frame as LoggedMessage).result as { content: Array<{ text: string }>; isError: boolean };
  t.equal(result.content[0]?.text.length, 'long failure '.length + 300_000, 'the debugger has the whole answer');
  await sleep(200);
  t.equal(settled, false, 'the client has nothing yet: the line was assembled, not streamed, while a debugger is attached');
  await decide(serve, held.holdId, 'inject', 'short now');
  t.strictSame(await pending, { content: [{ type: 'text', text: 'short now' }] }, 'and the injected value replaces all of it');
});

t.test('pauseOnError: false lets failures through', async (t) => {
  const serve = shared;
  await setBreakpoints(serve, { pauseOnError: false, nodes: {} });
  // --wait-for-attach: the proxy has the breakpoints before the first frame.
  const { client, stderr } = await connectV1(t, serve);
  t.strictSame(await client.callTool({ name: 'fail' }, undefined, QUICK), FAILED, 'the isError result arrives without holding');
  t.equal((await rejection(client.callTool({ name: 'boom' }, undefined, QUICK))).code, -32000, 'the JSON-RPC error arrives without holding');
  t.strictSame(await listHolds(serve), [], 'nothing is held');
  t.strictSame(stderr.holdingLines(), [], 'no HOLDING line');
});

t.test('graphmind serve --pause-on-error off lets failures through', async (t) => {
  const serve = await startDebugger(t, ['--pause-on-error', 'off']);
  const breakpoints = await api(serve.port, serve.token, 'GET', '/api/breakpoints');
  t.equal((breakpoints.json as { pauseOnError: boolean }).pauseOnError, false);
  const { client, stderr } = await connectV1(t, serve);
  t.strictSame(await client.callTool({ name: 'fail' }, undefined, QUICK), FAILED, 'the isError result arrives without holding');
  t.equal((await rejection(client.callTool({ name: 'boom' }, undefined, QUICK))).code, -32000, 'the JSON-RPC error arrives without holding');
  t.strictSame(await listHolds(serve), [], 'nothing is held');
  t.strictSame(stderr.holdingLines(), [], 'no HOLDING line');
});

t.test('the debugger dies mid-hold: every held frame goes on', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const { client, log } = await connectV1(t, serve);

  // One hold in each direction: the failing answer, and a request behind it.
  // A request timeout makes a frame that is never released fail the test quickly.
  const failing = later(client.callTool({ name: 'fail' }, undefined, { timeout: 20_000 }));
  await waitForHold(serve, { nodeId: 'tool:fail', gate: 'error' });
  const echo = later(client.callTool({ name: 'echo', arguments: { text: 'held before' } }, undefined, { timeout: 20_000 }));
  await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  t.equal((await listHolds(serve)).length, 2, 'two frames held');
  await sleep(100);
  t.strictSame(log.linesWith('held before'), [], 'the held request has not reached the server');

  const killedAt = Date.now();
  await serve.stop('SIGKILL');
  t.strictSame(await failing, FAILED, 'the held failing result reaches the client');
  t.strictSame(await echo, { content: [{ type: 'text', text: 'held before' }] }, 'the held request runs, and its answer arrives');
  const took = Date.now() - killedAt;
  t.ok(took < 3000, `promptly (${took} ms)`);
  t.equal(log.linesWith('held before').length, 1, 'the held request reached the server once');
});

t.test('a decision the proxy does not know lets the held frame through (fail open)', async (t) => {
  // In-process: the server only ever sends the four actions, so a fake reporter plays a confused one.
  const reporter = Object.assign(new EventEmitter(), { attached: true, url: 'http://[::1]:4747', sent: [] as unknown[], send(_runId: string, event: unknown) { this.sent.push(event); } });
  const recorder = { runId: 'run_test', instanceIdOf: () => 'mcp_1', onDecision: () => {} };
  const lines: string[] = [];
  const gate = new RelayGate({
    reporter: reporter as unknown as Reporter,
    recorder: recorder as unknown as RelayRecorder,
    waitForAttach: false,
    loopAllow: [],
    // The proxy's own hook: its HOLDING line.
    onHolding: ({ hold, method, call, url }) => void lines.push(`${holding('mcp-proxy', method, idForDisplay(call), hold.point, url)}\n`),
  });
  reporter.emit('breakpoints', { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const correlator = new Correlator();
  const frameOf = (text: string, direction: Direction, seq: number): Frame =>
    classify(newFrame(Buffer.from(`${text}\n`), direction, seq, true), correlator);
  const request = frameOf('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}', 'client-to-server', 1);
  const response = frameOf('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no"}}', 'server-to-client', 1);
  for (const held of [request, response]) {
    const decided = gate.check(held);
    if (decided === undefined) throw new Error('expected a hold');
    const opened = reporter.sent.at(-1) as { type: string; holdId: string };
    t.equal(opened.type, 'hold.opened');
    reporter.emit('decision', { holdId: opened.holdId, action: 'bogus' });
    t.strictSame(await decided, [held], `${held.type}: forwarded unchanged`);
  }
  t.equal(lines.length, 2, 'a HOLDING line for each');
  t.ok(
    lines.every((line) => line.endsWith('resume it in http://[::1]:4747\n')),
    'each names the debugger where the reporter reached it (here on ::1)',
  );
});
