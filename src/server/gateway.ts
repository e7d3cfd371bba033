/**
 * Where every request and upgrade enters the server: the target, Host and
 * Origin checks first, then the identity route (which needs no token: it
 * is how a client learns this is the debugger before it sends the token),
 * then the token for the API, the live feed and ingest, then the route: the REST API, the viewer's files, or one of the
 * two WebSockets (`/ingest` for reporters, `/api/live` for viewers).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Controls } from './controls.js';
import { sendError, sendJson, sendMethodNotAllowed } from './http-util.js';
import { ReporterConnection } from './ingest.js';
import type { Handlers } from './listen.js';
import { answerIdentity } from './identity-route.js';
import { handleApi } from './rest-api.js';
import { IDENTITY_PATH } from '../protocol/identity-proof.js';
import { API_CSP, COMMON_HEADERS, needsToken, presentedToken, requestAllowed, tokenMatches } from './security.js';
import { sendAsset, sendIndex } from './viewer-files.js';

/** What the {@link Gateway} routes to. */
export interface GatewayOptions {
  /** The port the server listens on (the Host check wants it). */
  port: number;
  /** The token every API, live feed and ingest request must present. */
  token: string;
  /** The data directory, shown by the viewer. */
  dataDir: string;
  /** Largest WebSocket message from a reporter, bytes. */
  maxIngestPayload: number;
  controls: Controls;
}

/** Refuse an upgrade with an HTTP answer. */
function reject(socket: Duplex, status: 400 | 401 | 403 | 404): void {
  const text = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status];
  // A refused upgrade is an HTTP response too: it carries the same headers as every other.
  const headers = Object.entries({ ...COMMON_HEADERS, 'content-security-policy': API_CSP })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${headers}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** The request's target as a URL; undefined for one that does not parse (`//[`, `//a:99999/`). */
function targetUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return undefined;
  }
}

/** `GET /api/identity?nonce=…`: the proof that this server holds the token (see `answerIdentity`). */
function sendIdentity(req: IncomingMessage, res: ServerResponse, url: URL, token: string, port: number): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(res, 'GET, HEAD');
  const answer = answerIdentity(url.searchParams, token, port);
  sendJson(res, answer.status, answer.body);
}

/** The server's routes (see the module). */
export class Gateway implements Handlers {
  readonly #options: GatewayOptions;
  readonly #ingestServer: WebSocketServer;
  readonly #liveServer: WebSocketServer;

  constructor(options: GatewayOptions) {
    this.#options = options;
    const wsOptions = { noServer: true, perMessageDeflate: false } as const;
    this.#ingestServer = new WebSocketServer({ ...wsOptions, maxPayload: options.maxIngestPayload });
    this.#liveServer = new WebSocketServer({ ...wsOptions, maxPayload: 64 * 1024 });
  }

  /** Drop every reporter's connection (the server is closing). */
  terminateReporters(): void {
    for (const ws of this.#ingestServer.clients) ws.terminate();
  }

  readonly request = (req: IncomingMessage, res: ServerResponse): void => {
    const { port, token, dataDir, controls } = this.#options;
    if (!requestAllowed(req, port)) return sendError(res, 403, 'forbidden');
    const url = targetUrl(req);
    if (url === undefined) return sendError(res, 400, 'bad request');
    const path = url.pathname;
    // Before the token check: a client proves who listens here before it hands the token over (security rule 12).
    if (path === IDENTITY_PATH) return sendIdentity(req, res, url, token, port);
    if (needsToken(path)) {
      // `?token=` is taken only on /ingest, as on a WebSocket URL; the REST API wants the header.
      if (!tokenMatches(presentedToken(req, url, path === '/ingest'), token)) return sendError(res, 401, 'unauthorized');
      // The live feed and /ingest are WebSockets: a plain request (with the token) is told so.
      if (path === '/api/live' || path === '/ingest') return sendError(res, 426, 'upgrade required', { upgrade: 'websocket' });
      handleApi(req, res, path, controls.api).catch(() => {
        if (!res.headersSent) sendError(res, 500, 'internal error');
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(res, 'GET, HEAD');
    if (path === '/' || path === '/index.html') return sendIndex(res, token, port, dataDir);
    return sendAsset(res, path);
  };

  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const { port, token } = this.#options;
    socket.on('error', () => socket.destroy());
    if (!requestAllowed(req, port)) return reject(socket, 403);
    const url = targetUrl(req);
    if (url === undefined) return reject(socket, 400);
    const path = url.pathname;
    // As for a plain request: anything under /api (and /ingest) asks for the token before it is routed.
    if (needsToken(path) && !tokenMatches(presentedToken(req, url, true), token)) return reject(socket, 401);
    const target = path === '/ingest' ? this.#ingestServer : path === '/api/live' ? this.#liveServer : undefined;
    if (target === undefined) return reject(socket, 404);
    target.handleUpgrade(req, socket, head, (ws) => {
      const { controls } = this.#options;
      if (target === this.#ingestServer) {
        new ReporterConnection(ws, controls.ingest, controls.owners);
        return;
      }
      const { store, holds, feed } = controls.api;
      try {
        const { loading } = store;
        const trimmed = controls.trimmed();
        const extra = { ...(loading === undefined ? {} : { loading }), ...(trimmed === undefined ? {} : { trimmed }) };
        feed.add(ws, { type: 'snapshot', runs: store.list(), breakpoints: controls.breakpoints.current, holds: holds.list(), ...extra });
      } catch {
        // A snapshot that cannot be sent (a held frame nested too deep to serialise) costs this viewer, not the server.
        ws.close(1011, 'internal error');
      }
    });
  };
}
