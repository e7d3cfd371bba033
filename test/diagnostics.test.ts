// The three failure diagnostics of `graphmind mcp-proxy` (stdout noise, a
// server that exits before answering, a frame over --max-frame-bytes), checked
// against the exact lines the spec quotes, through the built CLI and real
// child processes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { runProxy } from '../src/proxy/run-proxy.js';
import { NO_DEBUGGER_PORT, PROXY_FIXTURES, startProxy } from './helpers/cli.js';
import { FakeChild, collectingSink, initialize, isAlive, killQuietly, lines, responseTo, toolsCall } from './helpers/wire.js';

const node = process.execPath;
const fixture = (name: string): string => join(PROXY_FIXTURES, name);

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-proxy-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const NOISE_FIRST =
  'graphmind mcp-proxy: the MCP server wrote a line to stdout that is not JSON-RPC: "debug: loading config from ./config.json"' +
  ' — stdout is the MCP wire; log to stderr instead (console.error, or your logger pointed at stderr).' +
  ' Relayed verbatim; the client may reject it. Further lines are counted, not printed.';
const NOISE_SUMMARY =
  'graphmind mcp-proxy: 5 line(s) the server wrote to stdout were not JSON-RPC and were relayed verbatim' +
  ' — stdout is the MCP wire; log to stderr (see "stdout noise" on the graph)';
const CRASH_HEAD =
  'graphmind mcp-proxy: the MCP server exited with code 2 before answering anything — its last stderr output was:';

t.test('stdout noise: the first line quoted, the rest counted, the bytes untouched', async (t) => {
  const record = join(tempDir(t), 'server-stdout.bin');
  const proxy = startProxy([], [node, fixture('noisy-server.mjs'), record]);
  t.teardown(() => killQuietly(proxy.child.pid));

  proxy.child.stdin.write(initialize(1));
  await responseTo(proxy, 1);
  proxy.child.stdin.write(toolsCall(2, 'echo', { text: 'a' }));
  await responseTo(proxy, 2);
  proxy.child.stdin.write(toolsCall(3, 'echo', { text: 'b' }));
  await responseTo(proxy, 3);
  proxy.child.stdin.end();

  const { code } = await proxy.exited;
  t.equal(code, 0, 'the proxy exits with the server’s code');
  const serverWrote = readFileSync(record);
  t.ok(serverWrote.includes('\r\n') && serverWrote.includes('1.0e2') && serverWrote.includes('\\u00e9'), 'the server wrote awkward bytes');
  t.ok(proxy.stdout().equals(serverWrote), 'the proxy’s stdout is exactly the bytes the server wrote, noise included');
  t.same(lines(proxy.stderr()), [NOISE_FIRST, NOISE_SUMMARY], 'stderr: the first noise line quoted, then the count at the end');
});

