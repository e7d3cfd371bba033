/**
 * The reporter's connection to `graphmind serve`: a plain TCP probe of the
 * debugger's port, then (only when something answers) the identity check
 * (the listener proves it holds our token before it is sent: see
 * `prove-debugger.ts`), then the WebSocket client and the handshake, and
 * reconnects on the {@link Backoff} schedule. It never throws and never
 * keeps the host process alive; what arrives and what happens to the
 * connection go to its {@link LinkHandlers}.
 *
 * @module
 */
import { connect as netConnect, type Socket } from 'node:net';
// Only the type: `ws` (and with it http, https, tls, zlib) is loaded once
// something answers on the debugger's port, not by every proxy that starts
// with no debugger running.
import type WebSocket from 'ws';
import { Backoff } from './backoff.js';
import { readToken } from './config.js';
import { LOOPBACK_HOSTS, urlHost, type IngestTarget } from './ingest-url.js';
import type { DebuggerIdentity } from './prove-debugger.js';

/** How long the plain TCP probe of the debugger's port may take. */
const PROBE_TIMEOUT_MS = 5000;

type WebSocketModule = typeof import('ws');
let wsModule: Promise<WebSocketModule> | undefined;

type ProverModule = typeof import('./prove-debugger.js');
let proverModule: Promise<ProverModule> | undefined;

/** The identity check (and with it `node:http`), imported once something accepts on the port. */
function loadProver(): Promise<ProverModule> {
  proverModule ??= import('./prove-debugger.js');
  return proverModule;
}

/** The `ws` module, imported on first use. */
function loadWebSocket(): Promise<WebSocketModule> {
  wsModule ??= import('ws');
  return wsModule;
}

function zeroMask(mask: Uint8Array): void {
  mask.fill(0);
}

/** What an {@link IngestLink} tells its owner. */
export interface LinkHandlers {
  /** The connection is up (`link.ws` is it). */
  opened(ws: WebSocket): void;
  /** A text message from the server. */
  message(text: string): void;
  /** The connection closed; `wasAttached` if it had been up. A reconnect is scheduled. */
  closed(wasAttached: boolean): void;
  /**
   * Something on the port turned the handshake down with this HTTP status;
   * or, as 401, answered the identity check with a proof for another token
   * (a debugger of another data directory), and was sent nothing.
   */
  refused(status: number): void;
  /** Something on the port could not prove it is the debugger: it was sent neither the token nor anything else. */
  impostor(): void;
}

/** Options for {@link IngestLink}. */
export interface IngestLinkOptions {
  /** The one address to use, when given a URL (else both loopbacks are tried). */
  target: IngestTarget | undefined;
  /** The debugger's port. */
  port: number;
  /** Where the token file is (read again on every attempt). */
  dataDir: string;
  /** Where `GRAPHMIND_TOKEN` is read from. */
  env: NodeJS.ProcessEnv;
  /** The first reconnect delay. */
  reconnectMs: number;
}

/** One reporter's connection, with its attempts and reconnects. */
export class IngestLink {
  readonly #options: IngestLinkOptions;
  readonly #on: LinkHandlers;
  readonly #backoff: Backoff;
  /** The loopback address the debugger was last reached on. */
  #host: string;
  #ws: WebSocket | undefined;
  #probe: Socket | undefined;
  /** A connection attempt is in flight (probe, module load or handshake), or the connection is up. */
  #connecting = false;
  #attached = false;
  #closed = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  /** Aborts an identity check under way when the link closes. */
  readonly #stop = new AbortController();

  constructor(options: IngestLinkOptions, handlers: LinkHandlers) {
    this.#options = options;
    this.#on = handlers;
    this.#backoff = new Backoff(options.reconnectMs);
    this.#host = options.target?.host ?? LOOPBACK_HOSTS[0];
  }

  /** The open connection, if any. */
  get ws(): WebSocket | undefined {
    return this.#ws;
  }

  /** True while the connection is up. */
  get attached(): boolean {
    return this.#attached;
  }

  /** An attempt is under way, or the connection is up. */
  get connecting(): boolean {
    return this.#connecting;
  }

  /** Closed for good. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The address the debugger was last reached on (127.0.0.1 before it ever was). */
  get host(): string {
    return this.#host;
  }

