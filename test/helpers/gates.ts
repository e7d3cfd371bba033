// Helpers for the gate tests: a real `graphmind serve` (through serve.ts),
// real SDK clients that spawn `graphmind mcp-proxy` in front of a fixture
// server, the server's own log of what reached it, the proxy's stderr, and
// the control API's breakpoints and holds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stream } from 'node:stream';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Breakpoints, Hold, HoldAction } from '../../src/protocol/control.js';
import { CLI, NO_DEBUGGER_PORT, PROXY_FIXTURES, waitFor } from './cli.js';
import { api, startServe, type ServeProcess } from './serve.js';

export { waitFor } from './cli.js';
export type { ServeProcess } from './serve.js';

/** The SDK 1.x fixture that logs every byte it receives. */
export const LOGGING_SERVER = `${PROXY_FIXTURES}logging-server.mjs`;
/** The v2 fixture: `serve` (serveStdio, 2026-07-28 aware) or `plain` (McpServer.connect). */
export const ERA_SERVER = `${PROXY_FIXTURES}era-server.mjs`;

/** The JSON-RPC error code of an abort in the debugger. */
export const ABORT = -32099;

/** The smallest surface of tap's Test these helpers need. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A JSON-RPC message as the fixture logged it. */
export interface LoggedMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Start `graphmind serve` for a test file; stopped (and its data dir removed) on teardown. */
export async function startDebugger(t: Teardown, args: readonly string[] = []): Promise<ServeProcess> {
  const serve = await startServe(args);
  t.teardown(() => serve.stop());
  return serve;
}

/** Replace the debugger's breakpoints (PUT /api/breakpoints). */
export async function setBreakpoints(serve: ServeProcess, breakpoints: Breakpoints): Promise<void> {
  const answer = await api(serve.port, serve.token, 'PUT', '/api/breakpoints', breakpoints);
  if (answer.status !== 200 && answer.status !== 204) throw new Error(`PUT /api/breakpoints: ${answer.status} ${answer.text}`);
}

/**
 * Wait until at least `reporters` reporters are connected to the debugger
 * and every one of them has applied the breakpoints in force (GET
 * /api/health's `breakpoints`). A PUT answers once the reporters connected
 * at that moment have applied it; this is for one that connects later (an
 * adapter that attaches after the PUT, say).
 */
export async function breakpointsApplied(serve: ServeProcess, reporters = 1, timeoutMs = 10_000): Promise<void> {
  await waitForAsync(
    async () => {
      const health = (await api(serve.port, serve.token, 'GET', '/api/health')).json as { breakpoints: { reporters: number; applied: number } };
      return health.breakpoints.reporters >= reporters && health.breakpoints.applied === health.breakpoints.reporters;
    },
    timeoutMs,
    `${reporters} reporter(s) to apply the breakpoints`,
  );
}

/** Frames held right now (GET /api/holds). */
export async function listHolds(serve: ServeProcess): Promise<Hold[]> {
  const answer = await api(serve.port, serve.token, 'GET', '/api/holds');
  if (answer.status !== 200) throw new Error(`GET /api/holds: ${answer.status}`);
  return answer.json as Hold[];
}

/** What a hold must look like to be the one waited for. */
export type HoldMatch = Partial<Pick<Hold, 'runId' | 'nodeId' | 'gate' | 'method' | 'reason'>>;

function matches(hold: Hold, match: HoldMatch): boolean {
  return Object.entries(match).every(([key, value]) => (hold as unknown as Record<string, unknown>)[key] === value);
}

/** Poll GET /api/holds until one matches; returns it. */
export async function waitForHold(serve: ServeProcess, match: HoldMatch = {}, timeoutMs = 10_000): Promise<Hold> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await listHolds(serve)).find((hold) => matches(hold, match));
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for a hold like ${JSON.stringify(match)}`);
    await sleep(20);
  }
}

/** Decide a hold (POST /api/holds/:holdId); throws unless the API says ok. */
export async function decide(serve: ServeProcess, holdId: string, action: HoldAction, value?: unknown): Promise<void> {
  const body = value === undefined ? { action } : { action, value };
  const answer = await api(serve.port, serve.token, 'POST', `/api/holds/${holdId}`, body);
  if (answer.status !== 200) throw new Error(`POST /api/holds/${holdId}: ${answer.status} ${answer.text}`);
}

/** Run ids the debugger knows (GET /api/runs). */
export async function runIds(serve: ServeProcess): Promise<string[]> {
  const answer = await api(serve.port, serve.token, 'GET', '/api/runs');
  return (answer.json as Array<{ runId: string }>).map((run) => run.runId);
}

/** A run as GET /api/runs/:runId returns it (the parts the tests read). */
export interface RunView {
  runId: string;
  status: string;
  nodes: Array<{ nodeId: string; parent: string | null; status: string }>;
  instances: Array<{ instanceId: string; nodeId: string; status: string; input?: unknown; output?: unknown; error?: { name: string; code?: number } }>;
}

/** GET /api/runs/:runId. */
export async function getRun(serve: ServeProcess, runId: string): Promise<RunView> {
  const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`);
  if (answer.status !== 200) throw new Error(`GET /api/runs/${runId}: ${answer.status}`);
  return answer.json as RunView;
}

