// Every shell command in the user docs is checked, so the docs cannot drift
// from what is built. The ```sh and ```bash blocks of README.md and
// docs/*.md are read line by line (a line ending in `\` goes on, `a && b`
// is two commands, a `# comment` is dropped), and each command must match a
// rule of RULES below:
//
// - `runs`: run here for real, in a safe form: the built CLI instead of
//   `graphmind` on PATH, a temporary HOME (so `~/.graphmind` is a scratch
//   directory), a free port for a debugger and port 1 (nothing listens) for
//   a proxy or `graphmind mcp` that should not meet one, and a test fixture
//   in place of "your server" (a Python fixture for a Python server);
// - `covered`: named with the test that runs it; that test file must exist
//   and contain the command's essential part;
// - `cannot`: cannot run here (it needs Claude Code, changes your npm or
//   host setup, or is this very suite), with the reason, and its shape is
//   checked: the CLI path, flags and package fields it relies on exist. A
//   `claude mcp add` line cannot run, but the command it registers does.
//
// docs/testing.md's `graphmind replay` and `graphmind verify` lines run on
// the testing examples' fixture (test/fixtures/testing-examples).
//
// A command added to the docs that no rule matches fails, and so does a rule
// that no command matches any more. Relative links in the docs this suite
// owns must lead to existing files and headings.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

/** What the checks use of a tap test. */
type Test = Pick<typeof t, 'ok' | 'equal' | 'match' | 'strictSame' | 'fail' | 'pass' | 'comment' | 'teardown'>;

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/graphmind.js');
const ECHO_SERVER = join(ROOT, 'test/fixtures/mcp-proxy/echo-server.mjs');
const PYTHON_SERVER = join(ROOT, 'test/fixtures/mcp-proxy/python-server.py');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** docs/testing.md's fixture, rules and server (test/fixtures/search.jsonl, node build/server.js) as the examples keep them. */
const TESTING_EXAMPLES = join(ROOT, 'test/fixtures/testing-examples');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  exports: Record<string, { default: string }>;
  scripts: Record<string, string>;
  tap: { include: string[] };
  version: string;
};
/** Where no debugger listens: a proxy or `graphmind mcp` pointed here runs without one. */
const NO_DEBUGGER_PORT = '1';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'docs-commands', version: '1' } },
});

/** The docs whose shell commands are checked. */
const DOC_FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
/** The docs whose links are checked (docs/viewer.md is kept by the viewer's own work). */
const LINKED_FILES = DOC_FILES.filter((file) => file !== 'docs/viewer.md');

// ---------------------------------------------------------------------------
// Reading the commands

interface DocCommand {
  file: string;
  /** 1-based line of the command's first line. */
  line: number;
  text: string;
  /** `file#n`: the block it is in. */
  block: string;
  /** Every command of that block, in order. */
  blockCommands: string[];
}

/** `text` up to a `#` that starts a comment (outside quotes, after a blank or at the start). */
function withoutComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) return text.slice(0, i).trimEnd();
  }
  return text.trimEnd();
}

/** `a && b` as [a, b] (outside quotes). */
function splitAnd(text: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (text.startsWith(' && ', i)) {
      parts.push(text.slice(start, i).trim());
      start = i + 4;
      i += 3;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((part) => part !== '');
}

function shellCommands(file: string): DocCommand[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const found: DocCommand[] = [];
  let lang: string | null = null;
  let blockNo = 0;
  let current: DocCommand[] = [];
  let pending: { line: number; text: string } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*```\s*([\w-]*)/.exec(lines[i]);
    if (fence !== null) {
      if (lang === null) {
        lang = fence[1];
        blockNo++;
        current = [];
      } else {
        const texts = current.map((c) => c.text);
        for (const c of current) c.blockCommands = texts;
        found.push(...current);
        lang = null;
      }
      continue;
    }
    if (lang === null || !['sh', 'bash', 'shell'].includes(lang)) continue;
    const raw = lines[i];
    const continued = /\\\s*$/.test(raw);
    const piece = continued ? raw.replace(/\\\s*$/, '') : raw;
    pending = pending === null ? { line: i + 1, text: piece.trim() } : { line: pending.line, text: `${pending.text} ${piece.trim()}` };
    if (continued) continue;
    for (const text of splitAnd(withoutComment(pending.text))) {
      current.push({ file, line: pending.line, text, block: `${file}#${blockNo}`, blockCommands: [] });
    }
    pending = null;
  }
  return found;
}

