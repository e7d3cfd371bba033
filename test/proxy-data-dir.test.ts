// `graphmind mcp-proxy --data-dir <dir>` finds the debugger's token in the
// directory `graphmind serve --data-dir <dir>` writes it to, with nothing in
// the environment: hosts do not pass a shell's GRAPHMIND_DATA_DIR on. Without
// it such a debugger turns the proxy away (one line on stderr) and nothing
// holds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import t from 'tap';
import { CLI, PROXY_FIXTURES } from './helpers/cli.js';
import { decide, listHolds, setBreakpoints, sleep, startDebugger, waitForHold, type ServeProcess } from './helpers/gates.js';

/** An environment with no GRAPHMIND_* at all, and a home of its own (no ~/.graphmind/token to fall back on). */
function bareEnv(t: { teardown(fn: () => unknown): void }): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'graphmind-home-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GRAPHMIND_') && value !== undefined) env[key] = value;
  return { ...env, HOME: home };
}

async function proxied(t: { teardown(fn: () => unknown): void }, serve: ServeProcess, flags: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp-proxy', '--port', String(serve.port), ...flags, '--', process.execPath, `${PROXY_FIXTURES}echo-server.mjs`],
    env: bareEnv(t),
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const client = new Client({ name: 'data-dir', version: '1.0.0' });
  t.teardown(() => client.close());
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

t.test('--data-dir: the proxy attaches to a serve started with that data dir', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const { client } = await proxied(t, serve, ['--data-dir', serve.dataDir, '--wait-for-attach']);
  const pending = client.callTool({ name: 'echo', arguments: { text: 'through the data dir' } });
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  await decide(serve, hold.holdId, 'continue');
  t.match(await pending, { content: [{ type: 'text' }] }, 'held, then answered');
});

t.test('without it, the same debugger refuses the proxy, says so once, and nothing holds', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const { client, stderr } = await proxied(t, serve, []);
  t.match(await client.callTool({ name: 'echo', arguments: { text: 'unobserved' } }), { content: [{ type: 'text' }] }, 'the call goes straight through');
  for (let i = 0; i < 100 && !stderr().includes('refused this proxy'); i++) await sleep(50);
  t.match(stderr(), /graphmind mcp-proxy: the debugger at http:\/\/127\.0\.0\.1:\d+ refused this proxy: its token is not the one this proxy presents/);
  t.strictSame(await listHolds(serve), [], 'nothing held');
});
