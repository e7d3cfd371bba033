import type { IncomingMessage, ServerResponse } from 'node:http';
import { DebuggerGate } from '../gates/debugger-gate.js';
import { loopAllowList } from '../gates/loop-detector.js';
import { debuggerImpostor, debuggerRefused, holding, noViewer, traceLine } from '../relay/messages.js';
import type { TextSink } from '../relay/text-sink.js';
import { WAIT_FOR_ATTACH_MS, type HoldingNotice } from '../relay/frame-holds.js';
import { hideSettings, switchOn } from '../report/hide.js';
import { Reporter } from '../report/reporter.js';
import type { SendMessage } from '../report/server-message.js';
import { idForDisplay } from '../streams/exact-id.js';
import type { Frame } from '../streams/frame.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../streams/line-framer.js';
import { outcomeBytes } from './frame-bytes.js';
import { rawHeader } from './headers.js';
import { FrameRoutes, HttpHoldWire } from './hold-wire.js';
import { HostExchange, type ExchangeContext } from './host-exchange.js';
import { McpHttpSession } from './http-session.js';
import { routeOf } from './routing.js';
import { DEFAULT_SESSION_IDLE_MS, IdleSessions } from './idle-sessions.js';
import { HttpSendAgain } from './send-again.js';
import { SessionTable } from './session-table.js';
import { CLIENT_CLOSED, HTTP_PROXY_PREFIX } from './texts.js';
import { UpstreamClient } from './upstream.js';

export { CLIENT_CLOSED, HTTP_PROXY_PREFIX } from './texts.js';

/** Options for {@link HttpProxy}. */
export interface HttpProxyOptions {
  /** The MCP server's Streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp` (http or https). */
  upstream: string | URL;
  /**
   * Report sessions to `graphmind serve` and let it hold them. Off, or with
   * `GRAPHMIND_DISABLED` set, the proxy is a plain reverse proxy.
   * @default true
   */
  report?: boolean;
  /** Port of `graphmind serve`. @default 4747 */
  port?: number;
  /** The debugger's ingest URL; wins over `port`. @default GRAPHMIND_URL */
  url?: string;
  /** The debugger's data directory, where its token is. @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
  /** Where `GRAPHMIND_*` switches are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Let the first requests wait (up to 3 s after the start) until the debugger attaches. @default false */
  waitForAttach?: boolean;
  /** The largest body or SSE event parsed; a larger one is relayed unread. @default 67108864 (64 MiB) */
  maxFrameBytes?: number;
  /** One line per JSON-RPC message on `stderr`. @default false */
  trace?: boolean;
  /**
   * A session's run ends once none of its requests has been under way for
   * this long (its client left without a DELETE); 0: never. @default 300000
   */
  sessionIdleMs?: number;
  /** Where diagnostics go. @default undefined (nowhere) */
  stderr?: TextSink;
  /**
   * Which `Host` headers are served (see `loopbackHostCheck`); others get 403.
   * @default undefined (any)
   */
  hostCheck?: (host: string | undefined) => boolean;
}

/**
 * A reverse proxy for a Streamable HTTP MCP server that reports each MCP
 * session to `graphmind serve` as a run and holds its messages at the
 * debugger's breakpoints, like `graphmind mcp-proxy` does on stdio.
 * {@link HttpProxy.handle} is a `node:http` request listener.
 *
 * Bodies and SSE events are relayed byte for byte; parsed copies become
 * frames of the session ({@link McpHttpSession}). A session is the server's
 * `Mcp-Session-Id`; a server that gives none (stateless) is followed per
 * client connection, a new run at each `initialize`.
 *
 * The parts: `routing` (where a request goes), `SessionTable` and
 * `session-rules` (which session it belongs to), `HostExchange` (one
 * request and its answer: plain, JSON or SSE), `UpstreamClient` (the
 * server), `HttpHoldWire` and `answer-here` (what a decision asks of HTTP).
 */
