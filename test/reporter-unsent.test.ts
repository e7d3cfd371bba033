// The reporter's unsent events after the debugger dies mid-session (issue 29, found during the
// kill -9 test): batches handed to the socket but never written come back to the reporter's
// buffer. They are kept under the same bound as the rest (the newest kept, the oldest counted
// as dropped), and sent again in order before anything newer, so that when a debugger comes back
// the newest calls arrive and no event arrives behind a newer one (the server would ignore it).
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import t from 'tap';
import { WebSocketServer } from 'ws';
import type { RunEvent } from '../src/protocol/ingest.js';
import { Reporter, type OutgoingEvent } from '../src/report/reporter.js';
import { waitFor } from './helpers/cli.js';
import { tempDir } from './helpers/graph.js';
import { STAND_IN_TOKEN, answeredIdentity, provingWss } from './helpers/stand-in.js';

// The reporter unrefs its sockets and timers; keep this process alive while it waits on them.
const keepAlive = setInterval(() => {}, 1000);
t.teardown(() => clearInterval(keepAlive));

const CAPACITY = 1000;
/**
 * Events sent while the first debugger stalls (enough to fill the socket's kernel buffers and
 * leave batches waiting in the process), then while none is there.
 */
const STALLED = 100_000;
const DETACHED = 3_000;
const node = { nodeId: 'tool:echo', kind: 'tool', parent: null, label: 'echo' } as const;
const call = (i: number): OutgoingEvent => ({ type: 'instance.completed', instanceId: `i${i}`, node, input: { i }, output: { i }, endT: Date.now() });

/** A debugger that accepts the reporter and never reads (a stalled, then killed, serve). */
async function stalledDebugger(): Promise<{ port: number; kill(): Promise<void>; sockets: Socket[] }> {
  const wss = new WebSocketServer({ noServer: true });
  // It proves it holds the token (control API security rule 12), or the reporter would send it nothing.
  let port = 0;
  const http = createServer((req, res) => {
    if (!answeredIdentity(req, res, port)) res.writeHead(404).end();
  });
  const sockets: Socket[] = [];
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.push(socket);
    socket.on('error', () => {});
    wss.handleUpgrade(req, socket, head, () => socket.pause());
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const address = http.address();
  port = address !== null && typeof address === 'object' ? address.port : 0;
  return {
    port,
    sockets,
    async kill() {
      // As the kernel ends a killed process's connections with unread data: a reset.
      for (const socket of sockets) socket.resetAndDestroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

t.test('after the debugger dies with batches unwritten, a new one gets the newest events, in order', async (t) => {
  const first = await stalledDebugger();
  const reporter = new Reporter({ port: first.port, dataDir: tempDir(), env: { GRAPHMIND_TOKEN: STAND_IN_TOKEN }, reconnectMs: 20 });
  t.teardown(() => reporter.close());
  t.ok(await reporter.waitForAttach(5000), 'attached to the first debugger');
  const runId = reporter.startRun('killed under it', 'test', {});
  for (let i = 1; i <= STALLED; i++) {
    reporter.send(runId, call(i));
    // Let the socket take what it will: its buffers fill, the rest waits in the reporter.
    if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await first.kill();
  await waitFor(() => !reporter.attached, 5000, 'the reporter to see the connection gone');
  // What the dead connection never wrote is back in the buffer by now (its callbacks come before its close).
  t.ok(reporter.pending <= CAPACITY, `detached, at most ${CAPACITY} events kept (${reporter.pending})`);
  for (let i = STALLED + 1; i <= STALLED + DETACHED; i++) reporter.send(runId, call(i));
  t.ok(reporter.pending <= CAPACITY, `and still at most ${CAPACITY} after ${DETACHED} more (${reporter.pending})`);

  // The debugger comes back on the same port.
  const { wss, close } = await provingWss(first.port);
  t.teardown(close);
  const received: RunEvent[] = [];
  wss.on('connection', (ws) => ws.on('message', (data) => received.push(...(JSON.parse(data.toString()) as RunEvent[]))));
  const lastSeq = STALLED + DETACHED + 1;
  await waitFor(() => received.some((event) => event.seq === lastSeq), 10_000, 'the newest event on the new connection');

  const calls = received.filter((event) => event.type === 'instance.completed').map((event) => event.seq);
  t.ok(
    calls.every((seq, i) => i === 0 || seq > (calls[i - 1] as number)),
    'no event arrives behind a newer one',
  );
  const newest = Array.from({ length: CAPACITY - 1 }, (_, i) => lastSeq - CAPACITY + 2 + i);
  t.same(calls.slice(-newest.length), newest, `the newest ${newest.length} calls arrive, each once`);
  const dropped = received.filter((event) => event.type === 'events.dropped').reduce((sum, event) => sum + (event as { count: number }).count, 0);
  t.ok(dropped > 0, `the calls it could not keep are counted (${dropped})`);
  t.ok(calls.length + dropped <= STALLED + DETACHED, 'nothing counted twice');
  t.comment(`new connection: ${calls.length} calls (seq ${calls[0]}-${calls[calls.length - 1]}), ${dropped} counted as dropped`);
});
