// Defects an audit found in `graphmind mcp-proxy`, each checked through the
// built CLI with real child processes and, where the graph is the point, a
// real `graphmind serve` read back through its REST API:
//
// 1. after --max-frame-bytes turns a direction into a raw byte pipe, the
//    proxy must not claim the server never answered, nor record the calls
//    whose answers it could no longer see as NoAnswer;
// 2. every line of ours starts a line, even when the server's last stderr
//    write had no newline;
// 3. the protocol card's `errors` counts calls that ended unanswered;
// 4. a server that exits 0 on its own before answering anything, the host
//    still connected, is reported as exiting early;
// 5. a debugger that refuses the proxy's token is said once, not silently
//    left unobserved.
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import t from 'tap';
import type { Instance, Run } from '../src/protocol/run-model.js';
import type { Breakpoints } from '../src/protocol/control.js';
import { PROXY_FIXTURES, startProxy, waitFor, type ProxyProcess } from './helpers/cli.js';
import { decide, proxyEnv, setBreakpoints, waitForHold } from './helpers/gates.js';
import { instancesOf, shapeProblems, stopAtTeardown, summarize, tempDir, waitForRun } from './helpers/graph.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { provingServer } from './helpers/stand-in.js';
import { frame, lines, messagesIn, responseTo, stderrMatch, toolsCall } from './helpers/wire.js';

t.setTimeout(120_000);

const node = process.execPath;
const fixture = (name: string): string => join(PROXY_FIXTURES, name);
const PREFIX = 'graphmind mcp-proxy: ';

// These tests are about what is recorded, not holds: the error gate is off.
let server: ServeProcess;
t.before(async () => {
  server = await startServe(['--pause-on-error', 'off']);
});
t.teardown(() => server.stop());

type Teardown = { teardown(fn: () => unknown): void };

/** Our environment without GRAPHMIND_*, plus `env`. */
function withEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...proxyEnv(undefined), ...env };
}

/** A proxy reporting to the test's debugger (`report: false`: to none), stopped at teardown if still there. */
function proxyOver(t: Teardown, flags: readonly string[], command: readonly string[], report = true): ProxyProcess {
  const env = report ? withEnv({ GRAPHMIND_DATA_DIR: server.dataDir }) : withEnv({ GRAPHMIND_DISABLED: '1' });
  const proxy = startProxy(report ? ['--port', String(server.port), ...flags] : flags, command, { env });
  stopAtTeardown(t, proxy);
  return proxy;
}

/** A short `initialize`: short enough to pass a small --max-frame-bytes (89 bytes). */
const shortInitialize = (id: number): string => frame({ id, method: 'initialize', params: { protocolVersion: '2025-06-18' } });

/** The one instance of a node. */
function only(run: Run, nodeId: string): Instance {
  const found = instancesOf(run, nodeId);
  if (found.length !== 1) throw new Error(`${nodeId} has ${found.length} instances: ${summarize(run)}`);
  return found[0] as Instance;
}

/** Our lines on stderr (the server's are the others). */
const ours = (stderr: string): string[] => lines(stderr).filter((line) => line.startsWith(PREFIX));

const degradeNotice = (from: 'server' | 'client', limit: number): string =>
  `${PREFIX}a line from the ${from} is larger than --max-frame-bytes (${limit} bytes); the rest of that stream is relayed as raw bytes, without inspection`;

const NOT_OBSERVED = {
  '[graphmind]':
    "answer not observed: the server's output had become a raw byte pipe (a line larger than --max-frame-bytes); an answer, if one came, was relayed unread",
};

/** The test's debugger given `breakpoints` until the end of this test. */
async function armed(t: Teardown, breakpoints: Breakpoints): Promise<void> {
  await setBreakpoints(server, breakpoints);
  t.teardown(() => setBreakpoints(server, { pauseOnError: false, nodes: {} }));
}

/** A proxy in front of the partial-stderr server that waits for the debugger (so its breakpoints are known), past initialize. */
async function initialized(t: Teardown): Promise<ProxyProcess> {
  const proxy = proxyOver(t, ['--wait-for-attach'], [node, fixture('partial-stderr-server.mjs')]);
  proxy.child.stdin.write(shortInitialize(1));
  await responseTo(proxy, 1);
  return proxy;
}

