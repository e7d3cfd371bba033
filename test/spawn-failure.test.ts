// A server command that cannot be started: one plain line naming the cause,
// exit code 127, nothing on stdout. ENOENT (not on PATH, no such file at an
// absolute or a relative path, a missing #! interpreter) and EACCES (a file
// that is not executable, a directory) through the built CLI;
// the Windows .cmd/.bat case (EINVAL) through runProxy's injectable spawn.
import type { SpawnOptions } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { EXIT_CANNOT_RUN, runProxy, type SpawnFunction } from '../src/proxy/run-proxy.js';
import { NO_DEBUGGER_PORT, startProxy } from './helpers/cli.js';
import { FakeChild, collectingSink, killQuietly, lines } from './helpers/wire.js';

type Teardown = { teardown(fn: () => unknown): void };

/** A fresh directory, removed at teardown. */
function scratchDir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-spawn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A script at `dir/name` with `text`, of `mode`. */
function script(dir: string, name: string, text: string, mode: number): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

/** The proxy started on a server `command` that cannot run: its exit code, stdout and stderr lines. */
async function cannotRun(t: Teardown, command: readonly string[], options: SpawnOptions = {}): Promise<{ code: number | null; stdout: Buffer; stderr: string[] }> {
  const proxy = startProxy([], command, options);
  t.teardown(() => killQuietly(proxy.child.pid));
  const { code } = await proxy.exited;
  return { code, stdout: proxy.stdout(), stderr: lines(proxy.stderr()) };
}

t.test('a command that is not on PATH (ENOENT)', async (t) => {
  const { code, stdout, stderr } = await cannotRun(t, ['no-such-mcp-server', '--stdio']);
  t.equal(code, 127);
  t.equal(stdout.length, 0, 'nothing on stdout');
  t.same(stderr, [
    'graphmind mcp-proxy: cannot run "no-such-mcp-server": spawn no-such-mcp-server ENOENT — the command was not found on PATH; check the "command" in your MCP client config',
  ]);
});

t.test('a path to a file that does not exist (ENOENT)', async (t) => {
  const missing = join(scratchDir(t), 'build', 'server.js');
  const { code, stdout, stderr: all } = await cannotRun(t, [missing]);
  t.equal(code, 127);
  t.equal(stdout.length, 0);
  t.equal(all.length, 1, 'one line');
  t.ok(all[0]?.startsWith(`graphmind mcp-proxy: cannot run ${JSON.stringify(missing)}: spawn ${missing} ENOENT — `));
  t.notMatch(all[0] ?? '', /PATH/, 'a path is not looked up on PATH, so the hint does not talk about it');
  t.ok(all[0]?.endsWith(' ENOENT — there is no such file; check the "command" in your MCP client config'), 'an absolute path is not told to be absolute');
});

t.test('a relative path to a file that is not there (ENOENT): the hint says why relative paths break', async (t) => {
  const { code, stderr } = await cannotRun(t, ['./build/server.js'], { cwd: scratchDir(t) });
  t.equal(code, 127);
  t.same(stderr, [
    'graphmind mcp-proxy: cannot run "./build/server.js": spawn ./build/server.js ENOENT — there is no such file here;' +
      ' a relative path depends on the directory the host starts the server in, so use an absolute path',
  ]);
});

t.test('a directory given as the command (EACCES): the hint is not about permissions', async (t) => {
  const dir = scratchDir(t);
  const { code, stderr } = await cannotRun(t, [dir]);
  t.equal(code, 127);
  t.same(stderr, [
    `graphmind mcp-proxy: cannot run ${JSON.stringify(dir)}: spawn ${dir} EACCES — that is a directory; point "command" at the server's executable or script`,
  ]);
});

t.test('a script whose #! interpreter is missing (ENOENT on a file that exists): the hint names the #! line', async (t) => {
  const file = script(scratchDir(t), 'server.py', '#!/no/such/python9\nprint("never")\n', 0o755);
  const { code, stdout, stderr } = await cannotRun(t, [file]);
  t.equal(code, 127);
  t.equal(stdout.length, 0, 'nothing on stdout');
  t.same(stderr, [
    `graphmind mcp-proxy: cannot run ${JSON.stringify(file)}: spawn ${file} ENOENT — the file exists, so the interpreter its #! line names` +
      ' was not found; fix that line, or put the interpreter in "command" (such as "node" or "python3") and the file in "args"',
  ]);
});

t.test('a file that is not executable (EACCES)', async (t) => {
  const file = script(scratchDir(t), 'server.sh', '#!/bin/sh\necho never\n', 0o644);
  const { code, stdout, stderr: all } = await cannotRun(t, [file]);
  t.equal(code, 127);
  t.equal(stdout.length, 0, 'nothing on stdout');
  t.equal(all.length, 1, 'one line');
  const line = all[0] ?? '';
  t.ok(line.startsWith(`graphmind mcp-proxy: cannot run ${JSON.stringify(file)}: spawn ${file} EACCES — `), line);
  t.match(line, /make it executable/);
  t.match(line, `chmod +x ${file}`);
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
      port: NO_DEBUGGER_PORT,
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
