// graphmind export --format cassette: a real session recorded through a real graphmind mcp-proxy
// into a real graphmind serve, exported as an mcp-recorder cassette by the real CLI, loaded by
// mcp-recorder's own model and matcher (copied from its repository, run by python3), shaped as
// mcp-recorder's own cassette is, and replayed by graphmind replay to a fresh SDK client with the
// same answers (the round trip). The export route names the format; a redacted cassette too.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CLI, FIXTURES, hasPython, PROXY_FIXTURES } from './helpers/cli.js';
import { freePort, kill, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { api } from './helpers/serve.js';
import { record, replayClient, runGraphmind } from './helpers/replay.js';

const REPLAY_FIXTURES = `${FIXTURES}replay/`;
let serve: ServeOnPort;

t.before(async () => {
  serve = await serveOnPort(await freePort(), tempDir());
});
t.teardown(() => serve.stop());

/** What the test asks of the sdk1 fixture, answers kept. */
async function surface(client: Pick<Client, 'listTools' | 'callTool' | 'readResource' | 'getPrompt'>): Promise<unknown[]> {
  return [
    await client.listTools(),
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    await client.readResource({ uri: 'test://greeting' }),
    await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
  ];
}

async function exportCassette(runId: string, extra: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runGraphmind(['export', runId, '--format', 'cassette', '--port', String(serve.port), '--data-dir', serve.dataDir, ...extra]);
}

interface Interaction {
  type: string;
  request: { method: string; id?: unknown; params?: unknown };
  response: unknown;
}

t.test('a recorded session as a cassette: mcp-recorder loads it, graphmind replay answers the same', async (t) => {
  const recorded = await record(serve, [process.execPath, `${PROXY_FIXTURES}sdk1-server.mjs`], surface);
  const out = tempDir('graphmind-cassette-');
  const file = join(out, 'session.cassette.json');
  const exported = await exportCassette(recorded.runId, ['-o', file]);
  t.equal(exported.code, 0, `exit 0 (${exported.stderr.trim()})`);
  t.match(exported.stderr, new RegExp(`wrote run ${recorded.runId} as cassette to `));
  const cassette = JSON.parse(readFileSync(file, 'utf8')) as { version: string; metadata: Record<string, unknown>; interactions: Interaction[] };
  t.equal(cassette.version, '1.0', 'format version 1.0');
  t.equal(cassette.metadata.transport_type, 'stdio');
  t.match(cassette.metadata, { server_info: { name: String }, protocol_version: String, recorded_at: String, server_url: /^stdio:\/\// });
  t.same(
    cassette.interactions.map((interaction) => [interaction.type, interaction.request.method]),
    [
      ['jsonrpc_request', 'initialize'],
      ['notification', 'notifications/initialized'],
      ['jsonrpc_request', 'tools/list'],
      ['jsonrpc_request', 'tools/call'],
      ['jsonrpc_request', 'tools/call'],
      ['jsonrpc_request', 'tools/call'],
      ['jsonrpc_request', 'resources/read'],
      ['jsonrpc_request', 'prompts/get'],
    ],
    'one interaction per request and notification the host sent, in order',
  );
  // Shaped as mcp-recorder's own cassette (from its repository): the same keys at each level.
  const theirs = JSON.parse(readFileSync(`${REPLAY_FIXTURES}mcp-recorder-mock_session.json`, 'utf8')) as { interactions: Interaction[] } & Record<string, unknown>;
  t.same(Object.keys(cassette).sort(), Object.keys(theirs).sort(), 'the same top-level keys as an mcp-recorder cassette');
  const theirKeys = Object.keys(theirs.interactions[0] as object).sort();
  for (const interaction of cassette.interactions) t.same(Object.keys(interaction).sort(), theirKeys, `${interaction.request.method}: the keys of an mcp-recorder interaction`);

  if (hasPython(t)) {
    const loaded = spawnSync('python3', [`${REPLAY_FIXTURES}load-cassette.py`, REPLAY_FIXTURES, file], { encoding: 'utf8' });
    if (/No module named 'pydantic'/.test(loaded.stderr)) t.fail('pydantic is not installed for python3: mcp-recorder needs it (pip install pydantic)');
    else {
      t.equal(loaded.status, 0, `mcp-recorder's model loads it (${loaded.stderr.trim().split('\n').at(-1) ?? ''})`);
      t.match(JSON.parse(loaded.stdout || '{}'), { version: '1.0', interactions: 8, requests: 7, matched: 7, answered: 7, all_consumed: true }, "mcp-recorder's matcher finds every recorded request and its answer");
    }
  }

  // The round trip: our replay reads our cassette and answers a fresh client as the server did.
  const replay = await replayClient([file]);
  t.teardown(() => kill(replay.pid));
  t.same(await surface(replay.client), recorded.result, 'graphmind replay of the cassette: the same answers as recorded');
  await replay.close();
});

t.test('the export route names the cassette format; a redacted cassette hides its values', async (t) => {
  const recorded = await record(serve, [process.execPath, `${PROXY_FIXTURES}sdk1-server.mjs`], async (client) => client.callTool({ name: 'echo', arguments: { text: 'token-123' } }));
  const head = await api(serve.port, serve.token, 'GET', `/api/runs/${recorded.runId}/export?format=cassette`);
  t.equal(head.status, 200);
  t.match(head.headers['content-disposition'], `filename="${recorded.runId}.cassette.json"`);
  const bad = await api(serve.port, serve.token, 'GET', `/api/runs/${recorded.runId}/export?format=cassette&redact=oops`);
  t.equal(bad.status, 400, 'a bad redact path: 400');
  t.match(bad.text, /does not start with \$/);
  const redacted = await exportCassette(recorded.runId, ['--redact', 'tools/call:echo $.params.arguments.text']);
  t.equal(redacted.code, 0);
  const interactions = (JSON.parse(redacted.stdout) as { interactions: Interaction[] }).interactions;
  const call = interactions.find((interaction) => interaction.request.method === 'tools/call');
  t.same((call?.request.params as { arguments: unknown }).arguments, { text: '[redacted]' }, 'the request value is redacted');
  const file = join(tempDir('graphmind-cassette-'), 'redacted.cassette.json');
  writeFileSync(file, redacted.stdout);
  const replay = await replayClient([file]);
  t.teardown(() => kill(replay.pid));
  t.match(await replay.client.callTool({ name: 'echo', arguments: { text: 'anything at all' } }), { content: [{ type: 'text', text: /token-123/ }] }, 'replay: the redacted request matches any text');
  await replay.close();
});