t.test('the first answer over --max-frame-bytes: answered calls are not NoAnswer, the server is not said to have exited early', async (t) => {
  const proxy = proxyOver(t, ['--max-frame-bytes', '140'], [node, fixture('echo-server.mjs')]);
  // The first answer (initialize, 149 bytes) is over the limit: from there on the server's stdout is a raw pipe.
  proxy.child.stdin.write(shortInitialize(1));
  proxy.child.stdin.write(frame({ id: 2, method: 'ping' }));
  proxy.child.stdin.write(toolsCall(3, 'echo', { n: 1 }));
  for (const id of [1, 2, 3]) await responseTo(proxy, id);
  t.equal(messagesIn(proxy.stdout()).length, 3, 'three answers reached the host');
  proxy.child.stdin.end();
  const { code } = await proxy.exited;
  t.equal(code, 0, 'the server exited 0');

  t.notMatch(proxy.stderr(), /before answering anything/, 'no claim that the server never answered');
  t.same(ours(proxy.stderr()), [degradeNotice('server', 140)], 'our only line is the degrade notice');

  const run = await waitForRun(server, proxy.child.pid as number);
  t.same(shapeProblems(run), [], 'a well-formed run');
  t.equal(run.status, 'ok', 'the run is ok: the session worked');
  t.match(only(run, 'mcp:session'), { status: 'ok', output: { exitCode: 0, signal: null } }, 'the session ended without an error');
  t.notOk(run.instances.some((instance) => instance.error?.name === 'NoAnswer'), 'no NoAnswer anywhere');
  for (const nodeId of ['mcp:initialize', 'mcp:ping', 'tool:echo']) {
    const call = only(run, nodeId);
    t.equal(call.status, 'ok', `${nodeId} ends without an error`);
    t.same(call.output, NOT_OBSERVED, `${nodeId} says its answer was not observed, and why`);
  }
  t.same(only(run, 'mcp:protocol').output, { calls: 2, errors: 0, stdoutNoise: 0 }, 'no protocol call failed');
  t.same(
    run.logs.filter((log) => log.stream !== 'stderr').map(({ nodeId, stream, text }) => ({ nodeId, stream, text })),
    [{ nodeId: 'mcp:session', stream: 'graphmind', text: degradeNotice('server', 140) }],
    'the degrade is on the session node, as a log line of the proxy',
  );
});

