// How a proxy session lives and ends: EOF reaches the server, exit codes and
// signals come back, signals sent to the proxy reach the server, a server that
// ignores SIGTERM is killed, a host that goes away ends the session cleanly,
// and the server's environment never carries GRAPHMIND_TOKEN.
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { descendantsOf, fromPs, running, signalMembers, stillRunning } from '../src/proxy/process-tree.js';
import { PROXY_FIXTURES, startProxy, waitFor, type ProxyProcess } from './helpers/cli.js';
import { exitedWithin, initialize, isAlive, killQuietly, lines, responseTo, stderrMatch, toolsCall } from './helpers/wire.js';

const node = process.execPath;
const fixture = (name: string): string => join(PROXY_FIXTURES, name);

/** Start the proxy over a fixture; kill both (proxy first) at teardown. */
function proxyOver(
  t: { teardown(fn: () => void): void },
  server: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { proxy: ProxyProcess; childPid: () => Promise<number> } {
  const proxy = startProxy([], server, { env });
  let pid: number | undefined;
  t.teardown(() => {
    killQuietly(proxy.child.pid);
    killQuietly(pid);
  });
  return {
    proxy,
    childPid: async () => {
      const match = await stderrMatch(proxy, /(?:silent|chatty)-server: pid (\d+)|echo-server: \{"pid":(\d+)/);
      pid = Number(match[1] ?? match[2]);
      return pid;
    },
  };
}

const signalCode = (signal: NodeJS.Signals): number => 128 + (osConstants.signals[signal] as number);

t.test('the host closes stdin: the server sees EOF and its exit code comes back', async (t) => {
  const { proxy, childPid } = proxyOver(t, [node, fixture('silent-server.mjs')], { ...process.env, SILENT_SERVER_EOF_EXIT: '5' });
  const pid = await childPid();
  const start = Date.now();
  proxy.child.stdin.end();
  const { code } = await exitedWithin(proxy, 15_000);
  t.equal(code, 5, 'the proxy exits with the code the server chose on EOF');
  t.ok(Date.now() - start < 4500, 'promptly: the server exited on EOF, not after the 5 s stdin-close grace period');
  t.match(proxy.stderr(), /silent-server: stdin ended\n/, 'the server saw its stdin end');
  t.notOk(isAlive(pid), 'the server is gone');
});

t.test('the server exits with code 3: so does the proxy', async (t) => {
  const { proxy } = proxyOver(t, [node, fixture('echo-server.mjs')]);
  proxy.child.stdin.write(initialize(1));
  await responseTo(proxy, 1);
  proxy.child.stdin.write(toolsCall(2, 'exit', { code: 3 }));
  const { code, signal } = await exitedWithin(proxy, 15_000);
  t.equal(signal, null);
  t.equal(code, 3);
});

for (const killer of ['SIGKILL', 'SIGSEGV'] as const) {
  t.test(`the server is killed by ${killer}: the proxy exits 128+n`, async (t) => {
    const { proxy } = proxyOver(t, [node, fixture('echo-server.mjs')]);
    proxy.child.stdin.write(initialize(1));
    await responseTo(proxy, 1);
    proxy.child.stdin.write(toolsCall(2, 'exit', { signal: killer }));
    const { code, signal } = await exitedWithin(proxy, 15_000);
    t.equal(signal, null, 'the proxy itself exits normally');
    t.equal(code, signalCode(killer));
  });
}

for (const sent of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  t.test(`${sent} to the proxy reaches the server and leaves no orphan`, async (t) => {
    // It ignores stdin EOF, so only the forwarded signal can end it.
    const { proxy, childPid } = proxyOver(t, [node, fixture('silent-server.mjs')], { ...process.env, SILENT_SERVER_IGNORE_EOF: '1' });
    const pid = await childPid();
    t.ok(isAlive(pid), 'the server runs');
    proxy.child.kill(sent);
    const { code, signal } = await exitedWithin(proxy, 15_000);
    t.equal(signal, null, 'the proxy handled the signal and exited on its own');
    t.equal(code, signalCode(sent), 'with the code of the server killed by that signal');
    t.notOk(isAlive(pid), 'the server is gone: no orphan');
    t.notMatch(proxy.stderr(), /before answering anything/, 'stopping it on purpose is not reported as a crash');
  });
}

t.test('a server that ignores SIGTERM is SIGKILLed after the grace period', async (t) => {
  const { proxy, childPid } = proxyOver(t, [node, fixture('silent-server.mjs')], {
    ...process.env,
    SILENT_SERVER_IGNORE_SIGTERM: '1',
    SILENT_SERVER_IGNORE_EOF: '1',
  });
  const pid = await childPid();
  const start = Date.now();
  proxy.child.kill('SIGTERM');
  await stderrMatch(proxy, /silent-server: ignoring SIGTERM\n/);
  t.ok(isAlive(pid), 'the server survives SIGTERM at first');
  const { code } = await exitedWithin(proxy, 15_000);
  const elapsed = Date.now() - start;
  t.ok(elapsed >= 2900, `the proxy waited the 3 s grace period (${elapsed} ms)`);
  t.ok(elapsed < 8000, `and then did not wait much longer (${elapsed} ms)`);
  t.equal(code, signalCode('SIGKILL'));
  t.notOk(isAlive(pid), 'the server is gone');
});

t.test('the host closes stdin but the server stays up: it is stopped after the grace period', async (t) => {
  const { proxy, childPid } = proxyOver(t, [node, fixture('silent-server.mjs')], { ...process.env, SILENT_SERVER_IGNORE_EOF: '1' });
  const pid = await childPid();
  const start = Date.now();
  proxy.child.stdin.end();
  await stderrMatch(proxy, /silent-server: stdin ended, staying up\n/);
  const { code } = await exitedWithin(proxy, 15_000);
  const elapsed = Date.now() - start;
  t.ok(elapsed >= 4900, `the server had the 5 s grace period (${elapsed} ms)`);
  t.ok(elapsed < 9000, `then it was stopped (${elapsed} ms)`);
  t.equal(code, signalCode('SIGTERM'), 'by SIGTERM');
  t.notOk(isAlive(pid), 'no orphan');
  t.notMatch(proxy.stderr(), /graphmind mcp-proxy:/, 'an orderly stop is not reported as a failure');
});

t.test('the host closes its end of our stdout while the server writes: a clean end', async (t) => {
  const { proxy, childPid } = proxyOver(t, [node, fixture('chatty-server.mjs')]);
  const pid = await childPid();
  await waitFor(() => proxy.stdout().length > 1000, 10_000, 'notifications on stdout');
  proxy.child.stdout.destroy();
  const { code, signal } = await exitedWithin(proxy, 15_000);
  t.equal(signal, null, 'the proxy was not killed by SIGPIPE');
  t.not(code, 0, 'a session ended by a lost host is not a success');
  t.notOk(isAlive(pid), 'the server was stopped, not orphaned');
  const stderr = lines(proxy.stderr());
  t.same(
    stderr.filter((line) => !line.startsWith('chatty-server: pid')),
    [],
    'no stack trace, no error: nothing on stderr but the server’s own line',
  );
});

/** Start the proxy over grandchild-server.mjs; both pids once they are known. */
async function overGrandchild(
  t: { teardown(fn: () => void): void },
  env: NodeJS.ProcessEnv,
): Promise<{ proxy: ProxyProcess; server: number; grandchild: number }> {
  const proxy = startProxy([], [node, fixture('grandchild-server.mjs')], { env });
  const pids: number[] = [];
  t.teardown(() => {
    killQuietly(proxy.child.pid);
    for (const pid of pids) killQuietly(pid);
  });
  const match = await stderrMatch(proxy, /grandchild-server: pid (\d+) grandchild (\d+)\n/);
  pids.push(Number(match[1]), Number(match[2]));
  return { proxy, server: pids[0] as number, grandchild: pids[1] as number };
}

for (const sent of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`${sent} to the proxy also reaches what the server started, which shares its stdout`, async (t) => {
    const { proxy, server, grandchild } = await overGrandchild(t, process.env);
    t.ok(running(grandchild), 'the grandchild runs');
    proxy.child.kill(sent);
    const { code } = await exitedWithin(proxy, 15_000);
    t.equal(code, signalCode(sent), 'the server was stopped by the signal');
    t.notOk(running(server), 'the server is gone');
    await waitFor(() => !running(grandchild), 5000, 'the grandchild to be gone').catch(() => {});
    t.notOk(running(grandchild), 'so is the process it started: no orphan holding its stdout');
  });
}

t.test('what the server started and which ignores SIGTERM is killed when the session ends', async (t) => {
  const { proxy, server, grandchild } = await overGrandchild(t, { ...process.env, GRANDCHILD_IGNORE_SIGTERM: '1' });
  proxy.child.kill('SIGTERM');
  const { code } = await exitedWithin(proxy, 15_000);
  t.equal(code, signalCode('SIGTERM'));
  t.notOk(running(server), 'the server is gone');
  await waitFor(() => !running(grandchild), 5000, 'the grandchild to be gone').catch(() => {});
  t.notOk(running(grandchild), 'the grandchild that ignored SIGTERM was killed on the way out');
});

t.test('descendantsOf finds every process below a pid, and stillRunning tells a reused pid apart', async (t) => {
  const shell = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], { stdio: 'ignore' });
  const root = shell.pid as number;
  // The sleeps too, whatever fails on the way (killing the shell alone would
  // leave them running), known by their start times: by teardown the shell's
  // pid may be somebody else's.
  let members: ReturnType<typeof descendantsOf> = [];
  t.teardown(() => {
    signalMembers(members.filter((member) => stillRunning(member)), 'SIGKILL');
    if (shell.exitCode === null && shell.signalCode === null) killQuietly(shell.pid);
  });
  await waitFor(() => (members = descendantsOf(root)).length === 2, 5000, 'two sleeps under the shell');
  const below = members;
  t.equal(below.length, 2, 'both children of the shell, and not the shell itself');
  t.ok(below.every((member) => member.pid !== root && running(member.pid)), 'each one running');
  t.ok(below.every((member) => stillRunning(member)), 'and known by its start time');
  t.notOk(stillRunning({ pid: below[0]?.pid as number, started: 'not-its-start-time' }), 'a different start time is a different process');
  t.same(descendantsOf(2 ** 22 + 7), [], 'a pid with nothing below it has no descendants');
  signalMembers(below, 'SIGKILL');
  await waitFor(() => below.every((member) => !stillRunning(member)), 5000, 'the sleeps to be gone').catch(() => {});
  t.ok(below.every((member) => !stillRunning(member)), 'signalMembers stopped them');
  shell.kill('SIGKILL');
});

