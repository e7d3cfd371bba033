// A server command that cannot be started: one plain line naming the cause,
// exit code 127, nothing on stdout. ENOENT (not on PATH, no such file at an
// absolute or a relative path, a missing #! interpreter) and EACCES (a file
// that is not executable, a directory) through the built CLI;
// the Windows .cmd/.bat case (EINVAL) through runProxy's injectable spawn.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { EXIT_CANNOT_RUN, runProxy, type SpawnFunction } from '../src/proxy/run-proxy.js';
import { startProxy } from './helpers/cli.js';
import { FakeChild, collectingSink, killQuietly, lines } from './helpers/wire.js';

t.test('a command that is not on PATH (ENOENT)', async (t) => {
  const proxy = startProxy([], ['no-such-mcp-server', '--stdio']);
  t.teardown(() => killQuietly(proxy.child.pid));
  const { code } = await proxy.exited;
  t.equal(code, 127);
  t.equal(proxy.stdout().length, 0, 'nothing on stdout');
  t.same(lines(proxy.stderr()), [
    'graphmind mcp-proxy: cannot run "no-such-mcp-server": spawn no-such-mcp-server ENOENT — the command was not found on PATH; check the "command" in your MCP client config',
  ]);
});

t.test('a path to a file that does not exist (ENOENT)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-spawn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'build', 'server.js');
  const proxy = startProxy([], [missing]);
  t.teardown(() => killQuietly(proxy.child.pid));
  const { code } = await proxy.exited;
  t.equal(code, 127);
  t.equal(proxy.stdout().length, 0);
  const all = lines(proxy.stderr());
  t.equal(all.length, 1, 'one line');
  t.ok(all[0]?.startsWith(`graphmind mcp-proxy: cannot run ${JSON.stringify(missing)}: spawn ${missing} ENOENT — `));
  t.notMatch(all[0] ?? '', /PATH/, 'a path is not looked up on PATH, so the hint does not talk about it');
  t.ok(all[0]?.endsWith(' ENOENT — there is no such file; check the "command" in your MCP client config'), 'an absolute path is not told to be absolute');
});

t.test('a relative path to a file that is not there (ENOENT): the hint says why relative paths break', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-spawn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const proxy = startProxy([], ['./build/server.js'], { cwd: dir });
  t.teardown(() => killQuietly(proxy.child.pid));
  const { code } = await proxy.exited;
  t.equal(code, 127);
  t.same(lines(proxy.stderr()), [
    'graphmind mcp-proxy: cannot run "./build/server.js": spawn ./build/server.js ENOENT — there is no such file here;' +
      ' a relative path depends on the directory the host starts the server in, so use an absolute path',
  ]);
});

t.test('a directory given as the command (EACCES): the hint is not about permissions', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-spawn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const proxy = startProxy([], [dir]);
  t.teardown(() => killQuietly(proxy.child.pid));
  const { code } = await proxy.exited;
  t.equal(code, 127);
  t.same(lines(proxy.stderr()), [
    `graphmind mcp-proxy: cannot run ${JSON.stringify(dir)}: spawn ${dir} EACCES — that is a directory; point "command" at the server's executable or script`,
  ]);
});

t.test('a script whose #! interpreter is missing (ENOENT on a file that exists): the hint names the #! line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-spawn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'server.py');
  writeFileSync(script, '#!/no/such/python9\nprint("never")\n');
  chmodSync(script, 0o755);
  const proxy = startProxy([], [script]);
  t.teardown(() => killQuietly(proxy.child.pid));
  const { code } = await proxy.exited;
  t.equal(code, 127);
  t.equal(proxy.stdout().length, 0, 'nothing on stdout');
  t.same(lines(proxy.stderr()), [
    `graphmind mcp-proxy: cannot run ${JSON.stringify(script)}: spawn ${script} ENOENT — the file exists, so the interpreter its #! line names` +
      ' was not found; fix that line, or put the interpreter in "command" (such as "node" or "python3") and the file in "args"',
  ]);
});

t.test('a file that is not executable (EACCES)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-spawn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'server.sh');
  writeFileSync(script, '#!/bin/sh\necho never\n');
  chmodSync(script, 0o644);
  const proxy = startProxy([], [script]);
  t.teardown(() => killQuietly(proxy.child.pid));
  const { code } = await proxy.exited;
  t.equal(code, 127);
  t.equal(proxy.stdout().length, 0, 'nothing on stdout');
  const all = lines(proxy.stderr());
  t.equal(all.length, 1, 'one line');
  const line = all[0] ?? '';
  t.ok(line.startsWith(`graphmind mcp-proxy: cannot run ${JSON.stringify(script)}: spawn ${script} EACCES — `), line);
  t.match(line, /make it executable/);
  t.match(line, `chmod +x ${script}`);
});

/** A spawn that fails the way Node does on Windows for a .cmd file. */
function einval(how: 'throws' | 'emits'): SpawnFunction {
  return (command) => {
    const error = Object.assign(new Error(`spawn ${command} EINVAL`), { code: 'EINVAL', errno: -4071, syscall: 'spawn' });
    if (how === 'throws') throw error;
    const child = new FakeChild();
    setImmediate(() => child.emit('error', error));
    return child.asChildProcess();
  };
}

for (const how of ['throws', 'emits'] as const) {
  t.test(`Windows: npx is a .cmd and cannot be spawned directly (EINVAL, spawn ${how})`, async (t) => {
    const sink = collectingSink();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const wire: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => wire.push(chunk));
    t.teardown(() => stdin.destroy());
    const result = await runProxy({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      stdin,
      stdout,
      stderr: sink,
      handleSignals: false,
      spawn: einval(how),
    });
    t.equal(result.exitCode, EXIT_CANNOT_RUN);
    t.equal(result.exitCode, 127);
    t.equal(result.outcome, 'spawn-failed');
    t.equal(Buffer.concat(wire).length, 0, 'nothing on the wire');
    const all = lines(sink.text());
    t.equal(all.length, 1, 'one line');
    const line = all[0] ?? '';
    t.ok(line.startsWith('graphmind mcp-proxy: cannot run "npx": spawn npx EINVAL — '), line);
    t.ok(line.includes('"command": "cmd"'), 'suggests cmd as the command');
    t.ok(line.includes('["/c", "npx", …]'), 'with /c and the original command as its arguments');
    t.match(line, /\.exe/, 'or pointing at the .exe');
  });
}