t.test('a crash after the server’s output became a raw pipe: said honestly, and the run stays ok', async (t) => {
  const proxy = proxyOver(t, ['--max-frame-bytes', '140'], [node, fixture('echo-server.mjs')]);
  proxy.child.stdin.write(shortInitialize(1));
  await responseTo(proxy, 1);
  proxy.child.stdin.write(toolsCall(2, 'exit', { code: 3 }));
  const { code } = await proxy.exited;
  t.equal(code, 3, 'the proxy exits with the server’s code');

  const stderr = proxy.stderr();
  t.notMatch(stderr, /before answering anything/, 'no claim that the server never answered');
  const head =
    `${PREFIX}the MCP server exited with code 3; whether it answered is not known, since its stdout had become a raw byte pipe` +
    ' (a line larger than --max-frame-bytes) — its last stderr output was:';
  t.same(ours(stderr), [degradeNotice('server', 140), head], 'the notice, then the crash');
  const all = lines(stderr);
  t.match(all[all.indexOf(head) + 1], /^ {4}echo-server: \{"pid":\d+/, 'with the server’s last stderr lines');

  const run = await waitForRun(server, proxy.child.pid as number);
  t.same(shapeProblems(run), [], 'a well-formed run');
  t.equal(run.status, 'ok', 'not known to have answered nothing: the run stays ok');
  t.match(
    only(run, 'mcp:session'),
    { status: 'error', error: { name: 'McpServerExited', message: /exited with code 3; whether it answered is not known/, data: { exitCode: 3, signal: null, stderr: [/^echo-server: /] } } },
    'the session shows the crash',
  );
  t.same(only(run, 'tool:exit').output, NOT_OBSERVED, 'the call it died in: not observed, not NoAnswer');
  t.equal(only(run, 'tool:exit').status, 'ok');
  t.same(only(run, 'mcp:initialize').output, NOT_OBSERVED);
});

t.test('the client’s output over --max-frame-bytes: later requests are unseen, their answers ignored, the degrade recorded', async (t) => {
  const record = join(tempDir('graphmind-audit-'), 'server-stdout.bin');
  const proxy = proxyOver(t, ['--max-frame-bytes', '200'], [node, fixture('huge-frame-server.mjs'), record]);
  proxy.child.stdin.write(shortInitialize(1));
  await responseTo(proxy, 1);
  // 500 bytes of arguments: this request turns the client → server direction into a raw pipe.
  proxy.child.stdin.write(toolsCall(2, 'measure', { blob: 'y'.repeat(500) }));
  await responseTo(proxy, 2);
  proxy.child.stdin.write(toolsCall(3, 'after'));
  await responseTo(proxy, 3);
  proxy.child.stdin.end();
  const { code } = await proxy.exited;
  t.equal(code, 0);
  t.ok(proxy.stdout().equals(readFileSync(record)), 'the host received every byte the server wrote');
  t.same(ours(proxy.stderr()), [degradeNotice('client', 200)], 'our only line is the degrade notice');

  const run = await waitForRun(server, proxy.child.pid as number);
  t.same(shapeProblems(run), [], 'a well-formed run');
  t.equal(run.status, 'ok');
  t.match(only(run, 'mcp:session'), { status: 'ok' });
  t.match(only(run, 'mcp:initialize'), { status: 'ok', output: { serverInfo: { name: 'huge-frame-server' } } }, 'the call before the degrade as it was');
  t.same(
    run.nodes.map((n) => n.nodeId).sort(),
    ['mcp:initialize', 'mcp:protocol', 'mcp:session'],
    'the requests after it were not seen, and answers to them make nothing up',
  );
  t.same(only(run, 'mcp:protocol').output, { calls: 1, errors: 0, stdoutNoise: 0 });
  t.same(
    run.logs.filter((log) => log.stream === 'graphmind').map(({ nodeId, text }) => ({ nodeId, text })),
    [{ nodeId: 'mcp:session', text: degradeNotice('client', 200) }],
    'the degrade is on the session node',
  );
});

t.test('the early-exit line starts a line of its own after server stderr without a final newline', async (t) => {
  const script = 'process.stderr.write("line one\\r\\nno newline at end"); process.exitCode = 9;';
  const proxy = proxyOver(t, [], [node, '-e', script], false);
  const { code } = await proxy.exited;
  t.equal(code, 9);
  t.equal(
    proxy.stderr(),
    'line one\r\nno newline at end\n' +
      `${PREFIX}the MCP server exited with code 9 before answering anything — its last stderr output was:\n` +
      '    line one\n' +
      '    no newline at end\n',
    'the server’s bytes unchanged, then one newline, then our line',
  );
});

t.test('trace, stdout-noise and degrade lines start lines of their own; the server’s bytes are unchanged', async (t) => {
  const proxy = proxyOver(t, ['--trace', '--max-frame-bytes', '4096'], [node, fixture('partial-stderr-server.mjs')], false);
  await stderrMatch(proxy, /partial-server: up/);
  proxy.child.stdin.write(shortInitialize(1));
  await responseTo(proxy, 1);
  proxy.child.stdin.write(toolsCall(2, 'noise'));
  await responseTo(proxy, 2);
  proxy.child.stdin.write(toolsCall(3, 'big', { bytes: 8000 }));
  await responseTo(proxy, 3);
  proxy.child.stdin.end();
  const { code } = await proxy.exited;
  t.equal(code, 0);

  const stderr = proxy.stderr();
  const all = stderr.split('\n');
  const glued = all.filter((line) => line.includes(PREFIX) && !line.startsWith(PREFIX));
  t.same(glued, [], 'no line of ours is glued to the end of a server line');
  t.equal(
    all.filter((line) => !line.startsWith(PREFIX)).join(''),
    'partial-server: up' + 'partial-server: initialize 1' + 'partial-server: tools/call 2' + 'partial-server: tools/call 3',
    'without our lines, exactly the bytes the server wrote (nothing added to them but the newlines before ours)',
  );
  const mine = ours(stderr);
  t.ok(mine.some((line) => line.startsWith(`${PREFIX}trace client → server request initialize #1`)), 'a trace line for initialize');
  t.ok(mine.some((line) => line.startsWith(`${PREFIX}trace server → client response`)), 'a trace line for an answer');
  t.ok(mine.some((line) => line.startsWith(`${PREFIX}the MCP server wrote a line to stdout that is not JSON-RPC: "debug: not json-rpc"`)), 'the first-noise line');
  t.ok(mine.includes(degradeNotice('server', 4096)), 'the degrade notice');
  t.ok(mine.some((line) => line.startsWith(`${PREFIX}1 line(s) the server wrote to stdout were not JSON-RPC`)), 'the noise summary');
});

t.test('the HOLDING line starts a line of its own', async (t) => {
  await armed(t, { pauseOnError: false, nodes: { 'tool:hold': { before: true } } });
  const proxy = await initialized(t);
  // stdout and stderr are separate pipes: wait for the stderr line rather than assume it came first.
  t.ok(await stderrMatch(proxy, /partial-server: initialize 1$/), 'the server’s last stderr write left its line open');
  proxy.child.stdin.write(toolsCall(2, 'hold', { n: 2 }));
  const hold = await waitForHold(server, { nodeId: 'tool:hold' });
  await stderrMatch(proxy, /HOLDING/);
  t.ok(
    lines(proxy.stderr()).some((line) => /^graphmind mcp-proxy: HOLDING tools\/call #2 at the before gate/.test(line)),
    'the HOLDING line starts a line',
  );
  t.notOk(lines(proxy.stderr()).some((line) => line.includes(PREFIX) && !line.startsWith(PREFIX)), 'nothing of ours is glued');
  await decide(server, hold.holdId, 'continue');
  await responseTo(proxy, 2);
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);
});

t.test('mcp:protocol counts protocol calls left unanswered at exit among its errors', async (t) => {
  const proxy = proxyOver(t, [], [node, fixture('partial-stderr-server.mjs')]);
  proxy.child.stdin.write(shortInitialize(1));
  proxy.child.stdin.write(frame({ id: 2, method: 'prompts/list' }));
  proxy.child.stdin.write(frame({ id: 3, method: 'ping' }));
  proxy.child.stdin.write(toolsCall(4, 'echo', { n: 4 }));
  for (const id of [1, 2, 4]) await responseTo(proxy, id);
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);

  const run = await waitForRun(server, proxy.child.pid as number);
  t.same(shapeProblems(run), [], 'a well-formed run');
  t.match(only(run, 'mcp:prompts/list'), { status: 'error', error: { name: 'JsonRpcError', code: -32601 } });
  t.match(only(run, 'mcp:ping'), { status: 'error', error: { name: 'NoAnswer' } }, 'ping was never answered');
  t.match(only(run, 'tool:echo'), { status: 'ok' });
  t.same(only(run, 'mcp:protocol').output, { calls: 3, errors: 2, stdoutNoise: 0 }, 'both failed protocol calls are counted');
  t.equal(run.status, 'ok', 'it answered: the run is ok');
});

