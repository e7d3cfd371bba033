// `kill -9` of the debugger under a 20,000-call session (issue 29).
//
// A raw JSON-RPC host pipelines 20,000 tools/call requests through a real
// `graphmind mcp-proxy` in front of the byte-echo fixture, reporting to a
// real `graphmind serve`. When the host has 6,000 answers, serve is killed
// with SIGKILL. What GraphMind promises (docs/reliability.md):
//
// - The session never depends on the debugger: the host gets all 20,000
//   answers, byte for byte as the server wrote them, and the proxy exits 0.
// - The record is append-only JSONL: what reached the disk before the kill
//   loads after a restart on the same data dir (a torn last line is
//   skipped), as the calls it holds, each once and in order. A run whose
//   debugger died under it shows as ended in error.
// - When the debugger comes back while the session still runs, the proxy
//   reclaims its run and sends the newest 1,000 events it kept; the older
//   ones it dropped are counted in `droppedEvents`. The only loss nobody
//   counts is what was on its way while serve died (written to its socket
//   but not yet to its disk, until the kernel closed that socket): bounded
//   here, and printed.
//
// Two cases: the debugger comes back only after the session (what the
// record lost = what was not on disk), and it comes back during it.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { PROXY_FIXTURES, startProxy, type ProxyProcess } from './helpers/cli.js';
import { instancesOf, serveOnPort, stopAtTeardown, summarize, waitForRun } from './helpers/graph.js';
import { freshDataDir, startServe, type ServeProcess } from './helpers/serve.js';
import { exitedWithin, frame, initialize } from './helpers/wire.js';
import type { Run } from '../src/protocol/run-model.js';

const CALLS = 20_000;
/** Answers the host has when the debugger is killed. */
const KILL_AT = 6_000;
/** Calls the host keeps in flight (written, not yet answered). */
const WINDOW = 2_000;
/**
 * The most events that may be lost without being counted: what was on its
 * way to serve's disk at the kill (the reporter's batches are at most 1,000
 * events; its socket's kernel buffers and serve's own queue hold a few
 * more). Measured: a few hundred, a few thousand under heavy load.
 */
const UNCOUNTED_EVENTS_BOUND = 10_000;
const ECHO_SERVER = join(PROXY_FIXTURES, 'byte-echo-server.mjs');
const SERVE_ARGS = ['--pause-on-error', 'off'];

t.setTimeout(115_000);

function requestLine(id: number): string {
  return frame({ id, method: 'tools/call', params: { name: 'echo', arguments: { call: id } } });
}

/** What byte-echo-server.mjs writes for `line` (as test/pipelining.test.ts builds it). */
function expectedResponse(line: string, id: number | string): string {
  const request = line.slice(0, -1);
  const params: unknown = (JSON.parse(request) as { params: unknown }).params;
  const eol = typeof id === 'number' && id % 7 === 0 ? '\r\n' : '\n';
  return `{"result":{"echo":${JSON.stringify(params)},"raw":${JSON.stringify(request)},"n":1.0,"big":1e3,"s":"caf\\u00e9"},"id":${JSON.stringify(id)},"jsonrpc":"2.0"}${eol}`;
}

/** The calls (their `arguments.call`) the run log on disk holds for tool:echo; a torn line is skipped. */
function callsOnDisk(dataDir: string): { calls: number; torn: number } {
  const dir = join(dataDir, 'runs');
  let calls = 0;
  let torn = 0;
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (line === '') continue;
      let event: { type?: string; node?: { nodeId?: string }; calls?: unknown[] };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        torn++;
        continue;
      }
      if (event.node?.nodeId !== 'tool:echo') continue;
      if (event.type === 'instances.completed') calls += event.calls?.length ?? 0;
      else if (event.type === 'instance.completed' || event.type === 'instance.started') calls++;
    }
  }
  return { calls, torn };
}

/** The call numbers of a run's tool:echo instances, in instance order. */
function recordedCalls(run: Run): number[] {
  return instancesOf(run, 'tool:echo').map((instance) => (instance.input as { arguments: { call: number } }).arguments.call);
}

