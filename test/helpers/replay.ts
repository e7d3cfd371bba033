// Helpers for the replay tests: record a session through a real `graphmind mcp-proxy` into a
// real `graphmind serve`, then start `graphmind replay` for a fresh SDK client.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { CLI } from './cli.js';
import { sdkSession, waitForRun, type ServeOnPort } from './graph.js';

/** The environment without GRAPHMIND_* (a developer's own settings must not leak in). */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) env[key] = value;
  return { ...env, ...extra };
}

/** What a finished `graphmind` command gave: its exit code and its output. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `graphmind <args>` with stdin closed and no GRAPHMIND_* of the developer's (plus `env`); its exit code and output. */
export async function runGraphmind(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** Record one session of `server` driven by `drive`; the run's id once it ended, and what `drive` returned. */
export async function record<T>(
  serve: ServeOnPort,
  server: readonly string[],
  drive: (client: Client) => Promise<T>,
  options: { capabilities?: ClientCapabilities; setup?: (client: Client) => void; env?: Record<string, string> } = {},
): Promise<{ runId: string; result: T }> {
  const session = await sdkSession({ port: serve.port, server, env: { GRAPHMIND_DATA_DIR: serve.dataDir, ...options.env }, capabilities: options.capabilities, setup: options.setup });
  const result = await drive(session.client);
  const run = await waitForRun(serve, session.pid, (r) => r.instances.some((i) => i.nodeId !== 'mcp:session' && i.status !== 'open'));
  await session.close();
  await waitForRun(serve, session.pid);
  return { runId: run.runId, result };
}

/** A fresh SDK 1.x client on `graphmind replay <args>`. */
export async function replayClient(
  args: readonly string[],
  options: { capabilities?: ClientCapabilities; setup?: (client: Client) => void } = {},
): Promise<{ client: Client; pid: number; stderr(): string; close(): Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'replay', ...args], env: cleanEnv(), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'replay-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  await client.connect(transport);
  return { client, pid: transport.pid as number, stderr: () => stderr, close: () => client.close() };
}

/** The pids whose parent is `pid` (from /proc). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Processes whose command line mentions `text`. */
export function processesRunning(text: string): number[] {
  const found = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout ?? '';
  return found
    .split('\n')
    .filter((line) => line.includes(text) && !line.includes('ps -eo'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Run `graphmind replay <args>` with `input` on stdin; its exit code and output. */
export async function replayOnce(args: readonly string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'replay', ...args], { env: cleanEnv(), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(input);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** One event of a run log written by hand (runId, seq and t are filled in). */
export type LogEvent = Record<string, unknown> & { type: string };

/** A run log as text, from events: a `run.started` first, a `run.finished` last. */
export function runLog(runId: string, events: readonly LogEvent[]): string {
  let seq = 0;
  const t = Date.UTC(2026, 0, 1);
  const line = (event: Record<string, unknown>): string => JSON.stringify({ ...event, runId, seq: ++seq, t: t + seq });
  return [
    line({ type: 'run.started', name: 'hand-written', source: 'mcp-proxy', meta: {} }),
    ...events.map(line),
    line({ type: 'run.finished', status: 'ok' }),
    '',
  ].join('\n');
}

/** A node for a hand-written log. */
export function nodeOf(method: string, name?: string): Record<string, unknown> {
  if (method === 'tools/call') return { nodeId: `tool:${name}`, kind: 'tool', parent: 'mcp:session', label: name };
  if (method === 'sampling/createMessage') return { nodeId: 'llm:sampling', kind: 'llm', parent: 'mcp:session', label: 'sampling' };
  return { nodeId: `mcp:${method}`, kind: 'custom', parent: 'mcp:protocol', label: method };
}

/** The start and end of a call that ended well. */
export function callEvents(instanceId: string, method: string, params: unknown, output: unknown): LogEvent[] {
  const name = (params as { name?: string } | undefined)?.name;
  return [
    { type: 'instance.started', instanceId, node: nodeOf(method, name), input: params },
    { type: 'instance.finished', instanceId, output },
  ];
}

/** An initialize recorded with its answer. */
export const INITIALIZE: LogEvent[] = callEvents(
  'mcp_2',
  'initialize',
  { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
  { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hand-written', version: '1.0.0' } },
);
