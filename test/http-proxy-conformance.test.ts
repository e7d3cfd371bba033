// The official MCP conformance suite (@modelcontextprotocol/conformance,
// server scenarios, --suite all) against our everything-style fixture
// server, once directly and once through `graphmind http-proxy` recording
// to a real `graphmind serve`: the same results, scenario by scenario and
// check by check, and the same JSON-RPC bodies received and sent by the
// server, byte for byte (the suite's own checks are lenient; the bodies are
// the stronger proof that the proxy changed nothing).
//
// The suite needs Node >= 22 (it imports fs.globSync). Node 22 and the
// suite are installed from the npm registry into a folder of their own
// under the system's temp directory (never globally, never into the
// project's node_modules): the `node-<platform>-<arch>` package ships the
// binary. Where that install is impossible the test is skipped with one
// line saying why; it never passes without running the suite.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { newRuns, runIds, setBreakpoints, startDebugger, type Teardown } from './helpers/gates.js';
import { messagesIn, startHttpProxy, type ServerLogEntry } from './fixtures/http/harness.js';
import { waitFor } from './helpers/cli.js';

// A first run installs Node 22 and the suite (seconds to a minute), then runs the suite twice.
t.setTimeout(400_000);

const SUITE_VERSION = '0.1.16';
const SCENARIOS = 32;
const EVERYTHING = fileURLToPath(new URL('./fixtures/http/everything-server.mjs', import.meta.url));
const CACHE = join(tmpdir(), `graphmind-conformance-${SUITE_VERSION}-node22`);
const NODE_PACKAGE = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

/** Node 22 and the suite, installed once into the cache folder; or why they could not be. */
function installSuite(): { node: string; cli: string } | { problem: string } {
  const node = process.platform === 'win32' ? join(CACHE, 'node_modules', NODE_PACKAGE, 'bin', 'node.exe') : join(CACHE, 'node_modules', NODE_PACKAGE, 'bin', 'node');
  const cli = join(CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  if (!existsSync(node) || !existsSync(cli)) {
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(join(CACHE, 'package.json'), '{"name":"graphmind-conformance-cache","private":true}\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const install = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `${NODE_PACKAGE}@22`, `@modelcontextprotocol/conformance@${SUITE_VERSION}`], {
      cwd: CACHE,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (install.status !== 0) return { problem: `npm install ${NODE_PACKAGE}@22 @modelcontextprotocol/conformance@${SUITE_VERSION} failed (${install.error?.message ?? `exit ${install.status}`}): ${(install.stderr ?? '').trim().split('\n').slice(-1)[0] ?? ''}` };
  }
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0 || !/^v22\./.test(version.stdout)) return { problem: `the Node 22 from ${NODE_PACKAGE} does not run here (${version.error?.message ?? version.stdout.trim()})` };
  return { node, cli };
}

/** Start the everything fixture with its log; stopped on teardown. */
async function startEverything(t: Teardown): Promise<{ url: string; log(): ServerLogEntry[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-everything-'));
  const logFile = join(dir, 'server.jsonl');
  const child = spawn(process.execPath, [EVERYTHING], { stdio: 'pipe', env: { ...process.env, LOG_FILE: logFile } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  t.teardown(() => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await waitFor(() => /listening (\S+)/.test(out), 15_000, 'the everything fixture');
  const url = (/listening (\S+)/.exec(out) as RegExpExecArray)[1] as string;
  return {
    url,
    log: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as ServerLogEntry),
  };
}

/** What one run of the suite found: per scenario, its summary line and its checks' ids and statuses. */
interface SuiteResult {
  exitCode: number | null;
  summary: Map<string, string>;
  checks: Map<string, string[]>;
  output: string;
}

/** Run `conformance server --url <url> --suite all` with Node 22. */
async function runSuite(suite: { node: string; cli: string }, url: string): Promise<SuiteResult> {
  const outDir = mkdtempSync(join(tmpdir(), 'graphmind-conformance-results-'));
  try {
    const child = spawn(suite.node, [suite.cli, 'server', '--url', url, '--suite', 'all', '-o', outDir], { stdio: 'pipe', cwd: outDir });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    const exitCode = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    const summary = new Map<string, string>();
    for (const match of output.split('=== SUMMARY ===')[1]?.matchAll(/^[✓✗] (\S+): (.+)$/gm) ?? []) summary.set(match[1] as string, match[2] as string);
    const checks = new Map<string, string[]>();
    for (const dir of readdirSync(outDir)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir)?.[1];
      const file = join(outDir, dir, 'checks.json');
      if (scenario === undefined || !existsSync(file)) continue;
      const list = JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: string; status: string }>;
      checks.set(scenario, list.map((check) => `${check.id}: ${check.status}`));
    }
    return { exitCode, summary, checks, output };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The JSON-RPC bodies the server received and the messages it sent, each sorted (the suite runs scenarios in its own order). */
function bodies(log: readonly ServerLogEntry[]): { received: string[]; sent: string[] } {
  const received = log.filter((entry) => entry.dir === 'in' && entry.method === 'POST').map((entry) => entry.body);
  const sent = log.filter((entry) => entry.dir === 'out').flatMap((entry) => messagesIn(entry));
  return { received: received.sort(), sent: sent.sort() };
}

const suite = installSuite();
if ('problem' in suite) {
  t.test('the MCP conformance suite, directly and through graphmind http-proxy', { skip: `skipped: Node 22 and the conformance suite could not be installed: ${suite.problem}` }, () => {});
} else {
  t.test('the MCP conformance suite, directly and through graphmind http-proxy', async (t) => {
    const serve = await startDebugger(t);
    // Nothing holds (the suite's failing tool must not wait for a decision); everything is recorded.
    await setBreakpoints(serve, { pauseOnError: false, nodes: {} });

    const direct = await startEverything(t);
    const plain = await runSuite(suite, direct.url);
    t.equal(plain.summary.size, SCENARIOS, `the suite ran its ${SCENARIOS} server scenarios directly`);
    t.equal(plain.exitCode, 0, 'and passed them');
    t.match(plain.output, /Total: \d+ passed, 0 failed/);

    const upstream = await startEverything(t);
    const proxy = await startHttpProxy(t, upstream.url, { serve });
    const before = new Set(await runIds(serve));
    const proxied = await runSuite(suite, proxy.url);
    t.equal(proxied.summary.size, SCENARIOS, 'the same scenarios through the proxy');
    t.equal(proxied.exitCode, 0, 'passed through the proxy');
    t.strictSame(Object.fromEntries(proxied.summary), Object.fromEntries(plain.summary), 'the same summary, scenario by scenario');
    t.strictSame(Object.fromEntries(proxied.checks), Object.fromEntries(plain.checks), 'the same checks with the same statuses');

    const a = bodies(direct.log());
    const b = bodies(upstream.log());
    t.ok(a.received.length > 50, `the server received ${a.received.length} bodies`);
    t.strictSame(b.received, a.received, 'the server received the same JSON-RPC bodies, byte for byte');
    t.strictSame(b.sent, a.sent, 'and sent the same messages, byte for byte');

    const runs = await newRuns(serve, before);
    t.ok(runs.length >= SCENARIOS, `each session of the suite was recorded as a run (${runs.length})`);
  });
}