t.test('the server never gets GRAPHMIND_TOKEN; the rest of the environment passes through', async (t) => {
  const { proxy } = proxyOver(t, [node, fixture('echo-server.mjs')], {
    ...process.env,
    GRAPHMIND_TOKEN: 'secret-token-value',
    ECHO_SERVER_PROBE: 'probe-value',
  });
  const match = await stderrMatch(proxy, /echo-server: (\{.*\})\n/);
  const report = JSON.parse(match[1] ?? '{}') as { sawToken: boolean; probe: string | null };
  t.equal(report.sawToken, false, 'GRAPHMIND_TOKEN is removed');
  t.equal(report.probe, 'probe-value', 'other variables reach the server');
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);
});

t.test('the ps fallback (for systems without /proc) reads pid, parent, state and start time', async (t) => {
  const all = fromPs();
  t.ok(all !== undefined && all.size > 1, 'ps -A lists the processes');
  const self = all?.get(process.pid);
  t.equal(self?.ppid, process.ppid, 'our own row, with our parent');
  t.notOk(self?.zombie, 'running, not a zombie');
  t.match(self?.started, /^ps:\S/, 'and a start time');
  t.same(fromPs([process.pid])?.get(process.pid), self, 'ps -p gives the same row');
  t.same(fromPs([2 ** 22 + 7])?.size, 0, 'a pid that is gone has no row (ps -p exits 1), which is not a failure');
});
