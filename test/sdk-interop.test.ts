// Real MCP SDK clients ↔ real MCP SDK servers, through `graphmind mcp-proxy`, over real stdio.
import { existsSync, readFileSync } from 'node:fs';
import type { Stream } from 'node:stream';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV126 } from 'sdk-1-26/client/index.js';
import { StdioClientTransport as StdioClientTransportV126 } from 'sdk-1-26/client/stdio.js';
import t from 'tap';
import { CLI, NO_DEBUGGER, PROXY_FIXTURES } from './helpers/cli.js';

type ClientKind = 'sdk1-latest' | 'sdk1-1.26' | 'sdk2';
type ServerKind = 'sdk1-latest' | 'sdk1-1.26' | 'sdk2';

/** The surface every SDK client shares, as far as this test uses it. */
interface ClientLike {
  getServerVersion(): { name: string; version: string } | undefined;
  listTools(): Promise<{ tools: Array<{ name: string; outputSchema?: unknown }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  listPrompts(): Promise<{ prompts: Array<{ name: string; arguments?: Array<{ name: string; required?: boolean }> }> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
  close(): Promise<void>;
}

/** The surface every SDK stdio client transport shares. */
interface TransportLike {
  readonly pid: number | null;
  readonly stderr: Stream | null;
}

function packageVersion(name: string): string {
  const file = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

const SERVERS: Record<ServerKind, { args: string[]; info: { name: string; version: string }; tag: string }> = {
  'sdk1-latest': {
    args: [`${PROXY_FIXTURES}sdk1-server.mjs`, '@modelcontextprotocol/sdk'],
    info: { name: 'sdk1-fixture', version: packageVersion('@modelcontextprotocol/sdk') },
    tag: 'sdk1',
  },
  'sdk1-1.26': {
    args: [`${PROXY_FIXTURES}sdk1-server.mjs`, 'sdk-1-26'],
    info: { name: 'sdk1-fixture', version: '1.26.0' },
    tag: 'sdk1',
  },
  sdk2: {
    args: [`${PROXY_FIXTURES}sdk2-server.mjs`],
    info: { name: 'sdk2-fixture', version: packageVersion('@modelcontextprotocol/server') },
    tag: 'sdk2',
  },
};

const MATRIX: ReadonlyArray<{ client: ClientKind; server: ServerKind }> = [
  { client: 'sdk1-latest', server: 'sdk1-latest' },
  { client: 'sdk1-1.26', server: 'sdk1-1.26' },
  { client: 'sdk2', server: 'sdk2' },
  { client: 'sdk1-latest', server: 'sdk2' },
  { client: 'sdk2', server: 'sdk1-latest' },
];

/** Build an SDK client and its stdio transport, which spawns the proxy in front of the server. */
function createClient(kind: ClientKind, serverArgs: readonly string[]): { client: ClientLike; transport: TransportLike; start: () => Promise<void> } {
  const params = {
    command: process.execPath,
    args: [CLI, 'mcp-proxy', ...NO_DEBUGGER, '--', process.execPath, ...serverArgs],
    stderr: 'pipe' as const,
  };
  const info = { name: `interop-${kind}`, version: '0.0.0' };
  switch (kind) {
    case 'sdk1-latest': {
      const client = new ClientV1(info);
      const transport = new StdioClientTransportV1(params);
      return { client, transport, start: () => client.connect(transport) };
    }
    case 'sdk1-1.26': {
      const client = new ClientV126(info);
      const transport = new StdioClientTransportV126(params);
      return { client, transport, start: () => client.connect(transport) };
    }
    case 'sdk2': {
      const client = new ClientV2(info);
      const transport = new StdioClientTransportV2(params);
      return { client, transport, start: () => client.connect(transport) };
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Direct children of `pid` (Linux), so the test can check the server process is gone too. */
function childPids(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split(/\s+/)
    .filter((s) => s !== '')
    .map(Number);
}

// Multi-byte UTF-8, a quote, a newline and U+2028 inside a JSON string: all must survive the relay.
const ECHO_TEXT = 'héllo "wörld" ✓\nline two \u2028 done';

for (const pair of MATRIX) {
  const server = SERVERS[pair.server];
  t.test(`client ${pair.client} ↔ server ${pair.server} through the proxy`, async (t) => {
    const { client, transport, start } = createClient(pair.client, server.args);
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    let closed = false;
    const spawned: number[] = [];
    t.teardown(async () => {
      if (!closed) await client.close().catch(() => {});
      for (const pid of spawned) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      if (t.passing() === false) t.comment(`proxy stderr:\n${stderr}`);
    });

    await start();
    const proxyPid = transport.pid;
    t.type(proxyPid, 'number', 'the transport spawned the proxy');
    if (proxyPid === null) return;
    const serverPids = childPids(proxyPid);
    spawned.push(proxyPid, ...serverPids);
    if (process.platform === 'linux') t.equal(serverPids.length, 1, 'the proxy runs exactly one child: the server');

    t.same(client.getServerVersion(), server.info, 'initialize: the serverInfo came through');

    const { tools } = await client.listTools();
    t.same(
      tools.map((tool) => tool.name).sort(),
      ['add', 'echo'],
      'tools/list lists both tools',
    );
    t.ok(tools.find((tool) => tool.name === 'add')?.outputSchema, 'add declares an outputSchema');

    const echoed = await client.callTool({ name: 'echo', arguments: { text: ECHO_TEXT } });
    t.same(echoed, { content: [{ type: 'text', text: ECHO_TEXT }] }, 'tools/call echo returns the exact text');

    const added = await client.callTool({ name: 'add', arguments: { a: 2, b: 40.5 } });
    const structured = { sum: 42.5, sdk: `${server.tag}@${server.info.version}` };
    t.same(
      added,
      { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
      'tools/call add returns structuredContent that matched its outputSchema',
    );

    const resource = await client.readResource({ uri: 'test://greeting' });
    t.same(
      resource,
      { contents: [{ uri: 'test://greeting', mimeType: 'text/plain', text: `Hello from ${server.tag}` }] },
      'resources/read returns the greeting',
    );

    const { prompts } = await client.listPrompts();
    t.match(prompts, [{ name: 'greet', arguments: [{ name: 'name', required: true }] }], 'prompts/list lists greet');
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada Lovelace' } });
    t.same(
      prompt,
      { messages: [{ role: 'user', content: { type: 'text', text: 'Please greet Ada Lovelace.' } }] },
      'prompts/get renders the prompt',
    );

    // Closing ends the proxy's stdin; the proxy must pass the EOF on and exit
    // with its server, before the SDK's 2 s grace period would SIGTERM it.
    const closing = Date.now();
    await client.close();
    closed = true;
    const took = Date.now() - closing;
    t.ok(took < 1900, `the proxy exited on stdin EOF by itself (close took ${took} ms)`);
    t.notOk(isAlive(proxyPid), 'the proxy process is gone');
    for (const pid of serverPids) t.notOk(isAlive(pid), `the server process ${pid} is gone`);
  });
}
