// graphmind replay with real parts: sessions recorded through a real graphmind mcp-proxy into a
// real graphmind serve, from real SDK 1.x and 2.x servers, then replayed to fresh real SDK clients
// with no server process running; repeated calls and --repeat; a miss; sampling inside a call;
// --as-sent-by-server; a replay under mcp-proxy; --http; an mcp-recorder cassette.
import t from 'tap';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI, FIXTURES, PROXY_FIXTURES, waitFor } from './helpers/cli.js';
import { freePort, kill, sdkSession, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { childrenOf, cleanEnv, processesRunning, record, replayClient } from './helpers/replay.js';

const SAMPLING = `${FIXTURES}replay/sampling-server.mjs`;
let serve: ServeOnPort;

t.before(async () => {
  serve = await serveOnPort(await freePort(), tempDir());
});
t.teardown(() => serve.stop());

/** What a client asks of the sdk1/sdk2 fixtures, answers kept. */
async function surface(client: Pick<Client, 'listTools' | 'callTool' | 'readResource' | 'getPrompt' | 'listResources' | 'listPrompts'>): Promise<unknown[]> {
  return [
    await client.listTools(),
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
    await client.callTool({ name: 'echo', arguments: { text: 'again' } }),
    await client.listResources(),
    await client.readResource({ uri: 'test://greeting' }),
    await client.listPrompts(),
    await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
  ];
}

for (const fixture of ['sdk1-server.mjs', 'sdk2-server.mjs']) {
  t.test(`a ${fixture} session replayed to fresh SDK 1.x and 2.x clients, with no server running`, async (t) => {
    const recorded = await record(serve, [process.execPath, `${PROXY_FIXTURES}${fixture}`], surface);
    t.equal(processesRunning(fixture).length, 0, 'the recorded server is gone');
    const args = [recorded.runId, '--port', String(serve.port), '--data-dir', serve.dataDir];
    const replay = await replayClient(args);
    t.teardown(() => kill(replay.pid));
    t.same(await surface(replay.client), recorded.result, 'SDK 1.x client: the same answers as recorded');
    t.same(childrenOf(replay.pid), [], 'the replay runs no child process');
    t.match(replay.stderr(), /graphmind replay: replaying run \S+ \(\d+ recorded requests\) on stdio/);
    await replay.close();
    // The same run from the data directory alone (no debugger on that port), to an SDK 2 client.
    const transport = new StdioV2({ command: process.execPath, args: [CLI, 'replay', recorded.runId, '--port', '1', '--data-dir', serve.dataDir], env: cleanEnv(), stderr: 'pipe' });
    const v2 = new ClientV2({ name: 'replay-test-v2', version: '1.0.0' });
    await v2.connect(transport);
    t.teardown(() => kill(transport.pid ?? undefined));
    t.same(await surface(v2 as unknown as Client), recorded.result, 'SDK 2.x client, run read from the data directory: the same answers');
    await v2.close();
  });
}

t.test('repeated calls in recorded order, then --repeat error|last|cycle; a miss with its nearest and differences', async (t) => {
  const recorded = await record(serve, [process.execPath, SAMPLING], async (client) => [
    await client.callTool({ name: 'count', arguments: {} }),
    await client.callTool({ name: 'count', arguments: {} }),
  ]);
  const texts = (results: unknown[]): string[] => results.map((r) => (r as { content: Array<{ text: string }> }).content[0]?.text as string);
  t.same(texts(recorded.result), ['call 1', 'call 2']);
  const base = [recorded.runId, '--port', String(serve.port), '--data-dir', serve.dataDir];
  const expected: Record<string, string[]> = { last: ['call 1', 'call 2', 'call 2', 'call 2'], cycle: ['call 1', 'call 2', 'call 1', 'call 2'] };
  for (const mode of ['last', 'cycle']) {
    const replay = await replayClient([...base, '--repeat', mode]);
    const got: unknown[] = [];
    for (let i = 0; i < 4; i++) got.push(await replay.client.callTool({ name: 'count', arguments: {} }));
    t.same(texts(got), expected[mode], `--repeat ${mode}`);
    await replay.close();
  }
  const replay = await replayClient(base);
  t.teardown(() => kill(replay.pid));
  t.same(texts([await replay.client.callTool({ name: 'count', arguments: {} }), await replay.client.callTool({ name: 'count', arguments: {} })]), ['call 1', 'call 2']);
  const usedUp = await replay.client.callTool({ name: 'count', arguments: {} }).catch((error: unknown) => error);
  t.ok(usedUp instanceof McpError, '--repeat error (the default): a third call is an error');
  t.equal((usedUp as McpError).code, -32096);
  t.match((usedUp as McpError).message, 'graphmind replay: no recorded answer for tools/call count');
  t.match((usedUp as McpError).data, { nearest: { method: 'tools/call', params: { name: 'count' } }, differences: [] });
  const miss = await replay.client.callTool({ name: 'count', arguments: { extra: 1 } }).catch((error: unknown) => error);
  t.equal((miss as McpError).code, -32096);
  t.same((miss as McpError).data, {
    nearest: { method: 'tools/call', params: { name: 'count', arguments: {} } },
    differences: [{ path: '$.params.arguments.extra', received: 1 }],
    reason: 'its params differ from every recorded one',
  });
  await replay.close();
});

t.test('sampling, a log message and progress inside a call are replayed before its answer', async (t) => {
  const sampled = (text: string) => (client: Client) =>
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text } }));
  const recorded = await record(
    serve,
    [process.execPath, SAMPLING],
    (client) => client.callTool({ name: 'ask', arguments: { question: 'meaning?' } }, undefined, { onprogress: () => undefined }),
    { capabilities: { sampling: {} }, setup: sampled('forty-two') },
  );
  t.match(recorded.result, { content: [{ text: 'the client said: forty-two' }] });
  const asked: unknown[] = [];
  const logs: unknown[] = [];
  const replay = await replayClient([recorded.runId, '--port', String(serve.port), '--data-dir', serve.dataDir], {
    capabilities: { sampling: {} },
    setup: (client) =>
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        asked.push(request.params.messages);
        return { role: 'assistant', model: 'm', content: { type: 'text', text: 'something else' } };
      }),
  });
  t.teardown(() => kill(replay.pid));
  replay.client.fallbackNotificationHandler = async (notification) => void logs.push(notification);
  const progress: unknown[] = [];
  const result = await replay.client.callTool({ name: 'ask', arguments: { question: 'meaning?' } }, undefined, { onprogress: (p) => void progress.push(p) });
  t.same(result, recorded.result, 'the recorded answer (the client’s new sampling answer is not compared)');
  t.same(asked, [[{ role: 'user', content: { type: 'text', text: 'meaning?' } }]], 'the client’s sampling handler was called with the recorded request');
  t.same(progress, [{ progress: 1, total: 2 }], 'the progress notification came with the new request’s token');
  t.match(logs, [{ method: 'notifications/message', params: { data: 'asking: meaning?' } }], 'the log message was replayed');
  await replay.close();
});

