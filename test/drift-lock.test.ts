// `graphmind mcp-proxy --lock <file>` (issue 32), through real parts: a lock
// written by `graphmind surface` from the SDK drift fixture, a real SDK
// client through the proxy, a real `graphmind serve`. The session's first
// tools/list is compared with the lock: like the lock, it passes; unlike it
// (the lock approved another description), it is drift from the first
// answer on, held with pauseOnDrift. A lock file that is missing or is not a
// surface file: one clear line, exit code 2 (as for any bad flag), the
// server never started.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import t from 'tap';
import type { Run } from '../src/protocol/run-model.js';
import { surfaceEntry, surfaceText, type Surface } from '../src/surface/index.js';
import { CLI } from './helpers/cli.js';
import { decide, listHolds, proxyEnv, setBreakpoints, startDebugger, waitForAsync, waitForHold } from './helpers/gates.js';
import { api } from './helpers/serve.js';

const DRIFT_SERVER = fileURLToPath(new URL('./fixtures/drift/drift-server.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'graphmind-lock-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

// The lock as a repository would commit it: written by `graphmind surface`.
const exact = join(dir, 'graphmind.surface.json');
const written = spawnSync(process.execPath, [CLI, 'surface', '-o', exact, '--', process.execPath, DRIFT_SERVER], { encoding: 'utf8', timeout: 30_000 });
if (written.status !== 0) throw new Error(`graphmind surface failed: ${written.stderr}`);
// A lock that approved another description of `search`.
const surface = JSON.parse(readFileSync(exact, 'utf8')) as Surface;
const other: Surface = { ...surface, tools: surface.tools.map((entry) => (entry.name === 'search' ? surfaceEntry({ ...entry, description: 'Search the docs (approved wording)' }) : entry)) };
const approved = join(dir, 'approved.surface.json');
writeFileSync(approved, surfaceText(other));

const serve = await startDebugger(t);
await setBreakpoints(serve, { pauseOnError: true, nodes: {}, pauseOnDrift: true });

/** An SDK client through `mcp-proxy --lock <lock>` in front of the fixture; closed on teardown. */
async function session(lock: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const client = new Client({ name: 'drift-lock', version: '0.0.0' });
  const args = [CLI, 'mcp-proxy', '--port', String(serve.port), '--wait-for-attach', '--lock', lock, '--', process.execPath, DRIFT_SERVER];
  const transport = new StdioClientTransport({ command: process.execPath, args, env: proxyEnv(serve), stderr: 'pipe' });
  await client.connect(transport);
  const close = (): Promise<void> => client.close().catch(() => {});
  t.teardown(close);
  return { client, close };
}

t.test('a lock like the server: the first listing passes', async (t) => {
  const { client, close } = await session(exact);
  const listed = await client.listTools();
  t.equal(listed.tools.length, 2, 'listed');
  t.same(await listHolds(serve), [], 'nothing held');
  await close();
});

t.test('a lock unlike the server: the first listing is drift, held before the host sees it', async (t) => {
  const { client, close } = await session(approved);
  const first = client.listTools();
  let seen = false;
  void first.then(() => (seen = true), () => (seen = true));
  const hold = await waitForHold(serve, { method: 'tools/list', reason: 'drift' });
  t.equal(seen, false, 'the host has not seen it');
  let lines: Run['logs'] = [];
  await waitForAsync(async () => {
    const run = (await api(serve.port, serve.token, 'GET', `/api/runs/${hold.runId}`)).json as Run;
    lines = run.logs.filter((log) => log.stream === 'drift' && log.instanceId === hold.instanceId);
    return lines.length === 1;
  }, 10_000, 'the drift line');
  t.match(lines[0]?.text, /^drift: this tools\/list answer differs from the lock \(.*approved\.surface\.json\): 1 change\nrisky: .*search/, 'against the lock, named, the description change risky');
  await decide(serve, hold.holdId, 'continue');
  t.equal((await first).tools.length, 2, 'continue releases it');
  await close();
});

/** `mcp-proxy --lock <file>` in front of a command that must never start. */
function refused(lock: string): { status: number | null; lines: string[] } {
  const marker = join(dir, 'started');
  const result = spawnSync(process.execPath, [CLI, 'mcp-proxy', '--port', '1', '--lock', lock, '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`], { encoding: 'utf8', timeout: 30_000 });
  let started = true;
  try {
    readFileSync(marker);
  } catch {
    started = false;
  }
  if (started) throw new Error('the server was started');
  return { status: result.status, lines: result.stderr.split('\n').filter((line) => line !== '') };
}

t.test('a bad lock file: one clear line, exit code 2, nothing started', async (t) => {
  const missing = refused(join(dir, 'nope.json'));
  t.equal(missing.status, 2, 'a missing file: exit 2');
  t.match(missing.lines, [/^graphmind mcp-proxy: --lock .*nope\.json: cannot read it \(no such file\)$/], 'one line saying so');
  const notJson = join(dir, 'not.json');
  writeFileSync(notJson, 'hello');
  const garbage = refused(notJson);
  t.equal(garbage.status, 2, 'not JSON: exit 2');
  t.match(garbage.lines, [/^graphmind mcp-proxy: --lock .*not\.json: not a surface file: /], 'one line saying so');
  const wrongShape = join(dir, 'wrong.json');
  writeFileSync(wrongShape, JSON.stringify({ tools: 'x' }));
  const shape = refused(wrongShape);
  t.equal(shape.status, 2, 'JSON that is not a surface: exit 2');
  t.match(shape.lines, [/^graphmind mcp-proxy: --lock .*wrong\.json: not a surface file: /], 'one line saying so');
  t.match(refused(dir).lines, [/^graphmind mcp-proxy: --lock .*: cannot read it \(a directory\)$/], 'a directory: one line');
});
