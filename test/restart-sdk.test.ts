// A real SDK client (1.x and 2.x) through `graphmind mcp-proxy --watch` to
// a real SDK server whose source file the test rewrites: the same client
// object keeps its session across restarts; the changed code answers; a
// tool added is announced (list_changed) when the server says it announces
// list changes, and not otherwise; a request in flight gets -32098; a fix
// that does not parse leaves the session up (-32097 naming the failure)
// until the next save; the log level and a subscription are set again at
// the new server (seen there, with ids of the proxy's own); nothing of any
// server generation is left running.
import t, { type Test } from 'tap';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  NOT_RUNNING,
  RESTARTED,
  RESTARTED_LINE,
  RESTARTED_MESSAGE,
  FAILED_LINE,
  allGone,
  failure,
  project,
  replayed,
  sleep,
  text,
  watchedV1,
  watchedV2,
  type Project,
  type WatchSession,
} from './fixtures/restart/sessions.js';
import { waitFor } from './helpers/cli.js';

/** What the test does with either generation's client. */
interface Host {
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  tools(): Promise<string[]>;
  setLevel(level: 'debug' | 'info'): Promise<unknown>;
  subscribe(uri: string): Promise<unknown>;
  /** How many notifications/tools/list_changed reached the client. */
  listChanged(): number;
}

function hostV1(session: WatchSession<ClientV1>): Host {
  const client = session.client;
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  return {
    call: (name, args = {}, timeoutMs = 30_000) => client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs }),
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    setLevel: (level) => client.setLoggingLevel(level),
    subscribe: (uri) => client.subscribeResource({ uri }),
    listChanged: () => changes,
  };
}

function hostV2(session: WatchSession<ClientV2>): Host {
  const client = session.client;
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes++;
  });
  return {
    call: (name, args = {}, timeoutMs = 30_000) => client.callTool({ name, arguments: args }, { timeout: timeoutMs }),
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    setLevel: (level) => client.setLoggingLevel(level),
    subscribe: (uri) => client.subscribeResource({ uri }),
    listChanged: () => changes,
  };
}

async function connect(t: Test, sdk: 1 | 2, p: Project): Promise<{ session: WatchSession<ClientV1> | WatchSession<ClientV2>; host: Host }> {
  if (sdk === 1) {
    const session = await watchedV1(t, p);
    return { session, host: hostV1(session) };
  }
  const session = await watchedV2(t, p);
  return { session, host: hostV2(session) };
}

/** Wait until the server log shows a tools/call of `tool` (it reached the server). */
async function reached(p: Project, tool: string, count = 1): Promise<void> {
  await waitFor(() => p.messages().filter((m) => m.method === 'tools/call' && m.params?.name === tool).length >= count, 20_000, `${tool} to reach the server`);
}

for (const sdk of [1, 2] as const) {
  t.test(`SDK ${sdk}.x client to an SDK ${sdk}.x server: one session across restarts`, async (t) => {
    const p = project(t, { sdk, tag: 'gen0', child: true });
    const { session, host } = await connect(t, sdk, p);
    t.equal(text(await host.call('hello', { text: 'a' })), 'gen0: a', 'the first server answers');
    t.strictSame(await host.tools(), ['hello', 'quit', 'slow'], 'the host fetched the tools');
    await host.setLevel('debug');
    await host.subscribe('test://greeting');

    // A fix that changes a tool and adds one.
    p.save({ sdk, tag: 'gen1', hello: '`gen1 says ${text}`', added: true, child: true });
    const line = await session.restarted(1);
    t.match(line, RESTARTED_LINE, 'a restart line on stderr');
    t.match(line, /\(file change: .*server\.mjs\) — pid \d+, ready in \d+ ms; tools changed \(the host was told\)$/, 'naming the file, the new pid, the time, and the list change told');
    t.equal(text(await host.call('hello', { text: 'b' })), 'gen1 says b', 'the same client object: the changed tool answers with the new code');
    await waitFor(() => host.listChanged() >= 1, 10_000, 'notifications/tools/list_changed');
    t.equal(host.listChanged(), 1, 'notifications/tools/list_changed reached the client, once');
    t.strictSame(await host.tools(), ['added', 'hello', 'quit', 'slow'], 'its new list has the added tool');
    t.equal(text(await host.call('added')), 'gen1: added', 'and the added tool answers');

    // At the server: the handshake and the session's state again, with ids of the proxy's own.
    const first = replayed(p).filter((m) => m.id.startsWith('graphmind-restart-1-'));
    t.strictSame(
      first.map((m) => m.method),
      ['initialize', 'logging/setLevel', 'resources/subscribe', 'tools/list'],
      'replayed: initialize, the log level, the subscription, then the tools list the host had fetched',
    );
    t.strictSame(first.map((m) => m.id), ['graphmind-restart-1-1', 'graphmind-restart-1-2', 'graphmind-restart-1-3', 'graphmind-restart-1-4']);
    t.equal(first[1]?.params?.level, 'debug', 'the log level the host set');
    t.equal(first[2]?.params?.uri, 'test://greeting', 'the resource the host subscribed to');
    const initializes = p.messages().filter((m) => m.method === 'initialize');
    t.equal(initializes.length, 2, 'the host initialized once; the proxy once more');
    t.strictSame({ ...initializes[1]?.params }, { ...initializes[0]?.params }, "the replayed initialize is the host's own");
    t.equal(p.messages().filter((m) => m.method === 'notifications/initialized').length, 2, 'and notifications/initialized followed it');

    // A request in flight at a restart: the documented error.
    const slow = failure(host.call('slow', { ms: 120_000 }, 120_000));
    await reached(p, 'slow');
    p.save({ sdk, tag: 'gen2', added: true, child: true });
    const inFlight = await slow;
    t.equal(inFlight.code, RESTARTED, 'the slow call in flight gets -32098');
    t.match(inFlight.message, RESTARTED_MESSAGE, 'with the documented message');
    await session.restarted(2);
    t.equal(text(await host.call('hello', { text: 'c' })), 'gen2: c', 'the session goes on');
    t.equal(host.listChanged(), 1, 'no list_changed when the lists did not change');

    // A fix saved half-typed: the session stays up, requests get -32097 naming the failure.
    p.save({ sdk, tag: 'gen3', broken: true });
    const failed = await session.restarted(3);
    t.match(failed, FAILED_LINE, 'the proxy says the server did not come back');
    t.match(failed, /exited with code 1 before answering the replayed initialize/, 'and why');
    const down = await failure(host.call('hello', { text: 'd' }));
    t.equal(down.code, NOT_RUNNING, 'a request meanwhile gets -32097');
    t.match(down.message, /the MCP server is not running: the new server exited with code 1 before answering the replayed initialize/, 'naming the failure');
    t.match(down.message, /SyntaxError/, "with the server's error line");
    t.match(down.message, /fix it and save to restart it$/, 'and what to do');
    t.match(session.stderr.text(), /SyntaxError/, "the server's own stderr reached ours");

    // The next save recovers.
    p.save({ sdk, tag: 'gen4', added: true, child: true });
    t.match(await session.restarted(4), RESTARTED_LINE, 'the next save brings it back');
    t.equal(text(await host.call('hello', { text: 'e' })), 'gen4: e', 'and the same client goes on');
    const fourth = replayed(p).filter((m) => m.id.startsWith('graphmind-restart-4-'));
    t.strictSame(fourth.map((m) => m.method), ['initialize', 'logging/setLevel', 'resources/subscribe', 'tools/list'], 'the state is set again after a failed generation too');

    // Every generation but the last is gone, its child with it; then the last, with the session.
    const starts = p.starts();
    t.equal(starts.length, 4, 'four servers started (the broken one never got to write its pid)');
    const old = starts.slice(0, -1).flatMap((start) => [start.pid, start.child as number]);
    t.strictSame(await allGone(old), [], 'the old servers and their children are gone');
    const proxy = session.pid;
    await session.close();
    t.strictSame(await allGone([...p.pids(), proxy]), [], 'after the session: no server, no child, no proxy');
  });
}