t.test('mcp:protocol counts a protocol call aborted in the debugger among its errors', async (t) => {
  await armed(t, { pauseOnError: false, nodes: { 'mcp:ping': { before: true } } });
  const proxy = await initialized(t);
  proxy.child.stdin.write(frame({ id: 2, method: 'ping' }));
  const hold = await waitForHold(server, { nodeId: 'mcp:ping' });
  await decide(server, hold.holdId, 'abort');
  t.match(await responseTo(proxy, 2), { error: { code: -32099 } }, 'the host got the abort error');
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);

  const run = await waitForRun(server, proxy.child.pid as number);
  t.match(only(run, 'mcp:ping'), { status: 'error', error: { name: 'Aborted' } });
  t.same(only(run, 'mcp:protocol').output, { calls: 2, errors: 1, stdoutNoise: 0 }, 'the aborted call is counted');
});

t.test('a server that exits 0 on its own before answering, the host still connected, exited early', async (t) => {
  const script = 'console.error("boot: no tools configured, nothing to serve");';
  const proxy = proxyOver(t, [], [node, '-e', script]);
  // The host keeps our stdin open: it never asked the server to stop.
  const { code } = await proxy.exited;
  t.equal(code, 0, 'the proxy exits with the server’s code');
  t.same(
    lines(proxy.stderr()),
    [
      'boot: no tools configured, nothing to serve',
      `${PREFIX}the MCP server exited with code 0 before answering anything — its last stderr output was:`,
      '    boot: no tools configured, nothing to serve',
    ],
    'the early-exit line with the stderr tail',
  );
  t.equal(proxy.stdout().length, 0, 'nothing on stdout');

  const run = await waitForRun(server, proxy.child.pid as number);
  t.equal(run.status, 'error', 'the run ends error');
  t.match(
    only(run, 'mcp:session'),
    { status: 'error', error: { name: 'McpServerExitedEarly', message: /exited with code 0 before answering anything/, data: { exitCode: 0, signal: null, stderr: ['boot: no tools configured, nothing to serve'] } } },
    'McpServerExitedEarly on the session',
  );
  proxy.child.stdin.end();
});

