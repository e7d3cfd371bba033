// Helpers for the in-process adapter's tests: the three SDKs the suite runs
// (1.26.0, the declared floor; the latest 1.x; the latest 2.x) behind one
// small surface, a real SDK client over the SDK's own in-memory transport,
// an adapter that reports to a test's own `graphmind serve` (never to a
// developer's debugger on 4747), and the runs the debugger recorded.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2, InMemoryTransport as InMemoryV2Client } from '@modelcontextprotocol/client';
import { McpServer as McpServerV2, ResourceTemplate as ResourceTemplateV2, Server as ServerV2 } from '@modelcontextprotocol/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1, ResourceTemplate as ResourceTemplateV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import * as TypesV1 from '@modelcontextprotocol/sdk/types.js';
import { Client as Client126 } from 'sdk-1-26/client/index.js';
import { InMemoryTransport as InMemory126 } from 'sdk-1-26/inMemory.js';
import { McpServer as McpServer126, ResourceTemplate as ResourceTemplate126 } from 'sdk-1-26/server/mcp.js';
import { Server as Server126 } from 'sdk-1-26/server/index.js';
import * as Types126 from 'sdk-1-26/types.js';
import * as z from 'zod';
import { graphmind, type Graphmind, type GraphmindOptions } from '../../src/adapter/index.js';
import type { Breakpoints, Hold } from '../../src/protocol/control.js';
import { NO_DEBUGGER_PORT } from './cli.js';
import { serveOnPort } from './graph.js';
import { listHolds, sleep, waitFor, waitForAsync, type Teardown } from './gates.js';
import { api, type ServeProcess } from './serve.js';

export { freePort } from './graph.js';
export { ABORT, decide, listHolds, rejection, setBreakpoints, sleep, startDebugger, waitFor, waitForAsync, waitForHold } from './gates.js';
export type { ServeProcess } from './serve.js';

/**
 * The SDK objects as the tests drive them. Typed loosely on purpose: the
 * adapter duck-types them, and the three SDKs' own types differ in ways
 * these tests do not care about.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

/** The SDKs the suite runs. */
export type SdkLabel = '1.26.0' | '1.32.2' | '2.4.0';

/** One SDK behind the surface the tests use. */
export interface Kit {
  label: SdkLabel;
  /** 1 for `@modelcontextprotocol/sdk`, 2 for `@modelcontextprotocol/server`. */
  generation: 1 | 2;
  /** The package the adapter should report for a server of this SDK. */
  sdkPackage: '@modelcontextprotocol/sdk' | '@modelcontextprotocol/server';
  /** `new McpServer(info, options)`. */
  mcpServer(name?: string, options?: Loose): Loose;
  /** `new Server(info, { capabilities })` (the low-level server). */
  lowServer(name?: string, capabilities?: Loose): Loose;
  /** `new ResourceTemplate(uriTemplate, { list: undefined })`. */
  template(uriTemplate: string): Loose;
  /** An input schema for these fields, as this SDK's `registerTool` / `registerPrompt` takes it. */
  schema(shape: Record<string, z.ZodType>): Loose;
  /** `setRequestHandler` for a spec method (1.x: its Zod request schema; 2.x: the method name). */
  setHandler(server: Loose, method: 'tools/call' | 'tools/list' | 'resources/read' | 'prompts/get', handler: (request: Loose, context: Loose) => unknown): void;
  /** A linked in-memory transport pair: [for the server, for the client]. */
  pair(): [Loose, Loose];
  /** A client of the same generation; `sampling` answers sampling/createMessage (it gets the request's params). */
  client(sampling?: (params: Loose) => unknown): Loose;
  /**
   * Ask the client to sample from inside a handler, through one of the
   * ways this SDK offers: `send` (1.x `extra.sendRequest`, 2.x
   * `ctx.mcpReq.send`), `server` (1.x `server.server.createMessage`, 2.x
   * `ctx.mcpReq.requestSampling`).
   */
  sample(context: Loose, server: Loose, via: 'send' | 'server', params: Loose): Promise<Loose>;
  /** The abort signal a handler is given. */
  signal(context: Loose): AbortSignal;
  /** `client.callTool(params)` with request options (a `timeout`, say), as this generation takes them. */
  callTool(client: Loose, params: { name: string; arguments?: Record<string, unknown> }, options?: { timeout?: number }): Promise<Loose>;
}