/** `calls` as ranges, e.g. "1-6336, 19500-20000". */
function ranges(calls: readonly number[]): string {
  const out: string[] = [];
  let from = calls[0];
  for (let i = 1; i <= calls.length; i++) {
    if (i < calls.length && calls[i] === (calls[i - 1] as number) + 1) continue;
    out.push(from === calls[i - 1] ? `${from}` : `${from}-${calls[i - 1]}`);
    from = calls[i];
  }
  return out.join(', ');
}

/** True when `calls` are distinct and increasing. */
function increasing(calls: readonly number[]): boolean {
  return calls.every((call, i) => i === 0 || call > (calls[i - 1] as number));
}

interface Session {
  proxy: ProxyProcess;
  pid: number;
  /** Resolves once every answer is in. */
  answered: Promise<void>;
  /** ms from the write to the kill, to serve's end as this process saw it, and to the last answer. */
  timings: { killedAt: number; goneAt: number; doneAt: number };
  /** Calls the host had written when the kill was sent, and when it saw serve gone. */
  writtenAt: { kill: number; gone: number };
  expected: string;
}

/** Start the session, pipeline every call at once, and kill `serve` when the host has KILL_AT answers. */
async function killedSession(t: Test, serve: ServeProcess): Promise<Session> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GRAPHMIND_')) env[key] = value;
  env.GRAPHMIND_DATA_DIR = serve.dataDir;
  const proxy = startProxy(['--port', String(serve.port)], [process.execPath, ECHO_SERVER], { env });
  const pid = proxy.child.pid as number;
  stopAtTeardown(t, proxy);
  // The reporter is attached (its run is listed) before the first call goes.
  await waitForRun(serve, pid, () => true, 30_000);

  let expected = expectedResponse(initialize(0), 0);
  for (let id = 1; id <= CALLS; id++) expected += expectedResponse(requestLine(id), id);
  const timings = { killedAt: 0, goneAt: 0, doneAt: 0 };
  const writtenAt = { kill: 0, gone: 0 };
  let answers = 0;
  let written = 0;
  const began = Date.now();
  // Pipelined through a window: at most WINDOW calls in flight, so the kill
  // lands where the host's count says (a host that read its answers late
  // would otherwise see the kill long after the relay had finished).
  const writeUpTo = (limit: number): void => {
    let text = '';
    for (; written < Math.min(limit, CALLS); ) text += requestLine(++written);
    if (text !== '') proxy.child.stdin.write(text);
  };
  const answered = new Promise<void>((resolve) => {
    proxy.child.stdout.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) answers++;
      if (timings.killedAt === 0 && answers >= KILL_AT) {
        // kill -9, right here: no await between the answer and the kill.
        process.kill(serve.child.pid as number, 'SIGKILL');
        timings.killedAt = Date.now() - began;
        writtenAt.kill = written;
        // Seen here only once its pipes closed, which the kernel does with its sockets, so no later than they did.
        void serve.exited.then(() => {
          timings.goneAt = Date.now() - began;
          writtenAt.gone = written;
        });
      }
      // The first answer is initialize's: the calls answered are one fewer, and at most WINDOW calls are in flight.
      const callsAnswered = Math.max(0, answers - 1);
      if (answers === CALLS + 1) {
        timings.doneAt = Date.now() - began;
        resolve();
      } else if (written - callsAnswered < WINDOW / 2) writeUpTo(callsAnswered + WINDOW);
    });
  });
  proxy.child.stdin.write(initialize(0) + frame({ method: 'notifications/initialized' }));
  writeUpTo(WINDOW);
  return { proxy, pid, answered, timings, writtenAt, expected };
}

