// The reporter, the client runtime the proxy reports through, against a real
// `startServer` in this process (and a hostile stand-in server): it buffers
// while detached and replays in order, drops the oldest when its buffer is
// full and says so, reconnects and reclaims its run after a restart, shrugs
// off garbage from the server, and finds its token the documented way.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import WebSocket, { WebSocketServer } from 'ws';
import type { Run } from '../src/protocol/run-model.js';
import type { Breakpoints } from '../src/protocol/control.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { DeferredValue } from '../src/report/deferred.js';
import { Reporter, type DecisionMessage, type OutgoingEvent } from '../src/report/reporter.js';
import { startServer, type GraphmindServer } from '../src/server/serve.js';
import { waitFor } from './helpers/cli.js';
import { freePort, getRun, hasIpv6Loopback, tempDir } from './helpers/graph.js';
import { answeredIdentity, provingWss, STAND_IN_TOKEN } from './helpers/stand-in.js';

// The reporter unrefs its sockets and timers so it never keeps a host alive;
// keep this test process alive while it waits on them.
const keepAlive = setInterval(() => {}, 1000);
t.teardown(() => clearInterval(keepAlive));

const node = { nodeId: 'tool:echo', kind: 'tool', parent: null, label: 'echo' } as const;

type Teardown = { teardown(fn: () => unknown): void };

/** A real debugger server in this process, on `port` (0: any), closed at teardown. */
async function debuggerOn(t: Teardown, dataDir: string, port = 0): Promise<GraphmindServer> {
  const server = await startServer({ port, dataDir, env: {}, pauseOnError: false });
  t.teardown(() => server.close());
  return server;
}

/** A reporter closed at teardown. Reconnects fast unless told otherwise. */
function reporterFor(t: Teardown, options: ConstructorParameters<typeof Reporter>[0]): Reporter {
  const reporter = new Reporter({ reconnectMs: 20, env: {}, ...options });
  t.teardown(() => reporter.close());
  return reporter;
}

const started = (i: number): OutgoingEvent => ({ type: 'instance.started', instanceId: `i${i}`, node, input: { i } });
const finished = (i: number): OutgoingEvent => ({ type: 'instance.finished', instanceId: `i${i}`, output: { done: i } });

