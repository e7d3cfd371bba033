// Real third-party MCP clients through `graphmind mcp-proxy`, as a new user
// would run them: Claude Code 2.1's `claude mcp add` then `claude mcp list`
// (its health check: no login needed, and it ends the server with SIGINT),
// and the MCP Inspector 2.12's CLI (tools/list, tools/call). Both are
// devDependencies; a missing binary fails the test, it is never skipped.
// What is checked is the record, through the debugger's API: each session
// ended ok (ended by its host, not a crash), names its client and server,
// and counts its calls with none failed.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { CLI } from './helpers/cli.js';
import { api, eventually, startServe, type ServeProcess } from './helpers/serve.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLAUDE = join(ROOT, 'node_modules', '.bin', 'claude');
const INSPECTOR = join(ROOT, 'node_modules', '.bin', 'mcp-inspector');
const SERVER = join(ROOT, 'test', 'fixtures', 'mcp-proxy', 'sdk1-server.mjs');

/** What a command did. */
interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to its end (at most 90 s: Claude Code's own connect timeout is 30 s). */
function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Done> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A throwaway home and working directory, and an environment that points at them and at nothing of the user's. */
function sandbox(t: Test): { cwd: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-real-client-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, '.config'), DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1' };
  for (const name of ['GRAPHMIND_URL', 'GRAPHMIND_DATA_DIR', 'GRAPHMIND_TOKEN', 'CLAUDE_CONFIG_DIR']) delete env[name];
  return { cwd, env };
}

/** The proxy command line a host is given: the real CLI, reporting to `serve`. */
function proxyCommand(serve: ServeProcess): string[] {
  return ['node', CLI, 'mcp-proxy', '--port', String(serve.port), '--data-dir', serve.dataDir, '--', 'node', SERVER];
}

/** A recorded run, as `GET /api/runs/:runId` gives it (the fields looked at). */
interface RecordedRun {
  runId: string;
  source: string;
  status: string;
  client?: { name: string; version?: string };
  server?: { name: string; version?: string };
  calls?: number;
  failedCalls?: number;
  tools?: string[];
  meta: { clientInfo?: { name?: string; version?: string } };
  instances: Array<{ nodeId: string; status: string; output?: { exitCode?: number | null; signal?: string | null; endedBy?: string }; error?: { name: string; message: string } }>;
}

/** The one run `serve` has that `before` did not, once it has ended. */
async function newEndedRun(serve: ServeProcess, before: ReadonlySet<string>): Promise<RecordedRun> {
  return eventually(
    async () => {
      const list = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as Array<{ runId: string; status: string }>;
      const fresh = list.filter((run) => !before.has(run.runId));
      if (fresh.length !== 1 || fresh[0]?.status === 'running') return undefined;
      return (await api(serve.port, serve.token, 'GET', `/api/runs/${fresh[0]?.runId}`)).json as RecordedRun;
    },
    20_000,
    'the session’s run to end',
  );
}

async function runIds(serve: ServeProcess): Promise<Set<string>> {
  const list = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  return new Set(list.map((run) => run.runId));
}

/** The checks every session of a real client must pass: ended ok by its host, named, nothing failed. */
function endedOk(t: Test, run: RecordedRun, client: RegExp): void {
  const session = run.instances.find((instance) => instance.nodeId === 'mcp:session');
  t.equal(run.source, 'mcp-proxy');
  t.equal(run.status, 'ok', 'the run ended ok');
  t.equal(session?.status, 'ok', `the session ended ok, not as a crash (${JSON.stringify(session?.error ?? session?.output)})`);
  t.equal(session?.output?.endedBy, 'host', 'ended by the host');
  t.match(run.client?.name ?? '', client, 'the summary names the client, from its clientInfo');
  t.equal(run.client?.name, run.meta.clientInfo?.name);
  t.equal(run.client?.version, run.meta.clientInfo?.version);
  t.equal(run.server?.name, 'sdk1-fixture', 'and the server, from its serverInfo');
  t.ok((run.calls ?? 0) >= 3, `it counts its calls (${run.calls})`);
  t.equal(run.failedCalls, 0, 'none of them failed');
}