t.test('a server that crashes on boot: the exit code and the last stderr lines', async (t) => {
  const proxy = startProxy([], [node, fixture('crash-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.write(initialize(1));

  const { code } = await proxy.exited;
  t.equal(code, 2, 'the proxy exits with the server’s code');
  t.equal(proxy.stdout().length, 0, 'nothing on stdout');
  const stderr = proxy.stderr();
  const at = stderr.indexOf(`${CRASH_HEAD}\n`);
  t.ok(at > 0, 'the early-exit line is printed after the server’s own stderr');
  const diagnostic = lines(stderr.slice(at));
  t.equal(diagnostic[0], CRASH_HEAD);
  const shown = diagnostic.slice(1);
  t.same(
    shown,
    lines(stderr.slice(0, at)).map((line) => `    ${line}`),
    'every stderr line of the server, indented by four spaces, and nothing after them',
  );
  t.same(shown.slice(0, 4), [
    '    crash-server: line 1 of 3',
    '    crash-server: line 2 of 3',
    '    crash-server: line 3 of 3',
    '    Error: FATAL: DATABASE_URL is not set',
  ]);
  t.match(shown[4], /^ {8}at boot \(.*crash-server\.mjs:\d+:\d+\)$/, 'the stack names boot');
});

t.test('a crash on boot is reported even when the host closed stdin at once (no input at all)', async (t) => {
  const proxy = startProxy([], [node, fixture('crash-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.end();
  const { code } = await proxy.exited;
  t.equal(code, 2, 'the proxy exits with the server’s code');
  t.equal(proxy.stdout().length, 0, 'nothing on stdout');
  const diagnostic = lines(proxy.stderr().slice(proxy.stderr().indexOf(`${CRASH_HEAD}\n`)));
  t.equal(diagnostic[0], CRASH_HEAD, 'the early-exit line');
  t.equal(diagnostic[4], '    Error: FATAL: DATABASE_URL is not set', 'with the server’s last stderr lines');
});

t.test('a server that exits 0 when the host closes stdin unasked prints no early-exit line', async (t) => {
  const proxy = startProxy([], [node, fixture('echo-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.end();
  const { code } = await proxy.exited;
  t.equal(code, 0);
  t.notMatch(proxy.stderr(), /before answering anything/, 'nothing to report: it was never asked');
});

t.test('a crash after a long log shows only the last 40 stderr lines', async (t) => {
  const proxy = startProxy([], [node, fixture('crash-server.mjs'), '60']);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.write(initialize(1));

  const { code } = await proxy.exited;
  t.equal(code, 2);
  const stderr = proxy.stderr();
  const at = stderr.indexOf(`${CRASH_HEAD}\n`);
  t.ok(at > 0, 'the early-exit line is printed');
  const serverLines = lines(stderr.slice(0, at));
  t.ok(serverLines.length > 60, 'the server wrote more than 60 lines');
  const shown = lines(stderr.slice(at)).slice(1);
  t.equal(shown.length, 40, 'exactly 40 lines are shown');
  t.same(shown, serverLines.slice(-40).map((line) => `    ${line}`), 'the last 40, in order');
  t.notOk(shown.includes('    crash-server: log line 1 of 60'), 'the oldest lines are left out');
  t.ok(shown.includes('    crash-server: line 3 of 3') && shown.includes('    Error: FATAL: DATABASE_URL is not set'));
});

t.test('with --inherit-stderr the early-exit line points above instead', async (t) => {
  const proxy = startProxy(['--inherit-stderr'], [node, fixture('crash-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.write(initialize(1));

  const { code } = await proxy.exited;
  t.equal(code, 2);
  const all = lines(proxy.stderr());
  t.ok(all.includes('Error: FATAL: DATABASE_URL is not set'), 'the server wrote straight to the inherited stderr');
  const last = all[all.length - 1] ?? '';
  t.ok(
    last.startsWith('graphmind mcp-proxy: the MCP server exited with code 2 before answering anything — '),
    'the early-exit line is the last line',
  );
  t.match(last, /--inherit-stderr/);
  t.match(last, /above/);
  t.equal(all.filter((line) => line.startsWith('    ')).length, all.filter((line) => line.startsWith('    at ')).length, 'no indented tail is printed');
  t.equal(all.filter((line) => line.includes('before answering anything')).length, 1, 'one early-exit line');
});

t.test('a Windows crash code is named (injected spawn)', async (t) => {
  const sink = collectingSink();
  const stdin = new PassThrough();
  t.teardown(() => stdin.destroy());
  const result = await runProxy({
    command: 'server.exe',
    port: NO_DEBUGGER_PORT,
    stdin,
    stdout: new PassThrough(),
    stderr: sink,
    handleSignals: false,
    spawn: () => {
      const child = new FakeChild();
      setImmediate(() => {
        child.emit('spawn');
        child.stderr.write('server.exe: reading config\n');
        setImmediate(() => child.exit(3221225477));
      });
      return child.asChildProcess();
    },
  });
  t.equal(result.exitCode, 3221225477);
  t.equal(result.outcome, 'exited');
  t.same(lines(sink.text()), [
    'server.exe: reading config',
    'graphmind mcp-proxy: the MCP server exited with code 3221225477 (STATUS_ACCESS_VIOLATION) before answering anything — its last stderr output was:',
    '    server.exe: reading config',
  ]);
});

t.test('a server that answered once and then fails prints no early-exit line', async (t) => {
  const proxy = startProxy([], [node, fixture('echo-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.write(initialize(1));
  await responseTo(proxy, 1);
  proxy.child.stdin.write(toolsCall(2, 'exit', { code: 3 }));

  const { code } = await proxy.exited;
  t.equal(code, 3, 'the proxy exits with the server’s code');
  t.notMatch(proxy.stderr(), /before answering anything/);
  t.notMatch(proxy.stderr(), /graphmind mcp-proxy:/, 'no diagnostic at all');
});

t.test('a server that never answers and exits is reported when the request is left unanswered', async (t) => {
  const proxy = startProxy([], [node, fixture('silent-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.write(initialize(1));
  await new Promise((resolve) => setTimeout(resolve, 200));
  proxy.child.stdin.end();

  const { code } = await proxy.exited;
  t.equal(code, 0);
  const all = lines(proxy.stderr());
  const at = all.indexOf('graphmind mcp-proxy: the MCP server exited with code 0 before answering anything — its last stderr output was:');
  t.ok(at > 0, 'the early-exit line is printed');
  t.match(all[at + 1], /^ {4}silent-server: pid \d+$/);
  t.equal(all[at + 2], '    silent-server: stdin ended');
  t.equal(all.length, at + 3, 'nothing after the tail');
});

t.test('a frame over --max-frame-bytes degrades that stream to a raw pipe; the session goes on', async (t) => {
  const record = join(tempDir(t), 'server-stdout.bin');
  const limit = 1024 * 1024;
  const proxy = startProxy(['--max-frame-bytes', String(limit)], [node, fixture('huge-frame-server.mjs'), record]);
  t.teardown(() => killQuietly(proxy.child.pid));

  proxy.child.stdin.write(initialize(1));
  await responseTo(proxy, 1);
  proxy.child.stdin.write(toolsCall(2, 'big', { bytes: 3 * 1024 * 1024 }));
  const big = await responseTo(proxy, 2);
  t.ok(JSON.stringify(big).length > 3 * 1024 * 1024, 'the 3 MiB answer arrived whole');
  proxy.child.stdin.write(toolsCall(3, 'after'));
  await responseTo(proxy, 3);

  // And the other way: a 3 MiB request reaches the server byte for byte.
  const request = Buffer.from(toolsCall(4, 'measure', { blob: 'y'.repeat(3 * 1024 * 1024) }));
  proxy.child.stdin.write(request);
  const measured = (await responseTo(proxy, 4)) as { result: { content: Array<{ text: string }> } };
  t.same(JSON.parse(measured.result.content[0]?.text ?? '{}'), {
    bytes: request.length,
    sha256: createHash('sha256').update(request).digest('hex'),
  });
  proxy.child.stdin.write(toolsCall(5, 'after'));
  await responseTo(proxy, 5);
  proxy.child.stdin.end();

  const { code } = await proxy.exited;
  t.equal(code, 0);
  t.ok(proxy.stdout().equals(readFileSync(record)), 'the client received every byte the server wrote, exactly');
  const notices = lines(proxy.stderr());
  t.equal(notices.length, 2, 'one notice per degraded direction, nothing else');
  t.match(notices[0], /^graphmind mcp-proxy: a line from the server is larger than --max-frame-bytes \(1048576 bytes\).*raw/);
  t.match(notices[1], /^graphmind mcp-proxy: a line from the client is larger than --max-frame-bytes \(1048576 bytes\).*raw/);
  t.notOk(isAlive(proxy.child.pid ?? 0), 'the proxy is gone');
});