t.test('graphmind mcp-proxy -- graphmind replay <run>: a replay can be debugged', async (t) => {
  const recorded = await record(serve, [process.execPath, `${PROXY_FIXTURES}sdk1-server.mjs`], surface);
  const session = await sdkSession({
    port: serve.port,
    env: { GRAPHMIND_DATA_DIR: serve.dataDir },
    server: [process.execPath, CLI, 'replay', recorded.runId, '--port', String(serve.port), '--data-dir', serve.dataDir],
  });
  t.teardown(() => kill(session.pid));
  t.same(await surface(session.client), recorded.result);
  await session.close();
});

t.test('--http: a Streamable HTTP replay for a real SDK HTTP client, with sessions', async (t) => {
  const recorded = await record(serve, [process.execPath, `${PROXY_FIXTURES}sdk2-server.mjs`], surface);
  const child = spawn(process.execPath, [CLI, 'replay', recorded.runId, '--http', '0', '--port', String(serve.port), '--data-dir', serve.dataDir], { env: cleanEnv(), stdio: 'pipe' });
  t.teardown(() => kill(child.pid));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await waitFor(() => /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr), 10_000, 'the URL line');
  const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1] as string;
  for (const round of [1, 2]) {
    const client = new Client({ name: 'replay-http', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    t.ok(transport.sessionId, `session ${round} has an id`);
    t.same(await surface(client), recorded.result, `session ${round}: the same answers (each session replays from the start)`);
    await transport.terminateSession();
    await client.close();
  }
  child.kill('SIGTERM');
  const [code] = (await once(child, 'close')) as [number | null];
  t.equal(code, 0, 'SIGTERM ends it with 0');
});

t.test('an mcp-recorder cassette (from its repository) replayed', async (t) => {
  const replay = await replayClient([`${FIXTURES}replay/mcp-recorder-mock_session.json`]);
  t.teardown(() => kill(replay.pid));
  t.equal(replay.client.getServerVersion()?.name, 'Test Calculator');
  const tools = await replay.client.listTools();
  t.ok(tools.tools.some((tool) => tool.name === 'add'));
  t.match(await replay.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), { content: [{ type: 'text', text: '5' }], structuredContent: { result: 5 } });
  t.match(await replay.client.callTool({ name: 'echo', arguments: { message: 'hello mcp-recorder' } }), { content: [{ text: 'hello mcp-recorder' }] });
  await replay.close();
});