/** The events of a run's JSONL log on disk. */
function logOf(server: GraphmindServer, runId: string): RunEvent[] {
  return readFileSync(join(server.dataDir, 'runs', `${runId}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RunEvent);
}

async function runWhen(server: GraphmindServer, runId: string, predicate: (run: Run) => boolean, what: string): Promise<Run> {
  let found: Run | undefined;
  const deadline = Date.now() + 10_000;
  for (;;) {
    found = await getRun(server, runId);
    if (found !== undefined && predicate(found)) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(found)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Run `script` as an ES module in a fresh node; its output collected, the process killed at teardown. */
function runScript(t: Test, script: string): { child: ChildProcess; stdout(): string; stderr(): string } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

t.test('buffers while detached and replays everything, in order, once a debugger appears', async (t) => {
  const port = await freePort();
  const dataDir = tempDir();
  const reporter = reporterFor(t, { port, dataDir });
  const runId = reporter.startRun('detached run', 'test', { command: 'node', args: ['s.js'] });
  for (let i = 1; i <= 50; i++) {
    reporter.send(runId, started(i));
    reporter.send(runId, { type: 'log', nodeId: 'tool:echo', stream: 'stderr', text: `line ${i}` });
    reporter.send(runId, finished(i));
  }
  reporter.send(runId, { type: 'run.meta', meta: { protocolVersion: '2025-06-18' } });
  // The first connection attempt fails at once (nothing listens): settle says when.
  t.equal(await reporter.settle(5000), false, 'the attempt failed');
  t.equal(reporter.attached, false, 'nothing is listening');
  t.equal(reporter.pending, 152, 'every event is kept');
  t.equal(await reporter.flush(100), false, 'flush says it could not deliver');

  const server = await debuggerOn(t, dataDir, port);
  t.equal(await reporter.waitForAttach(5000), true, 'it attaches once the debugger is up');
  t.equal(await reporter.flush(5000), true, 'and delivers');
  t.equal(reporter.pending, 0);
  const run = await runWhen(server, runId, (r) => r.instances.length === 50 && r.instances.every((i) => i.status === 'ok'), 'the replayed run');
  t.match(run, { name: 'detached run', source: 'test', status: 'running', meta: { command: 'node', protocolVersion: '2025-06-18' }, droppedEvents: 0 });
  t.same(run.instances.map((i) => i.instanceId), Array.from({ length: 50 }, (_, i) => `i${i + 1}`), 'instances in order');
  t.same(run.instances.map((i) => i.output), Array.from({ length: 50 }, (_, i) => ({ done: i + 1 })));
  t.same(run.logs.map((l) => l.text), Array.from({ length: 50 }, (_, i) => `line ${i + 1}`), 'logs in order');
  // The run's start was both reclaimed on attach and still in the buffer: it is logged once.
  const seqs = logOf(server, runId).map((e) => e.seq);
  t.same(seqs, Array.from({ length: 152 }, (_, i) => i + 1), 'the log holds every event once, run.started included, seq 1..152 in order');

  reporter.send(runId, { type: 'run.finished', status: 'ok' });
  await reporter.flush(5000);
  t.equal((await runWhen(server, runId, (r) => r.status !== 'running', 'the end')).status, 'ok');
});

t.test('a full buffer drops the oldest events, says how many, and keeps the run', async (t) => {
  const port = await freePort();
  const dataDir = tempDir();
  const reporter = reporterFor(t, { port, dataDir, maxBufferedEvents: 10 });
  const live = reporter.startRun('overflowing', 'test', {});
  for (let i = 1; i <= 30; i++) reporter.send(live, started(i));
  t.equal(reporter.pending, 10, 'the buffer holds 10 events');
  // A second run that starts and ends entirely while detached: its run.started
  // is dropped too, and it is not reclaimed on attach because it has ended.
  const ended = reporter.startRun('ended while detached', 'test', {});
  for (let i = 1; i <= 12; i++) reporter.send(ended, started(i));
  reporter.send(ended, { type: 'run.finished', status: 'ok' });

  const server = await debuggerOn(t, dataDir, port);
  t.ok(await reporter.waitForAttach(5000));
  t.ok(await reporter.flush(5000));
  const run = await runWhen(server, live, (r) => r.droppedEvents > 0, 'the overflowed run');
  t.equal(run.name, 'overflowing', 'the run is kept, with its name');
  t.equal(run.droppedEvents, 30, 'all 30 of its events went (the second run pushed the rest out)');
  t.equal(run.status, 'running', 'and it is still live');
  const other = await runWhen(server, ended, (r) => r.status !== 'running', 'the run that ended while detached');
  t.match(other, { name: 'ended while detached', status: 'ok' }, 'a run that ended while detached still exists, ended');
  t.ok(other.droppedEvents > 0, `and says it lost events (${other.droppedEvents})`);
  t.same(other.instances.map((i) => i.instanceId), ['i4', 'i5', 'i6', 'i7', 'i8', 'i9', 'i10', 'i11', 'i12'], 'its newest events are there');
  t.equal(other.droppedEvents + other.instances.length, 12, 'kept + dropped = sent');
});

t.test('the kept events of an overflowed run are applied, not taken for repeats', async (t) => {
  const port = await freePort();
  const dataDir = tempDir();
  const reporter = reporterFor(t, { port, dataDir, maxBufferedEvents: 10 });
  const runId = reporter.startRun('x', 'test', {});
  for (let i = 1; i <= 30; i++) reporter.send(runId, started(i));
  const server = await debuggerOn(t, dataDir, port);
  t.ok(await reporter.waitForAttach(5000));
  t.ok(await reporter.flush(5000));
  const run = await runWhen(server, runId, (r) => r.droppedEvents > 0, 'the dropped notice');
  // The server applies events in order: once the last one sent (i30) is on the run, nothing is in flight.
  const after = await runWhen(server, runId, (r) => r.instances.some((i) => i.instanceId === 'i30'), 'the last event');
  t.equal(run.droppedEvents, 20);
  t.same(after.instances.map((i) => i.instanceId), Array.from({ length: 10 }, (_, i) => `i${i + 21}`), 'the 10 newest instances are on the run');
  reporter.send(runId, started(31));
  await reporter.flush(5000);
  t.equal((await runWhen(server, runId, (r) => r.instances.length === 11, 'a later event')).instances.at(-1)?.instanceId, 'i31', 'and later events still apply');
});

t.test('reconnects after the server restarts, re-reads the new token and reclaims its run', async (t) => {
  const dataDir = tempDir();
  const first = await startServer({ port: 0, dataDir, env: {}, pauseOnError: false });
  let firstClosed = false;
  t.teardown(() => (firstClosed ? undefined : first.close()));
  const port = first.port;
  const reporter = reporterFor(t, { port, dataDir });
  t.ok(await reporter.waitForAttach(5000), 'attached to the first server');
  const runId = reporter.startRun('survivor', 'test', {});
  reporter.send(runId, started(1));
  reporter.send(runId, finished(1));
  t.ok(await reporter.flush(5000));
  await runWhen(first, runId, (r) => r.instances[0]?.status === 'ok', 'the first instance');

  const detached = once(reporter, 'detached');
  await first.close();
  firstClosed = true;
  await detached;
  t.equal(reporter.attached, false, 'detached when the server went away');
  reporter.send(runId, started(2));
  reporter.send(runId, finished(2));
  reporter.send(runId, started(3));
  t.equal(reporter.pending, 3, 'events are kept meanwhile');

  const second = await debuggerOn(t, dataDir, port);
  t.not(second.token, first.token, 'the restarted server has a new token');
  t.ok(await reporter.waitForAttach(10_000), 'it reattaches with the new token from the file');
  t.ok(await reporter.flush(5000));
  const run = await runWhen(second, runId, (r) => r.instances.length === 3, 'the reclaimed run');
  t.equal(run.status, 'running', 'the run, marked ended by the restart, is live again');
  t.same(run.instances.map((i) => [i.instanceId, i.status]), [['i1', 'ok'], ['i2', 'ok'], ['i3', 'open']]);
  reporter.send(runId, finished(3));
  reporter.send(runId, { type: 'run.finished', status: 'ok' });
  await reporter.flush(5000);
  t.equal((await runWhen(second, runId, (r) => r.status !== 'running', 'the end')).status, 'ok');
});

/**
 * A stand-in debugger that sends whatever it is told, and records what it
 * receives. It proves it holds {@link STAND_IN_TOKEN} (give the reporter
 * `env: PROVEN`), as a client asks before it sends the token.
 */
async function hostileServer(t: Teardown, port = 0): Promise<{ port: number; wss: WebSocketServer; received: RunEvent[]; connections: WebSocket[]; close(): Promise<void> }> {
  const { wss, port: bound, close } = await provingWss(port);
  const received: RunEvent[] = [];
  const connections: WebSocket[] = [];
  wss.on('connection', (ws) => {
    connections.push(ws);
    ws.on('message', (data) => received.push(...(JSON.parse(data.toString()) as RunEvent[])));
  });
  t.teardown(close);
  return { port: bound, wss, received, connections, close };
}

/** The environment of a reporter that talks to a stand-in. */
const PROVEN = { GRAPHMIND_TOKEN: STAND_IN_TOKEN };

const GARBAGE: Array<string | Buffer> = [
  'not json',
  'null',
  '42',
  '"text"',
  '[]',
  '[{"type":"breakpoints"}]',
  '{}',
  '{"type":"breakpoints"}',
  '{"type":"breakpoints","breakpoints":"all of them"}',
  '{"type":"breakpoints","breakpoints":{"pauseOnError":"yes","nodes":{}}}',
  '{"type":"breakpoints","breakpoints":{"pauseOnError":true,"nodes":null}}',
  '{"type":"decision"}',
  '{"type":"decision","holdId":7,"action":"continue"}',
  '{"type":"rejected"}',
  '{"type":"what is this"}',
  Buffer.from([0xff, 0xfe, 0x00, 0x01]),
  `{"type":"decision","holdId":"${'x'.repeat(100_000)}"`,
];

t.test('never throws when the server sends garbage, and keeps reporting', async (t) => {
  const hostile = await hostileServer(t);
  const reporter = reporterFor(t, { port: hostile.port, dataDir: tempDir(), env: PROVEN });
  const seen: Breakpoints[] = [];
  const decisions: DecisionMessage[] = [];
  reporter.on('breakpoints', (breakpoints: Breakpoints) => {
    seen.push(breakpoints);
    throw new Error('a listener that throws');
  });
  reporter.on('decision', (decision: DecisionMessage) => {
    decisions.push(decision);
    throw new Error('a listener that throws');
  });
  t.ok(await reporter.waitForAttach(5000));
  const runId = reporter.startRun('garbage', 'test', {});
  const ws = hostile.connections[0] as WebSocket;
  for (const message of GARBAGE) ws.send(message);
  ws.send(JSON.stringify({ type: 'decision', holdId: 'h1', action: 'continue' }));
  ws.send(JSON.stringify({ type: 'breakpoints', breakpoints: { pauseOnError: false, nodes: { 'tool:echo': { before: true } } } }));
  await waitFor(() => seen.length === 1 && decisions.length === 1, 5000, 'the well-formed messages');
  for (let i = 1; i <= 5; i++) reporter.send(runId, started(i));
  await waitFor(() => hostile.received.filter((e) => e.type === 'instance.started').length === 5, 5000, 'the events after the garbage');

  t.same(seen, [{ pauseOnError: false, nodes: { 'tool:echo': { before: true } } }], 'only the well-formed breakpoints were taken');
  t.same(reporter.breakpoints, { pauseOnError: false, nodes: { 'tool:echo': { before: true } } }, 'and they are the current ones');
  t.same(decisions, [{ holdId: 'h1', action: 'continue', value: undefined }], 'only the well-formed decision was passed on');
  t.equal(hostile.connections.length, 1, 'the same connection throughout');
  t.same(
    hostile.received.map((e) => e.seq),
    [1, 2, 3, 4, 5, 6],
    'run.started and the five events, in order',
  );

  // The server drops the connection: the reporter comes back and reclaims its run.
  ws.terminate();
  await waitFor(() => hostile.connections.length === 2, 5000, 'a second connection');
  await waitFor(() => hostile.received.filter((e) => e.type === 'run.started').length === 2, 5000, 'the run reclaimed');
  t.equal(reporter.breakpoints.pauseOnError, true, 'breakpoints fall back to the defaults while detached');
});

t.test('events sent while the connection is closing are sent again on the next one', async (t) => {
  // The first upgrade is answered by hand: accepted, then at once a close
  // frame, and the TCP connection held open for a while. The reporter is
  // still attached but its socket is closing: every send fails. Later
  // upgrades go to a real WebSocket server that records what it receives.
  const wss = new WebSocketServer({ noServer: true });
  const received: RunEvent[] = [];
  wss.on('connection', (ws) => ws.on('message', (data) => received.push(...(JSON.parse(data.toString()) as RunEvent[]))));
  let port = 0;
  const http = createServer((req, res) => answeredIdentity(req, res, port) || res.writeHead(404).end());
  const sockets: Duplex[] = [];
  let upgrades = 0;
  let closing = false;
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.push(socket);
    if (++upgrades > 1) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      return;
    }
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket.write(Buffer.from([0x88, 0x00]));
    // The reporter's first bytes are its answer to the close frame: from then on its socket is closing.
    socket.once('data', () => (closing = true));
    socket.on('data', () => {});
    socket.on('error', () => {});
    setTimeout(() => socket.destroy(), 700);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    for (const ws of wss.clients) ws.terminate();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const address = http.address();
  port = address !== null && typeof address === 'object' ? address.port : 0;

  const reporter = reporterFor(t, { port, dataDir: tempDir(), env: PROVEN });
  t.ok(await reporter.waitForAttach(5000), 'attached to the first connection');
  await waitFor(() => closing, 5000, 'the reporter to answer the close frame');
  const runId = reporter.startRun('through a closing socket', 'test', {});
  for (let i = 1; i <= 5; i++) reporter.send(runId, started(i));
  await waitFor(() => upgrades === 2 && received.filter((e) => e.type === 'instance.started').length === 5, 10_000, 'the events on the second connection');
  t.same(
    received.filter((e) => e.type === 'instance.started').map((e) => (e as { instanceId: string }).instanceId),
    ['i1', 'i2', 'i3', 'i4', 'i5'],
    'every event sent into the closing socket arrives, in order',
  );
  t.ok(await reporter.flush(5000), 'and flush agrees');
});

t.test('a reporter process writes nothing to stdout, whatever the server does', async (t) => {
  const hostile = await hostileServer(t);
  hostile.wss.on('connection', (ws) => {
    for (const message of GARBAGE) ws.send(message);
    setTimeout(() => ws.terminate(), 100);
  });
  const reporterModule = new URL('../dist/report/reporter.js', import.meta.url).href;
  const script = `
    const { Reporter } = await import(${JSON.stringify(reporterModule)});
    const reporter = new Reporter({ port: ${hostile.port}, env: ${JSON.stringify(PROVEN)}, dataDir: '/nonexistent', reconnectMs: 20 });
    reporter.on('breakpoints', () => { throw new Error('listener'); });
    const runId = reporter.startRun('quiet', 'test', {});
    for (let i = 0; i < 100; i++) reporter.send(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text: 'x' + i });
    // Until it has come back after the server dropped it (a second attach), or 10 s.
    const keep = setInterval(() => {}, 1000);
    await new Promise((resolve) => {
      let attaches = 0;
      reporter.on('attached', () => ++attaches === 2 && resolve());
      setTimeout(resolve, 10000).unref();
    });
    clearInterval(keep);
    reporter.close();
  `;
  const proc = runScript(t, script);
  const [code] = (await once(proc.child, 'close')) as [number | null];
  t.equal(code, 0, `it ran to the end (${proc.stderr()})`);
  t.equal(proc.stdout(), '', 'nothing on stdout');
  t.ok(hostile.connections.length >= 2, `it kept reconnecting (${hostile.connections.length} connections)`);
  t.ok(hostile.received.some((e) => e.type === 'log'), 'and kept sending');
});

t.test('an awaited flush keeps the process alive until it resolves', async (t) => {
  // The socket is unref'd so reporting never keeps a host alive; a process
  // that awaits flush() before exiting (the proxy does) must still get its
  // answer rather than end, exit code 0, in the middle of the await.
  const hostile = await hostileServer(t);
  const reporterModule = new URL('../dist/report/reporter.js', import.meta.url).href;
  const script = `
    const { Reporter } = await import(${JSON.stringify(reporterModule)});
    const reporter = new Reporter({ port: ${hostile.port}, env: ${JSON.stringify(PROVEN)}, dataDir: '/nonexistent' });
    if (!(await reporter.waitForAttach(5000))) process.exit(3);
    const runId = reporter.startRun('flushed', 'test', {});
    for (let i = 0; i < 8; i++) reporter.send(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text: 'x'.repeat(1 << 20) });
    const ok = await reporter.flush(10000);
    reporter.close();
    process.exit(ok ? 5 : 6);
  `;
  const proc = runScript(t, script);
  const [code] = (await once(proc.child, 'close')) as [number | null];
  t.equal(code, 5, `flush resolved true and the script ran to its end (${proc.stderr()})`);
  t.equal(hostile.received.filter((e) => e.type === 'log').length, 8, 'everything was delivered');
});

t.test('the token: GRAPHMIND_TOKEN first, else <data dir>/token, read again on every attempt', async (t) => {
  const dataDir = tempDir();
  const server = await debuggerOn(t, dataDir);
  t.equal(readFileSync(join(dataDir, 'token'), 'utf8').trim(), server.token, 'the server wrote its token file');

  const fromEnv = reporterFor(t, { port: server.port, dataDir: tempDir(), env: { GRAPHMIND_TOKEN: server.token } });
  t.ok(await fromEnv.waitForAttach(5000), 'GRAPHMIND_TOKEN is enough (no token file in its data dir)');

  const fromDataDirEnv = reporterFor(t, { port: server.port, env: { GRAPHMIND_DATA_DIR: dataDir } });
  t.equal(fromDataDirEnv.dataDir, dataDir, 'GRAPHMIND_DATA_DIR names the data dir');
  t.ok(await fromDataDirEnv.waitForAttach(5000), 'the token file there is used');

  const wrongEnv = reporterFor(t, { port: server.port, dataDir, env: { GRAPHMIND_TOKEN: 'not-the-token' } });
  t.equal(await wrongEnv.waitForAttach(800), false, 'GRAPHMIND_TOKEN wins over a right token file');

  const later = tempDir();
  writeFileSync(join(later, 'token'), 'stale-token\n');
  const rereads = reporterFor(t, { port: server.port, dataDir: later });
  t.equal(await rereads.waitForAttach(500), false, 'a stale token file: refused');
  const runId = rereads.startRun('after a token change', 'test', {});
  rereads.send(runId, started(1));
  writeFileSync(join(later, 'token'), `${server.token}\n`);
  t.ok(await rereads.waitForAttach(10_000), 'the file is read again on the next attempt');
  t.ok(await rereads.flush(5000));
  t.equal((await runWhen(server, runId, (r) => r.instances.length === 1, 'the run')).name, 'after a token change', 'and what was buffered arrives');
});

t.test('no debugger: only a TCP probe, no WebSocket client loaded; a debugger that starts later gets everything', async (t) => {
  // With nothing on the port the reporter only ever opens a plain TCP
  // connection, which is refused: the WebSocket client (and http, https,
  // tls, zlib with it) is not loaded. Once something accepts, it is.
  const port = await freePort();
  const dataDir = tempDir();
  const reporterModule = new URL('../dist/report/reporter.js', import.meta.url).href;
  const script = `
    const { Reporter } = await import(${JSON.stringify(reporterModule)});
    const loaded = () => process.moduleLoadList === undefined ? null : ['http', 'https', 'tls', 'zlib'].filter((m) => process.moduleLoadList.includes('NativeModule ' + m));
    const keep = setInterval(() => {}, 1000);
    const reporter = new Reporter({ port: ${port}, env: {}, dataDir: ${JSON.stringify(dataDir)}, reconnectMs: 20 });
    const runId = reporter.startRun('probed', 'test', {});
    for (let i = 1; i <= 20; i++) reporter.send(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text: 'line ' + i });
    const settled = await reporter.settle(2000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.stdout.write(JSON.stringify({ runId, settled, loaded: loaded() }) + '\\n');
    const attached = await reporter.waitForAttach(15000);
    const flushed = attached && (await reporter.flush(5000));
    process.stdout.write(JSON.stringify({ attached, flushed, loaded: loaded() }) + '\\n');
    reporter.close();
    clearInterval(keep);
  `;
  const proc = runScript(t, script);
  const lines = (): Array<Record<string, unknown>> =>
    proc
      .stdout()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  await waitFor(() => lines().length >= 1, 10_000, `the detached report (${proc.stderr()})`);
  const detached = lines()[0] as { runId: string; settled: boolean; loaded: string[] | null };
  t.equal(detached.settled, false, 'a refused probe settles the attempt at once');
  t.not(detached.loaded, null, 'this Node lists the modules it loaded (process.moduleLoadList)');
  t.same(detached.loaded ?? ['(unknown)'], [], 'no WebSocket client (nor http, https, tls, zlib) was loaded');

  const server = await debuggerOn(t, dataDir, port);
  const [code] = (await once(proc.child, 'close')) as [number | null];
  t.equal(code, 0, `the script ran to its end (${proc.stderr()})`);
  const later = lines()[1] as { attached: boolean; flushed: boolean; loaded: string[] | null };
  t.match(later, { attached: true, flushed: true }, 'the debugger that started later was attached, and everything delivered');
  t.ok(later.loaded?.includes('zlib'), 'the WebSocket client was loaded only then');
  const run = await runWhen(server, detached.runId, (r) => r.logs.length === 20, 'the buffered logs');
  t.same(run.logs.map((l) => l.text), Array.from({ length: 20 }, (_, i) => `line ${i + 1}`), 'replayed in order');
});

t.test('a port where something else listens: retried with backoff, never a throw; the debugger that replaces it is attached', async (t) => {
  const port = await freePort();
  const dataDir = tempDir();
  // Not a debugger: every other connection is closed at once, the rest get
  // an HTTP 404 to their upgrade.
  let connections = 0;
  const sockets = new Set<Socket>();
  const stranger = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    if (++connections % 2 === 1) socket.destroy();
    else socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  stranger.listen(port, '127.0.0.1');
  await once(stranger, 'listening');
  const strangerClosed = (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => stranger.close(() => resolve()));
  };
  let open = true;
  t.teardown(() => (open ? strangerClosed() : undefined));

  const reporter = reporterFor(t, { port, dataDir });
  const runId = reporter.startRun('behind a stranger', 'test', {});
  for (let i = 1; i <= 10; i++) reporter.send(runId, started(i));
  t.equal(await reporter.settle(5000), false, 'an attempt that meets something else fails');
  const since = connections;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.equal(reporter.attached, false, 'never attached');
  const tries = connections - since;
  t.ok(tries >= 2, `it kept trying (${tries} connections in 1 s)`);
  t.ok(tries <= 16, `with backoff, not in a loop (${tries} connections in 1 s, reconnectMs 20)`);
  t.equal(reporter.pending, 11, 'and kept every event');

  await strangerClosed();
  open = false;
  const server = await debuggerOn(t, dataDir, port);
  t.ok(await reporter.waitForAttach(10_000), 'the debugger on the same port is attached');
  t.ok(await reporter.flush(5000));
  const run = await runWhen(server, runId, (r) => r.instances.length === 10, 'the run');
  t.same(run.instances.map((i) => i.instanceId), Array.from({ length: 10 }, (_, i) => `i${i + 1}`));
});

t.test('the byte bound: the bytes behind deferred values and log text count, the oldest go first', async (t) => {
  const reporter = new Reporter({ connect: false, env: {}, maxBufferedBytes: 10_000 });
  t.teardown(() => reporter.close());
  const runId = reporter.startRun('bytes', 'test', {});
  const big = (i: number): OutgoingEvent => ({ type: 'instance.started', instanceId: `i${i}`, node, input: new DeferredValue(4000, () => i) });
  reporter.send(runId, big(1));
  reporter.send(runId, big(2));
  t.equal(reporter.pending, 3, '128 + 2 × (128 + 4000) bytes fit');
  reporter.send(runId, big(3));
  t.equal(reporter.pending, 2, 'a third does not: run.started (kept aside) and the oldest event go');
  reporter.send(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text: 'x'.repeat(6000) });
  t.equal(reporter.pending, 1, 'log text counts');
  reporter.send(runId, { type: 'instance.finished', instanceId: 'i3', output: new DeferredValue(20_000, () => 'huge') });
  t.equal(reporter.pending, 1, 'one event alone is kept, however large');
  reporter.send(runId, { type: 'instance.error', instanceId: 'i3', error: { name: 'E', message: new DeferredValue(9900, () => 'm') as unknown as string } });
  reporter.send(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text: 'small' });
  t.equal(reporter.pending, 1, 'an error message held as a deferred value counts too');
  reporter.sendComplete(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text: 'a', runId, seq: reporter.nextSeq(runId), t: Date.now() }, 5000);
  reporter.sendComplete(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text: 'b', runId, seq: reporter.nextSeq(runId), t: Date.now() }, 5000);
  t.equal(reporter.pending, 1, 'and the bytes a complete event says it holds');
});

t.test('a full buffer never loses a run: its run.started and its root are kept aside', async (t) => {
  const port = await freePort();
  const dataDir = tempDir();
  const reporter = reporterFor(t, { port, dataDir, maxBufferedEvents: 4 });
  const first = reporter.startRun('first', 'test', {});
  reporter.send(first, { type: 'instance.started', instanceId: 'root', node: { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'session' } });
  const second = reporter.startRun('second', 'test', {});
  for (let i = 1; i <= 6; i++) reporter.send(second, started(i));
  // The first run's start and root were pushed out while it was live; it
  // ends now, before any of its other events had to go.
  reporter.send(first, { type: 'run.finished', status: 'ok' });
  t.equal(reporter.pending, 4);

  const server = await debuggerOn(t, dataDir, port);
  t.ok(await reporter.waitForAttach(5000));
  t.ok(await reporter.flush(5000));
  const ended = await runWhen(server, first, (r) => r.status !== 'running', 'the first run');
  t.match(ended, { name: 'first', status: 'ok', droppedEvents: 0 }, 'the run that ended while detached exists, ended');
  t.same(ended.instances.map((i) => i.instanceId), ['root'], 'with its root, which was never dropped');
  const live = await runWhen(server, second, (r) => r.instances.length === 3, 'the second run');
  t.match(live, { name: 'second', status: 'running', droppedEvents: 3 }, 'the live run is reclaimed and says what it lost');
  t.same(live.instances.map((i) => i.instanceId), ['i4', 'i5', 'i6']);
});

t.test('the buffer keeps its order across wrap-around, growth and drops', async (t) => {
  const port = await freePort();
  let debuggerNow = await hostileServer(t, port);
  const reporter = reporterFor(t, { port, dataDir: tempDir(), maxBufferedEvents: 3000, env: PROVEN });
  t.ok(await reporter.waitForAttach(5000));
  const runId = reporter.startRun('ring', 'test', {});
  const log = (text: string): void => reporter.send(runId, { type: 'log', nodeId: 'n', stream: 'stderr', text });
  for (let i = 1; i <= 700; i++) log(`a${i}`);
  await waitFor(() => debuggerNow.received.length === 701, 5000, 'the first events');
  const detached = once(reporter, 'detached');
  await debuggerNow.close();
  await detached;
  // The buffer's head is no longer at its start: it grows (twice) with the
  // oldest event in the middle of it, then wraps and drops.
  for (let i = 1; i <= 3100; i++) log(`b${i}`);
  t.equal(reporter.pending, 3000, 'bounded by count');
  debuggerNow = await hostileServer(t, port);
  t.ok(await reporter.waitForAttach(10_000));
  t.ok(await reporter.flush(10_000));
  await waitFor(() => debuggerNow.received.filter((e) => e.type === 'log').length === 3000, 10_000, 'the replay');
  const received = debuggerNow.received;
  t.equal(received[0]?.type, 'run.started', 'the run is reclaimed first');
  t.match(received.find((e) => e.type === 'events.dropped'), { count: 100, seq: 0 }, 'the dropped ones are counted');
  const texts = received.filter((e) => e.type === 'log').map((e) => (e as { text: string }).text);
  t.same(texts, Array.from({ length: 3000 }, (_, i) => `b${i + 101}`), 'the newest 3000, in order');
  const seqs = received.filter((e) => e.type === 'log').map((e) => e.seq);
  t.ok(seqs.every((seq, i) => i === 0 || seq === (seqs[i - 1] as number) + 1), 'with consecutive seqs');
});

t.test('attached, a burst far larger than the buffer is delivered whole, not dropped', async (t) => {
  const dataDir = tempDir();
  const server = await debuggerOn(t, dataDir);
  const reporter = reporterFor(t, { port: server.port, dataDir, maxBufferedEvents: 1000 });
  t.ok(await reporter.waitForAttach(5000));
  const runId = reporter.startRun('burst', 'test', {});
  // One synchronous burst, as when a whole pipe read of pipelined calls is
  // relayed in one go: 5,000 calls, 10,000 events, no turn of the event loop.
  for (let i = 1; i <= 5000; i++) {
    reporter.send(runId, started(i));
    reporter.send(runId, finished(i));
  }
  t.ok(await reporter.flush(10_000), 'delivered');
  const run = await runWhen(server, runId, (r) => r.instances.length === 5000 && r.instances.every((i) => i.status === 'ok'), 'every call');
  t.equal(run.droppedEvents, 0, 'nothing dropped while the debugger keeps up');
});

t.test('attached, events of many turns go out together; a hold goes at once', async (t) => {
  const hostile = await hostileServer(t);
  let messages = 0;
  hostile.wss.on('connection', (ws) => ws.on('message', () => messages++));
  const reporter = reporterFor(t, { port: hostile.port, dataDir: tempDir(), env: PROVEN });
  t.ok(await reporter.waitForAttach(5000));
  const runId = reporter.startRun('coalesced', 'test', {});
  await reporter.flush(2000);
  const before = messages;
  // One event per turn of the event loop, as a one-call-at-a-time
  // conversation produces them: they wait to be sent as one message.
  for (let i = 1; i <= 20; i++) {
    reporter.send(runId, started(i));
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.ok(reporter.pending > 0, `still waiting for their batch (${reporter.pending})`);
  await waitFor(() => hostile.received.filter((e) => e.type === 'instance.started').length === 20, 5000, 'the 20 events');
  t.ok(messages - before <= 3, `20 events in ${messages - before} message(s), not 20`);
  // A hold is somebody waiting at a breakpoint: it is sent at once, with
  // everything queued before it.
  reporter.send(runId, finished(1));
  reporter.send(runId, { type: 'hold.opened', holdId: 'h1', nodeId: 'tool:echo', instanceId: 'i2', gate: 'before', method: 'tools/call', frame: {} });
  t.equal(reporter.pending, 0, 'nothing left waiting once a hold is sent');
  await waitFor(() => hostile.received.some((e) => e.type === 'hold.opened'), 5000, 'the hold');
  const order = hostile.received.filter((e) => e.type === 'instance.finished' || e.type === 'hold.opened').map((e) => e.type);
  t.same(order, ['instance.finished', 'hold.opened'], 'in order');
});

t.test('a debugger on IPv6 loopback (serve --host ::1) is found too, and its URL says so', async (t) => {
  if (!(await hasIpv6Loopback())) {
    t.fail('this machine has no IPv6 loopback (::1), so a reporter finding a debugger there cannot be tested here');
    return;
  }
  const dataDir = tempDir();
  const server = await startServer({ port: 0, host: '::1', dataDir, env: {}, pauseOnError: false });
  t.teardown(() => server.close());
  const reporter = reporterFor(t, { port: server.port, dataDir });
  t.equal(reporter.url, `http://127.0.0.1:${server.port}`, 'before any attach, the URL names 127.0.0.1');
  const runId = reporter.startRun('on ::1', 'test', {});
  reporter.send(runId, started(1));
  reporter.send(runId, finished(1));
  t.equal(await reporter.waitForAttach(5000), true, 'nothing on 127.0.0.1: it attaches on ::1');
  t.equal(reporter.url, `http://[::1]:${server.port}`, 'the URL names the address that answered');
  t.ok(await reporter.flush(5000));
  // (The test helpers' HTTP client speaks to 127.0.0.1 only: the run's log on disk says what was recorded.)
  const logged = (): number => (existsSync(join(server.dataDir, 'runs', `${runId}.jsonl`)) ? logOf(server, runId).length : 0);
  await waitFor(() => logged() === 3, 5000, 'the run on ::1 logged');
  t.same(logOf(server, runId).map((e) => e.type), ['run.started', 'instance.started', 'instance.finished'], 'the run was recorded');
});
