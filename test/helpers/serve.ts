// Helpers for testing `graphmind serve` through the real CLI: start and stop
// it, call its REST API, send raw HTTP when the exact headers matter, and
// play a reporter or a viewer over its WebSockets.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { RunEvent } from '../../src/protocol/ingest.js';
import type { OutgoingEvent } from '../../src/report/reporter.js';
import { CLI, waitFor } from './cli.js';

/** The line `graphmind serve` prints first once it listens. */
const LISTENING = /^graphmind: debugger listening on (http:\/\/\S+:(\d+))$/m;

/** A running `graphmind serve`. */
export interface ServeProcess {
  port: number;
  /** The viewer's URL as printed, e.g. `http://127.0.0.1:40123`. */
  url: string;
  dataDir: string;
  /** The API token: `<dataDir>/token`, or GRAPHMIND_TOKEN when it was set. */
  token: string;
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Stop it (SIGTERM by default, a clean shutdown; SIGKILL for a crash) and
   * wait for it to exit. Removes the data dir if the helper created it.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Options for {@link startServe}. */
export interface StartServeOptions {
  /** Use this data dir (kept on stop) instead of a fresh one (removed on stop). */
  dataDir?: string;
}

/** An environment without the variables that would steer the server or its token. */
function cleanEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.GRAPHMIND_TOKEN;
  delete base.GRAPHMIND_DATA_DIR;
  return { ...base, ...env };
}

/** A fresh temp dir; the data dir inside it does not exist yet, so the server creates it. */
export function freshDataDir(): { root: string; dataDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-serve-'));
  return { root, dataDir: join(root, 'data') };
}

function spawnServe(args: readonly string[], env: NodeJS.ProcessEnv): {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: 'pipe', env: cleanEnv(env) });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => {});
  const exited = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return {
    child,
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
    exited,
  };
}

/**
 * Start `node dist/cli/graphmind.js serve --port 0 --data-dir <dir> ...args`
 * and wait for its listening line.
 */
export async function startServe(args: readonly string[] = [], env: NodeJS.ProcessEnv = {}, options: StartServeOptions = {}): Promise<ServeProcess> {
  const fresh = options.dataDir === undefined ? freshDataDir() : undefined;
  const dataDir = options.dataDir ?? (fresh as { dataDir: string }).dataDir;
  const proc = spawnServe(['--port', '0', '--data-dir', dataDir, ...args], env);
  let exitedEarly = false;
  void proc.exited.then(() => (exitedEarly = true));
  let match: RegExpExecArray | null = null;
  try {
    await waitFor(() => exitedEarly || (match = LISTENING.exec(proc.stdout())) !== null, 15_000, 'the listening line');
  } catch (error) {
    proc.child.kill('SIGKILL');
    if (fresh !== undefined) rmSync(fresh.root, { recursive: true, force: true });
    throw error;
  }
  if (match === null) {
    if (fresh !== undefined) rmSync(fresh.root, { recursive: true, force: true });
    throw new Error(`graphmind serve exited before listening: ${proc.stderr()}`);
  }
  const found = match as RegExpExecArray;
  const fromEnv = env.GRAPHMIND_TOKEN;
  const token = fromEnv !== undefined && fromEnv !== '' ? fromEnv : readFileSync(join(dataDir, 'token'), 'utf8').trim();
  let stopped: Promise<void> | undefined;
  return {
    port: Number(found[2]),
    url: found[1] as string,
    dataDir,
    token,
    ...proc,
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      stopped ??= (async () => {
        if (proc.child.exitCode === null && proc.child.signalCode === null) {
          proc.child.kill(signal);
          const timer = setTimeout(() => proc.child.kill('SIGKILL'), 5000);
          await proc.exited;
          clearTimeout(timer);
        }
        if (fresh !== undefined) rmSync(fresh.root, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/** Run `graphmind serve` expecting it to fail at start; resolves with its exit and output. */
export async function serveFailure(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnServe(args, env);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** An HTTP answer. */
export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text. */
  text: string;
  /** The body parsed as JSON (undefined when it is empty or not JSON). */
  json: unknown;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Call the REST API with fetch. `token` undefined sends no Authorization;
 * a string `body` is sent as is, anything else as JSON.
 */
export async function api(port: number, token: string | undefined, method: string, path: string, body?: unknown): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body: payload });
  const text = await res.text();
  const out: IncomingHttpHeaders = {};
  res.headers.forEach((value, name) => {
    out[name] = value;
  });
  return { status: res.status, headers: out, text, json: parseJson(text) };
}

/** What {@link rawRequest} sends. */
export interface RawRequest {
  method?: string;
  path: string;
  /** Sent exactly; no Host is added unless given here. */
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
}

/** An HTTP request through node:http with full control of the headers (Host and Origin included). */
export function rawRequest(port: number, options: RawRequest): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {}, setHost: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Send bytes on a plain TCP socket and collect everything until the server closes (or `timeoutMs`). */
export function rawSocket(port: number, text: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One response is enough: a response with Content-Length 0 or a complete body.
      const sofar = Buffer.concat(chunks).toString('latin1');
      const head = sofar.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(sofar);
      if (head !== -1 && length !== null && sofar.length >= head + 4 + Number(length[1])) socket.end();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (chunks.length > 0) resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.write(text);
  });
}

/** A WebSocket client that collects the JSON messages it receives. */
export interface CollectingSocket {
  ws: WebSocket;
  /** Every message received, parsed. */
  messages: Array<Record<string, unknown>>;
  /** Resolves when the socket closes, with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  /** Wait for a message that satisfies `predicate` (looking at those already received too). */
  next(predicate: (message: Record<string, unknown>) => boolean, timeoutMs?: number, what?: string): Promise<Record<string, unknown>>;
  close(): void;
}

/** Why an upgrade was refused. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number, readonly headers: IncomingHttpHeaders) {
    super(`upgrade refused with ${status}`);
  }
}

/**
 * Open a WebSocket and resolve once it is open; reject with
 * {@link UpgradeRefused} (carrying the status) when the server answers the
 * upgrade with an HTTP response instead.
 */
export function openSocket(url: string, headers: Record<string, string> = {}): Promise<CollectingSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: 5000 });
    const messages: Array<Record<string, unknown>> = [];
    const closed = new Promise<{ code: number; reason: string }>((resolveClose) => {
      ws.on('close', (code, reason) => resolveClose({ code, reason: reason.toString() }));
    });
    ws.on('message', (data) => {
      const value = parseJson(data.toString());
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) messages.push(value as Record<string, unknown>);
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
      reject(new UpgradeRefused(res.statusCode ?? 0, res.headers));
    });
    ws.on('error', reject);
    ws.on('open', () => {
      resolve({
        ws,
        messages,
        closed,
        async next(predicate, timeoutMs = 5000, what = 'a message') {
          let found: Record<string, unknown> | undefined;
          await waitFor(() => (found = messages.find(predicate)) !== undefined, timeoutMs, what);
          return found as Record<string, unknown>;
        },
        close() {
          ws.close();
        },
      });
    });
  });
}

