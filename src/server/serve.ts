import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { DEFAULT_PORT, defaultDataDir } from '../report/config.js';
import type { Breakpoints, Hold, HoldAction } from '../protocol/control.js';
import { ObservedRunStore } from './observed-store.js';
import type { OtlpConfig } from '../export/otlp-config.js';
import type { OtlpStream } from '../export/otlp-stream.js';
import type { RunTransfer } from './export-routes.js';
import { withDecision } from '../export/run-facts.js';
import { HoldRegistry } from './holds.js';
import { sendError, sendMethodNotAllowed } from './http-util.js';
import { ReporterConnection } from './ingest.js';
import { LiveFeed } from './live-feed.js';
import { handleApi } from './rest-api.js';
import { API_CSP, COMMON_HEADERS, LOOPBACK_HOSTS, needsToken, presentedToken, requestAllowed, tokenMatches } from './security.js';
import { prepareToken } from './token-file.js';
import { sendAsset, sendIndex } from './viewer-files.js';

/** Options for {@link startServer}. */
export interface ServeOptions {
  /** @default 4747 (0 picks a free port) */
  port?: number;
  /** A loopback address only. @default '127.0.0.1' */
  host?: string;
  /** @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
  /** Arm the error gate for every reporter. @default true */
  pauseOnError?: boolean;
  /** Recorded runs kept. @default 200 */
  maxRuns?: number;
  /** Largest request body, bytes. @default 67108864 (64 MiB) */
  maxBody?: number;
  /** Largest WebSocket message from a reporter, bytes. @default 134217728 (128 MiB) */
  maxIngestPayload?: number;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Reported by `/api/health`. @default '0.0.0' */
  version?: string;
  /**
   * How long a request may take to arrive, headers and body; a client that
   * stalls past it is dropped (Node answers 408 if it can). @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * Stream every run to this OTLP/HTTP receiver as it is recorded (see
   * docs/export.md). OpenTelemetry is loaded only when this is set.
   * @default undefined (no streaming)
   */
  otlp?: OtlpConfig;
  /** Told, in one line, of OTLP exports that fail and spans dropped. @default stderr */
  onOtlpWarning?: (line: string) => void;
}

/** A running debugger server. */
export interface GraphmindServer {
  /** The port it listens on (the one picked, when asked for port 0). */
  readonly port: number;
  /** The loopback address it listens on: `127.0.0.1` or `::1` (no brackets). */
  readonly host: string;
  /** The viewer's URL, e.g. `http://127.0.0.1:4747`. */
  readonly url: string;
  /** The token every API, live feed and ingest request must present. */
  readonly token: string;
  /** Where the token was written, or null when it came from GRAPHMIND_TOKEN. */
  readonly tokenFile: string | null;
  /** The data directory: the token file and the run logs (under `runs/`). */
  readonly dataDir: string;
  /** Lines of run logs that could not be read on load (a torn last line, say). */
  readonly skippedLogLines: number;
  /** Stop: close the live feeds and reporter connections, then the server, then the run store. */
  close(): Promise<void>;
}

/** A problem that stops the server from starting, with a one-line message. */
export class ServeError extends Error {
  constructor(
    message: string,
    /** Why: the port is taken (`EADDRINUSE`), the host is not loopback (`EHOST`), or listening failed otherwise (`ELISTEN`). */
    readonly code: 'EADDRINUSE' | 'EHOST' | 'ELISTEN',
  ) {
    super(message);
    this.name = 'ServeError';
  }
}

function reject(socket: Duplex, status: 400 | 401 | 403 | 404): void {
  const text = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status];
  // A refused upgrade is an HTTP response too: it carries the same headers as every other.
  const headers = Object.entries({ ...COMMON_HEADERS, 'content-security-policy': API_CSP })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${headers}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** How long a request may take to arrive, headers and body (see {@link ServeOptions.requestTimeoutMs}). */
const REQUEST_TIMEOUT_MS = 30_000;

/** The request's target as a URL; undefined for one that does not parse (`//[`, `//a:99999/`). */
function targetUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return undefined;
  }
}

/** Bind `server`; the port it got (for port 0), or a {@link ServeError} with its one line. */
function listenOn(server: Server, port: number, bindHost: string): Promise<number> {
  return new Promise<number>((resolve, rejectListen) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      if (error.code === 'EADDRINUSE') {
        rejectListen(
          new ServeError(
            `port ${port} on ${bindHost} is already in use — is another graphmind running? Stop it, or choose another port with --port`,
            'EADDRINUSE',
          ),
        );
      } else {
        rejectListen(new ServeError(`cannot listen on ${bindHost}:${port}: ${error.message}`, 'ELISTEN'));
      }
    };
    server.once('error', onError);
    server.listen(port, bindHost, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(address !== null && typeof address === 'object' ? address.port : port);
    });
  });
}