function v1Kit(label: '1.26.0' | '1.32.2'): Kit {
  const sdk =
    label === '1.26.0'
      ? { McpServer: McpServer126, Server: Server126, ResourceTemplate: ResourceTemplate126, InMemory: InMemory126, Client: Client126, types: Types126 as Loose }
      : { McpServer: McpServerV1, Server: ServerV1, ResourceTemplate: ResourceTemplateV1, InMemory: InMemoryV1, Client: ClientV1, types: TypesV1 as Loose };
  const schemas: Record<string, Loose> = {
    'tools/call': sdk.types.CallToolRequestSchema,
    'tools/list': sdk.types.ListToolsRequestSchema,
    'resources/read': sdk.types.ReadResourceRequestSchema,
    'prompts/get': sdk.types.GetPromptRequestSchema,
  };
  return {
    label,
    generation: 1,
    sdkPackage: '@modelcontextprotocol/sdk',
    mcpServer: (name = 'adapter-test', options?: Loose) => new (sdk.McpServer as Loose)({ name, version: '1.0.0' }, options),
    lowServer: (name = 'low-level', capabilities: Loose = { tools: {}, resources: {}, prompts: {} }) => new (sdk.Server as Loose)({ name, version: '1.0.0' }, { capabilities }),
    template: (uriTemplate) => new (sdk.ResourceTemplate as Loose)(uriTemplate, { list: undefined }),
    schema: (shape) => shape,
    setHandler: (server, method, handler) => server.setRequestHandler(schemas[method], handler),
    pair: () => (sdk.InMemory as Loose).createLinkedPair(),
    client(sampling) {
      const client = new (sdk.Client as Loose)({ name: `client-${label}`, version: '0.0.0' }, { capabilities: { sampling: {} } });
      if (sampling !== undefined) client.setRequestHandler(sdk.types.CreateMessageRequestSchema, async (request: Loose) => sampling(request.params));
      return client;
    },
    sample(context, server, via, params) {
      if (via === 'send') return context.sendRequest({ method: 'sampling/createMessage', params }, sdk.types.CreateMessageResultSchema);
      return server.server.createMessage(params);
    },
    signal: (context) => context.signal as AbortSignal,
    callTool: (client, params, options) => client.callTool(params, undefined, options),
  };
}

const v2Kit: Kit = {
  label: '2.4.0',
  generation: 2,
  sdkPackage: '@modelcontextprotocol/server',
  mcpServer: (name = 'adapter-test', options?: Loose) => new McpServerV2({ name, version: '1.0.0' }, options),
  lowServer: (name = 'low-level', capabilities: Loose = { tools: {}, resources: {}, prompts: {} }) => new ServerV2({ name, version: '1.0.0' }, { capabilities }),
  template: (uriTemplate) => new ResourceTemplateV2(uriTemplate, { list: undefined }),
  schema: (shape) => z.object(shape),
  setHandler: (server, method, handler) => server.setRequestHandler(method, handler),
  pair: () => InMemoryV2Client.createLinkedPair() as [Loose, Loose],
  client(sampling) {
    const client: Loose = new ClientV2({ name: 'client-2.4.0', version: '0.0.0' }, { capabilities: { sampling: {} } });
    if (sampling !== undefined) client.setRequestHandler('sampling/createMessage', async (request: Loose) => sampling(request.params));
    return client;
  },
  sample(context, _server, via, params) {
    if (via === 'send') return context.mcpReq.send({ method: 'sampling/createMessage', params });
    return context.mcpReq.requestSampling(params);
  },
  signal: (context) => context.mcpReq.signal as AbortSignal,
  callTool: (client, params, options) => client.callTool(params, options),
};

