// graphmind check --run against real parts: a session recorded through a real mcp-proxy into a
// real serve, its requests sent again; and the check itself recorded in that serve as a run,
// source graphmind-check.
import t from 'tap';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROXY_FIXTURES, hasPython } from './helpers/cli.js';
import { FAULT_SERVER, checkJson } from './helpers/check.js';
import { waitForAsync } from './helpers/gates.js';
import { freePort, getRun, listRuns, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { record } from './helpers/replay.js';

const SDK1 = [process.execPath, `${PROXY_FIXTURES}sdk1-server.mjs`];
const dir = mkdtempSync(join(tmpdir(), 'graphmind-check-run-'));
let serve: ServeOnPort;

t.before(async () => {
  serve = await serveOnPort(await freePort(), tempDir());
});
t.teardown(() => serve.stop());

t.test('--run: a recorded session sent again, answers not compared; recorded as a graphmind-check run', async (t) => {
  const recorded = await record(serve, SDK1, async (client) => [
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }),
  ]);
  const runFile = join(dir, 'recorded.jsonl');
  copyFileSync(join(serve.dataDir, 'runs', `${recorded.runId}.jsonl`), runFile);
  const again = await checkJson(['--run', runFile, '--port', String(serve.port), '--data-dir', serve.dataDir], SDK1, { GRAPHMIND_DATA_DIR: serve.dataDir });
  t.equal(again.code, 0, JSON.stringify(again.report.findings));
  t.same(
    again.report.checks.filter((one) => one.group === 'run').map((one) => one.name),
    ['run call 1: tools/call echo', 'run call 2: tools/call add'],
    "the run's calls after the check's own handshake (the run's is left out)",
  );
  const runId = again.report.recordedRunId;
  t.type(runId, 'string', 'the check was recorded');
  await waitForAsync(async () => (await listRuns(serve)).some((run) => run.runId === runId && run.status !== 'running'), 20_000, 'the check run');
  const summary = (await listRuns(serve)).find((run) => run.runId === runId);
  t.equal(summary?.source, 'graphmind-check');
  const run = await getRun(serve, runId as string);
  t.ok(run?.instances.some((instance) => instance.nodeId === 'tool:add'), 'its calls are on the graph');
  if (!hasPython(t)) return;
  // The Python server has no "add": the call that succeeded when recorded fails now.
  const failing = await checkJson(['--run', runFile], [...FAULT_SERVER, 'clean']);
  t.equal(failing.code, 1);
  t.match(failing.report.findings, [{ code: 'tool-error', check: 'run call 2: tools/call add', call: { method: 'tools/call', name: 'add' } }]);
  t.equal(failing.report.findings.length, 1, JSON.stringify(failing.report.findings));
});