t.test('a server that does not declare tools.listChanged: the host is not told, and stderr says so', async (t) => {
  for (const sdk of [1, 2] as const) {
    const p = project(t, { sdk, tag: 'gen0', listChanged: false });
    const { session, host } = await connect(t, sdk, p);
    t.strictSame(await host.tools(), ['hello', 'quit', 'slow'], `SDK ${sdk}.x: listed`);
    p.save({ sdk, tag: 'gen1', added: true, listChanged: false });
    const line = await session.restarted(1);
    t.match(line, /tools changed \(the server does not announce list changes: the host keeps its old list\)$/, `SDK ${sdk}.x: the restart line says the host was not told`);
    t.equal(text(await host.call('hello', { text: 'x' })), 'gen1: x', `SDK ${sdk}.x: the new code answers`);
    await sleep(300);
    t.equal(host.listChanged(), 0, `SDK ${sdk}.x: no list_changed reached the client`);
    t.strictSame(await host.tools(), ['added', 'hello', 'quit', 'slow'], `SDK ${sdk}.x: a list the host asks for is the new one`);
    t.notOk(replayed(p).some((m) => m.method === 'notifications/tools/list_changed'), 'nothing was announced at the server either');
    await session.close();
  }
});

t.test('a 2.x client on the 2026-07-28 era: nothing to replay, the session goes on', async (t) => {
  const p = project(t, { sdk: 2, tag: 'gen0' });
  const session = await watchedV2(t, p, { negotiation: 'auto' });
  const client = session.client;
  t.equal(client.getNegotiatedProtocolVersion?.(), '2026-07-28', 'the modern era was negotiated');
  t.equal(text(await client.callTool({ name: 'hello', arguments: { text: 'a' } })), 'gen0: a');
  t.strictSame((await client.listTools()).tools.map((tool) => tool.name).sort(), ['hello', 'quit', 'slow']);
  p.save({ sdk: 2, tag: 'gen1', added: true });
  t.match(await session.restarted(1), /tools changed \(the server does not announce list changes: the host keeps its old list\)$/, 'the change is not announced on this era (it would go on a subscriptions/listen stream)');
  t.equal(text(await client.callTool({ name: 'hello', arguments: { text: 'b' } })), 'gen1: b', 'the same client, the new code');
  const ours = replayed(p);
  t.notOk(ours.some((m) => m.method === 'initialize'), 'no initialize was replayed (there was none)');
  const listed = ours.find((m) => m.method === 'tools/list');
  t.ok(listed !== undefined, 'the tools list the host fetched was fetched again');
  const meta = (listed?.params?._meta ?? {}) as Record<string, unknown>;
  t.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28', 'carrying the protocol version the host named (its own request, an id of ours)');
  t.strictSame((await client.listTools()).tools.map((tool) => tool.name).sort(), ['added', 'hello', 'quit', 'slow'], 'a list asked for now is the new one');
  await session.close();
});
