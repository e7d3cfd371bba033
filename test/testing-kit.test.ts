// graphmind-ai/test (imported by its package name, as a user imports it) with real parts: a run
// recorded through a real mcp-proxy from a real SDK 1.x server (test/fixtures/testing-examples),
// replayed by replayServer to a real SDK 1.x client on stdio and a real SDK 2.x client over
// Streamable HTTP, and played by verifyRun against the real server (same, changed), against a
// replay over HTTP ({ url }), and recorded in a real graphmind serve; what cannot run throws
// CannotRunError with the line graphmind verify would print.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpClientV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CannotRunError, replayServer, verifyRun } from 'graphmind-ai/test';
import { NO_DEBUGGER_PORT } from './helpers/cli.js';
import { freePort, listRuns, serveOnPort, tempDir } from './helpers/graph.js';

const RUN = new URL('./fixtures/testing-examples/search.jsonl', import.meta.url);
const SERVER = fileURLToPath(new URL('./fixtures/testing-examples/server.mjs', import.meta.url));
const RECORDED_TEXT = '{"query":"mcp","hits":[{"title":"Getting started with mcp","page":1}]}';

t.test('replayServer on stdio: what an SDK client transport spawns, answering as recorded', async (t) => {
  const replay = await replayServer(RUN, { env: { EXTRA: '1' } });
  t.equal(replay.command, process.execPath);
  t.match(replay.args, [/dist\/cli\/graphmind\.js$/, 'replay', fileURLToPath(RUN)]);
  t.equal(replay.env.EXTRA, '1');
  t.notOk(Object.keys(replay.env).some((key) => key.startsWith('GRAPHMIND_')), 'no debugger settings leak into the replay');
  const client = new Client({ name: 'kit-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport(replay));
  t.teardown(() => client.close());
  const result = await client.callTool({ name: 'search', arguments: { query: 'mcp' } });
  t.same(result.content, [{ type: 'text', text: RECORDED_TEXT }]);
  const miss = await client.callTool({ name: 'search', arguments: { query: 'other' } }).catch((error: Error) => error);
  t.match(String(miss), /-32096.*no recorded answer for tools\/call search/);
  const strict = await replayServer(RUN, { match: 'sequence', repeat: 'last', onMiss: 'hang', asSentByServer: true });
  t.match(strict.args.slice(3), ['--match', 'sequence', '--repeat', 'last', '--on-miss', 'hang', '--as-sent-by-server']);
});

t.test('replayServer over HTTP: a URL for an SDK 2.x client, closed by close()', async (t) => {
  const replay = await replayServer(fileURLToPath(RUN), { http: true });
  t.match(replay.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const client = new ClientV2({ name: 'kit-test', version: '1.0.0' });
  await client.connect(new HttpClientV2(new URL(replay.url)));
  const result = (await client.callTool({ name: 'search', arguments: { query: 'mcp' } })) as { content: unknown };
  t.same(result.content, [{ type: 'text', text: RECORDED_TEXT }]);
  await client.close();
  await replay.close();
  const after = await fetch(replay.url, { method: 'POST' }).catch((error: Error) => error);
  t.ok(after instanceof Error, 'nothing listens after close()');
});

t.test('verifyRun: the same server ok, a changed one not, with the diff; ignores and rules; reporters', async (t) => {
  const same = await verifyRun(RUN, [process.execPath, SERVER]);
  t.equal(same.ok, true, same.report);
  t.same(same.calls.map((call) => [call.method, call.verdict]), [['initialize', 'same'], ['tools/call', 'same'], ['tools/list', 'same']]);
  t.match(same.report, /3 calls: 3 same, 0 different/);

  const changed = await verifyRun(RUN, ['env', 'SEARCH_CHANGE=1', process.execPath, SERVER]);
  t.equal(changed.ok, false);
  const search = changed.calls.find((call) => call.name === 'search');
  t.equal(search?.verdict, 'different');
  t.match(search?.differences, [{ path: '$.result.content[0].text.hits[0]', recorded: { title: 'Getting started with mcp', page: 1 } }]);
  t.match(changed.report, /different\s+#\d+ tools\/call search/);

  const ignored = await verifyRun(RUN, ['env', 'SEARCH_CHANGE=1', process.execPath, SERVER], { ignore: ['tools/call:search $.result.content[0].text.hits'] });
  t.equal(ignored.ok, true, ignored.report);
  const rules = join(tempDir('graphmind-kit-'), 'rules.json');
  writeFileSync(rules, JSON.stringify({ ignore: ['$.result.content[0].text.hits'] }));
  t.equal((await verifyRun(RUN, ['env', 'SEARCH_CHANGE=1', process.execPath, SERVER], { rules })).ok, true, 'a rules file');
  t.equal((await verifyRun(RUN, ['env', 'SEARCH_CHANGE=1', process.execPath, SERVER], { rules: { ignore: ['$.result.content[0].text.hits'] } })).ok, true, 'rules given as an object');
  const junit = await verifyRun(RUN, ['env', 'SEARCH_CHANGE=1', process.execPath, SERVER], { reporter: 'junit' });
  t.match(junit.report, /^<\?xml[\s\S]*<failure/);
});

t.test('verifyRun against { url }: a Streamable HTTP server (here, a replay of the same run)', async (t) => {
  const replay = await replayServer(RUN, { http: true });
  t.teardown(() => replay.close());
  const result = await verifyRun(RUN, { url: replay.url });
  t.equal(result.ok, true, result.report);
  t.equal(result.calls.length, 3);
});

t.test('what cannot run throws CannotRunError with one line', async (t) => {
  const notRun = join(tempDir('graphmind-kit-'), 'notes.jsonl');
  writeFileSync(notRun, 'hello\n');
  await t.rejects(verifyRun(notRun, [process.execPath, SERVER]), { name: 'CannotRunError', code: 'ERR_GRAPHMIND_CANNOT_RUN', message: /^cannot verify .*notes\.jsonl: it is not a run log/ });
  await t.rejects(replayServer(notRun), CannotRunError);
  await t.rejects(verifyRun(RUN, ['/nowhere/server']), { message: /\/nowhere\/server/ });
  const port = await freePort();
  await t.rejects(verifyRun(RUN, { url: `http://127.0.0.1:${port}/mcp` }), { message: new RegExp(`^cannot reach the MCP server at http://127\\.0\\.0\\.1:${port}/mcp: .*ECONNREFUSED`) });
  await t.rejects(verifyRun(RUN, [process.execPath, SERVER], { ignore: ['not a path'] }), CannotRunError);
  await t.rejects(verifyRun(RUN, [process.execPath, SERVER], { record: { port: NO_DEBUGGER_PORT }, ignore: ['$.x', 'not a path'] }), /verify rules/);
});

t.test('record: the session recorded in a running debugger; none running: nothing happens', async (t) => {
  const quiet = await verifyRun(RUN, [process.execPath, SERVER], { record: { port: NO_DEBUGGER_PORT } });
  t.equal(quiet.ok, true, 'no debugger: the verify is as without recording');
  const serve = await serveOnPort(await freePort(), tempDir());
  t.teardown(() => serve.stop());
  const recorded = await verifyRun(RUN, [process.execPath, SERVER], { record: { port: serve.port, dataDir: serve.dataDir } });
  t.equal(recorded.ok, true);
  // The run is given to the debugger before verifyRun resolves (it waits for the flush).
  const runs = await listRuns(serve);
  t.match(runs, [{ source: 'graphmind-verify', name: /^verify .*search\.jsonl against .*server\.mjs$/ }]);
});
