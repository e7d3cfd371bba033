// The proxy's life around restarts, with real processes: a signal or the
// host leaving during a restart or while no server runs ends the session
// (promptly, with nothing left running); a server that exits on its own
// under --watch leaves the session up until the next save; saves in quick
// succession make one restart; what an old server started is stopped even
// when it ignores SIGTERM.
import t from 'tap';
import { waitFor } from './helpers/cli.js';
import { NOT_RUNNING, RESTARTED_LINE, allGone, failure, project, sleep, text, watchedProxy, watchedV1 } from './fixtures/restart/sessions.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';

t.test('SIGTERM to the proxy while a restart waits for the new server: it ends, and nothing is left', async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0', child: true });
  const session = await watchedV1(t, p);
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'a' } })), 'gen0: a');
  let closed = false;
  session.client.onclose = () => (closed = true);
  p.save({ sdk: 1, tag: 'gen1', child: true, startDelayMs: 5000 });
  await waitFor(() => p.starts().length === 2, 20_000, 'the new server to start');
  const started = Date.now();
  process.kill(session.pid, 'SIGTERM');
  await waitFor(() => closed, 15_000, 'the proxy to exit');
  t.ok(Date.now() - started < 10_000, `the proxy ended in ${Date.now() - started} ms`);
  t.strictSame(await allGone(p.pids()), [], 'both servers and their children are gone');
});

t.test('the host leaves while no server runs: the session ends at once, with the last server\'s code', async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const { command, args, env } = watchedProxy(p);
  const proxy = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  t.teardown(() => proxy.kill('SIGKILL'));
  let stderr = '';
  proxy.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  proxy.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = once(proxy, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
  await waitFor(() => stdout.includes('"id":1'), 20_000, 'the answer to initialize');
  p.save({ sdk: 1, tag: 'gen1', broken: true });
  await waitFor(() => stderr.includes('did not come back'), 30_000, 'the failed restart');
  const started = Date.now();
  proxy.stdin.end();
  const [code] = await exited;
  t.ok(Date.now() - started < 2000, `ended ${Date.now() - started} ms after the host closed its stdin (no grace period for no server)`);
  t.equal(code, 1, "the exit code is the last server's (it exited with 1)");
});

t.test('a server that exits on its own under --watch: the session waits for the next save', async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const session = await watchedV1(t, p);
  t.equal(text(await session.client.callTool({ name: 'quit', arguments: {} })), 'gen0: bye');
  await waitFor(() => session.stderr.text().includes('waiting for a change to restart it'), 20_000, 'the proxy to say it waits');
  t.match(session.stderr.text(), /the MCP server exited with code 3; waiting for a change to restart it \(--watch\)/);
  const down = await failure(session.client.callTool({ name: 'hello', arguments: { text: 'x' } }));
  t.equal(down.code, NOT_RUNNING, '-32097 meanwhile');
  t.match(down.message, /the MCP server is not running: it exited with code 3; fix it and save to restart it/);
  p.save({ sdk: 1, tag: 'gen1' });
  t.match(await session.restarted(1), RESTARTED_LINE);
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'y' } })), 'gen1: y', 'the same session, the new server');
});

t.test('saves in quick succession make one restart; one during a restart makes one more', async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const session = await watchedV1(t, p);
  for (let i = 1; i <= 5; i++) {
    p.save({ sdk: 1, tag: `burst${i}` });
    await sleep(20);
  }
  await session.restarted(1);
  await sleep(1000);
  t.equal(session.restartLines().length, 1, 'five saves 20 ms apart: one restart');
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'a' } })), 'burst5: a', 'running the last of them');

  p.save({ sdk: 1, tag: 'slow1', startDelayMs: 1500 });
  await waitFor(() => p.starts().some((start) => start.tag === 'slow1'), 20_000, 'the slow server to start');
  p.save({ sdk: 1, tag: 'after1' });
  await sleep(50);
  p.save({ sdk: 1, tag: 'after2' });
  await session.restarted(3);
  await sleep(1000);
  t.equal(session.restartLines().length, 3, 'saves during a restart: one restart after it');
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'b' } })), 'after2: b');
  t.strictSame(
    p.starts().map((start) => start.tag),
    ['gen0', 'burst5', 'slow1', 'after2'],
    'the servers that ran',
  );
});

t.test("an old server's child that ignores SIGTERM is killed after the grace period", async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0', child: 'stubborn' });
  const session = await watchedV1(t, p);
  await session.client.callTool({ name: 'hello', arguments: { text: 'a' } });
  const [first] = p.starts();
  p.save({ sdk: 1, tag: 'gen1' });
  await session.restarted(1);
  t.strictSame(await allGone([first?.pid as number]), [], 'the old server is gone');
  t.strictSame(await allGone([first?.child as number], 10_000), [], 'its child that ignores SIGTERM too, after the grace period');
  t.equal(text(await session.client.callTool({ name: 'hello', arguments: { text: 'b' } })), 'gen1: b');
});

t.test('SIGTERM to a --watch proxy whose server runs: it ends (the server is not waited for to come back)', async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0', child: true });
  const session = await watchedV1(t, p);
  await session.client.callTool({ name: 'hello', arguments: { text: 'a' } });
  let closed = false;
  session.client.onclose = () => (closed = true);
  const proxy = session.pid;
  process.kill(proxy, 'SIGTERM');
  await waitFor(() => closed, 15_000, 'the proxy to exit');
  t.notOk(session.stderr.text().includes('waiting for a change'), 'it did not take the stop for a crash to wait out');
  t.strictSame(await allGone([...p.pids(), proxy]), [], 'the proxy, the server and its child are gone');
});