// ---------------------------------------------------------------------------
// Running them

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A scratch HOME and the environment a command runs in: no GRAPHMIND_* of the developer's. */
function scratch(t: Test): { home: string; env: NodeJS.ProcessEnv } {
  const home = mkdtempSync(join(tmpdir(), 'graphmind-docs-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, npm_config_update_notifier: 'false' };
  for (const name of Object.keys(env)) if (name.startsWith('GRAPHMIND')) delete env[name];
  return { home, env };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Run `command` with bash in the checkout; `stdin` is written and closed. Killed (its whole group) after `timeoutMs`. */
function runShell(command: string, env: NodeJS.ProcessEnv, stdin?: string, timeoutMs = 15_000): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: ROOT, env, detached: true, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    if (stdin !== undefined) {
      child.stdin?.on('error', () => {});
      child.stdin?.end(stdin);
    }
    const timer = setTimeout(() => {
      stderr += `\n[docs-commands: killed after ${timeoutMs} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running command (a debugger): started, its address read from its output, stopped at teardown. */
async function startDebuggerCommand(t: Test, command: string, env: NodeJS.ProcessEnv): Promise<{ url: string; token: string; output: () => string }> {
  const child = spawn('bash', ['-c', command], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  t.teardown(async () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await closed;
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const listening = /debugger listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    const tokenFile = /API token in (\S+?);/.exec(output);
    if (listening !== null && tokenFile !== null) return { url: listening[1], token: readFileSync(tokenFile[1], 'utf8'), output: () => output };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the debugger did not start: ${command}\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function api(url: string, token: string, path: string): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

/** The docs' ways of naming the CLI, as the built one of this checkout. */
function localCli(command: string): string {
  return command
    .replace(/node (\S*)\/dist\/cli\/graphmind\.js/g, `node ${shellQuote(CLI)}`)
    .replace(/(^|\| )graphmind(?= |$)/g, `$1node ${shellQuote(CLI)}`);
}

/** Your server, in a proxy command, as a fixture that speaks MCP the same way. */
function fixtureServer(server: string): string {
  if (/@modelcontextprotocol\/server-everything/.test(server)) return `node ${shellQuote(EVERYTHING)} stdio`;
  if (/\bpython3?\b|\buv\b/.test(server)) return `python3 ${shellQuote(PYTHON_SERVER)}`;
  return `node ${shellQuote(ECHO_SERVER)}`;
}

/** A `graphmind mcp-proxy …` command as it runs here: the local CLI, no debugger, a fixture server. */
function localProxyCommand(t: Test, command: string): string {
  const proxyAt = command.indexOf(' mcp-proxy');
  const serverAt = command.indexOf(' -- ', proxyAt);
  t.ok(proxyAt >= 0 && serverAt > proxyAt, 'the server command follows `--` after the proxy flags');
  const head = command.slice(0, proxyAt + ' mcp-proxy'.length);
  let flags = command.slice(head.length, serverAt);
  const server = command.slice(serverAt + 4);
  flags = /--port \d+/.test(flags) ? flags.replace(/--port \d+/, `--port ${NO_DEBUGGER_PORT}`) : ` --port ${NO_DEBUGGER_PORT}${flags}`;
  return localCli(`${head}${flags} -- ${fixtureServer(server)}`);
}

function answerTo(t: Test, stdout: string, id: number): Record<string, unknown> | undefined {
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      t.fail(`stdout carries a line that is not JSON: ${line.slice(0, 200)}`);
      continue;
    }
    if (message.id === id) return message;
  }
  return undefined;
}

/**
 * Several lines of the docs register the same command (the README and
 * mcp-proxy.md show the same `claude mcp add`): each distinct command, with
 * its environment and input, runs once, and every line that names it is
 * checked against that run.
 */
const runs = new Map<string, Promise<Ran>>();
function runOnce(t: Test, command: string, extraEnv: NodeJS.ProcessEnv, stdin: string | undefined): Promise<Ran> {
  const key = JSON.stringify([command, extraEnv, stdin]);
  let ran = runs.get(key);
  if (ran === undefined) {
    const { env } = scratch(t);
    ran = runShell(command, { ...env, ...extraEnv }, stdin);
    runs.set(key, ran);
  }
  return ran;
}

/** Run a proxy command: the session's first request answered through the proxy, exit 0. */
async function checkProxy(t: Test, command: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<void> {
  const local = localProxyCommand(t, command);
  // A command that pipes its own input (`echo '…' | graphmind mcp-proxy …`) gets no more.
  const piped = /^\s*echo /.test(command);
  const ran = await runOnce(t, local, extraEnv, piped ? undefined : `${INITIALIZE}\n`);
  t.equal(ran.code, 0, `exit code 0 (${local})\n${ran.stderr}`);
  const answer = answerTo(t, ran.stdout, 1);
  t.ok(answer !== undefined && typeof (answer.result as { serverInfo?: unknown } | undefined)?.serverInfo === 'object', 'initialize is answered through the proxy');
  if (/ --trace /.test(command)) t.match(ran.stderr, 'graphmind mcp-proxy: trace client → server request initialize #1', '--trace prints the frames on stderr');
}

/** Run `graphmind mcp …`: an MCP server answering initialize as graphmind, exit 0 at the end of stdin. */
async function checkMcp(t: Test, command: string): Promise<void> {
  const withPort = /--port \d+/.test(command) ? command.replace(/--port \d+/, `--port ${NO_DEBUGGER_PORT}`) : `${command} --port ${NO_DEBUGGER_PORT}`;
  const local = localCli(withPort);
  const ran = await runOnce(t, local, {}, `${INITIALIZE}\n`);
  t.equal(ran.code, 0, `exit code 0 (${local})\n${ran.stderr}`);
  const answer = answerTo(t, ran.stdout, 1);
  t.equal((answer?.result as { serverInfo?: { name?: string } } | undefined)?.serverInfo?.name, 'graphmind', 'answers initialize as graphmind');
}

/** Run a command that starts the debugger, on a free port in a scratch HOME: it answers, with the flags it was given. */
async function checkDebugger(t: Test, command: string): Promise<void> {
  const { env } = scratch(t);
  let local: string;
  if (/--port \d+/.test(command)) local = command.replace(/--port \d+/, '--port 0');
  else if (/^npm start$/.test(command)) local = 'npm start -- --port 0';
  else local = `${command} --port 0`;
  local = localCli(local);
  const serve = await startDebuggerCommand(t, local, env);
  t.match(await api(serve.url, serve.token, '/api/health'), { ok: true, version: PKG.version }, `${local}: the debugger answers`);
  const off = / --pause-on-error off\b/.test(command);
  t.match(await api(serve.url, serve.token, '/api/breakpoints'), { pauseOnError: !off }, `pause on error ${off ? 'off' : 'on'}`);
  const dataDir = / --data-dir (\S+)/.exec(command)?.[1];
  if (dataDir !== undefined) t.match(serve.output(), `runs in ${dataDir.replace(/^~/, env.HOME!)}`, 'the data directory it was given');
}

/** The `claude mcp add …` shapes: `claude mcp add NAME [-e NAME=VALUE]… -- <command>`. */
function parseClaudeAdd(t: Test, command: string): { name: string; env: Record<string, string>; inner: string } {
  const at = command.indexOf(' -- ');
  const words = command.slice(0, at).split(/\s+/);
  t.strictSame(words.slice(0, 3), ['claude', 'mcp', 'add'], 'claude mcp add');
  const name = words[3] ?? '';
  t.match(name, /^[A-Za-z0-9_-]+$/, 'a server name');
  const env: Record<string, string> = {};
  for (let i = 4; i < words.length; i += 2) {
    t.equal(words[i], '-e', `only -e options before "--" (${words[i]})`);
    const [key, ...value] = (words[i + 1] ?? '').split('=');
    t.match(key, /^GRAPHMIND_[A-Z_]+$/, `-e sets a GRAPHMIND_ variable (${key})`);
    t.ok(sourceMentions(key), `${key} is read by the code`);
    env[key] = value.join('=');
  }
  return { name, env, inner: command.slice(at + 4) };
}

let sources: string | undefined;
/** Does any file under src/ contain `text`? */
function sourceMentions(text: string): boolean {
  if (sources === undefined) {
    const all: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name.endsWith('.ts')) all.push(readFileSync(join(dir, entry.name), 'utf8'));
      }
    };
    walk(join(ROOT, 'src'));
    sources = all.join('\n');
  }
  return sources.includes(text);
}

/** A path the docs write for the reader's own checkout: it must end in a file this checkout has. */
function checkCheckoutPath(t: Test, path: string, inCheckout: string): void {
  t.ok(path.endsWith(`/graphmind-ai/${inCheckout}`), `${path} names the checkout's ${inCheckout}`);
  t.ok(existsSync(join(ROOT, inCheckout)), `${inCheckout} exists (npm install builds dist/)`);
}

/** `claude mcp add`: cannot run here; what it registers runs, or is covered. */
async function checkClaudeAdd(t: Test, command: string): Promise<void> {
  const { env, inner } = parseClaudeAdd(t, command);
  const cliPath = /^node (\S*\/dist\/cli\/graphmind\.js) /.exec(inner)?.[1];
  if (cliPath !== undefined) checkCheckoutPath(t, cliPath, 'dist/cli/graphmind.js');
  if (/^(graphmind|node \S*\/dist\/cli\/graphmind\.js) mcp-proxy /.test(inner)) return checkProxy(t, inner, env);
  if (/^(graphmind|node \S*\/dist\/cli\/graphmind\.js) mcp( |$)/.test(inner)) return checkMcp(t, inner);
  const covered = COVERED.find((entry) => entry.pattern.test(inner));
  if (covered !== undefined) return checkCovered(t, covered, inner);
  t.fail(`claude mcp add registers a command no rule knows: ${inner}`);
}

/** Commands another test runs: the pattern, the test file, and what that file must contain to run it. */
interface Covered {
  pattern: RegExp;
  test: string;
  contains: string[];
  /** A file of the checkout the command names (checked to exist, and named as in the docs). */
  file?: string;
}

const COVERED: Covered[] = [
  {
    // A tool surface written as a lock (docs/surface.md).
    pattern: /^graphmind surface -o \S+\.surface\.json -- node dist\/index\.js$/,
    test: 'test/helpers/surface.ts',
    contains: ["'surface'", "surface(['-o', file"],
  },
  {
    // Two surfaces compared (docs/surface.md).
    pattern: /^graphmind surface diff \S+ \S+( --fail-on \w+)?( --reporter \w+)?$/,
    test: 'test/surface-cli.test.ts',
    contains: ["surface(['diff', base", "'--reporter', 'markdown'", "'--fail-on'"],
  },
  {
    // Streaming to a tracing backend: serve with an endpoint (and headers) given by flag.
    pattern: /^graphmind serve --otlp-endpoint \S+( --otlp-header '[^']+')*$/,
    test: 'test/export-otlp.test.ts',
    contains: ["'--otlp-endpoint'", "'--otlp-header'", 'startDebugger'],
  },
  {
    // The same endpoint from the environment.
    pattern: /^OTEL_EXPORTER_OTLP_ENDPOINT=\S+ graphmind serve$/,
    test: 'test/export-config.test.ts',
    contains: ['OTEL_EXPORTER_OTLP_ENDPOINT'],
  },
  {
    // Keeping a run as a fixture (docs/testing.md).
    pattern: /^graphmind export run_\w+ --format jsonl -o \S+$/,
    test: 'test/export-roundtrip.test.ts',
    contains: ["'export'", "'--format', 'jsonl', '-o'"],
  },
  {
    // A replay over Streamable HTTP (docs/testing.md).
    pattern: /^graphmind replay \S+\.jsonl --http 0$/,
    test: 'test/replay.test.ts',
    contains: ["'replay'", "'--http', '0'"],
  },
  {
    // The adapter's example server, as a host starts it: node <checkout>/example/stdio-server.mjs.
    pattern: /^node \S*\/graphmind-ai\/example\/stdio-server\.mjs$/,
    test: 'test/adapter-example.test.ts',
    contains: ["'../example/stdio-server.mjs'", 'new StdioClientTransport', 'command: process.execPath'],
    file: 'example/stdio-server.mjs',
  },
  {
    // Send again (control-api.md): a live proxy run's call sent again with edited params.
    pattern: /^curl -s -X POST http:\/\/127\.0\.0\.1:4747\/api\/runs\/\$RUN\/instances\/mcp_\d+\/send /,
    test: 'test/send-again.test.ts',
    contains: ['/instances/${instanceId}/send', "{ params: { name: 'hello', arguments: { text: 'edited' } }"],
  },
  {
    // The MCP Inspector's CLI driving the proxy (tools/list, tools/call), as mcp-proxy.md shows it.
    pattern: /^npx @modelcontextprotocol\/inspector --cli node \S*\/graphmind-ai\/dist\/cli\/graphmind\.js mcp-proxy -- node \S+ --method tools\/(list|call)( --tool-name \S+ --tool-arg \S+)?$/,
    test: 'test/real-clients.test.ts',
    contains: ["'--cli'", "'--method', 'tools/list'", "'--method', 'tools/call'", "'--tool-name'", "'--tool-arg'"],
    file: 'dist/cli/graphmind.js',
  },
];

/** `covered`: the test file exists and runs the essential part. */
function checkCovered(t: Test, covered: Covered, command: string): void {
  if (covered.file !== undefined) checkCheckoutPath(t, /\S*\/graphmind-ai\/\S+/.exec(command)?.[0] ?? '', covered.file);
  const path = join(ROOT, covered.test);
  t.ok(existsSync(path), `${covered.test} exists`);
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  for (const essential of covered.contains) t.ok(text.includes(essential), `${covered.test} contains ${JSON.stringify(essential)}`);
}

// ---------------------------------------------------------------------------
// The rules

interface Rule {
  /** What the command looks like. */
  pattern: RegExp;
  how: 'runs' | 'covered' | 'cannot';
  /** For `cannot`: why; otherwise what is run, or where. */
  why: string;
  check(t: Test, command: DocCommand): unknown;
}

const blocksRun = new Set<string>();

const RULES: Rule[] = [
  ...COVERED.map(
    (covered): Rule => ({
      pattern: covered.pattern,
      how: 'covered',
      why: `run by ${covered.test}`,
      check: (t, c) => checkCovered(t, covered, c.text),
    }),
  ),
  {
    pattern: /^npm install$/,
    how: 'cannot',
    why: 'it would reinstall the node_modules this suite runs from (and needs the registry); npm install runs the prepare script, which builds',
    check: (t) => t.equal(PKG.scripts.prepare, 'npm run build', 'prepare builds, so npm install leaves dist/ ready'),
  },
  {
    pattern: /^npm start( -- .*)?$/,
    how: 'runs',
    why: 'npm start (with --port 0 for the documented port) in a scratch HOME; /api/health and the breakpoints answer',
    check: (t, c) => {
      t.equal(PKG.scripts.start, 'node dist/cli/graphmind.js', 'npm start is the debugger');
      return checkDebugger(t, c.text);
    },
  },
  {
    pattern: /^npm test$/,
    how: 'cannot',
    why: 'it is this very suite',
    check: (t) => {
      t.equal(PKG.scripts.test, 'tap');
      t.ok(PKG.scripts.pretest !== undefined, 'pretest builds first');
      t.ok(PKG.tap.include.includes('test/**/*.test.ts'), 'tap runs test/**/*.test.ts, this file included');
    },
  },
  {
    pattern: /^npm link$/,
    how: 'cannot',
    why: "it links the package into the global npm prefix, outside the checkout",
    check: (t) => {
      t.equal(PKG.bin.graphmind, 'dist/cli/graphmind.js', 'the graphmind command is the built CLI');
      t.match(readFileSync(CLI, 'utf8'), /^#!\/usr\/bin\/env node\n/, 'with a node shebang');
    },
  },
  {
    pattern: /^npm link graphmind-ai$/,
    how: 'cannot',
    why: "it runs in the reader's own project, after npm link here",
    check: (t) => {
      t.equal(PKG.name, 'graphmind-ai');
      t.ok(existsSync(join(ROOT, PKG.exports['./adapter'].default)), 'graphmind-ai/adapter is built');
    },
  },
  {
    pattern: /^cd \/path\/to\/[\w/-]+$/,
    how: 'cannot',
    why: "a directory of the reader's own",
    check: (t, c) => t.match(c.text, /^cd \/path\/to\//, 'a placeholder path'),
  },
  {
    pattern: /^graphmind serve( --[\w-]+ \S+)*$/,
    how: 'runs',
    why: 'the built CLI on a free port in a scratch HOME; /api/health, and pause on error as the flags say',
    check: (t, c) => checkDebugger(t, c.text),
  },
  {
    pattern: /^(echo '[^']*' \| )?graphmind mcp-proxy( --[\w-]+( \S+)?)* -- .+$/,
    how: 'runs',
    why: 'the built CLI with no debugger (port 1) and a fixture in place of your server; initialize is answered through it',
    check: (t, c) => checkProxy(t, c.text),
  },
  {
    pattern: /^claude mcp add [\w-]+( -e \S+)* -- .+$/,
    how: 'cannot',
    why: "it needs Claude Code and changes the reader's host config; the command it registers is run here (or named with its test)",
    check: (t, c) => checkClaudeAdd(t, c.text),
  },
  {
    pattern: /^docker run --rm -p 16686:16686 -p 4318:4318 jaegertracing\/all-in-one:latest$/,
    how: 'cannot',
    why: 'a Jaeger to look at traces in: needs Docker and an image from the network; test/export-otlp runs a real OTLP receiver instead',
    check: (t) => t.ok(existsSync(join(ROOT, 'test/export-otlp.test.ts')), 'test/export-otlp.test.ts exists'),
  },
  {
    pattern: /^claude mcp remove [\w-]+$/,
    how: 'cannot',
    why: "it needs Claude Code and changes the reader's host config",
    check: (t, c) => t.match(c.text, /^claude mcp remove [A-Za-z0-9_-]+$/, 'one server name'),
  },
  {
    pattern: /^MCP_TOOL_TIMEOUT=\d+ claude$/,
    how: 'cannot',
    why: 'it starts Claude Code; the variable is read by Claude Code, not by us',
    check: (t, c) => t.ok(Number(/=(\d+)/.exec(c.text)?.[1]) >= 60_000, 'a timeout in milliseconds, a minute or more'),
  },
  {
    pattern: /^graphmind replay test\/fixtures\/search\.jsonl$/,
    how: 'runs',
    why: "the built CLI on the testing examples' fixture; initialize on stdin is answered as recorded",
    check: (t, c) => checkReplay(t, c.text),
  },
  {
    pattern: /^graphmind verify test\/fixtures\/search\.jsonl( --[\w-]+( '[^']*'| \S+)?)*?( -- node build\/server\.js( > \S+)?)?$/,
    how: 'runs',
    why: "the built CLI with no debugger (port 1), a copy of the testing examples' fixture and rules, their server for build/server.js, and a replay of the fixture for --url; exit 0",
    check: (t, c) => checkVerify(t, c.text),
  },
  {
    pattern: /^TOKEN=\$\(cat ~\/\.graphmind\/token\)$/,
    how: 'runs',
    why: 'with the curl command of its block, against a debugger on a free port',
    check: (t, c) => checkCurlBlock(t, c),
  },
  {
    pattern: /^curl -s -X PUT http:\/\/127\.0\.0\.1:4747\/api\/breakpoints /,
    how: 'runs',
    why: 'its block, against a debugger on a free port in a scratch HOME; the breakpoints it sets are read back',
    check: (t, c) => checkCurlBlock(t, c),
  },
];

/** docs/testing.md's `graphmind replay <fixture>`: a stdio server answering initialize as the recorded server did, exit 0 at the end of stdin. */
async function checkReplay(t: Test, command: string): Promise<void> {
  const local = localCli(command.replace(/ test\/fixtures\/search\.jsonl/, ` ${shellQuote(join(TESTING_EXAMPLES, 'search.jsonl'))}`));
  const ran = await runOnce(t, local, {}, `${INITIALIZE}\n`);
  t.equal(ran.code, 0, `exit code 0 (${local})\n${ran.stderr}`);
  const answer = answerTo(t, ran.stdout, 1);
  t.equal((answer?.result as { serverInfo?: { name?: string } } | undefined)?.serverInfo?.name, 'docs-search', 'answers initialize as the recorded server');
}

/**
 * docs/testing.md's `graphmind verify …`: in a scratch directory holding a
 * copy of the fixture and its rules (so `--update` rewrites the copy), with
 * the examples' server for `node build/server.js`, a replay of the fixture
 * over HTTP for `--url`, and no debugger: every call the same, exit 0.
 */
let verifyQueue: Promise<unknown> = Promise.resolve();
function checkVerify(t: Test, command: string): Promise<void> {
  // One at a time: each starts two Node processes, and the other commands of this file run beside them.
  const turn = verifyQueue.then(() => runVerifyLine(t, command));
  verifyQueue = turn.catch(() => undefined);
  return turn;
}

async function runVerifyLine(t: Test, command: string): Promise<void> {
  const { home, env } = scratch(t);
  copyFileSync(join(TESTING_EXAMPLES, 'search.jsonl'), join(home, 'search.jsonl'));
  copyFileSync(join(TESTING_EXAMPLES, 'search.rules.json'), join(home, 'search.rules.json'));
  let local = command
    .replace(/test\/fixtures\/search\.(jsonl|rules\.json)/g, (_, ext: string) => shellQuote(join(home, `search.${ext}`)))
    .replace(/ -- node build\/server\.js/, ` -- node ${shellQuote(join(TESTING_EXAMPLES, 'server.mjs'))}`)
    .replace(/ > (\S+)$/, (_, file: string) => ` > ${shellQuote(join(home, file))}`);
  const url = /--url (\S+)/.exec(command)?.[1];
  if (url !== undefined) {
    const { replayServer } = await import('graphmind-ai/test');
    const replay = await replayServer(join(TESTING_EXAMPLES, 'search.jsonl'), { http: true });
    t.teardown(() => replay.close());
    local = local.replace(`--url ${url}`, `--url ${replay.url}`);
  }
  local = localCli(local.replace(/^graphmind verify (\S+)/, `graphmind verify $1 --port ${NO_DEBUGGER_PORT}`));
  const ran = await runShell(local, env, undefined, 30_000);
  t.equal(ran.code, 0, `exit code 0 (${local})\n${ran.stdout}${ran.stderr}`);
  const redirected = / > (\S+)$/.exec(command)?.[1];
  const output = redirected === undefined ? ran.stdout : readFileSync(join(home, redirected), 'utf8');
  if (/--reporter junit/.test(command)) t.match(output, /^<\?xml/, 'JUnit XML');
  else t.match(output, /3 calls: 3 same, 0 different, 0 missing, 0 extra/, 'every call the same');
  if (/--update/.test(command)) t.match(ran.stderr, /wrote the answers received now into/, 'the copy re-blessed');
}

async function checkCurlBlock(t: Test, c: DocCommand): Promise<void> {
  if (blocksRun.has(c.block)) {
    t.pass(`run with the rest of ${c.block}`);
    return;
  }
  blocksRun.add(c.block);
  const { env } = scratch(t);
  const serve = await startDebuggerCommand(t, `node ${shellQuote(CLI)} serve --port 0`, env);
  const port = new URL(serve.url).port;
  const script = c.blockCommands.join('\n').replaceAll('127.0.0.1:4747', `127.0.0.1:${port}`);
  const ran = await runShell(`set -e\n${script}`, env);
  t.equal(ran.code, 0, `the block runs\n${ran.stderr}`);
  const body = /-d '([^']*)'/.exec(c.blockCommands.join('\n'))?.[1];
  t.ok(body !== undefined, 'the block sends a body');
  if (body !== undefined) t.strictSame(await api(serve.url, serve.token, '/api/breakpoints'), JSON.parse(body), 'the breakpoints are the ones it sent');
}

// ---------------------------------------------------------------------------

const commands = DOC_FILES.flatMap(shellCommands);

t.test('the docs have shell commands to check', async (t) => {
  t.ok(commands.length >= 10, `${commands.length} commands in ${DOC_FILES.length} files`);
  t.ok(existsSync(CLI), 'the CLI is built (npm test builds it first)');
});

const ruleOf = new Map(commands.map((command) => [command, RULES.find((r) => r.pattern.test(command.text))]));
/** What each command stands for: itself, and for `claude mcp add … -- <command>` also the command it registers. */
const namedCommands = commands.flatMap((c) => (/^claude mcp add /.test(c.text) && c.text.includes(' -- ') ? [c.text, c.text.slice(c.text.indexOf(' -- ') + 4)] : [c.text]));

t.test('every rule still matches a command of the docs', async (t) => {
  const used = new Set(ruleOf.values());
  for (const rule of RULES) if (rule.how !== 'covered') t.ok(used.has(rule), `${rule.pattern} (${rule.how})`);
  for (const covered of COVERED) t.ok(namedCommands.some((text) => covered.pattern.test(text)), `${covered.pattern} (covered by ${covered.test})`);
});

// Each command runs in processes of its own, so several at once: the file stays fast.
t.jobs = 6;

for (const command of commands) {
  const rule = ruleOf.get(command);
  t.test(`${command.file}:${command.line} ${command.text}`, async (t) => {
    if (rule === undefined) {
      t.fail('no test runs this command: run it in test/docs-commands.test.ts, name the test that does, or say why it cannot run');
      return;
    }
    t.comment(`${rule.how}: ${rule.why}`);
    await rule.check(t, command);
  });
}

// ---------------------------------------------------------------------------
// Links

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

t.test('relative links lead to files and headings that exist', async (t) => {
  for (const file of LINKED_FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split('#');
      const resolved = path === '' ? join(ROOT, file) : normalize(join(ROOT, dirname(file), path));
      t.ok(existsSync(resolved), `${file}: ${target} (file)`);
      if (anchor !== undefined && existsSync(resolved) && resolved.endsWith('.md')) {
        t.ok(anchors(resolved).has(anchor), `${file}: ${target} (heading)`);
      }
    }
  }
});