/** Wait until the debugger knows runs that are not in `before`; returns them. */
export async function newRuns(serve: ServeProcess, before: ReadonlySet<string>, count = 1, timeoutMs = 10_000): Promise<string[]> {
  let fresh: string[] = [];
  await waitForAsync(async () => {
    fresh = (await runIds(serve)).filter((id) => !before.has(id));
    return fresh.length >= count;
  }, timeoutMs, `${count} new run(s)`);
  return fresh;
}

/** Resolve after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Poll an async predicate every 20 ms; reject after `timeoutMs`. */
export async function waitForAsync(predicate: () => Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The fixture's log of every byte it received on stdin. */
export class ServerLog {
  readonly dir: string;
  readonly file: string;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'graphmind-gates-'));
    this.file = join(this.dir, 'received.log');
  }

  /** Everything received so far, exactly. */
  text(): string {
    try {
      return readFileSync(this.file, 'utf8');
    } catch {
      return '';
    }
  }

  /** The complete lines received so far (without their newline). */
  lines(): string[] {
    const parts = this.text().split('\n');
    parts.pop();
    return parts;
  }

  /** The complete lines, parsed. */
  messages(): LoggedMessage[] {
    return this.lines().map((line) => JSON.parse(line) as LoggedMessage);
  }

  /** Requests received with this method (and, for tools/call, this tool). */
  requests(method: string, name?: string): LoggedMessage[] {
    return this.messages().filter((m) => m.method === method && (name === undefined || m.params?.name === name));
  }

  /** Lines that contain `needle`. */
  linesWith(needle: string): string[] {
    return this.lines().filter((line) => line.includes(needle));
  }

  /** Wait until a received line satisfies `predicate`. */
  async waitForLine(predicate: (line: string) => boolean, timeoutMs = 10_000, what = 'a line in the server log'): Promise<string> {
    let found: string | undefined;
    await waitFor(() => (found = this.lines().find(predicate)) !== undefined, timeoutMs, what);
    return found as string;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Collects a stderr stream as text. */
export class TextCollector {
  #chunks: Buffer[] = [];

  constructor(stream: Stream | null) {
    stream?.on('data', (chunk: Buffer) => this.#chunks.push(chunk));
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }

  /** The proxy's HOLDING lines so far. */
  holdingLines(): string[] {
    return this.text()
      .split('\n')
      .filter((line) => line.startsWith('graphmind mcp-proxy: HOLDING '));
  }
}

/** The HOLDING line the proxy prints for a hold. */
export function holdingLine(method: string, id: string | number | null | undefined, gate: 'before' | 'after' | 'error', port: number, loopTool?: string): string {
  const number = id === undefined || id === null ? '' : ` #${id}`;
  const line = `graphmind mcp-proxy: HOLDING ${method}${number} at the ${gate} gate — resume it in http://127.0.0.1:${port}`;
  return loopTool === undefined
    ? line
    : `${line} (loop hold: the third identical call to "${loopTool}" in a row; if it is polled on purpose, set GRAPHMIND_LOOP_ALLOW=${loopTool})`;
}

/** Options for a proxy in front of a fixture. */
export interface ProxyOptions {
  /** The server's command line after `node`. @default [LOGGING_SERVER] */
  server?: readonly string[];
  /** Pass --wait-for-attach. @default true */
  waitForAttach?: boolean;
  /** More environment for the proxy (and the server). */
  env?: Record<string, string>;
  /** Report to this port instead of the debugger's. */
  port?: number;
}

/** The command line and environment that start the proxy in front of a fixture. */
/** This process's environment for a proxy that reports to `serve`: nothing else of ours steers it (token, hide switches, loop allow list…). */
export function proxyEnv(serve: ServeProcess | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) env[key] = value;
  if (serve !== undefined) env.GRAPHMIND_DATA_DIR = serve.dataDir;
  return env;
}

export function proxyParams(serve: ServeProcess | undefined, log: ServerLog, options: ProxyOptions = {}): { command: string; args: string[]; env: Record<string, string> } {
  const env = proxyEnv(serve);
  env.LOG_FILE = log.file;
  Object.assign(env, options.env ?? {});
  // No debugger for this session: a port where none listens (see NO_DEBUGGER_PORT), not a developer's own on 4747.
  const port = options.port ?? serve?.port ?? NO_DEBUGGER_PORT;
  const flags = ['--port', String(port), ...((options.waitForAttach ?? true) ? ['--wait-for-attach'] : [])];
  return { command: process.execPath, args: [CLI, 'mcp-proxy', ...flags, '--', process.execPath, ...(options.server ?? [LOGGING_SERVER])], env };
}

/** A session: an SDK client talking to a fixture through the proxy. */
export interface Session<C> {
  client: C;
  /** The proxy's stderr (the server's stderr passes through it too). */
  stderr: TextCollector;
  log: ServerLog;
  /** The proxy's pid. */
  pid: number | null;
  /** Close the client (ends the proxy) and remove the log. */
  close(): Promise<void>;
}

/** How a 1.x client answers sampling requests; it counts the calls. */
export interface SamplingStub {
  calls: number;
  answer: { role: 'assistant'; content: { type: 'text'; text: string }; model: string };
  /** Awaited before each answer (after counting the call). */
  beforeAnswer?: () => Promise<void>;
}

/** Options for {@link connectV1} and {@link connectV2}. */
export interface ConnectOptions extends ProxyOptions {
  /** Answer sampling/createMessage with this (1.x only). */
  sampling?: SamplingStub;
  /** v2 only: the client's version negotiation mode. */
  negotiation?: 'legacy' | 'auto' | { pin: string };
  /** v2 only: use a subclass of the stdio transport, which probes in place instead of on a sibling process. */
  probeInPlace?: boolean;
}

function cleanup(t: Teardown, close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const once = (): Promise<void> => (closing ??= close());
  t.teardown(once);
  return once;
}

/** A session whose connect the caller may await later (to decide holds during the handshake). */
export interface PendingSession<C> extends Session<C> {
  /** The handshake, started at once. */
  connecting: Promise<void>;
}

/** A client and its stdio transport as a session: connecting at once, closed on teardown. */
function pending<C extends { close(): Promise<void> }>(
  t: Teardown,
  log: ServerLog,
  client: C,
  transport: { stderr: Stream | null; pid: number | null },
  connect: () => Promise<void>,
): PendingSession<C> {
  const stderr = new TextCollector(transport.stderr);
  const close = cleanup(t, async () => {
    await client.close().catch(() => {});
    log.remove();
  });
  const connecting = connect();
  connecting.catch(() => {});
  return {
    client,
    stderr,
    log,
    get pid() {
      return transport.pid;
    },
    close,
    connecting,
  };
}

/**
 * A 1.x SDK client (`@modelcontextprotocol/sdk`) that spawns the proxy in
 * front of a fixture and starts connecting. Closed on teardown.
 */
export function startV1(t: Teardown, serve: ServeProcess | undefined, options: ConnectOptions = {}): PendingSession<ClientV1> {
  const log = new ServerLog();
  const client = new ClientV1({ name: 'gates-v1', version: '0.0.0' }, { capabilities: { sampling: {}, roots: { listChanged: true } } });
  const sampling = options.sampling;
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    if (sampling === undefined) throw new Error('no sampling configured');
    sampling.calls++;
    await sampling.beforeAnswer?.();
    return sampling.answer;
  });
  const transport = new StdioClientTransportV1({ ...proxyParams(serve, log, options), stderr: 'pipe' });
  return pending(t, log, client, transport, () => client.connect(transport));
}