/** A stand-in reporter on `/ingest`. */
export interface FakeReporter extends CollectingSocket {
  /** Send events as one ingest message (a JSON array). */
  send(events: readonly RunEvent[]): void;
  /** Send any text as one message (for malformed input). */
  sendRaw(text: string): void;
}

/**
 * Connect a reporter to `/ingest` with `Authorization: Bearer <token>`.
 * Like the bundled reporter, it acks the breakpoints it is sent (`PUT
 * /api/breakpoints` answers once it has); `{ ack: false }` makes one older
 * than the ack, which a PUT waits for up to its bound (2 s).
 */
export async function fakeReporter(port: number, token: string, options: { ack?: boolean } = {}): Promise<FakeReporter> {
  const socket = await openSocket(`ws://127.0.0.1:${port}/ingest`, { authorization: `Bearer ${token}` });
  if (options.ack ?? true) {
    const ack = (message: Record<string, unknown>): void => {
      if (message.type === 'breakpoints' && typeof message.version === 'number') socket.ws.send(JSON.stringify({ type: 'breakpoints.ack', version: message.version }));
    };
    // Each message once, in order: those that came before this listener (the breakpoints sent on connect), then the rest.
    let next = 0;
    const drain = (): void => {
      while (next < socket.messages.length) ack(socket.messages[next++] as Record<string, unknown>);
    };
    drain();
    socket.ws.on('message', drain);
  }
  return {
    ...socket,
    send(events) {
      socket.ws.send(JSON.stringify(events));
    },
    sendRaw(text) {
      socket.ws.send(text);
    },
  };
}

/** Connect to the live feed (token in the Authorization header). */
export function liveClient(port: number, token: string): Promise<CollectingSocket> {
  return openSocket(`ws://127.0.0.1:${port}/api/live`, { authorization: `Bearer ${token}` });
}

/**
 * Builds one run's events as a reporter would: `runId`, a `seq` counting
 * from 1, and `t` (`startT` for the first, then one millisecond apart, unless given).
 */
export class RunEvents {
  seq = 0;
  t: number;
  constructor(readonly runId: string, startT = Date.now()) {
    this.t = startT - 1;
  }

  /** The next event of this run. */
  next(event: OutgoingEvent, t?: number): RunEvent {
    this.seq++;
    this.t = t ?? this.t + 1;
    return { ...event, runId: this.runId, seq: this.seq, t: this.t } as RunEvent;
  }

  /** `run.started` (seq 1). */
  started(name = this.runId, meta: Record<string, unknown> = {}, source = 'test'): RunEvent {
    return this.next({ type: 'run.started', name, source, meta });
  }
}

/** A unique run id for a test. */
export function runId(label: string): string {
  return `${label}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

/** Poll `probe` every 10 ms until it returns something other than undefined; reject after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** GET a run through the API once it satisfies `predicate`. */
export function runWhen(
  server: { port: number; token: string },
  id: string,
  predicate: (run: Record<string, unknown>) => boolean,
  timeoutMs = 5000,
): Promise<Record<string, unknown>> {
  return eventually(
    async () => {
      const answer = await api(server.port, server.token, 'GET', `/api/runs/${id}`);
      const run = answer.status === 200 ? (answer.json as Record<string, unknown>) : undefined;
      return run !== undefined && predicate(run) ? run : undefined;
    },
    timeoutMs,
    `run ${id}`,
  );
}
