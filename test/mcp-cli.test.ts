// The `graphmind mcp` command itself: its flags and their errors, nothing but protocol on stdout,
// the end of stdin ends it, the SDK loaded by this command only, and a data directory that does
// not exist is not created.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { CLI, NO_DEBUGGER_PORT, waitFor } from './helpers/cli.js';

const MODULE_LOG_HOOK = fileURLToPath(new URL('./fixtures/mcp/module-log.mjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'graphmind-mcp-cli-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const env = (extra: Record<string, string> = {}): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) out[key] = value;
  return { ...out, ...extra };
};

/** Run the CLI to its end; with MODULE_LOG, the modules it loaded. */
function run(args: readonly string[], options: { input?: string; logModules?: boolean } = {}): { status: number | null; stdout: string; stderr: string; modules: string[] } {
  const log = join(root, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const nodeArgs = options.logModules === true ? ['--import', MODULE_LOG_HOOK] : [];
  const result = spawnSync(process.execPath, [...nodeArgs, CLI, ...args], { input: options.input ?? '', encoding: 'utf8', timeout: 20_000, env: env({ MODULE_LOG: log }) });
  const modules = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((line) => line !== '') : [];
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, modules };
}

const sdkModules = (modules: readonly string[]): string[] => modules.filter((url) => url.includes('/@modelcontextprotocol/'));

t.test('--help describes the command and its flags', async (t) => {
  const help = run(['mcp', '--help']);
  t.equal(help.status, 0);
  t.match(help.stdout, /graphmind mcp \[--port N\] \[--data-dir D\] \[--allow-control\]/);
  t.match(help.stdout, /--allow-control/);
  t.match(run(['--help']).stdout, /graphmind mcp +Serve the recorded runs to an assistant/, 'the command table lists it');
});

t.test('a bad flag is one line on stderr and exit code 2, nothing on stdout', async (t) => {
  for (const args of [
    ['mcp', '--port', 'abc'],
    ['mcp', '--port', '70000'],
    ['mcp', '--no-such-flag'],
    ['mcp', '--data-dir', ''],
  ]) {
    const result = run(args);
    t.equal(result.status, 2, args.join(' '));
    t.equal(result.stdout, '');
    t.match(result.stderr, /^graphmind mcp: [^\n]+\n$/);
  }
});

t.test('the MCP SDK is loaded by graphmind mcp, and by no other command', async (t) => {
  t.same(sdkModules(run(['mcp', '--help'], { logModules: true }).modules), [], 'not for mcp --help');
  t.same(sdkModules(run(['mcp-proxy', '--port', String(NO_DEBUGGER_PORT), '--', process.execPath, '-e', ''], { logModules: true }).modules), [], 'not for mcp-proxy');
  t.same(sdkModules(run(['serve', '--port', '-1'], { logModules: true }).modules), [], 'not for serve');
  const served = run(['mcp', '--port', String(NO_DEBUGGER_PORT), '--data-dir', join(root, 'none')], { logModules: true });
  t.ok(sdkModules(served.modules).length > 0, 'loaded for mcp itself');
});

t.test('stdout carries JSON-RPC only; a line that is not JSON is skipped; the end of stdin ends it', async (t) => {
  const dataDir = join(root, 'never-created');
  const child = spawn(process.execPath, [CLI, 'mcp', '--port', String(NO_DEBUGGER_PORT), '--data-dir', dataDir], { stdio: 'pipe', env: env() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(child, 'exit');
  const send = (message: object): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  child.stdin.write('this is not JSON\n');
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_runs', arguments: {} } });
  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_run', arguments: { runId: '../x' } } });
  send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_holds', arguments: {} } });
  await waitFor(() => stdout.split('\n').filter((line) => line.includes('"id":5')).length === 1, 10_000, 'the answer to request 5');
  child.stdin.end();
  const [code] = await exited;
  t.equal(code, 0, 'exits 0 when the client closes stdin');

  const lines = stdout.split('\n');
  t.equal(lines.pop(), '', 'stdout ends with a newline');
  const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: Record<string, unknown>; error?: unknown });
  t.ok(messages.every((message) => message.jsonrpc === '2.0'), 'every stdout line is a JSON-RPC message');
  t.same(
    messages.map((message) => message.id).sort(),
    [1, 2, 3, 4, 5],
    'one answer per request (in the order they were ready), nothing else',
  );
  const answer = (id: number): unknown => messages.find((message) => message.id === id)?.result;
  t.match(answer(1), { serverInfo: { name: 'graphmind' }, capabilities: { tools: {}, resources: {} }, instructions: /untrusted data/ });
  t.match(answer(3), { structuredContent: { from: 'data-dir', total: 0, runs: [] } });
  t.match(answer(4), { isError: true });
  t.match(answer(5), { isError: true });
  t.match(stderr, /^graphmind mcp: serving runs from the debugger on 127\.0\.0\.1:1, else from /m, 'diagnostics go to stderr');
  t.notOk(existsSync(dataDir), 'a data directory that does not exist is not created');
});
