// Helpers for testing what `graphmind mcp-proxy` reports: start `graphmind
// serve` on a chosen port, find the run a proxy process reported, read runs
// node by node, and drive a proxy with the MCP SDK client.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { processExists } from '../../src/proxy/process-tree.js';
import type { GraphNode, Instance, Run, RunSummary } from '../../src/protocol/run-model.js';
import { CLI, waitFor } from './cli.js';
import { api } from './serve.js';

/** Where a debugger listens and its token. */
export interface DebuggerAddress {
  port: number;
  token: string;
}

const tempDirs: string[] = [];
process.once('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh empty directory, removed when the test process exits. */
export function tempDir(prefix = 'graphmind-graph-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** A TCP port that was free a moment ago (listen on 0, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = address !== null && typeof address === 'object' ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Kill a process if it is still there. */
export function kill(pid: number | undefined | null, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined || pid === null) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** A `graphmind serve` on a port of our choosing. */
export interface ServeOnPort extends DebuggerAddress {
  dataDir: string;
  child: ChildProcessWithoutNullStreams;
  stop(): Promise<void>;
}

/**
 * Start `graphmind serve --port <port> --data-dir <dataDir>` and wait for its
 * listening line. (The shared `startServe` always asks for port 0.)
 */
export async function serveOnPort(port: number, dataDir: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServeOnPort> {
  const base = { ...process.env };
  delete base.GRAPHMIND_TOKEN;
  delete base.GRAPHMIND_DATA_DIR;
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, ...args], {
    stdio: 'pipe',
    env: { ...base, ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = once(child, 'close');
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    await waitFor(() => gone || /debugger listening on http:\/\/\S+:\d+/.test(out), 15_000, 'the listening line');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (gone) throw new Error(`graphmind serve exited before listening: ${err}`);
  const fromEnv = env.GRAPHMIND_TOKEN;
  const token = fromEnv !== undefined && fromEnv !== '' ? fromEnv : readFileSync(join(dataDir, 'token'), 'utf8').trim();
  return {
    port,
    token,
    dataDir,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** `GET /api/runs`. */
export async function listRuns(server: DebuggerAddress): Promise<RunSummary[]> {
  const answer = await api(server.port, server.token, 'GET', '/api/runs');
  if (answer.status !== 200) throw new Error(`GET /api/runs answered ${answer.status}`);
  return answer.json as RunSummary[];
}

/** `GET /api/runs/:runId`, or undefined on 404. */
export async function getRun(server: DebuggerAddress, runId: string): Promise<Run | undefined> {
  const answer = await api(server.port, server.token, 'GET', `/api/runs/${runId}`);
  return answer.status === 200 ? (answer.json as Run) : undefined;
}

/** The proxy pid of runs already looked at, by runId (it never changes). */
const proxyPids = new Map<string, unknown>();

/** The run a proxy process reported (by `meta.proxyPid`), if the debugger has it. */
export async function runOfProxy(server: DebuggerAddress, proxyPid: number): Promise<Run | undefined> {
  for (const summary of await listRuns(server)) {
    const known = proxyPids.get(summary.runId);
    if (known !== undefined && known !== proxyPid) continue;
    const run = await getRun(server, summary.runId);
    if (run === undefined) continue;
    if (run.meta.proxyPid !== undefined) proxyPids.set(summary.runId, run.meta.proxyPid);
    if (run.meta.proxyPid === proxyPid) return run;
  }
  return undefined;
}

/** Poll until the proxy's run satisfies `predicate` (by default: it has ended); returns it. */
export async function waitForRun(
  server: DebuggerAddress,
  proxyPid: number,
  predicate: (run: Run) => boolean = (run) => run.status !== 'running',
  timeoutMs = 15_000,
): Promise<Run> {
  const deadline = Date.now() + timeoutMs;
  let runId: string | undefined;
  let last: Run | undefined;
  // Start quick, then back off: a big run is expensive to serve on every poll.
  let interval = 25;
  for (;;) {
    if (runId === undefined) {
      last = await runOfProxy(server, proxyPid);
      runId = last?.runId;
    } else {
      last = await getRun(server, runId);
    }
    if (last !== undefined && predicate(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for the run of proxy ${proxyPid}; last seen: ${last === undefined ? 'none' : summarize(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
    interval = Math.min(Math.round(interval * 1.5), 500);
  }
}

/** A one-line picture of a run, for failure messages. */
export function summarize(run: Run): string {
  const counts = new Map<string, number>();
  for (const instance of run.instances) counts.set(instance.nodeId, (counts.get(instance.nodeId) ?? 0) + 1);
  return `${run.status} ${[...counts].map(([nodeId, n]) => `${nodeId}×${n}`).join(' ')}`;
}

/** The node with this id. */
export function nodeOf(run: Run, nodeId: string): GraphNode | undefined {
  return run.nodes.find((node) => node.nodeId === nodeId);
}

/** The executions of one node, in start order. */
export function instancesOf(run: Run, nodeId: string): Instance[] {
  return run.instances.filter((instance) => instance.nodeId === nodeId);
}

/** The nodeIds of the nodes whose parent is `parent`, sorted. */
export function childrenOf(run: Run, parent: string | null): string[] {
  return run.nodes
    .filter((node) => node.parent === parent)
    .map((node) => node.nodeId)
    .sort();
}

/**
 * What every proxy run must look like, whatever happened in it: instance ids
 * `mcp_1…mcp_N` in start order, each node once, every instance on a known
 * node, every parent a known node, one session node at the root, and each
 * node's status derived from its instances. Returns the problems found.
 */
export function shapeProblems(run: Run): string[] {
  const problems: string[] = [];
  run.instances.forEach((instance, index) => {
    if (instance.instanceId !== `mcp_${index + 1}`) problems.push(`instance ${index} is ${instance.instanceId}, not mcp_${index + 1}`);
  });
  const ids = new Set<string>();
  for (const node of run.nodes) {
    if (ids.has(node.nodeId)) problems.push(`node ${node.nodeId} appears twice`);
    ids.add(node.nodeId);
  }
  for (const node of run.nodes) {
    if (node.parent !== null && !ids.has(node.parent)) problems.push(`node ${node.nodeId} has an unknown parent ${node.parent}`);
    const mine = instancesOf(run, node.nodeId);
    const expected = mine.some((i) => i.status === 'error') ? 'error' : mine.some((i) => i.status === 'open') ? 'open' : 'ok';
    if (node.status !== expected) problems.push(`node ${node.nodeId} is ${node.status}, its instances say ${expected}`);
  }
  const roots = run.nodes.filter((node) => node.parent === null);
  if (roots.length !== 1 || roots[0]?.nodeId !== 'mcp:session' || roots[0]?.kind !== 'server') {
    problems.push(`the root nodes are ${roots.map((node) => node.nodeId).join(', ')}, not just the mcp:session server`);
  }
  for (const instance of run.instances) if (!ids.has(instance.nodeId)) problems.push(`instance ${instance.instanceId} is on unknown node ${instance.nodeId}`);
  return problems;
}

/** An MCP SDK 1.x client talking to a server through a real `graphmind mcp-proxy`. */
export interface SdkSession {
  client: Client;
  transport: StdioClientTransport;
  /** The proxy's pid. */
  pid: number;
  /** The proxy's stderr so far. */
  stderr(): string;
  /** Close the client (the proxy then ends) and wait for the proxy to exit. */
  close(): Promise<void>;
}

/** Options for {@link sdkSession}. */
export interface SdkSessionOptions {
  /** The debugger's port (`--port`). */
  port: number;
  /** The server's command line (after `--`). */
  server: readonly string[];
  /** Added to the proxy's environment (e.g. GRAPHMIND_DATA_DIR, GRAPHMIND_HIDE_*). */
  env?: Record<string, string>;
  capabilities?: ClientCapabilities;
  /** Called on the client before it connects (request handlers). */
  setup?: (client: Client) => void;
}

/**
 * Spawn `graphmind mcp-proxy --port <port> -- <server>` with the SDK's
 * StdioClientTransport and connect. Register the teardown yourself
 * (`kill(session.pid)`).
 */
export async function sdkSession(options: SdkSessionOptions): Promise<SdkSession> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('GRAPHMIND_')) base[key] = value;
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp-proxy', '--port', String(options.port), '--', ...options.server],
    env: { ...base, ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'graphmind-graph-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the proxy has no pid');
  return {
    client,
    transport,
    pid,
    stderr: () => stderr,
    async close() {
      await client.close();
      // The SDK resolves close() once the process is gone or signalled; make sure it is gone.
      await waitFor(() => !alive(pid), 10_000, `proxy ${pid} to exit`);
    },
  };
}

/** Whether a process exists (the proxy's own rule: anything but ESRCH). */
export const alive = processExists;

/** At teardown, a proxy still running is sent SIGTERM (it passes it to its server), then SIGKILL after 4 s. */
export function stopAtTeardown(t: { teardown(fn: () => unknown): void }, proxy: { child: { pid?: number }; exited: Promise<unknown> }): void {
  const pid = proxy.child.pid as number;
  t.teardown(async () => {
    if (!alive(pid)) return;
    kill(pid, 'SIGTERM');
    const timer = setTimeout(() => kill(pid), 4000);
    await proxy.exited;
    clearTimeout(timer);
  });
}

/** Whether this machine has an IPv6 loopback to listen on. */
export function hasIpv6Loopback(): Promise<boolean> {
  const probe = createServer();
  return new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}