/** Fails `t` with one clear line when a client's binary is not installed. */
function installed(t: Test, binary: string, what: string): boolean {
  if (existsSync(binary)) return true;
  t.fail(`${what} is not installed: ${binary} is missing (a devDependency of this package: run npm install)`);
  return false;
}

t.test('Claude Code 2.1: claude mcp add, then claude mcp list connects through the proxy; the session ends ok, named', async (t) => {
  if (!installed(t, CLAUDE, 'Claude Code (@anthropic-ai/claude-code)')) return;
  // The debugger as a new user starts it: pause-on-error on. Claude Code asks `server/discover`
  // first, which the server answers "Method not found": that answer must not be held.
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const { cwd, env } = sandbox(t);
  const version = await run(CLAUDE, ['--version'], cwd, env);
  t.match(version.stdout, /^2\.1\./, `Claude Code 2.1 (${version.stdout.trim()})`);
  const added = await run(CLAUDE, ['mcp', 'add', 'tracker', '--', ...proxyCommand(serve)], cwd, env);
  t.equal(added.code, 0, `claude mcp add: ${added.stderr}`);
  const before = await runIds(serve);
  const listed = await run(CLAUDE, ['mcp', 'list'], cwd, env);
  t.match(listed.stdout, /tracker: .*✔ Connected/, `claude mcp list connects: ${listed.stdout}${listed.stderr}`);
  const recorded = await newEndedRun(serve, before);
  endedOk(t, recorded, /^claude-code$/);
  t.match(recorded.client?.version ?? '', /^2\.1\./, 'Claude Code’s version');
  const session = recorded.instances.find((instance) => instance.nodeId === 'mcp:session');
  t.comment(`Claude Code's session: ${recorded.calls} calls, ended by ${JSON.stringify(session?.output)}`);
  t.strictSame((await api(serve.port, serve.token, 'GET', '/api/holds')).json, [], 'nothing was held');
});

t.test('MCP Inspector 2.12 CLI: tools/list and tools/call through the proxy; each session ends ok, named', async (t) => {
  if (!installed(t, INSPECTOR, 'The MCP Inspector (@modelcontextprotocol/inspector)')) return;
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const { cwd, env } = sandbox(t);

  let before = await runIds(serve);
  const listed = await run(INSPECTOR, ['--cli', ...proxyCommand(serve), '--method', 'tools/list'], cwd, env);
  t.equal(listed.code, 0, `tools/list: ${listed.stderr}`);
  const tools = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
  t.ok(tools.includes('echo'), `the server's tools, through the proxy: ${tools.join(', ')}`);
  const listRun = await newEndedRun(serve, before);
  endedOk(t, listRun, /^inspector/);
  t.equal(listRun.tools, undefined, 'no tool called');

  before = await runIds(serve);
  const called = await run(INSPECTOR, ['--cli', ...proxyCommand(serve), '--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'text=through the proxy'], cwd, env);
  t.equal(called.code, 0, `tools/call: ${called.stderr}`);
  t.strictSame(JSON.parse(called.stdout), { content: [{ type: 'text', text: 'through the proxy' }] }, 'the server’s own answer');
  const callRun = await newEndedRun(serve, before);
  endedOk(t, callRun, /^inspector/);
  t.strictSame(callRun.tools, ['echo'], 'the tool it called');
  t.equal(callRun.client?.name, listRun.client?.name, 'the same client both times');

  // The list of runs names the client of each (what the run list shows and filters on).
  const summaries = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as Array<{ client?: { name: string } }>;
  t.equal(summaries.filter((summary) => summary.client?.name === listRun.client?.name).length, 2, 'both summaries name the Inspector');
});