export class HttpProxy {
  /** Where requests go. */
  readonly upstream: URL;
  /** The debugger connection, unless reporting is off. */
  readonly reporter: Reporter | undefined;
  /** The gate every session holds through, unless reporting is off. */
  readonly core: DebuggerGate | undefined;
  readonly #client: UpstreamClient;
  readonly #sessions: SessionTable;
  readonly #idle: IdleSessions;
  readonly #routes = new FrameRoutes();
  /** What every exchange shares. */
  readonly #context: ExchangeContext;
  readonly #max: number;
  readonly #stderr: TextSink | undefined;
  readonly #hostCheck: ((host: string | undefined) => boolean) | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #trace: boolean;
  readonly #loopAllow: string[];
  #ready: Promise<unknown> | undefined;
  #closed = false;

  constructor(options: HttpProxyOptions) {
    const client = new UpstreamClient(new URL(options.upstream), (text) => this.#say(text));
    this.#client = client;
    this.upstream = client.url;
    this.#max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.#stderr = options.stderr;
    this.#hostCheck = options.hostCheck;
    this.#trace = options.trace ?? false;
    const env = options.env ?? process.env;
    this.#env = env;
    this.#loopAllow = loopAllowList(env);
    this.#sessions = new SessionTable((sessionId) => this.#newSession(sessionId));
    const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.#idle = new IdleSessions(idleMs, (session) => this.#sessions.endIdle(session, idleMs));
    this.#context = { upstream: client, sessions: this.#sessions, routes: this.#routes, maxFrameBytes: this.#max };
    if ((options.report ?? true) && !switchOn(env.GRAPHMIND_DISABLED)) {
      const reporter = new Reporter({ port: options.port, url: options.url, dataDir: options.dataDir, env });
      // One reporter serves every session: each run's recorder listens to it.
      reporter.setMaxListeners(0);
      this.reporter = reporter;
      this.core = new DebuggerGate({ reporter });
      // A debugger that turns us away is worth one line: otherwise every session is silently unobserved.
      reporter.once('refused', (status: number) => this.#say(`${debuggerRefused('http-proxy', reporter.url, status)}\n`));
      reporter.once('impostor', (port: number) => this.#say(`${debuggerImpostor('http-proxy', port)}\n`));
      // Send again: the debugger's own request, sent in the session of its run, its answer kept from the host.
      const sendAgain = new HttpSendAgain({ sessions: this.#sessions, upstream: client, maxFrameBytes: this.#max });
      reporter.on('send', (send: SendMessage) => sendAgain.send(send));
      if (options.waitForAttach === true) this.#ready = this.core.whenArmed(WAIT_FOR_ATTACH_MS).then(() => (this.#ready = undefined));
    }
  }

  /** The sessions being recorded now. */
  get sessions(): readonly McpHttpSession[] {
    return this.#sessions.live;
  }

  /** The upstream as shown and recorded (no credentials, query or fragment). */
  get shownUpstream(): string {
    return this.#client.shown;
  }

  /** The `node:http` request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (this.#hostCheck !== undefined && !this.#hostCheck(rawHeader(req.rawHeaders, 'host'))) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`${HTTP_PROXY_PREFIX}this proxy answers only requests addressed to its own loopback address\n`);
      return;
    }
    const route = routeOf(req.method, req.url, this.#client.mcpPath, this.core !== undefined);
    if (route === 'relay') {
      new HostExchange(this.#context, req, res, undefined, undefined, undefined).relayBody();
      return;
    }
    const ready = this.#ready;
    if (ready !== undefined) {
      void ready.then(() => this.#mcp(req, res));
      return;
    }
    this.#mcp(req, res);
  };

  /** An MCP request: a GET or DELETE sent in its session; a POST's body read whole (unless too large to parse). */
  #mcp(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') {
      const session = this.#sessions.sessionOf(req, undefined);
      if (session !== undefined) {
        this.#sessions.remember(session, req);
        this.#idle.busy(session, res);
      }
      new HostExchange(this.#context, req, res, session, undefined, undefined).send();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let relayed = false;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= this.#max) return;
      // Too large to parse: relayed as it comes, unread.
      relayed = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.pause();
      const prefix = Buffer.concat(chunks);
      new HostExchange(this.#context, req, res, undefined, undefined, undefined).relayBody(prefix);
    };
    const onEnd = (): void => {
      if (!relayed) this.#post(req, res, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => {});
  }

  /** A host POST whose body is complete: classify, record, gate, forward. */
  #post(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const at = Date.now();
    const sessions = this.#sessions;
    const session = sessions.sessionOf(req, body);
    if (session === undefined) {
      new HostExchange(this.#context, req, res, undefined, body, undefined).send();
      return;
    }
    sessions.remember(session, req);
    this.#idle.busy(session, res);
    const frame = session.frame(body, 'client-to-server', at);
    const pending = session.check(frame);
    if (pending === undefined) {
      this.#forward(req, res, session, frame, body);
      return;
    }
    // Held before it was forwarded: a decision may answer it here (see answer-here).
    if (frame.type === 'request') this.#routes.waiting.set(frame, { req, res });
    const onClose = (): void => {
      if (!res.writableFinished) session.holds.giveUpCall(frame, CLIENT_CLOSED);
    };
    res.on('close', onClose);
    void pending.then((frames) => {
      res.off('close', onClose);
      this.#routes.waiting.delete(frame);
      const out = outcomeBytes(frames, frame, body);
      if (out !== undefined) {
        this.#forward(req, res, session, frame, out);
        return;
      }
      // Answered here already, or a notification dropped, or an answer dropped for a retry:
      // nothing goes upstream, as the server would accept it.
      if (!res.headersSent && !res.destroyed) res.writeHead(202).end();
    });
  }

  #forward(req: IncomingMessage, res: ServerResponse, session: McpHttpSession, frame: Frame, body: Buffer): void {
    const exchange = new HostExchange(this.#context, req, res, session, body, frame.type === 'request' ? frame : undefined);
    if (frame.type === 'request') this.#routes.exchanges.set(frame, exchange);
    exchange.send();
  }

  #newSession(sessionId: string | undefined): McpHttpSession {
    const upstream = this.upstream;
    const session = new McpHttpSession({
      reporter: this.reporter as Reporter,
      core: this.core as DebuggerGate,
      hide: hideSettings(this.#env),
      name: `${upstream.host}${upstream.pathname}`,
      meta: { transport: 'streamable-http', upstream: this.#client.shown, proxyPid: process.pid },
      sessionId,
      loopAllow: this.#loopAllow,
      onHolding: (notice) => this.#holding(notice),
      onUnwatched: (notice) => this.#say(`${noViewer('http-proxy', notice)}\n`),
      onFrame: this.#trace ? (frame) => this.#say(traceText(frame)) : undefined,
    });
    session.holds.wire = new HttpHoldWire(session, this.#routes, this.#sessions, this.#client);
    return session;
  }

  #holding(notice: HoldingNotice): void {
    const { hold, method, call, url } = notice;
    this.#say(`${holding('http-proxy', method, idForDisplay(call), hold.point, url, hold.reason === 'loop' ? (call.node?.label ?? '') : undefined, hold.ruleId)}\n`);
  }

  #say(text: string): void {
    try {
      this.#stderr?.write(text);
    } catch {
      // Diagnostics are best-effort.
    }
  }

  /**
   * Stop: every session's run ends (its holds go on), and the debugger is
   * given up to `flushMs` to take the last events.
   */
  async close(flushMs = 2000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#idle.clear();
    this.#sessions.close();
    this.core?.stop();
    const reporter = this.reporter;
    if (reporter !== undefined) {
      try {
        if (reporter.attached) await reporter.flush(flushMs);
      } finally {
        reporter.close();
      }
    }
    this.#client.close();
  }
}

/** One `--trace` line for a frame, under this command's name. */
function traceText(frame: Frame): string {
  return traceLine('http-proxy', frame);
}