/**
 * Start `graphmind serve`: the REST control API, the live feed, the ingest
 * socket for reporters, the viewer, and the run store. Every request and
 * upgrade passes the target, Host and Origin checks before routing, and
 * every API, feed and ingest request needs the token.
 */
export async function startServer(options: ServeOptions = {}): Promise<GraphmindServer> {
  const env = options.env ?? process.env;
  const host = options.host ?? '127.0.0.1';
  const bindHost = host === '[::1]' ? '::1' : host;
  if (!LOOPBACK_HOSTS.includes(bindHost)) {
    throw new ServeError(
      `--host must be a loopback address (127.0.0.1 or ::1), not ${JSON.stringify(host)}; to reach the debugger from another machine, use an SSH tunnel (ssh -L 4747:127.0.0.1:4747 <this machine>)`,
      'EHOST',
    );
  }
  const dataDir = options.dataDir ?? defaultDataDir(env);
  let port = options.port ?? DEFAULT_PORT;
  const version = options.version ?? '0.0.0';
  // Loaded before the bind, and only when asked for: OpenTelemetry is on no other path.
  let otlp: OtlpStream | undefined;
  if (options.otlp !== undefined) {
    const { OtlpStream } = await import('../export/otlp-stream.js');
    otlp = await OtlpStream.start({ config: options.otlp, version, onWarning: options.onOtlpWarning });
  }
  // Bind first. A start that fails (a busy port: another graphmind is
  // running) must leave that server's data directory as it is: its token,
  // which its reporters read again on every reconnect, and its run logs,
  // which loading would trim to --max-runs and mend. Until the setup below
  // has run (synchronously, right after the bind), no request can arrive.
  let onRequest: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => sendError(res, 503, 'starting');
  let onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void = (_req, socket) => socket.destroy();
  // Node would answer a request without Host with its own 400; the Host check answers it (403) instead.
  // A request body has a while to arrive whole (Node's default is five minutes): a client
  // that stalls mid-body does not keep what it sent so far in memory for long.
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server: Server = createServer(
    {
      requireHostHeader: false,
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
      // Node looks for requests past their time only this often.
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, requestTimeout / 4)),
    },
    (req, res) => onRequest(req, res),
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => onUpgrade(req, socket, head));
  server.on('clientError', (_error, socket) => socket.destroy());
  port = await listenOn(server, port, bindHost);

  const feed = new LiveFeed();
  const holds = new HoldRegistry();
  /** A run is gone (deleted through the API, or by retention): frames held for it go on, and the viewers are told. */
  const runGone = (runId: string): void => {
    for (const { holdId, action } of holds.releaseRun(runId)) feed.broadcast({ type: 'hold.released', holdId, action });
    feed.broadcast({ type: 'run.deleted', runId });
  };
  let prepared: { token: string; tokenFile: string | null; store: ObservedRunStore; skippedLines: number };
  try {
    const { token: preparedToken, file } = prepareToken(dataDir, env);
    const runStore = new ObservedRunStore({
      dir: join(dataDir, 'runs'),
      maxRuns: options.maxRuns,
      // A run that retention deletes is gone for the viewers too.
      onRetentionDelete: runGone,
    });
    prepared = { token: preparedToken, tokenFile: file, store: runStore, skippedLines: runStore.load().skippedLines };
  } catch (error) {
    server.close();
    void otlp?.close(0);
    throw error;
  }
  const { token, tokenFile, store, skippedLines } = prepared;
  store.observer = otlp;
  const reporters = new Set<ReporterConnection>();
  const owners = new Map<string, ReporterConnection>();
  let breakpoints: Breakpoints = { pauseOnError: options.pauseOnError ?? true, nodes: {} };
  const maxBody = options.maxBody ?? 64 * 1024 * 1024;

  const wsOptions = { noServer: true, perMessageDeflate: false } as const;
  const ingestServer = new WebSocketServer({ ...wsOptions, maxPayload: options.maxIngestPayload ?? 128 * 1024 * 1024 });
  const liveServer = new WebSocketServer({ ...wsOptions, maxPayload: 64 * 1024 });
  const ingestContext = { store, holds, feed, breakpoints: () => breakpoints };
  const transfer: RunTransfer = {
    async exportRun(runId, format) {
      const state = store.get(runId);
      if (state === undefined) return 'unknown';
      const { exportRunLog } = await import('../export/export-run.js');
      // The log is written a moment after the events are applied: wait for it to have them all (at most a second).
      store.flush();
      const file = join(store.dir, `${runId}.jsonl`);
      for (let tries = 0; ; tries++) {
        const live = state.summary.status === 'running';
        const exported = await exportRunLog(file, runId, format, { version, live });
        const caughtUp = !('problem' in exported) && exported.lastSeq >= state.lastSeq && (live || exported.ended);
        if (caughtUp || tries >= 40) return exported;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async importRun(log) {
      if (store.has(log.runId)) return 'exists';
      if (store.isDeleted(log.runId)) return 'deleted';
      // Someone else's run is not news to the OTLP stream: it is not sent.
      store.muted = true;
      try {
        for (const event of log.events) store.append(event);
        const loaded = store.get(log.runId);
        // A log that does not end with the run's end ends as a stopped server's does: in error, at its last event.
        if (loaded !== undefined && loaded.summary.status === 'running') store.abandon(log.runId, loaded.lastT);
      } finally {
        store.muted = false;
      }
      const state = store.get(log.runId);
      if (state !== undefined) feed.broadcast({ type: 'run.started', run: { ...state.summary } });
      // Retention trims on the next microtask: an import older than every run kept goes at once.
      await new Promise((resolve) => setImmediate(resolve));
      const kept = store.get(log.runId);
      return kept === undefined ? 'trimmed' : { ...kept.summary };
    },
  };
  const apiContext = {
    version,
    transfer,
    otlpStats: () => otlp?.stats(),
    recordDecision(hold: Hold, action: HoldAction, by: string): void {
      const state = store.get(hold.runId);
      if (state === undefined) return;
      // Said in the run (a run.meta of the server's own, outside the reporter's sequence), so that its log tells who decided.
      const meta = withDecision(state.meta, { holdId: hold.holdId, action, by, at: new Date().toISOString() });
      const event = { type: 'run.meta' as const, runId: hold.runId, seq: 0, t: Date.now(), meta };
      if (store.append(event) !== undefined) feed.broadcastEvent(hold.runId, event);
    },
    store,
    holds,
    feed,
    maxBody,
    deleteRun(runId: string): boolean {
      if (!store.delete(runId, true)) return false;
      runGone(runId);
      // A live run's reporter hears of it, and holds nothing more for a run nobody records.
      owners.get(runId)?.send({ type: 'rejected', runId, reason: 'the run was deleted' });
      return true;
    },
    restartRun(runId: string): 'asked' | 'unknown' | 'ended' | 'not-proxy' {
      const state = store.get(runId);
      if (state === undefined) return 'unknown';
      if (state.summary.status !== 'running') return 'ended';
      const owner = owners.get(runId);
      if (state.summary.source !== 'mcp-proxy' || owner === undefined) return 'not-proxy';
      owner.send({ type: 'restart', runId });
      return 'asked';
    },
    getBreakpoints: () => breakpoints,
    setBreakpoints(next: Breakpoints) {
      breakpoints = next;
      for (const reporter of reporters) reporter.send({ type: 'breakpoints', breakpoints });
      feed.broadcast({ type: 'breakpoints', breakpoints });
    },
  };

  onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (!requestAllowed(req, port)) return sendError(res, 403, 'forbidden');
    const url = targetUrl(req);
    if (url === undefined) return sendError(res, 400, 'bad request');
    const path = url.pathname;
    if (needsToken(path)) {
      // `?token=` is taken only on /ingest, as on a WebSocket URL; the REST API wants the header.
      if (!tokenMatches(presentedToken(req, url, path === '/ingest'), token)) return sendError(res, 401, 'unauthorized');
      // The live feed and /ingest are WebSockets: a plain request (with the token) is told so.
      if (path === '/api/live' || path === '/ingest') return sendError(res, 426, 'upgrade required', { upgrade: 'websocket' });
      handleApi(req, res, path, apiContext).catch(() => {
        if (!res.headersSent) sendError(res, 500, 'internal error');
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(res, 'GET, HEAD');
    if (path === '/' || path === '/index.html') return sendIndex(res, token, port, dataDir);
    return sendAsset(res, path);
  };

  onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    if (!requestAllowed(req, port)) return reject(socket, 403);
    const url = targetUrl(req);
    if (url === undefined) return reject(socket, 400);
    const path = url.pathname;
    // As for a plain request: anything under /api (and /ingest) asks for the token before it is routed.
    if (needsToken(path) && !tokenMatches(presentedToken(req, url, true), token)) return reject(socket, 401);
    const target = path === '/ingest' ? ingestServer : path === '/api/live' ? liveServer : undefined;
    if (target === undefined) return reject(socket, 404);
    target.handleUpgrade(req, socket, head, (ws) => {
      if (target === ingestServer) {
        const connection = new ReporterConnection(ws, ingestContext, owners);
        reporters.add(connection);
        ws.on('close', () => reporters.delete(connection));
      } else {
        try {
          feed.add(ws, { type: 'snapshot', runs: store.list(), breakpoints, holds: holds.list() });
        } catch {
          // A snapshot that cannot be sent (a held frame nested too deep to serialise) costs this viewer, not the server.
          ws.close(1011, 'internal error');
        }
      }
    });
  };

  const urlHost = bindHost === '::1' ? '[::1]' : bindHost;

  return {
    port,
    host: bindHost,
    url: `http://${urlHost}:${port}`,
    token,
    tokenFile,
    dataDir,
    skippedLogLines: skippedLines,
    async close() {
      feed.closeAll();
      for (const ws of ingestServer.clients) ws.terminate();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store.close();
      await otlp?.close();
    },
  };
}
