// graphmind surface end to end with a real SDK 2.x server (the same table as SDK 1.x in
// surface-cli), a Streamable HTTP server by --url, and recorded runs: one recorded through a real
// mcp-proxy into a real serve, read by file and by id, shows the same surface as the live server;
// an mcp-recorder cassette too.
import t from 'tap';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, waitFor } from './helpers/cli.js';
import { freePort, kill, serveOnPort, tempDir } from './helpers/graph.js';
import { record } from './helpers/replay.js';
import { changesClassed, lock, readSurface, SURFACE_SERVER, surface } from './helpers/surface.js';
import { parseSurfaceFile, type Surface } from '../src/surface/index.js';

const dir = tempDir('graphmind-surface-');
// Each `graphmind surface` starts a node process and a server: under a loaded CI machine a few seconds each.
t.setTimeout(300_000);

t.test('SDK 2.x: a lock written, then each change classed with its exit code', async (t) => {
  await changesClassed(t, dir, '2');
});

t.test('a Streamable HTTP server by --url (SDK 2.x)', async (t) => {
  const child = spawn(process.execPath, [`${FIXTURES}verify/http-server.mjs`, '--sdk', '2'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => kill(child.pid));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  await waitFor(() => /listening (\S+)\n/.test(out) || child.exitCode !== null, 20_000, 'the fixture server');
  const url = /listening (\S+)\n/.exec(out)?.[1] as string;
  const listed = await surface(['--url', url]);
  t.equal(listed.code, 0, listed.stderr);
  const parsed = parseSurfaceFile(listed.stdout) as Surface;
  t.same(parsed.tools.map((tool) => tool.name), ['echo', 'search'], 'the surface on stdout without -o');
  t.equal(parsed.serverInfo?.name, 'verify-http-2');
});

t.test('a recorded run: by file and by id, the same surface as the live server', async (t) => {
  const serve = await serveOnPort(await freePort(), tempDir());
  t.teardown(() => serve.stop());
  const recorded = await record(serve, [process.execPath, SURFACE_SERVER, '--sdk', '1'], async (client) => [await client.listTools(), await client.listPrompts(), await client.listResources()]);
  const runFile = join(dir, 'recorded.jsonl');
  copyFileSync(join(serve.dataDir, 'runs', `${recorded.runId}.jsonl`), runFile);
  const live = await lock(t, dir, '1', '');
  const byFile = await surface(['diff', live, runFile, '--fail-on', 'any']);
  t.equal(byFile.code, 0, `${byFile.stdout}${byFile.stderr}`);
  const fromRun = join(dir, 'from-run.surface.json');
  const byId = await surface([recorded.runId, '-o', fromRun, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(byId.code, 0, byId.stderr);
  t.ok(existsSync(fromRun));
  t.same(readSurface(fromRun).tools, readSurface(live).tools, 'the run shows what the live server lists');
  const cassette = await surface([`${FIXTURES}replay/mcp-recorder-mock_session.json`]);
  t.equal(cassette.code, 0, cassette.stderr);
  t.ok((parseSurfaceFile(cassette.stdout) as Surface).tools.length > 0, 'an mcp-recorder cassette too');
});
