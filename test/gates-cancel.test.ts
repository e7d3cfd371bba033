// A held request that its host cancels is marked given up, as a held answer
// is. The host's `notifications/cancelled` travels behind the held request,
// in the direction the hold has stopped: the proxy looks at what waits
// behind the hold without letting any of it pass, then everything follows
// the decision in order.
import t, { type Test } from 'tap';
import { startProxy } from './helpers/cli.js';
import {
  LOGGING_SERVER,
  ServerLog,
  decide,
  listHolds,
  proxyParams,
  setBreakpoints,
  startDebugger,
  waitFor,
  waitForAsync,
  waitForHold,
  type LoggedMessage,
  type ServeProcess,
} from './helpers/gates.js';

const serve = await startDebugger(t);

const INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n';
const HELD = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"slow"}}}\n';
const CANCEL = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user pressed stop"}}\n';
const PING = '{"jsonrpc":"2.0","id":3,"method":"ping"}\n';
const GIVEN_UP = 'the client cancelled the request (notifications/cancelled: the user pressed stop)';

/** A proxy in front of the logging fixture, initialized, with a before breakpoint on echo. */
async function session(t: Test) {
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  t.teardown(() => setBreakpoints(serve, { pauseOnError: true, nodes: {} }));
  const log = new ServerLog();
  t.teardown(() => log.remove());
  const params = proxyParams(serve, log, { server: [LOGGING_SERVER] });
  const proxy = startProxy(params.args.slice(2, params.args.indexOf('--')), [process.execPath, LOGGING_SERVER], { env: params.env });
  t.teardown(async () => {
    proxy.child.stdin.end();
    const timer = setTimeout(() => proxy.child.kill('SIGKILL'), 5000);
    await proxy.exited;
    clearTimeout(timer);
  });
  const answered = (id: number): boolean =>
    proxy
      .stdout()
      .toString('utf8')
      .split('\n')
      .some((line) => line.startsWith('{') && (JSON.parse(line) as LoggedMessage).id === id);
  proxy.child.stdin.write(INIT);
  await waitFor(() => answered(1), 15_000, 'the initialize answer');
  return { proxy, log, answered };
}

async function givenUpOf(serve: ServeProcess, holdId: string): Promise<string | undefined> {
  return ((await listHolds(serve)).find((h) => h.holdId === holdId) as { givenUp?: string } | undefined)?.givenUp;
}

for (const [name, together] of [
  ['a cancel the host sends while its request is held', false],
  ['a cancel that arrives with the request it cancels', true],
] as const) {
  t.test(`${name}: the held request is marked given up; nothing behind it passes until the decision`, async (t) => {
    const { proxy, log, answered } = await session(t);
    proxy.child.stdin.write(together ? HELD + CANCEL : HELD);
    const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
    if (!together) proxy.child.stdin.write(CANCEL);
    proxy.child.stdin.write(PING);
    let givenUp: string | undefined;
    await waitForAsync(async () => (givenUp = await givenUpOf(serve, hold.holdId)) !== undefined, 10_000, 'the hold given up');
    t.equal(givenUp, GIVEN_UP, 'given up, with who cancelled and why');
    t.strictSame(log.lines().slice(1), [], 'the server has received nothing behind initialize');
    t.notOk(answered(3), 'nor is anything behind the held request answered');
    t.ok((await listHolds(serve)).some((h) => h.holdId === hold.holdId), 'the hold stays open to be decided');

    await decide(serve, hold.holdId, 'continue');
    await waitFor(() => answered(3), 10_000, 'the ping behind it answered');
    await log.waitForLine((line) => line.includes('"ping"'), 10_000, 'the ping in the server log');
    t.strictSame(log.lines().slice(1), [HELD, CANCEL, PING].map((line) => line.slice(0, -1)), 'then the server receives all of them, in order, byte for byte');
  });
}
