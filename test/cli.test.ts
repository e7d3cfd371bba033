// The `graphmind mcp-proxy` command line: the recipe printed without a
// command, flag errors, --trace, and a server command line that reaches the
// server untouched.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import yargs from 'yargs';
import { proxyFlags } from '../src/cli/mcp-proxy-command.js';
import { parseProxyFlags, type ProxyFlags } from '../src/cli/proxy-flags.js';
import { CLI, hasPython, PROXY_FIXTURES, startProxy, waitFor } from './helpers/cli.js';
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

t.test('no server command with --data-dir: the recipe carries it, and its environment form', async (t) => {
  const proxy = startProxy(['--data-dir', '/srv/my graphmind'], []);
  t.teardown(() => killQuietly(proxy.child.pid));
  t.equal((await proxy.exited).code, 2);
  const recipe = proxy.stderr();
  t.match(recipe, /^ {2}graphmind mcp-proxy --port 1 --data-dir '\/srv\/my graphmind' -- node /m, 'the command lines carry --data-dir, quoted for the shell');
  t.match(recipe, /"--data-dir",\s+"\/srv\/my graphmind",\s+"--"/, 'so does the config file');
  t.match(recipe, /claude mcp add my-server-debug -e GRAPHMIND_DATA_DIR='\/srv\/my graphmind' -- node \S+ mcp-proxy --port 1 -- /, 'the environment form for Claude Code');
  t.match(recipe, /"env": \{ "GRAPHMIND_DATA_DIR": "\/srv\/my graphmind" \}/, 'and for a config file');
  t.match(recipe, /graphmind serve --port 1 --data-dir '\/srv\/my graphmind'` in another terminal/, 'the debugger to start has the same data dir');
});

t.test('no server command with --port: the recipe reports to that port', async (t) => {
  const proxy = startProxy(['--port', '5999'], []);
  t.teardown(() => killQuietly(proxy.child.pid));
  t.equal((await proxy.exited).code, 2);
  const recipe = proxy.stderr();
  t.match(recipe, /^ {2}graphmind mcp-proxy --port 5999 -- node /m, 'the command lines carry --port');
  t.match(recipe, /claude mcp add my-server-debug -- node \S+ mcp-proxy --port 5999 -- /, 'so does the Claude Code line');
  t.match(recipe, /"--port",\s+"5999",\s+"--"/, 'and the config file');
  t.match(recipe, /graphmind serve --port 5999` in another terminal .* http:\/\/127\.0\.0\.1:5999\./, 'the debugger to start is on that port');
  t.notMatch(recipe, /4747/, 'nothing points at the default port');
});

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

// The fast parser reads the flags a host config passes without loading yargs.
// For every form it reads, it must give what yargs gives; for every other
// form it must step aside so that yargs answers as it always has.

