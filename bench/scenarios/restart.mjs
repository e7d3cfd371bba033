// The restart figure (issue 22): how long from saving the server's file to
// the first answer from the new server, through `graphmind mcp-proxy
// --watch`, and how much of that the proxy adds over the server's own
// start-up.
//
// The server is a real SDK 1.x McpServer (one tool, `version`, answering the
// text its file was saved with), written to a temp folder; it imports the
// SDK from this repo's node_modules by URL.
//
// Each server process says, in its `version` answer, when it started (its
// performance.timeOrigin) and when it answered `initialize`, on the
// machine's clock: its start-up is measured within the very launch it is
// subtracted from, not from another launch (on a loaded machine two
// launches of the same file differ by more than what is measured).
//
// - start-up alone: spawn `node server.mjs`, write `initialize` at once (as
//   the proxy's replay does): the time to its answer, seen from outside,
//   and from the process's start to that answer, seen from inside.
// - through the proxy: a raw host has initialized and fetched the tools
//   (so the replay fetches them again, as after a real host's handshake);
//   the file is saved with a new version, and the host calls `version`
//   (once the debounce has nearly run out, then one call after another)
//   until the answer is the new version. From the save to that answer is
//   the total. The proxy's added time is the total less the watcher's
//   debounce (a deliberate wait for an editor's writes to settle) and the
//   new server's start-up (process start to initialize answered): the
//   watcher's latency, stopping the old server, spawning, the rest of the
//   replay and the first call's round trip. It is also given in two parts:
//   before the new process started, and after it answered initialize. The
//   proxy's own figure (its restart line's "ready in N ms") is kept beside.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const name = 'restart';