/** Every answer, byte for byte, and the kill happened mid-session. */
async function checkAnswers(t: Test, session: Session, serve: ServeProcess): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    session.answered,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`only ${session.proxy.stdout().toString('utf8').split('\n').length - 1} answers after 60 s`)), 60_000);
    }),
  ]);
  clearTimeout(timer);
  const killed = await serve.exited;
  t.equal(killed.signal, 'SIGKILL', 'serve was killed by SIGKILL mid-session');
  const got = session.proxy.stdout();
  t.equal(got.toString('utf8').split('\n').length - 1, CALLS + 1, `the host got all ${CALLS} answers (and initialize's)`);
  t.ok(got.equals(Buffer.from(session.expected)), 'byte for byte as the server wrote them, in order');
  t.equal(session.proxy.stderr(), '', 'the proxy said nothing on stderr');
  const { timings, writtenAt } = session;
  t.comment(
    `killed serve after ${KILL_AT} answers (${writtenAt.kill} calls written), ${timings.killedAt} ms in; seen gone ${timings.goneAt - timings.killedAt} ms later (${writtenAt.gone} calls written); all ${CALLS} answers after ${timings.doneAt} ms`,
  );
}

t.test('the debugger is killed and comes back only after the session: the host loses nothing, the record keeps what reached its disk', async (t) => {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const serve = await startServe(SERVE_ARGS, {}, { dataDir });
  t.teardown(() => serve.stop('SIGKILL'));
  const port = serve.port;
  const session = await killedSession(t, serve);
  await checkAnswers(t, session, serve);
  const onDisk = callsOnDisk(dataDir);

  session.proxy.child.stdin.end();
  const exit = await exitedWithin(session.proxy, 30_000);
  t.equal(exit.code, 0, 'the proxy exits 0 with no debugger to report to');

  const again = await serveOnPort(port, dataDir, SERVE_ARGS);
  t.teardown(() => again.stop());
  const run = await waitForRun(again, session.pid, () => true, 30_000);
  const calls = recordedCalls(run);
  t.equal(run.status, 'error', `the run whose debugger died under it shows as ended in error (${summarize(run)})`);
  t.equal(calls.length, onDisk.calls, 'the restarted debugger shows every call that was on disk');
  t.ok(calls.length > 0 && calls.length <= KILL_AT + WINDOW, `the record has calls from before the kill (${calls.length})`);
  t.same(calls, Array.from({ length: calls.length }, (_, i) => i + 1), 'exactly calls 1..n, each once, in order: no hole, no repeat');
  const statuses = instancesOf(run, 'tool:echo').map((instance) => instance.status);
  const answered = statuses.indexOf('open') === -1 ? statuses.length : statuses.indexOf('open');
  const unanswered = instancesOf(run, 'tool:echo').slice(answered);
  t.ok(statuses.slice(0, answered).every((status) => status === 'ok') && statuses.slice(answered).every((status) => status === 'open'), `calls 1..${answered} with their answers`);
  t.ok(unanswered.length <= WINDOW, `the ${unanswered.length} after them (started on disk, answer lost: still open) are at most the calls in flight`);
  t.comment(`unanswered in the record: ${unanswered.length} (${JSON.stringify([...new Set(statuses)])})`);
  t.comment(`the client got ${CALLS} of ${CALLS} answers; the record kept ${calls.length} calls and lost ${CALLS - calls.length} (${onDisk.torn} torn line(s) on disk)`);
});

