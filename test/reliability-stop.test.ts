// SIGSTOP of the debugger during a hold (issue 29).
//
// A breakpoint holds a tools/call in a real `graphmind mcp-proxy` (a real
// SDK client in front of the logging fixture), then `graphmind serve` is
// stopped with SIGSTOP. What the code does, and what this file asserts:
//
// - A stopped debugger is not a gone debugger. The kernel keeps its sockets
//   open, and the reporter has no heartbeat of its own (no WebSocket ping,
//   no read timeout on the ingest connection: src/report/reporter.ts), so
//   the proxy cannot tell "stopped" from "a person who has not decided yet".
//   The hold stays held, for as long as the debugger is stopped: held means
//   stopped (docs/gates.md), and a breakpoint that let go on its own would
//   be a breakpoint that cannot be trusted.
// - Other sessions are not held hostage by it. A proxy started while the
//   debugger is stopped finds the port open (the kernel accepts the TCP
//   connection into the backlog) but gets no answer to its WebSocket
//   upgrade: it is not attached, so it relays as a plain pipe at once
//   (its handshake gives up after 5 s and it retries later); the figures
//   printed compare its start with one while the debugger runs.
// - SIGCONT: the debugger goes on where it was. The same hold is listed,
//   a decision made then reaches the proxy, and the call is answered.
// - Killed while stopped (SIGKILL, the kernel closes its sockets): the
//   reporter's connection closes and every held frame goes on unchanged
//   (fail open, as for a debugger killed while running:
//   test/gates-error.test.ts); the client gets its answer within moments.
//
// The one fixed wait here is the window during which nothing must happen
// (a hold that stays held cannot signal that it did not let go); it is
// bounded and stated.
import t from 'tap';
import { connectV1, decide, listHolds, setBreakpoints, sleep, startDebugger, waitForHold } from './helpers/gates.js';
import { kill } from './helpers/graph.js';

/** How long the stopped debugger is watched for a hold that lets go on its own. */
const STOPPED_WINDOW_MS = 3000;

const HELD = { pauseOnError: false, nodes: { 'tool:echo': { before: true } } };

/** A promise whose settlement can be looked at without awaiting it. */
function watched<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  return { promise, settled: () => done };
}

const text = (answer: unknown): string => ((answer as { content: Array<{ text: string }> }).content[0] as { text: string }).text;

t.test('SIGSTOP during a hold: the hold stays held, other sessions relay, and SIGCONT goes on where it was', async (t) => {
  const serve = await startDebugger(t);
  const pid = serve.child.pid as number;
  t.teardown(() => kill(pid, 'SIGCONT'));
  await setBreakpoints(serve, HELD);
  // The same session's cost with the debugger running, to compare with.
  const baseline = Date.now();
  const held = await connectV1(t, serve);
  t.comment(`a session with the debugger running: connect (spawn + initialize) ${Date.now() - baseline} ms`);
  const call = watched(held.client.callTool({ name: 'echo', arguments: { text: 'held through a stop' } }, undefined, { timeout: 90_000 }));
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });

  kill(pid, 'SIGSTOP');
  const stoppedAt = Date.now();
  try {
    // Another session, started while the debugger is stopped, without
    // --wait-for-attach: not attached, it must not wait for the debugger.
    const began = Date.now();
    const other = await connectV1(t, serve, { waitForAttach: false });
    const connected = Date.now();
    const answer = await other.client.callTool({ name: 'echo', arguments: { text: 'while the debugger is stopped' } }, undefined, { timeout: 20_000 });
    const called = Date.now();
    t.equal(text(answer), 'while the debugger is stopped', 'a session started while the debugger is stopped is answered, not held');
    t.comment(`a new session while the debugger is stopped: connect (spawn + initialize) ${connected - began} ms, one tools/call ${called - connected} ms`);
    t.ok(called - began < 20_000, 'within the bound');
    const left = STOPPED_WINDOW_MS - (Date.now() - stoppedAt);
    if (left > 0) await sleep(left);
    t.notOk(call.settled(), `${Date.now() - stoppedAt} ms stopped: the held call has no answer yet`);
    t.same(held.log.linesWith('held through a stop'), [], 'and the held request has not reached the server');
  } finally {
    kill(pid, 'SIGCONT');
  }

  const resumedAt = Date.now();
  const holds = await listHolds(serve);
  t.same(
    holds.map((h) => h.holdId),
    [hold.holdId],
    'after SIGCONT the debugger lists the same hold, and only it',
  );
  await decide(serve, hold.holdId, 'continue');
  t.equal(text(await call.promise), 'held through a stop', 'a decision made after SIGCONT lets the call go on, and it is answered');
  t.equal(held.log.linesWith('held through a stop').length, 1, 'the request reached the server once');
  t.comment(`held ${resumedAt - stoppedAt} ms while the debugger was stopped; answered ${Date.now() - resumedAt} ms after SIGCONT`);
});

t.test('SIGSTOP during a hold, then SIGKILL: the proxy lets the held call go on at once', async (t) => {
  const serve = await startDebugger(t);
  const pid = serve.child.pid as number;
  t.teardown(() => kill(pid, 'SIGCONT'));
  await setBreakpoints(serve, HELD);
  const held = await connectV1(t, serve);
  const call = watched(held.client.callTool({ name: 'echo', arguments: { text: 'held, then the debugger died' } }, undefined, { timeout: 60_000 }));
  await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });

  kill(pid, 'SIGSTOP');
  // Stopped: the hold stays held (the first test watches it for longer).
  await sleep(500);
  t.notOk(call.settled(), 'held while the debugger is stopped');
  const killedAt = Date.now();
  kill(pid, 'SIGKILL');
  const answer = await call.promise;
  const took = Date.now() - killedAt;
  t.equal(text(answer), 'held, then the debugger died', 'the held request went on unchanged and was answered');
  t.ok(took < 5000, `promptly after the kill (${took} ms)`);
  t.equal(held.log.linesWith('held, then the debugger died').length, 1, 'once');
  t.equal((await serve.exited).signal, 'SIGKILL');
  // The session goes on without a debugger: a plain pipe.
  const after = await held.client.callTool({ name: 'echo', arguments: { text: 'after the debugger' } }, undefined, { timeout: 10_000 });
  t.equal(text(after), 'after the debugger', 'and the session goes on with no debugger');
  t.comment(`killed while stopped: the held call was answered ${took} ms after SIGKILL`);
});