  /**
   * One connection attempt. A plain TCP connection to the port first:
   * nothing listening (the usual case when no debugger runs) fails at once
   * and costs no HTTP or WebSocket client. When something accepts, the
   * probe is closed, the listener proves it holds our token, and only then
   * does the real handshake follow.
   */
  connect(): void {
    if (this.#closed) return;
    this.#connecting = true;
    const target = this.#options.target;
    if (target !== undefined) {
      this.#probeHost(target.host, undefined);
      return;
    }
    // The address that answered last goes first; the other loopback second.
    this.#probeHost(this.#host, this.#host === LOOPBACK_HOSTS[0] ? LOOPBACK_HOSTS[1] : LOOPBACK_HOSTS[0]);
  }

  /**
   * Somebody waits for a debugger for the next `ms`: until then attempts
   * come at least every 250 ms, and one is made now if none is under way.
   */
  hurry(ms: number): void {
    this.#backoff.hurry(Date.now(), ms);
    if (this.#attached || this.#connecting || this.#closed) return;
    clearTimeout(this.#reconnectTimer);
    this.connect();
  }

  /** Stop for good: no more attempts, and the connection closed. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    this.#probe?.destroy();
    this.#stop.abort();
    try {
      this.#ws?.close();
    } catch {
      // already gone
    }
  }

  /**
   * Probe `host`; if nothing accepts there, or what does is not our
   * debugger, `next` (when given), else give up this attempt. `met` is
   * what an address tried before in this attempt met.
   */
  #probeHost(host: string, next: string | undefined, met?: DebuggerIdentity): void {
    if (this.#closed) {
      this.#connecting = false;
      return;
    }
    let probe: Socket;
    try {
      probe = netConnect({ host, port: this.#options.port });
    } catch {
      this.#probeFailed(next, met);
      return;
    }
    this.#probe = probe;
    // Never keep the host process alive for the sake of reporting.
    probe.unref();
    let settled = false;
    const failed = (): void => {
      if (settled) return;
      settled = true;
      this.#probe = undefined;
      probe.destroy();
      this.#probeFailed(next, met);
    };
    probe.on('error', failed);
    probe.on('close', failed);
    probe.setTimeout(PROBE_TIMEOUT_MS, failed);
    probe.once('connect', () => {
      if (settled) return;
      settled = true;
      this.#probe = undefined;
      probe.destroy();
      void this.#identify(host, next);
    });
  }

  /** Nothing accepted on the last address tried: the next one, else this attempt is over (saying what met it first, if anything did). */
  #probeFailed(next: string | undefined, met?: DebuggerIdentity): void {
    if (next !== undefined) return this.#probeHost(next, undefined, met);
    if (met === 'impostor') this.#on.impostor();
    else if (met === 'other-token') this.#on.refused(401);
    this.#attemptFailed();
  }

  /**
   * Something accepts on `host`: it must prove it holds our token before
   * the handshake sends it (and then the session) there. One check per
   * connection attempt, never per message.
   */
  async #identify(host: string, next: string | undefined): Promise<void> {
    const { port, dataDir, env } = this.#options;
    const token = readToken(dataDir, env);
    let identity: DebuggerIdentity;
    try {
      const { proveDebugger } = await loadProver();
      identity = await proveDebugger({ host, port, token, timeoutMs: PROBE_TIMEOUT_MS, unref: true, signal: this.#stop.signal });
    } catch {
      proverModule = undefined;
      return this.#attemptFailed();
    }
    if (this.#closed) {
      this.#connecting = false;
      return;
    }
    if (identity === 'proven' && token !== undefined) {
      this.#host = host;
      return this.#handshake(token);
    }
    // Not ours: the other loopback address may hold the debugger.
    this.#probeFailed(next, identity === 'absent' ? undefined : identity);
  }

  #attemptFailed(): void {
    this.#connecting = false;
    this.#scheduleReconnect();
  }

  /** The WebSocket to the host that proved itself, presenting `token` (the one it proved it holds), or undefined if it cannot be made. */
  async #open(token: string): Promise<WebSocket | undefined> {
    let WebSocketClient: WebSocketModule['default'];
    try {
      WebSocketClient = (await loadWebSocket()).default;
    } catch {
      wsModule = undefined;
      this.#attemptFailed();
      return undefined;
    }
    if (this.#closed) {
      this.#connecting = false;
      return undefined;
    }
    const { port, target } = this.#options;
    try {
      return new WebSocketClient(`ws://${urlHost(this.#host)}:${port}${target?.path ?? '/ingest'}`, {
        headers: { authorization: `Bearer ${token}` },
        perMessageDeflate: false,
        maxPayload: 64 * 1024 * 1024,
        handshakeTimeout: 5000,
        // A zero masking key, which ws then skips applying: masking protects
        // intermediaries from payloads a browser script controls, and this
        // connection is a local process talking to loopback with nothing in
        // between. XOR-ing every byte in JavaScript cost ~7% of the proxy's
        // CPU while recording.
        generateMask: zeroMask,
      });
    } catch {
      this.#attemptFailed();
      return undefined;
    }
  }

  async #handshake(token: string): Promise<void> {
    const ws = await this.#open(token);
    if (ws === undefined) return;
    this.#ws = ws;
    ws.on('open', () => {
      // Never keep the host process alive for the sake of reporting.
      (ws as unknown as { _socket?: { unref(): void } })._socket?.unref();
      this.#attached = true;
      this.#backoff.reset();
      this.#on.opened(ws);
    });
    ws.on('message', (data) => this.#on.message(data.toString()));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
      this.#on.refused(res.statusCode ?? 0);
    });
    ws.on('close', () => {
      const wasAttached = this.#attached;
      this.#attached = false;
      this.#ws = undefined;
      this.#on.closed(wasAttached);
      this.#attemptFailed();
    });
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = setTimeout(() => this.connect(), this.#backoff.next(Date.now()));
    this.#reconnectTimer.unref();
  }
}
