// A spawn failure with --wait-for-attach reaches a debugger that attaches
// within the attach wait. The race this pins down: the spawn fails within
// moments of the start, long before a debugger started alongside the proxy
// has attached, and the proxy used to give such a failure no attach wait at
// all (the one-second wait is for sessions without the flag), so its record
// was lost unless a connection happened to be in flight. The debugger here
// starts only once the proxy has printed its "cannot run" line: without the
// fix the proxy has already given up on it by then.
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import t from 'tap';
import { runProxy } from '../src/proxy/run-proxy.js';
import { startServer } from '../src/server/serve.js';
import { waitFor } from './helpers/cli.js';
import { freePort, getRun, listRuns, tempDir } from './helpers/graph.js';
import { eventually } from './helpers/serve.js';
import { collectingSink } from './helpers/wire.js';

const COMMAND = 'no-such-mcp-server-for-the-attach-race';

t.test('--wait-for-attach: a spawn failure waits for a debugger that starts after it failed', async (t) => {
  const port = await freePort();
  const dataDir = join(tempDir('graphmind-attach-race-'), 'data');
  const sink = collectingSink();
  const stdin = new PassThrough();
  t.teardown(() => stdin.destroy());
  const began = Date.now();
  const result = runProxy({ command: COMMAND, port, dataDir, env: {}, waitForAttach: true, stdin, stdout: new PassThrough(), stderr: sink, handleSignals: false });
  await waitFor(() => sink.text().includes('cannot run'), 5000, 'the cannot-run line');
  // Only now is there a debugger to attach to.
  const server = await startServer({ port, dataDir, env: {}, pauseOnError: false });
  t.teardown(() => server.close());
  const outcome = await result;
  t.equal(outcome.exitCode, 127, 'the proxy exits 127');
  t.equal(outcome.outcome, 'spawn-failed');
  t.ok(Date.now() - began < 10_000, 'and it did not wait past the attach wait (3 s) by much');
  const address = { port, token: server.token };
  const [summary] = await eventually(async () => {
    const runs = await listRuns(address);
    return runs.length > 0 ? runs : undefined;
  }, 2000, 'the run of the failed spawn');
  const run = await eventually(async () => {
    const found = summary === undefined ? undefined : await getRun(address, summary.runId);
    return found !== undefined && found.status !== 'running' ? found : undefined;
  }, 5000, 'the run to end');
  t.equal(run.status, 'error', 'the run ends in error');
  t.match(run.instances, [{ nodeId: 'mcp:session', status: 'error', error: { name: 'SpawnError', data: { code: 'ENOENT' } } }], 'the session carries the SpawnError');
});

t.test('--wait-for-attach with no debugger at all: the proxy gives up when the attach wait is over', async (t) => {
  const port = await freePort();
  const sink = collectingSink();
  const began = Date.now();
  const outcome = await runProxy({
    command: COMMAND,
    port,
    dataDir: join(tempDir('graphmind-attach-race-'), 'data'),
    env: {},
    waitForAttach: true,
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: sink,
    handleSignals: false,
  });
  t.equal(outcome.exitCode, 127);
  t.ok(Date.now() - began < 10_000, 'it does not wait for ever');
  t.equal(sink.text().split('\n').filter((line) => line !== '').length, 1, 'one line on stderr');
});