/** Like {@link startV1}; resolves once connected. */
export async function connectV1(t: Teardown, serve: ServeProcess | undefined, options: ConnectOptions = {}): Promise<Session<ClientV1>> {
  const session = startV1(t, serve, options);
  await session.connecting;
  return session;
}

/** A v2 client's stdio transport that probes in place (any subclass does). */
class InPlaceStdioTransport extends StdioClientTransportV2 {}

/** Like {@link startV1}, with a v2 client (`@modelcontextprotocol/client`). */
export function startV2(t: Teardown, serve: ServeProcess | undefined, options: ConnectOptions = {}): PendingSession<ClientV2> {
  const log = new ServerLog();
  const negotiation = options.negotiation ?? 'legacy';
  const client = new ClientV2({ name: 'gates-v2', version: '0.0.0' }, { versionNegotiation: { mode: negotiation } });
  const Transport = options.probeInPlace === true ? InPlaceStdioTransport : StdioClientTransportV2;
  const transport = new Transport({ ...proxyParams(serve, log, options), stderr: 'pipe' });
  return pending(t, log, client, transport, () => client.connect(transport));
}

/** Like {@link connectV1}, with a v2 client; resolves once connected. */
export async function connectV2(t: Teardown, serve: ServeProcess | undefined, options: ConnectOptions = {}): Promise<Session<ClientV2>> {
  const session = startV2(t, serve, options);
  await session.connecting;
  return session;
}

/** The error a rejected promise carries, with its JSON-RPC code and data. */
export async function rejection(promise: Promise<unknown>): Promise<{ code?: number; message: string; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown; data?: unknown };
    return { code: typeof e.code === 'number' ? e.code : undefined, message: String(e.message), data: e.data };
  }
  throw new Error('expected the call to fail, but it succeeded');
}