/** Every SDK the suite runs, oldest first. */
export const KITS: readonly Kit[] = [v1Kit('1.26.0'), v1Kit('1.32.2'), v2Kit];

/** The kit of one SDK. */
export function kit(label: SdkLabel): Kit {
  return KITS.find((k) => k.label === label) as Kit;
}

/** A sampling answer a client gives. */
export function samplingAnswer(text: string): { role: 'assistant'; content: { type: 'text'; text: string }; model: string; stopReason: string } {
  return { role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' };
}

/** Sampling request params with one user message. */
export function samplingParams(text: string): Loose {
  return { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 16 };
}

/** A text tool result. */
export function text(value: string): { content: Array<{ type: 'text'; text: string }> } {
  return { content: [{ type: 'text', text: value }] };
}

/**
 * The environment an adapter reads: this process's, without any
 * `GRAPHMIND_*` of the developer's, and with `serve`'s data dir (where its
 * token is) when given.
 */
export function adapterEnv(serve: ServeProcess | undefined, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND')) env[key] = value;
  delete env.NODE_ENV;
  if (serve !== undefined) env.GRAPHMIND_DATA_DIR = serve.dataDir;
  return { ...env, ...extra };
}

/** The ingest URL of `serve`, or of a port where nothing listens. */
export function ingestUrl(serve: ServeProcess | undefined): string {
  return `ws://127.0.0.1:${serve?.port ?? NO_DEBUGGER_PORT}/ingest`;
}

/**
 * `graphmind({...})` reporting to `serve` (or to nowhere), disposed on
 * teardown. With a debugger it waits until attached and armed.
 */
export async function adapter(t: Teardown, serve: ServeProcess | undefined, options: GraphmindOptions = {}): Promise<Graphmind> {
  const gm = graphmind({ app: 'adapter-tests', url: ingestUrl(serve), env: adapterEnv(serve), ...options });
  t.teardown(() => gm.dispose());
  if (serve !== undefined && options.enabled !== false) {
    const ready = await gm.ready(10_000);
    if (!ready) throw new Error('the adapter did not attach to the test debugger');
  }
  return gm;
}

/** Connect a wrapped server and a client over the in-memory pair; the client is closed on teardown. */
export async function connectInMemory(t: Teardown, k: Kit, server: Loose, sampling?: (params: Loose) => unknown): Promise<Loose> {
  const [serverSide, clientSide] = k.pair();
  await server.connect(serverSide);
  const client = k.client(sampling);
  await client.connect(clientSide);
  t.teardown(() => client.close().catch(() => {}));
  return client;
}

/** A run as GET /api/runs/:runId returns it. */
export interface FullRun {
  runId: string;
  name: string;
  source: string;
  status: 'running' | 'ok' | 'error';
  meta: Record<string, unknown>;
  nodes: Array<{ nodeId: string; kind: string; parent: string | null; label: string; status: string }>;
  instances: Array<{
    instanceId: string;
    nodeId: string;
    status: string;
    input?: unknown;
    output?: unknown;
    error?: { name: string; message: string; code?: number; data?: unknown };
  }>;
  logs: Array<{ nodeId: string; stream: string; text: string }>;
}

/** GET /api/runs/:runId, or undefined while it is unknown. */
export async function fetchRun(serve: ServeProcess, runId: string): Promise<FullRun | undefined> {
  const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`);
  return answer.status === 200 ? (answer.json as FullRun) : undefined;
}

/** The run once it has finished (its status is no longer `running`). */
export async function finishedRun(serve: ServeProcess, runId: string, timeoutMs = 10_000): Promise<FullRun> {
  let run: FullRun | undefined;
  await waitForAsync(async () => {
    run = await fetchRun(serve, runId);
    return run !== undefined && run.status !== 'running';
  }, timeoutMs, `run ${runId} to finish`);
  return run as FullRun;
}

/** The summaries of every run the debugger knows. */
export async function runList(serve: ServeProcess): Promise<Array<{ runId: string; name: string; source: string; status: string }>> {
  const answer = await api(serve.port, serve.token, 'GET', '/api/runs');
  return answer.json as Array<{ runId: string; name: string; source: string; status: string }>;
}

/** Remembers the runs that exist now, to find those a test makes. */
export class RunWatch {
  readonly #serve: ServeProcess;
  #known = new Set<string>();

  private constructor(serve: ServeProcess) {
    this.#serve = serve;
  }

  /** Start watching: every run known now is old. */
  static async start(serve: ServeProcess): Promise<RunWatch> {
    const watch = new RunWatch(serve);
    await watch.mark();
    return watch;
  }

  /** Every run known now is old from here on. */
  async mark(): Promise<void> {
    for (const run of await runList(this.#serve)) this.#known.add(run.runId);
  }

  /**
   * The finished runs made since the last mark, named `name`, once there are
   * `count` of them (oldest first).
   */
  async named(name: string, count = 1, timeoutMs = 10_000): Promise<FullRun[]> {
    let found: Array<{ runId: string }> = [];
    await waitForAsync(async () => {
      found = (await runList(this.#serve)).filter((run) => !this.#known.has(run.runId) && run.name === name && run.status !== 'running');
      return found.length >= count;
    }, timeoutMs, `${count} finished run(s) named ${name}`);
    const runs = await Promise.all(found.map((run) => finishedRun(this.#serve, run.runId)));
    return runs.reverse();
  }

  /** The one finished run named `name` made since the last mark. */
  async one(name: string, timeoutMs?: number): Promise<FullRun> {
    const runs = await this.named(name, 1, timeoutMs);
    if (runs.length !== 1) throw new Error(`expected one run named ${name}, found ${runs.length}`);
    return runs[0] as FullRun;
  }
}

/** The instance of `nodeId` in a run (the first one). */
export function instanceOf(run: FullRun, nodeId: string): FullRun['instances'][number] {
  const found = run.instances.find((instance) => instance.nodeId === nodeId);
  if (found === undefined) throw new Error(`no instance of ${nodeId} in run ${run.name}: ${JSON.stringify(run.instances.map((i) => i.nodeId))}`);
  return found;
}

/** The node `nodeId` of a run. */
export function nodeOf(run: FullRun, nodeId: string): FullRun['nodes'][number] {
  const found = run.nodes.find((node) => node.nodeId === nodeId);
  if (found === undefined) throw new Error(`no node ${nodeId} in run ${run.name}: ${JSON.stringify(run.nodes.map((n) => n.nodeId))}`);
  return found;
}

/** Breakpoints: pause-on-error off unless said, and these nodes' gates. */
export function breakpoints(nodes: Breakpoints['nodes'] = {}, pauseOnError = false): Breakpoints {
  return { pauseOnError, nodes };
}

/** A promise whose rejection is observed at once (to be awaited later). */
export function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** How a promise settled: its value, or its error with the JSON-RPC code. */
export async function settle(promise: Promise<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; code?: number; message: string }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown };
    return { ok: false, code: typeof e.code === 'number' ? e.code : undefined, message: String(e.message) };
  }
}

/** Poll GET /api/holds until hold `holdId` is reported given up by its requester; returns it. */
export async function waitForGivenUp(serve: ServeProcess, holdId: string, timeoutMs = 10_000): Promise<Hold & { givenUp: string }> {
  let found: Hold | undefined;
  await waitForAsync(async () => {
    found = (await listHolds(serve)).find((hold) => hold.holdId === holdId && hold.givenUp !== undefined);
    return found !== undefined;
  }, timeoutMs, `hold ${holdId} to be given up`);
  return found as Hold & { givenUp: string };
}

/** Poll GET /api/holds until hold `holdId` is gone (decided and released); false if it is still there after `timeoutMs`. */
export async function holdGone(serve: ServeProcess, holdId: string, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await listHolds(serve)).some((hold) => hold.holdId === holdId)) return true;
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
}

/** The held JSON-RPC message's id (the request id the hold is for). */
export function heldId(hold: Hold): string | number {
  return (hold.frame as { id: string | number }).id;
}

/** Resolve after the event loop has had `ms` to run whatever is pending. */
export function settleFor(ms = 50): Promise<void> {
  return sleep(ms);
}

/** The stdio fixture server wrapped with the adapter. */
export const STDIO_SERVER = fileURLToPath(new URL('../fixtures/adapter/stdio-server.mjs', import.meta.url));

/** A process spoken to in raw JSON-RPC lines, with every byte of its stdout kept. */
export interface LineSession {
  child: ChildProcessWithoutNullStreams;
  /** Write one JSON-RPC message as a line. */
  send(message: Record<string, unknown>): void;
  /** The messages received so far (each stdout line, parsed; a line that is not JSON fails the session). */
  messages(): Array<Record<string, unknown>>;
  /** Wait for a message that satisfies `predicate`. */
  next(predicate: (message: Record<string, unknown>) => boolean, timeoutMs?: number, what?: string): Promise<Record<string, unknown>>;
  /** The answer to request `id`. */
  answer(id: string | number, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Every byte written on stdout. */
  stdout(): Buffer;
  stderr(): string;
  /** End stdin and wait for the exit (killed after 5 s). */
  close(): Promise<void>;
}

/** Spawn `node <args>` and speak JSON-RPC lines to it; closed on teardown. */
export function lineSession(t: Teardown, args: readonly string[], env: NodeJS.ProcessEnv): LineSession {
  const child = spawn(process.execPath, [...args], { stdio: 'pipe', env });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => {});
  const exited = once(child, 'close');
  const messages = (): Array<Record<string, unknown>> => {
    const lines = Buffer.concat(out).toString('utf8').split('\n');
    lines.pop();
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    })());
  t.teardown(close);
  const session: LineSession = {
    child,
    send(message) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    messages,
    async next(predicate, timeoutMs = 10_000, what = 'a message') {
      let found: Record<string, unknown> | undefined;
      await waitFor(() => (found = messages().find(predicate)) !== undefined, timeoutMs, what);
      return found as Record<string, unknown>;
    },
    answer(id, timeoutMs) {
      return session.next((message) => message.id === id && ('result' in message || 'error' in message), timeoutMs, `the answer to ${id}`);
    },
    stdout: () => Buffer.concat(out),
    stderr: () => Buffer.concat(err).toString('utf8'),
    close,
  };
  return session;
}

/** The 2025 handshake over a {@link LineSession}: initialize (id 0), then notifications/initialized. */
export async function handshake(session: LineSession, protocolVersion = '2025-06-18'): Promise<Record<string, unknown>> {
  session.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'line-client', version: '0.0.0' } } });
  const answer = await session.answer(0);
  session.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return answer;
}

/**
 * Every byte of `stdout` is a JSON-RPC message on its own line: returns the
 * lines that are not (empty when stdout is pure).
 */
export function impureLines(stdout: Buffer): string[] {
  const text = stdout.toString('utf8');
  const lines = text.split('\n');
  const tail = lines.pop();
  const bad = lines.filter((line) => {
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      return value === null || typeof value !== 'object' || value.jsonrpc !== '2.0';
    } catch {
      return true;
    }
  });
  if (tail !== undefined && tail !== '') bad.push(tail);
  return bad;
}

/** A TCP listener that counts the connections made to it (to show that nothing touched the network); closed on teardown. */
export async function connectionCounter(t: Teardown): Promise<{ port: number; count(): number }> {
  let count = 0;
  const server = createNetServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, count: () => count };
}

/**
 * `graphmind serve --port <port> --data-dir <dataDir>` (a fixed port, for a
 * debugger started after the adapter), as a {@link ServeProcess}; resolves
 * once it listens, stopped on teardown.
 */
export async function startServeOn(t: Teardown, port: number, dataDir: string): Promise<ServeProcess> {
  const serve = await serveOnPort(port, dataDir);
  t.teardown(() => serve.stop());
  const exited = once(serve.child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  return { ...serve, url: `http://127.0.0.1:${port}`, stdout: () => '', stderr: () => '', exited, stop: () => serve.stop() };
}