const GRAPHMIND = fileURLToPath(new URL('../../dist/cli/graphmind.js', import.meta.url));
const SDK = (path) => pathToFileURL(fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/sdk/dist/esm/${path}`, import.meta.url))).href;
const node = process.execPath;
/** The watcher's debounce (src/proxy/file-watch.ts, WATCH_DEBOUNCE_MS). */
export const DEBOUNCE_MS = 200;
const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-host', version: '1' } };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function source(version) {
  return `import { McpServer } from ${JSON.stringify(SDK('server/mcp.js'))};
import { StdioServerTransport } from ${JSON.stringify(SDK('server/stdio.js'))};
const now = () => performance.timeOrigin + performance.now();
const server = new McpServer({ name: 'bench-restart', version: '1.0.0' });
let initialized = null;
server.registerTool('version', { description: 'The version this file was saved with' }, async () => ({
  content: [{ type: 'text', text: JSON.stringify({ version: ${JSON.stringify(version)}, started: performance.timeOrigin, initialized }) }],
}));
// When initialize is answered, on this process's clock.
const handlers = server.server._requestHandlers;
const initialize = handlers.get('initialize');
handlers.set('initialize', async (request, extra) => {
  const result = await initialize(request, extra);
  initialized = now();
  return result;
});
await server.connect(new StdioServerTransport());
`;
}

/** The machine's clock, as the servers read theirs. */
const now = () => performance.timeOrigin + performance.now();

/** What a `version` answer says: the version, the process's start, and when it answered initialize. */
function versionOf(answer) {
  const text = answer.result?.content?.[0]?.text;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A child speaking newline-delimited JSON-RPC: send, and wait for the answer to an id. */
function peer(child) {
  let buffer = '';
  const waiting = new Map();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      const resolve = waiting.get(message.id);
      if (resolve !== undefined && message.method === undefined) {
        waiting.delete(message.id);
        resolve(message);
      }
    }
  });
  child.stdin.on('error', () => {});
  let next = 0;
  return {
    request(method, params) {
      const id = ++next;
      const answered = new Promise((resolve) => waiting.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
      return answered;
    },
    notify(method) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
  };
}

function exited(child) {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));
}

/** The server started on its own: ms from spawn to the answer to initialize (outside), and from its start to that answer (inside). */
async function startupAlone(file) {
  const spawned = now();
  const child = spawn(node, [file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const server = peer(child);
  const answer = await server.request('initialize', INIT);
  const outside = now() - spawned;
  if (answer.result === undefined) throw new Error(`the bench server answered initialize with ${JSON.stringify(answer)}`);
  const said = versionOf(await server.request('tools/call', { name: 'version', arguments: {} }));
  child.stdin.end();
  await exited(child);
  return { outside, inside: said.initialized - said.started };
}

/**
 * One proxy session with `restarts` restarts. `env` and `flags` say where
 * it reports (nowhere, or a running graphmind serve).
 */
async function session(dir, file, restarts, startups, { flags, env }) {
  const proxy = spawn(node, [GRAPHMIND, 'mcp-proxy', ...flags, '--watch', file, '--', node, file], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  proxy.stderr.setEncoding('utf8');
  proxy.stderr.on('data', (chunk) => (stderr += chunk));
  const host = peer(proxy);
  const init = await host.request('initialize', INIT);
  if (init.result === undefined) throw new Error(`initialize through the proxy failed: ${JSON.stringify(init)}\n${stderr}`);
  host.notify('notifications/initialized');
  await host.request('tools/list');
  const out = [];
  try {
    for (let k = 1; k <= restarts; k++) {
      // The server on its own first, from the file as it is now (the same code the proxy is about to start).
      const version = `v${Date.now()}-${k}`;
      writeFileSync(join(dir, 'alone.mjs'), source(version));
      startups.push(await startupAlone(join(dir, 'alone.mjs')));
      await sleep(300);
      const lines = stderr.split('\n').filter((line) => line.includes('restarted the MCP server')).length;
      const saved = now();
      writeFileSync(file, source(version));
      // Nothing can change before the debounce has run out: wait most of it, then call until the new code answers.
      await sleep(DEBOUNCE_MS - 20);
      let calls = 0;
      let said;
      for (;;) {
        calls++;
        const answer = await host.request('tools/call', { name: 'version', arguments: {} });
        said = versionOf(answer);
        if (said?.version === version) break;
        // Before the restart: the old code's answer; in flight at it: -32098. Either way, ask again.
        if (answer.error !== undefined && answer.error.code !== -32098) throw new Error(`tools/call failed during a restart: ${JSON.stringify(answer.error)}\n${stderr}`);
        if (now() - saved > 30_000) throw new Error(`no answer from the new server 30 s after the save\n${stderr}`);
        await sleep(1);
      }
      const answered = now();
      const total = answered - saved;
      const startup = said.initialized - said.started;
      // Before the new process: the watcher's latency past the debounce, stopping the old server, the spawn. After its initialize answer: the rest of the replay, the first call.
      const before = said.started - saved - DEBOUNCE_MS;
      const after = answered - said.initialized;
      const deadline = Date.now() + 5000;
      while (stderr.split('\n').filter((line) => line.includes('restarted the MCP server')).length <= lines && Date.now() < deadline) await sleep(5);
      const line = stderr.split('\n').filter((l) => l.includes('restarted the MCP server')).at(-1) ?? '';
      const ready = /ready in (\d+) ms/.exec(line);
      out.push({ total, startup, added: total - DEBOUNCE_MS - startup, before, after, calls, proxyReadyMs: ready === null ? null : Number(ready[1]) });
    }
  } finally {
    proxy.stdin.end();
    const timer = setTimeout(() => proxy.kill('SIGKILL'), 10_000);
    await exited(proxy);
    clearTimeout(timer);
  }
  return out;
}

/**
 * One round: `restarts` restarts through one proxy session, each after a
 * start-up of the same code alone. Returns per-restart figures.
 */
export async function round({ restarts = 5, flags = ['--port', '1'], env = { GRAPHMIND_DISABLED: '1' } } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-bench-restart-'));
  const dir = join(root, 'src');
  mkdirSync(dir);
  const file = join(dir, 'server.mjs');
  writeFileSync(file, source('v0'));
  try {
    // A warm-up start (the disk cache, the SDK's files): not counted.
    await startupAlone(file);
    const startups = [];
    const restartsOut = await session(dir, file, restarts, startups, { flags, env });
    return restartsOut.map((r, i) => ({ ...r, alone: startups[i] }));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
