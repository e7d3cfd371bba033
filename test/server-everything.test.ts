// The MCP reference server (@modelcontextprotocol/server-everything) behind the proxy, driven by the SDK 1.x client.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import t from 'tap';
import { CLI, NO_DEBUGGER } from './helpers/cli.js';

const EVERYTHING_DIR = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/', import.meta.url));
const STATIC_DOCUMENT = 'demo://resource/static/document/';

t.test('server-everything through the proxy', async (t) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp-proxy', ...NO_DEBUGGER, '--', process.execPath, `${EVERYTHING_DIR}index.js`, 'stdio'],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'server-everything-test', version: '0.0.0' });
  t.teardown(async () => {
    const pid = transport.pid;
    await client.close().catch(() => {});
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
  t.match(client.getServerVersion(), { name: 'mcp-servers/everything' }, 'initialize: the reference server answered');
  t.ok(client.getServerCapabilities()?.tools, 'it advertises tools');

  const { tools } = await client.listTools();
  const echo = tools.find((tool) => tool.name === 'echo') ?? tools.find((tool) => /echo/i.test(tool.name));
  t.ok(echo, `tools/list has an echo tool (got ${tools.map((tool) => tool.name).join(', ')})`);
  const sum = tools.find((tool) => tool.name === 'get-sum');
  t.ok(sum, 'tools/list has get-sum');
  if (!echo || !sum) return;

  const message = 'through the proxy: ünïcödé ✓ "quoted"';
  t.same(
    await client.callTool({ name: echo.name, arguments: { message } }),
    { content: [{ type: 'text', text: `Echo: ${message}` }] },
    'tools/call echo returns the message',
  );
  const summed = await client.callTool({ name: sum.name, arguments: { a: 19, b: 23 } });
  t.match(summed, { content: [{ type: 'text', text: /\b42\b/ }] }, 'tools/call get-sum returns 42');

  const { resources } = await client.listResources();
  t.ok(resources.length > 0, 'resources/list is not empty');
  const first = resources[0];
  if (!first) return;
  const read = await client.readResource({ uri: first.uri });
  t.equal(read.contents.length, 1, 'resources/read returns one content');
  const content = read.contents[0];
  t.equal(content?.uri, first.uri, 'for the resource asked for');
  const text = content !== undefined && 'text' in content ? content.text : undefined;
  t.type(text, 'string', 'as text');
  t.ok(text !== undefined && text.length > 100, 'with real content');
  // The first resource is a static document served from the package's docs
  // folder: what arrived through the proxy must be that file, to the byte.
  t.ok(first.uri.startsWith(STATIC_DOCUMENT), `the first resource is a static document (${first.uri})`);
  const file = `${EVERYTHING_DIR}docs/${decodeURIComponent(first.uri.slice(STATIC_DOCUMENT.length))}`;
  t.equal(text, readFileSync(file, 'utf8'), 'resources/read text equals the document on disk');

  const { prompts } = await client.listPrompts();
  const simple = prompts.find((prompt) => prompt.name === 'simple-prompt');
  const withArgs = prompts.find((prompt) => prompt.name === 'args-prompt');
  t.ok(simple, 'prompts/list has simple-prompt');
  t.ok(withArgs, 'prompts/list has args-prompt');
  t.match(
    await client.getPrompt({ name: 'simple-prompt' }),
    { messages: [{ role: 'user', content: { type: 'text', text: /\S/ } }] },
    'prompts/get simple-prompt returns a message',
  );
  t.match(
    await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Zürich' } }),
    { messages: [{ role: 'user', content: { type: 'text', text: /Zürich/ } }] },
    'prompts/get args-prompt renders its argument',
  );

  await client.ping();
  t.pass('ping answered');
});
