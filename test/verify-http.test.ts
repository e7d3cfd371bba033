// graphmind verify --url with real parts: for each SDK generation (1.x, 2.x), a session of a
// real SDK client recorded through a real graphmind http-proxy into a real graphmind serve, then
// played by `graphmind verify --url` against a real Streamable HTTP server of that SDK: the same
// server (exit 0), a changed handler (exit 1, the diff names the tool and the path). A URL where
// nothing listens and a server that never answers: exit 2 with one clear line. With the debugger
// running, the verify session is recorded there as a run of source graphmind-verify.
import t from 'tap';
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Run, RunSummary } from '../src/protocol/run-model.js';
import { connect, startHttpProxy } from './fixtures/http/harness.js';
import { FIXTURES, NO_DEBUGGER_PORT, waitFor } from './helpers/cli.js';
import { waitForAsync, type Teardown } from './helpers/gates.js';
import type { ServeProcess } from './helpers/serve.js';
import { freePort, getRun, listRuns, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { cleanEnv, runGraphmind } from './helpers/replay.js';

const HTTP_SERVER = `${FIXTURES}verify/http-server.mjs`;
let serve: ServeOnPort;

t.before(async () => {
  serve = await serveOnPort(await freePort(), tempDir());
});
t.teardown(() => serve.stop());

/** Start the fixture server of `sdk` (with `env`); its URL. Stopped at teardown. */
async function startServer(t: Teardown, sdk: '1' | '2', env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, [HTTP_SERVER, '--sdk', sdk], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  t.teardown(() => void child.kill('SIGKILL'));
  await waitFor(() => /listening (\S+)\n/.test(out) || child.exitCode !== null, 20_000, 'the fixture server');
  const url = /listening (\S+)\n/.exec(out)?.[1];
  if (url === undefined) throw new Error(`the fixture server did not start: ${out}`);
  return url;
}

/** Run `graphmind verify <args>`; its exit code and output. */
async function verify(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runGraphmind(['verify', ...args], env);
}

/** Poll the debugger's runs until one passes `found`. */
async function runWhere(found: (summary: RunSummary) => boolean, known: ReadonlySet<string> = new Set()): Promise<RunSummary> {
  let hit: RunSummary | undefined;
  await waitForAsync(async () => {
    hit = (await listRuns(serve)).find((summary) => !known.has(summary.runId) && found(summary));
    return hit !== undefined;
  }, 60_000, 'a run of the debugger');
  return hit as RunSummary;
}

/** Record a session of an SDK `sdk` client through http-proxy into the debugger (`drive` makes its calls); the run log's path. */
async function recordOverHttp(t: Teardown, sdk: '1' | '2', upstream: string, drive: (client: Awaited<ReturnType<typeof connect>>['client']) => Promise<unknown> = driveVerifyServer): Promise<{ file: string; runId: string }> {
  const known = new Set((await listRuns(serve)).map((summary) => summary.runId));
  const proxy = await startHttpProxy(t, upstream, { serve: { ...serve, url: '' } as unknown as ServeProcess });
  const { client, transport } = await connect(t, proxy.url, sdk);
  await drive(client);
  await transport.terminateSession();
  await client.close();
  const run = await runWhere((summary) => summary.source === 'mcp-http-proxy' && summary.status !== 'running', known);
  await proxy.stop();
  const file = join(tempDir('graphmind-verify-http-'), 'recorded.jsonl');
  copyFileSync(join(serve.dataDir, 'runs', `${run.runId}.jsonl`), file);
  return { file, runId: run.runId };
}

async function driveVerifyServer(client: Awaited<ReturnType<typeof connect>>['client']): Promise<void> {
  await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  await client.callTool({ name: 'search', arguments: { query: 'mcp' } });
  await client.listTools();
}

for (const sdk of ['1', '2'] as const) {
  t.test(`SDK ${sdk}.x Streamable HTTP: the same server exit 0, a changed handler exit 1`, async (t) => {
    const upstream = await startServer(t, sdk);
    const { file } = await recordOverHttp(t, sdk, upstream);
    const noDebugger = ['--port', String(NO_DEBUGGER_PORT)];
    const same = await verify([file, '--url', upstream, ...noDebugger]);
    t.equal(same.code, 0, same.stdout + same.stderr);
    t.match(same.stdout, /same\s+#\d+ initialize/);
    t.match(same.stdout, /same\s+#\d+ tools\/call echo/);
    t.match(same.stdout, /calls: \d+ same, 0 different, 0 missing, 0 extra/);
    t.equal(same.stderr, '', 'no debugger: nothing said about one');

    const changedUrl = await startServer(t, sdk, { VERIFY_CHANGE: 'echo' });
    const changed = await verify([file, '--url', changedUrl, ...noDebugger]);
    t.equal(changed.code, 1, changed.stderr);
    t.match(changed.stdout, /different\s+#\d+ tools\/call echo\n\s+\$\.result\.content\[0\]\.text: recorded "hello", received "HELLO"/);
    t.match(changed.stdout, /same\s+#\d+ tools\/call search/);
  });
}

t.test('could not run: a URL where nothing listens, a server that never answers (exit 2, one line)', async (t) => {
  const runFile = join(tempDir('graphmind-verify-http-'), 'run.jsonl');
  const { file } = await recordOverHttp(t, '1', await startServer(t, '1'));
  copyFileSync(file, runFile);
  const port = await freePort();
  const nobody = await verify([runFile, '--url', `http://127.0.0.1:${port}/mcp`, '--port', String(NO_DEBUGGER_PORT)]);
  t.equal(nobody.code, 2);
  t.match(nobody.stderr, new RegExp(`^graphmind verify: cannot reach the MCP server at http://127\\.0\\.0\\.1:${port}/mcp: .*ECONNREFUSED.*\\n$`));
  t.equal(nobody.stdout, '');

  // Takes the request and never answers.
  const sockets = new Set<import('node:net').Socket>();
  const silent: Server = createServer(() => undefined);
  silent.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const address = silent.address() as import('node:net').AddressInfo;
  const url = `http://127.0.0.1:${address.port}/mcp`;
  const started = Date.now();
  const hung = await verify([runFile, '--url', url, '--timeout', '500', '--port', String(NO_DEBUGGER_PORT)]);
  t.equal(hung.code, 2);
  t.equal(hung.stderr, `graphmind verify: the MCP server at ${url} did not answer initialize within 500 ms (--timeout)\n`);
  // Guards against a verify that waits on the hung POST after its timeout (it must end soon after).
  t.ok(Date.now() - started < 15_000, `ended in ${Date.now() - started} ms`);

  const notUrl = await verify([runFile, '--url', 'not a url', '--port', String(NO_DEBUGGER_PORT)]);
  t.equal(notUrl.code, 2);
  t.match(notUrl.stderr, /^graphmind verify: --url not a url is not a URL/);
  const both = await verify([runFile, '--url', url, '--', 'node', 'server.js']);
  t.equal(both.code, 2);
  t.match(both.stderr, /either --url <http url> or -- <server command…>, not both/);
});

t.test('with a debugger running, the verify session is recorded as a run (source graphmind-verify)', async (t) => {
  const upstream = await startServer(t, '2');
  const { file } = await recordOverHttp(t, '2', upstream);
  const changedUrl = await startServer(t, '2', { VERIFY_CHANGE: 'echo' });
  const known = new Set((await listRuns(serve)).map((summary) => summary.runId));
  const result = await verify([file, '--url', changedUrl, '--port', String(serve.port)], { GRAPHMIND_DATA_DIR: serve.dataDir });
  t.equal(result.code, 1, result.stderr);
  const summary = await runWhere((candidate) => candidate.source === 'graphmind-verify' && candidate.status !== 'running', known);
  t.match(summary.name, /^verify .*recorded\.jsonl against http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  t.equal(summary.status, 'ok');
  const run = (await getRun(serve, summary.runId)) as Run;
  const echo = run.instances.find((instance) => instance.nodeId === 'tool:echo');
  t.ok(echo, 'the echo call is in the run');
  t.match(JSON.stringify(echo?.output), /HELLO/, 'with the answer the changed server gave');
  t.match(run.meta, { verify: { ok: false, different: 1 } }, 'the run says what verify found');
  t.equal(result.stderr, '');

  // A stdio verify is recorded too, named after its command.
  const stdio = await verify([file, '--port', String(serve.port), '--timeout', '1000', '--', process.execPath, HTTP_SERVER, '--sdk', '1'], { GRAPHMIND_DATA_DIR: serve.dataDir });
  t.equal(stdio.code, 2, 'an HTTP server on stdio never answers: could not run');
  const failed = await runWhere((candidate) => candidate.source === 'graphmind-verify' && candidate.name.includes('http-server.mjs') && candidate.status !== 'running', known);
  t.equal(failed.status, 'error', 'a verify that could not run is a failed run');
});
