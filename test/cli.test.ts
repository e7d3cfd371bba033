// The `graphmind mcp-proxy` command line: the recipe printed without a
// command, flag errors, --trace, and a server command line that reaches the
// server untouched.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PROXY_FIXTURES, startProxy, waitFor } from './helpers/cli.js';
import { frame, initialize, killQuietly, lines, messagesIn, responseTo, stderrMatch, toolsCall } from './helpers/wire.js';

const node = process.execPath;
const fixture = (name: string): string => join(PROXY_FIXTURES, name);
const PLACEHOLDER = '/abs/path/to/your/server.js';

for (const flags of [[], ['--trace']]) {
  t.test(`no server command (${flags.join(' ') || 'no flags'}): a working recipe on stderr, exit 2`, async (t) => {
    const proxy = startProxy(flags, []);
    t.teardown(() => killQuietly(proxy.child.pid));
    const { code } = await proxy.exited;
    t.equal(code, 2);
    t.equal(proxy.stdout().length, 0, 'nothing on stdout');
    const recipe = proxy.stderr();
    t.match(recipe, /claude mcp add \S+ -- /, 'a Claude Code line');
    t.notMatch(recipe, /^\s+at /m, 'no stack trace');

    // The client-config JSON, as printed (indented), must parse and run.
    const all = lines(recipe);
    const open = all.findIndex((line) => line.trim() === '{');
    const close = all.findIndex((line, i) => i > open && line === all[open]?.replace('{', '}'));
    t.ok(open >= 0 && close > open, 'a JSON block');
    const config = JSON.parse(all.slice(open, close + 1).join('\n')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const entry = Object.values(config.mcpServers)[0];
    t.ok(entry, 'one server entry');
    if (entry === undefined) return;
    t.type(entry.command, 'string');
    t.ok(entry.args.includes('mcp-proxy'), 'args run mcp-proxy');
    const dashes = entry.args.indexOf('--');
    t.ok(dashes > entry.args.indexOf('mcp-proxy'), 'then "--"');
    t.equal(entry.args[entry.args.length - 1], PLACEHOLDER, 'then the user’s server, as an absolute path');
    for (const arg of entry.args.slice(0, dashes)) {
      if (arg.startsWith('/')) t.ok(existsSync(arg), `${arg} exists`);
    }

    // Pasted with the placeholder swapped for a real server, it works.
    const args = entry.args.map((arg) => (arg === PLACEHOLDER ? fixture('echo-server.mjs') : arg));
    const host = spawn(entry.command, args, { stdio: 'pipe' });
    t.teardown(() => killQuietly(host.pid));
    const out: Buffer[] = [];
    host.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    host.stdin.write(initialize(1));
    await waitFor(() => messagesIn(Buffer.concat(out)).some((m) => m.id === 1), 10_000, 'the initialize answer');
    host.stdin.end();
  });
}

for (const [flags, expected] of [
  [['--max-frame-bytes', 'abc'], /^graphmind mcp-proxy: --max-frame-bytes must be a positive whole number of bytes$/],
  [['--max-frame-bytes', '-5'], /^graphmind mcp-proxy: --max-frame-bytes must be /],
  [['--port', 'http'], /^graphmind mcp-proxy: --port must be a port number/],
  // A value left out must not silently mean the default.
  [['--max-frame-bytes'], /^graphmind mcp-proxy: .*max-frame-bytes/],
  [['--port'], /^graphmind mcp-proxy: .*port/],
  [['--bogus'], /^graphmind mcp-proxy: Unknown argument: bogus$/],
] as const) {
  t.test(`${flags.join(' ')}: one plain line, exit 2`, async (t) => {
    const proxy = startProxy(flags, [node, fixture('echo-server.mjs')]);
    t.teardown(() => killQuietly(proxy.child.pid));
    const { code } = await proxy.exited;
    t.equal(code, 2);
    t.equal(proxy.stdout().length, 0, 'nothing on stdout');
    const all = lines(proxy.stderr());
    t.equal(all.length, 1, 'exactly one line, no stack trace');
    t.match(all[0], expected);
    t.notMatch(proxy.stderr(), /echo-server/, 'the server was never started');
  });
}

t.test('--trace: one stderr line per frame, with no debugger running', async (t) => {
  const proxy = startProxy(['--trace'], [node, fixture('echo-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  const sent: string[] = [];
  const send = (text: string): void => {
    sent.push(text);
    proxy.child.stdin.write(text);
  };
  send(initialize(1));
  await responseTo(proxy, 1);
  send(frame({ method: 'notifications/initialized' }));
  send(frame({ id: 2, method: 'tools/list' }));
  await responseTo(proxy, 2);
  send(toolsCall('three', 'echo', { text: 'hi' }));
  await responseTo(proxy, 'three');
  proxy.child.stdin.end();
  const { code } = await proxy.exited;
  t.equal(code, 0);

  const answers = lines(proxy.stdout().toString('utf8')).map((line) => `${line}\n`);
  t.equal(answers.length, 3, 'three answers on stdout, nothing else');
  const bytes = (text: string | undefined): number => Buffer.byteLength(text ?? '');
  const trace = lines(proxy.stderr()).filter((line) => !line.startsWith('echo-server: '));
  t.same(trace, [
    `graphmind mcp-proxy: trace client → server request initialize #1 (${bytes(sent[0])} bytes)`,
    `graphmind mcp-proxy: trace server → client response initialize #1 (${bytes(answers[0])} bytes)`,
    `graphmind mcp-proxy: trace client → server notification notifications/initialized (${bytes(sent[1])} bytes)`,
    `graphmind mcp-proxy: trace client → server request tools/list #2 (${bytes(sent[2])} bytes)`,
    `graphmind mcp-proxy: trace server → client response tools/list #2 (${bytes(answers[1])} bytes)`,
    `graphmind mcp-proxy: trace client → server request tools/call #"three" tool:echo (${bytes(sent[3])} bytes)`,
    `graphmind mcp-proxy: trace server → client response tools/call #"three" tool:echo (${bytes(answers[2])} bytes)`,
  ]);
});

t.test('--trace leaves stdout byte-exact', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const record = join(dir, 'server-stdout.bin');
  const proxy = startProxy(['--trace'], [node, fixture('noisy-server.mjs'), record]);
  t.teardown(() => killQuietly(proxy.child.pid));
  proxy.child.stdin.write(initialize(1));
  await responseTo(proxy, 1);
  proxy.child.stdin.write(toolsCall(2, 'echo'));
  await responseTo(proxy, 2);
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);
  t.ok(proxy.stdout().equals(readFileSync(record)), 'stdout holds exactly the server’s bytes');
  const trace = lines(proxy.stderr()).filter((line) => line.startsWith('graphmind mcp-proxy: trace '));
  t.equal(trace.length, 2 + 6, 'a trace line for each of the 2 requests and the 6 lines the server wrote');
  t.equal(trace.filter((line) => line.includes(' noise ')).length, 4, 'noise lines are traced as noise');
});

const TRICKY_ARGS = ['--port', '3', '1e3', '-x', '--', '--trace', '', 'a b', '0x10', '--max-frame-bytes=5', '007', 'ünï'];

t.test('server arguments after -- reach the server unchanged', async (t) => {
  const proxy = startProxy([], [node, fixture('echo-server.mjs'), ...TRICKY_ARGS]);
  t.teardown(() => killQuietly(proxy.child.pid));
  const match = await stderrMatch(proxy, /echo-server: (\{.*\})\n/);
  t.same((JSON.parse(match[1] ?? '{}') as { argv: string[] }).argv, TRICKY_ARGS);
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);
});

t.test('without --, the server command starts at the first argument that is not ours', async (t) => {
  const serverArgs = ['--port', '3', '1e3', '-x'];
  const proxy = startProxy(['--max-frame-bytes', '4096', '--trace', node, fixture('echo-server.mjs'), ...serverArgs], []);
  t.teardown(() => killQuietly(proxy.child.pid));
  const match = await stderrMatch(proxy, /echo-server: (\{.*\})\n/);
  t.same((JSON.parse(match[1] ?? '{}') as { argv: string[] }).argv, serverArgs);
  proxy.child.stdin.write(initialize(1));
  await responseTo(proxy, 1);
  t.match(proxy.stderr(), /graphmind mcp-proxy: trace client → server request initialize #1/, 'our flags still apply');
  proxy.child.stdin.end();
  t.equal((await proxy.exited).code, 0);
});