/** What the yargs parser (the one `graphmind mcp-proxy` falls back to) makes of `args`. */
async function viaYargs(args: string[]): Promise<ProxyFlags | { error: string }> {
  try {
    const parsed = await proxyFlags(yargs(args))
      .help(false)
      .version(false)
      .strict()
      .exitProcess(false)
      .fail((message, error) => {
        throw new Error(message ?? error?.message);
      })
      .parseAsync();
    const flags = parsed as unknown as ProxyFlags;
    return {
      trace: flags.trace,
      'wait-for-attach': flags['wait-for-attach'],
      'inherit-stderr': flags['inherit-stderr'],
      'max-frame-bytes': flags['max-frame-bytes'],
      port: flags.port,
      'data-dir': flags['data-dir'],
      watch: flags.watch,
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const FAST_FORMS: string[][] = [
  [],
  ['--trace'],
  ['--no-trace'],
  ['--wait-for-attach'],
  ['--no-wait-for-attach'],
  ['--inherit-stderr'],
  ['--no-inherit-stderr'],
  ['--port', '4748'],
  ['--port=4748'],
  ['--port', '007'],
  ['--port', '65535'],
  ['--port', '1'],
  ['--max-frame-bytes', '4096'],
  ['--max-frame-bytes=1'],
  ['--max-frame-bytes', '9007199254740991'],
  ['--trace', '--wait-for-attach', '--inherit-stderr', '--max-frame-bytes', '4096', '--port', '4748'],
  ['--port=80', '--no-trace', '--max-frame-bytes=65536', '--inherit-stderr'],
  ['--data-dir', '/tmp/graphmind data'],
  ['--data-dir=/srv/graphmind'],
  ['--port', '4800', '--data-dir', 'relative/dir', '--trace'],
  ['--watch', 'src'],
  ['--watch=src,lib/x.js', '--port', '4800'],
];

t.test('fast flag parser: each form it reads gives the values yargs gives', async (t) => {
  for (const args of FAST_FORMS) {
    const fast = parseProxyFlags(args);
    t.ok(fast, `${JSON.stringify(args)} is read without yargs`);
    t.equal(fast?.problem, undefined, `${JSON.stringify(args)} is valid`);
    t.same(fast?.flags, await viaYargs(args), `${JSON.stringify(args)}: same values as yargs`);
  }
  t.same(parseProxyFlags([])?.flags, {
    trace: false,
    'wait-for-attach': false,
    'inherit-stderr': false,
    'max-frame-bytes': 64 * 1024 * 1024,
    // Not given: the one rule decides (GRAPHMIND_URL's port, else 4747), in the reporter.
    port: undefined,
    'data-dir': undefined,
    watch: undefined,
  }, 'the defaults');
  t.same(parseProxyFlags(['--trace', '--port=4748', '--max-frame-bytes', '10', '--data-dir', '/d'])?.flags, {
    trace: true,
    'wait-for-attach': false,
    'inherit-stderr': false,
    'max-frame-bytes': 10,
    port: 4748,
    'data-dir': '/d',
    watch: undefined,
  });
});

t.test('fast flag parser: an out-of-range value gives the yargs message', async (t) => {
  for (const args of [
    ['--port', '0'],
    ['--port=65536'],
    ['--port', '99999999999999999999999'],
    ['--max-frame-bytes', '0'],
    ['--max-frame-bytes=9007199254740992'],
    ['--max-frame-bytes', '0', '--port', '0'],
  ]) {
    const fast = parseProxyFlags(args);
    t.ok(fast, `${JSON.stringify(args)} is read without yargs`);
    const yargsSays = await viaYargs(args);
    t.ok('error' in yargsSays, `yargs rejects ${JSON.stringify(args)}`);
    if ('error' in yargsSays) t.equal(fast?.problem, yargsSays.error, `${JSON.stringify(args)}: the same message`);
  }
});

t.test('fast flag parser: anything else is left to yargs', async (t) => {
  for (const args of [
    ['--help'],
    ['-h'],
    ['--version'],
    ['--bogus'],
    ['-x'],
    ['foo'],
    [''],
    ['--'],
    ['--maxFrameBytes', '10'],
    ['--waitForAttach'],
    ['--port'],
    ['--port', '--trace'],
    ['--port='],
    ['--port', ''],
    ['--port', '-1'],
    ['--port', '+80'],
    ['--port', '0x10'],
    ['--port', '1e3'],
    ['--port', ' 80 '],
    ['--max-frame-bytes', '10.0'],
    ['--port=1', '--port=2'],
    ['--trace', '--trace'],
    ['--trace', '--no-trace'],
    ['--trace=true'],
    ['--trace=false'],
    ['--no-port'],
    ['--no-bogus'],
    ['--trace', 'true'],
    ['--data-dir'],
    ['--data-dir='],
    ['--data-dir', '--trace'],
    ['--data-dir', 'a', '--data-dir', 'b'],
  ]) {
    t.equal(parseProxyFlags(args), undefined, `${JSON.stringify(args)} goes to yargs`);
  }
});

t.test('mcp-proxy --help: the yargs help, exit 0', async (t) => {
  const proxy = startProxy(['--help'], [node, fixture('echo-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  t.equal((await proxy.exited).code, 0);
  const help = proxy.stdout().toString('utf8');
  t.match(help, /^graphmind mcp-proxy \[flags\] -- <server command\.\.\.>\n/, 'the usage line');
  t.match(help.replace(/\s+/g, ' '), /Relay an MCP server over stdio, byte for byte, .* With no debugger running it is a plain relay: nothing is held\./, 'what it does, and that it needs no debugger');
  t.match(help, /^Examples:\n {2}graphmind mcp-proxy -- node /m, 'an example');
  for (const flag of ['--trace', '--wait-for-attach', '--inherit-stderr', '--max-frame-bytes', '--port', '--data-dir', '--version', '--help']) {
    t.match(help, new RegExp(`^  ${flag} `, 'm'), `describes ${flag}`);
  }
  t.match(help, /\[number\] \[default: 67108864\]/, 'with the defaults');
  t.notMatch(proxy.stderr(), /echo-server/, 'the server was never started');
});

t.test('mcp-proxy --version: the package version, exit 0', async (t) => {
  const proxy = startProxy(['--version'], [node, fixture('echo-server.mjs')]);
  t.teardown(() => killQuietly(proxy.child.pid));
  t.equal((await proxy.exited).code, 0);
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  t.equal(proxy.stdout().toString('utf8'), `${version}\n`);
});

for (const [flags, expected] of [
  // Read by the fast parser, checked by the shared check.
  [['--port', '0'], /^graphmind mcp-proxy: --port must be a port number \(1-65535\)$/],
  [['--port=65536'], /^graphmind mcp-proxy: --port must be a port number \(1-65535\)$/],
  [['--max-frame-bytes=0'], /^graphmind mcp-proxy: --max-frame-bytes must be a positive whole number of bytes$/],
  // Left to yargs.
  [['-h'], /^graphmind mcp-proxy: Unknown argument: h$/],
  [['--trace', '--bogus=1'], /^graphmind mcp-proxy: Unknown argument: bogus$/],
  [['--maxFrameBytes', '0'], /^graphmind mcp-proxy: --max-frame-bytes must be a positive whole number of bytes$/],
  [['--port', '--trace'], /^graphmind mcp-proxy: Not enough arguments following: port$/],
  // A flag given twice is named as such (issue 29), not taken for a bad value.
  [['--port=1', '--port=2'], /^graphmind mcp-proxy: --port was given more than once; give each flag once$/],
] as const) {
  t.test(`${flags.join(' ')}: one plain line, exit 2`, async (t) => {
    const proxy = startProxy(flags, [node, fixture('echo-server.mjs')]);
    t.teardown(() => killQuietly(proxy.child.pid));
    t.equal((await proxy.exited).code, 2);
    t.equal(proxy.stdout().length, 0, 'nothing on stdout');
    const all = lines(proxy.stderr());
    t.equal(all.length, 1, 'exactly one line, no stack trace');
    t.match(all[0], expected);
  });
}

// --max-frame-bytes shows on stderr when a longer line arrives, so each form
// can be seen to reach the proxy.
for (const flags of [
  ['--max-frame-bytes', '64'],
  ['--max-frame-bytes=64', '--no-trace'],
  ['--maxFrameBytes', '64'],
  ['--max-frame-bytes', '0x40'],
]) {
  t.test(`${flags.join(' ')} reaches the proxy`, async (t) => {
    const proxy = startProxy(flags, [node, fixture('echo-server.mjs')]);
    t.teardown(() => killQuietly(proxy.child.pid));
    proxy.child.stdin.write(initialize(1));
    await responseTo(proxy, 1);
    await stderrMatch(proxy, /larger than --max-frame-bytes \(64 bytes\)/);
    t.notMatch(proxy.stderr(), /graphmind mcp-proxy: trace /, 'no trace');
    proxy.child.stdin.end();
    t.equal((await proxy.exited).code, 0, 'exit 0');
  });
}

t.test('the usual mcp-proxy start loads neither yargs nor the debugger server', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A module hook that writes down every module the CLI loads.
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    [
      "import { appendFileSync } from 'node:fs';",
      'let file;',
      'export function initialize(data) { file = data; }',
      'export async function resolve(specifier, context, next) {',
      '  const result = await next(specifier, context);',
      "  appendFileSync(file, result.url + '\\n');",
      '  return result;',
      '}',
    ].join('\n'),
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)}, { data: process.env.LOADED_LIST });\n`,
  );

  const loaded = async (proxyArgs: string[]): Promise<string[]> => {
    const list = join(dir, `loaded-${proxyArgs.join('')}.txt`);
    writeFileSync(list, '');
    const child = spawn(process.execPath, ['--import', pathToFileURL(register).href, CLI, 'mcp-proxy', ...proxyArgs, '--', node, '-e', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LOADED_LIST: list },
    });
    t.teardown(() => killQuietly(child.pid));
    child.stderr.resume();
    await once(child, 'close');
    return readFileSync(list, 'utf8').split('\n').filter(Boolean);
  };

  const usual = await loaded(['--trace', '--port=4748', '--max-frame-bytes', '4096']);
  t.ok(usual.some((url) => url.endsWith('/proxy/run-proxy.js')), 'the hook sees the proxy load');
  t.same(usual.filter((url) => /\/node_modules\/yargs\//.test(url)), [], 'no yargs');
  t.same(usual.filter((url) => /\/dist\/(server\/|cli\/serve-command\.js)/.test(url)), [], 'nothing of the serve command');

  const unusual = await loaded(['--maxFrameBytes', '4096']);
  t.ok(unusual.some((url) => /\/node_modules\/yargs\//.test(url)), 'an unusual form does load yargs');
});

t.test('--trace shows ids past 2^53 with their own digits, each answer with its own request', async (t) => {
  if (!hasPython(t)) return;
  const proxy = startProxy(['--trace'], ['python3', `${PROXY_FIXTURES}python-server.py`]);
  t.teardown(() => killQuietly(proxy.child.pid));
  // As JavaScript numbers these two ids are one; the Python server answers each with its exact id.
  proxy.child.stdin.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}\n');
  proxy.child.stdin.write('{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}\n');
  await waitFor(() => lines(proxy.stdout().toString('utf8')).length === 2, 10_000, 'two answers');
  proxy.child.stdin.end();
  await proxy.exited;
  const trace = lines(proxy.stderr()).filter((line) => line.includes('trace server → client'));
  t.match(trace[0], /response tools\/list #9007199254740993 /, 'the first answer is the tools/list, shown with its exact id');
  t.match(trace[1], /response ping #9007199254740992 /, 'the second is the ping');
});
