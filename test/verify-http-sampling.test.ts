// graphmind verify --url with the server's own requests inside a call: a session of a real SDK
// client (1.x, 2.x) with the HTTP proxy's fixture server (sdk-server.mjs: sampling, progress,
// log notifications), recorded through a real graphmind http-proxy into a real graphmind serve,
// then verified against that server: the sampling request answered from the recording (a POST of
// its own, in the session, with the agreed protocol version), the session ended with a DELETE.
import t from 'tap';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, startFixture, startHttpProxy, type ServerKind } from './fixtures/http/harness.js';
import { NO_DEBUGGER_PORT } from './helpers/cli.js';
import type { ServeProcess } from './helpers/serve.js';
import { freePort, listRuns, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { runGraphmind } from './helpers/replay.js';
import { waitForAsync } from './helpers/gates.js';

let serve: ServeOnPort;
t.before(async () => {
  serve = await serveOnPort(await freePort(), tempDir());
});
t.teardown(() => serve.stop());

async function verify(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runGraphmind(['verify', ...args]);
}

async function recordOverHttp(t: Parameters<typeof startFixture>[0], sdk: '1' | '2', upstream: string): Promise<string> {
  const known = new Set((await listRuns(serve)).map((summary) => summary.runId));
  const proxy = await startHttpProxy(t, upstream, { serve: { ...serve, url: '' } as unknown as ServeProcess });
  const { client, transport } = await connect(t, proxy.url, sdk);
  await client.callTool({ name: 'sample', arguments: { prompt: 'say hi' } });
  await client.callTool({ name: 'progress', arguments: {} });
  await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  await transport.terminateSession();
  await client.close();
  let runId: string | undefined;
  await waitForAsync(async () => {
    runId = (await listRuns(serve)).find((summary) => !known.has(summary.runId) && summary.source === 'mcp-http-proxy' && summary.status !== 'running')?.runId;
    return runId !== undefined;
  }, 60_000, 'the recorded http-proxy run to end');
  await proxy.stop();
  const file = join(tempDir('graphmind-verify-http-'), 'recorded.jsonl');
  copyFileSync(join(serve.dataDir, 'runs', `${runId}.jsonl`), file);
  return file;
}

const SAMPLING_KINDS: readonly ServerKind[] = [
  { sdk: '1', mode: 'stateful', response: 'sse' },
  { sdk: '2', mode: 'stateful', response: 'sse' },
];
for (const kind of SAMPLING_KINDS) {
  t.test(`SDK ${kind.sdk}.x ${kind.mode} ${kind.response}: sampling inside a call answered from the recording, exit 0`, async (t) => {
    const server = await startFixture(t, kind);
    const file = await recordOverHttp(t, kind.sdk, server.url);
    const before = server.log().length;
    const result = await verify([file, '--url', server.url, '--port', String(NO_DEBUGGER_PORT)]);
    t.equal(result.code, 0, result.stdout + result.stderr);
    t.match(result.stdout, /same\s+#\d+ tools\/call sample/);
    t.match(result.stdout, /same\s+#\d+ tools\/call progress/);
    // The sampling answer went back as a POST of its own, with the session verify was given.
    const posted = server.log().slice(before).filter((entry) => entry.dir === 'in' && entry.method === 'POST' && entry.body.includes('"from the client"'));
    t.equal(posted.length, 1, 'the recorded sampling answer was POSTed back');
    t.ok(typeof posted[0]?.headers?.['mcp-session-id'] === 'string', 'in the session');
    t.match(posted[0]?.headers, { 'mcp-protocol-version': /^\d{4}-\d{2}-\d{2}$/ }, 'with the agreed protocol version');
    const deleted = server.log().slice(before).some((entry) => entry.dir === 'in' && entry.method === 'DELETE');
    t.ok(deleted, 'the session was ended with a DELETE');
  });
}

