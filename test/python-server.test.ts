// A stdlib-only Python MCP server behind the proxy, driven by the SDK 1.x client: the proxy is language-agnostic.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import t from 'tap';
import { CLI, hasPython, NO_DEBUGGER, PROXY_FIXTURES } from './helpers/cli.js';

t.test('python server through the proxy', async (t) => {
  if (!hasPython(t)) return;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp-proxy', ...NO_DEBUGGER, '--', 'python3', `${PROXY_FIXTURES}python-server.py`],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'python-server-test', version: '0.0.0' });
  let closed = false;
  t.teardown(async () => {
    const pid = transport.pid;
    if (!closed) await client.close().catch(() => {});
    if (pid !== null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (t.passing() === false) t.comment(`proxy stderr:\n${stderr}`);
  });

  await client.connect(transport);
  t.same(client.getServerVersion(), { name: 'python-fixture', version: '0.1.0' }, 'initialize: the Python server answered');
  t.same(client.getServerCapabilities(), { tools: {} }, 'with its capabilities');

  const { tools } = await client.listTools();
  t.same(tools.map((tool) => tool.name), ['add'], 'tools/list lists add');
  t.match(tools[0]?.inputSchema, { type: 'object', required: ['a', 'b'] }, 'with its inputSchema');

  t.same(
    await client.callTool({ name: 'add', arguments: { a: 19, b: 23 } }),
    { content: [{ type: 'text', text: '42' }] },
    'tools/call add returns the sum',
  );
  t.same(
    await client.callTool({ name: 'add', arguments: { a: 0.5, b: -2 } }),
    { content: [{ type: 'text', text: '-1.5' }] },
    'and again, with fractions and negatives',
  );
  t.same(await client.ping(), {}, 'ping answered');

  const closing = Date.now();
  await client.close();
  closed = true;
  const took = Date.now() - closing;
  t.ok(took < 1900, `the Python server and the proxy exited on stdin EOF (close took ${took} ms)`);
});