t.test('the debugger is killed and comes back during the session: the run is reclaimed, and what it lost is counted but for the moment of the kill', async (t) => {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const serve = await startServe(SERVE_ARGS, {}, { dataDir });
  t.teardown(() => serve.stop('SIGKILL'));
  const port = serve.port;
  const session = await killedSession(t, serve);
  await checkAnswers(t, session, serve);
  const onDisk = callsOnDisk(dataDir);

  // The session is still open (stdin not closed): the proxy keeps the newest
  // events while detached, and reclaims its run when a debugger is back.
  const logFile = join(dataDir, 'runs', readdirSync(join(dataDir, 'runs'))[0] as string);
  const sizeAtKill = readFileSync(logFile).length;
  const back = Date.now();
  const again = await serveOnPort(port, dataDir, SERVE_ARGS);
  t.teardown(() => again.stop());
  const reclaimed = await waitForRun(again, session.pid, (run) => run.status === 'running', 30_000);
  t.comment(`the proxy reclaimed its run ${Date.now() - back} ms after the debugger was started again`);
  t.equal(reclaimed.status, 'running', 'the reporter reclaimed its run');

  session.proxy.child.stdin.end();
  const exit = await exitedWithin(session.proxy, 30_000);
  t.equal(exit.code, 0, 'the proxy exits 0');
  const run = await waitForRun(again, session.pid, (r) => r.status !== 'running', 30_000);
  t.equal(run.status, 'ok', `the session ends ok in the record (${summarize(run)})`);
  const calls = recordedCalls(run);
  const dropped = run.droppedEvents;
  // What the record lost, in events: a call missing whole is two (its start
  // and its end, or one paired event the reporter would have sent for
  // both: the proxy counts a call it pushed out while detached as two), a
  // call recorded without its answer is one (its end).
  const tools = instancesOf(run, 'tool:echo');
  const missing = CALLS - calls.length;
  const unanswered = tools.filter((instance) => instance.status !== 'ok' || instance.output === undefined).length;
  const lostEvents = 2 * missing + unanswered;
  const uncounted = lostEvents - dropped;
  t.ok(increasing(calls), 'the calls recorded are distinct and in order');
  t.ok(calls.length >= onDisk.calls, `at least what was on disk at the kill (${onDisk.calls})`);
  t.ok(dropped > 0, `the events the detached proxy dropped are counted (droppedEvents ${dropped})`);
  // Not asserted: in some runs the newest calls the detached proxy kept
  // arrive after the reclaim (e.g. 19634-20000), in others none do (see the
  // report of issue 29's reliability tests); the figure says which.
  const newest = calls.filter((call) => call > onDisk.calls + WINDOW).length;
  t.ok(uncounted >= 0, `droppedEvents does not claim more than was lost (${dropped} ≤ ${lostEvents})`);
  // The kill is not one moment: serve's sockets close only when the kernel
  // has torn the killed process down, which on a loaded machine took long
  // enough for the host to write thousands more calls (seen: calls
  // 6699-16222 lost uncounted, when at most 8,000 were written at the kill;
  // quiet runs print 0-2,400 calls written while serve was dying). Until
  // then its socket's buffers (loopback autotunes them to tens of MB) take
  // whatever the proxy sends, and with no acknowledgement from serve the
  // proxy cannot know it was lost. So the bound grows by two events for
  // each call the host wrote while serve was dying (as seen here, after
  // its sockets closed: a wider window, never a narrower one).
  const dying = Math.max(0, session.writtenAt.gone - session.writtenAt.kill);
  const bound = UNCOUNTED_EVENTS_BOUND + 2 * dying;
  t.ok(uncounted <= bound, `what was lost and not counted is bounded (${uncounted} events ≤ ${UNCOUNTED_EVENTS_BOUND} + 2 × ${dying} calls written while serve was dying)`);
  t.comment(
    `the client got ${CALLS} of ${CALLS} answers; on disk at the kill: ${onDisk.calls} calls (${onDisk.torn} torn line(s)); ` +
      `recorded at the end: ${calls.length} calls (${ranges(calls)}), ${calls.length - unanswered} with their answers; newest calls kept while detached that arrived after the reclaim: ${newest}`,
  );
  // What the proxy sent after its reclaim, as the log has it (for whoever reads the figures).
  const after: Record<string, number> = {};
  for (const line of readFileSync(logFile).subarray(sizeAtKill).toString('utf8').split('\n')) {
    if (line === '') continue;
    const event = JSON.parse(line) as { type: string; calls?: unknown[]; node?: { nodeId?: string } };
    const key = event.node?.nodeId === 'tool:echo' ? `${event.type}(tool:echo)` : event.type;
    after[key] = (after[key] ?? 0) + (event.calls?.length ?? 1);
  }
  t.comment(`logged after the reclaim: ${JSON.stringify(after)}`);
  t.comment(
    `the record lost ${missing} calls whole and ${unanswered} answers = ${lostEvents} events; counted as dropped: ${dropped}; not counted: ${uncounted} events (about ${Math.round(uncounted / 2)} calls, the kill moment)`,
  );
});