t.test('a debugger that turns the proxy away is said once on stderr, however often it does, and the session goes on', async (t) => {
  const refusals: Array<[number, string]> = [
    [
      401,
      'its token is not the one this proxy presents (give mcp-proxy the --data-dir that `graphmind serve` was given, or set GRAPHMIND_DATA_DIR to it, or GRAPHMIND_TOKEN)',
    ],
    [503, 'it answered HTTP 503'],
  ];
  for (const [status, why] of refusals) {
    // A stand-in for the debugger that proves it holds the proxy's token
    // (so the proxy goes on to the handshake), then refuses every upgrade
    // with `status`, and counts them.
    let upgrades = 0;
    const { http: stub, port } = await provingServer(0, 'not-the-token');
    stub.on('upgrade', (_req, socket: Duplex) => {
      upgrades++;
      socket.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
    t.teardown(() => new Promise((resolve) => stub.close(resolve)));
    const proxy = startProxy(['--port', String(port)], [node, fixture('echo-server.mjs')], { env: withEnv({ GRAPHMIND_TOKEN: 'not-the-token' }) });
    stopAtTeardown(t, proxy);
    proxy.child.stdin.write(shortInitialize(1));
    await responseTo(proxy, 1);
    // Turned away three times (it keeps trying, with backoff).
    await waitFor(() => upgrades >= 3, 20_000, `three refused attempts (${status})`);
    proxy.child.stdin.write(toolsCall(2, 'echo', { n: 1 }));
    await responseTo(proxy, 2);
    proxy.child.stdin.end();
    const { code } = await proxy.exited;
    t.equal(code, 0, `${status}: the session ended as the server did`);
    t.equal(messagesIn(proxy.stdout()).length, 2, `${status}: every answer reached the host`);
    t.same(
      ours(proxy.stderr()),
      [`${PREFIX}the debugger at http://127.0.0.1:${port} refused this proxy: ${why}; relaying without it, and trying again`],
      `${status}: one line after ${upgrades} refusals, naming the cause`,
    );
  }
});

t.test('answers still in the pipe when the server exits reach the host, though the error gate would hold them', async (t) => {
  // Pause on error: each failed answer would be held, one after the other.
  await armed(t, { pauseOnError: true, nodes: {} });
  const proxy = proxyOver(t, ['--wait-for-attach'], [node, fixture('answer-all-then-exit.mjs'), '3']);
  proxy.child.stdin.write([1, 2, 3].map((id) => toolsCall(id, 'fail', { id })).join(''));
  const { code } = await proxy.exited;
  t.equal(code, 0, 'the proxy exits with the server’s code');
  const answers = messagesIn(proxy.stdout());
  t.same(
    answers.map((m) => m.id),
    [1, 2, 3],
    'every answer the server wrote before it exited reached the host, in order (once the server is gone nothing is held)',
  );
  t.ok(
    answers.every((m) => (m.result as { isError?: boolean } | undefined)?.isError === true),
    'unchanged: the failed results themselves',
  );
});

t.test('answers made in the debugger carry the request’s id exactly as it was spelled', async (t) => {
  await armed(t, { pauseOnError: false, nodes: { 'mcp:ping': { before: true } } });
  const proxy = await initialized(t);
  // Ids a JavaScript number would change: too big for a double's integers, out of range, a float spelling, -0, an escaped string.
  const ids = ['12345678901234567890', '1e400', '1.0', '-0', '"a\\u0062c"'];
  for (const [i, id] of ids.entries()) {
    const action = i % 2 === 0 ? 'abort' : 'inject';
    const before = proxy.stdout().length;
    proxy.child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    const hold = await waitForHold(server, { nodeId: 'mcp:ping' });
    await decide(server, hold.holdId, action, action === 'inject' ? {} : undefined);
    await waitFor(() => proxy.stdout().subarray(before).includes(0x0a), 10_000, `the answer to id ${id}`);
    const answer = proxy.stdout().subarray(before).toString('utf8');
    t.ok(answer.startsWith(`{"jsonrpc":"2.0","id":${id},`), `${action} of id ${id}: the id as the host wrote it (${answer.trim()})`);
    t.doesNotThrow(() => JSON.parse(answer), `${action} of id ${id}: the answer is one JSON line`);
  }
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);
});
