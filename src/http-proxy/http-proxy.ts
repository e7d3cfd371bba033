import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { DebuggerGate } from '../gates/debugger-gate.js';
import { loopAllowList } from '../gates/loop-detector.js';
import { debuggerRefused, holding, traceLine } from '../relay/messages.js';
import type { TextSink } from '../relay/text-sink.js';
import { WAIT_FOR_ATTACH_MS, type HoldingNotice, type HoldWire } from '../relay/frame-holds.js';
import { hideSettings, switchOn } from '../report/hide.js';
import { Reporter } from '../report/reporter.js';
import { idForDisplay, idKey } from '../streams/exact-id.js';
import type { Frame } from '../streams/frame.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../streams/line-framer.js';
import { madeBytes } from '../streams/made-frame.js';
import { accepts, passHeaders, rawHeader, safeUrl } from './headers.js';
import { McpHttpSession } from './http-session.js';
import { SseSplitter, droppedEventBytes, sseEventBytes, type SseEvent } from './sse.js';

/** The prefix of every line the HTTP proxy prints on stderr. */
export const HTTP_PROXY_PREFIX = 'graphmind http-proxy: ';

/** How many ended session ids the proxy remembers. */
const ENDED_IDS_KEPT = 1024;

/** Why a hold is given up when the host closes the HTTP request that carried the call. */
export const CLIENT_CLOSED = 'the client closed its HTTP request';

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
  /** Where diagnostics go. @default undefined (nowhere) */
  stderr?: TextSink;
  /**
   * Which `Host` headers are served (see `loopbackHostCheck`); others get 403.
   * @default undefined (any)
   */
  hostCheck?: (host: string | undefined) => boolean;
}

/** What the proxy keeps of a session for the requests it makes on its own. */
interface SessionState {
  /** The raw headers of the host's latest MCP request in the session (to answer the server as the host would; filtered when used). */
  headers: readonly string[];
  /** The server answered the host's latest request with an SSE stream. */
  sse: boolean;
}

/** The bytes of a frame that goes on: its own, or a made frame's (one line of JSON, without the newline). */
function jsonOf(frame: Frame): Buffer {
  if (frame.made === undefined) return frame.raw;
  const bytes = madeBytes(frame.made);
  return bytes[bytes.length - 1] === 0x0a ? bytes.subarray(0, bytes.length - 1) : bytes;
}

/** What happens to a held frame's bytes: what goes on instead (`undefined`: nothing). */
function outcomeBytes(frames: readonly Frame[], frame: Frame, original: Buffer): Buffer | undefined {
  if (frames.length === 0) return undefined;
  const next = frames[0] as Frame;
  return next === frame ? original : jsonOf(next);
}

/** Does `body` look like an `initialize` request? (Read only for requests without a session id.) */
function isInitialize(body: Buffer): boolean {
  if (body.indexOf('"initialize"') === -1) return false;
  try {
    const message = JSON.parse(body.toString('utf8')) as { method?: unknown };
    return message !== null && typeof message === 'object' && message.method === 'initialize';
  } catch {
    return false;
  }
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
 */
export class HttpProxy {
  /** Where requests go. */
  readonly upstream: URL;
  /** The debugger connection, unless reporting is off. */
  readonly reporter: Reporter | undefined;
  /** The gate every session holds through, unless reporting is off. */
  readonly core: DebuggerGate | undefined;
  readonly #request: typeof httpRequest;
  readonly #agent: HttpAgent;
  /** The request options of the upstream endpoint, worked out once. */
  readonly #endpoint: ReturnType<typeof urlToHttpOptions>;
  readonly #mcpPath: string;
  readonly #shown: string;
  readonly #max: number;
  readonly #stderr: TextSink | undefined;
  readonly #hostCheck: ((host: string | undefined) => boolean) | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #trace: boolean;
  readonly #loopAllow: string[];
  #ready: Promise<unknown> | undefined;
  /** Sessions by `Mcp-Session-Id`. */
  readonly #byId = new Map<string, McpHttpSession>();
  /** Sessions without an id yet (an `initialize` under way) or ever (a stateless server), by client connection. */
  readonly #bySocket = new WeakMap<Socket, McpHttpSession>();
  readonly #watched = new WeakSet<Socket>();
  /** Every session not finished. */
  readonly #live = new Set<McpHttpSession>();
  /** Session ids the server ended (the newest {@link ENDED_IDS_KEPT}): a request still carrying one is relayed, not a new run. */
  readonly #endedIds = new Set<string>();
  readonly #state = new WeakMap<McpHttpSession, SessionState>();
  /** A host request's exchange, for a retry. */
  readonly #exchanges = new WeakMap<Frame, HostExchange>();
  /** The stream a server request came on, for a retry. */
  readonly #streams = new WeakMap<Frame, HostExchange>();
  /** Answers made for host requests held before they were forwarded. */
  readonly #answers = new WeakMap<Frame, Frame>();
  #upstreamDown = false;
  #closed = false;

  constructor(options: HttpProxyOptions) {
    const upstream = new URL(options.upstream);
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`the upstream must be an http: or https: URL, not ${upstream.protocol}`);
    this.upstream = upstream;
    this.#mcpPath = upstream.pathname;
    this.#endpoint = urlToHttpOptions(upstream);
    this.#shown = safeUrl(upstream);
    const https = upstream.protocol === 'https:';
    this.#request = https ? (httpsRequest as unknown as typeof httpRequest) : httpRequest;
    // Certificates are verified as Node verifies them (NODE_EXTRA_CA_CERTS included).
    this.#agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.#max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.#stderr = options.stderr;
    this.#hostCheck = options.hostCheck;
    this.#trace = options.trace ?? false;
    const env = options.env ?? process.env;
    this.#env = env;
    this.#loopAllow = loopAllowList(env);
    if ((options.report ?? true) && !switchOn(env.GRAPHMIND_DISABLED)) {
      const reporter = new Reporter({ port: options.port, url: options.url, dataDir: options.dataDir, env });
      // One reporter serves every session: each run's recorder listens to it.
      reporter.setMaxListeners(0);
      this.reporter = reporter;
      this.core = new DebuggerGate({ reporter });
      // A debugger that turns us away is worth one line: otherwise every session is silently unobserved.
      reporter.once('refused', (status: number) => this.#say(`${debuggerRefused('http-proxy', reporter.url, status)}\n`));
      if (options.waitForAttach === true) this.#ready = this.core.whenArmed(WAIT_FOR_ATTACH_MS).then(() => (this.#ready = undefined));
    }
  }

  /** The sessions being recorded now. */
  get sessions(): readonly McpHttpSession[] {
    return [...this.#live];
  }

  /** The upstream as shown and recorded (no credentials, query or fragment). */
  get shownUpstream(): string {
    return this.#shown;
  }

  /** The `node:http` request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (this.#hostCheck !== undefined && !this.#hostCheck(rawHeader(req.rawHeaders, 'host'))) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`${HTTP_PROXY_PREFIX}this proxy answers only requests addressed to its own loopback address\n`);
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    const mcp = path === this.#mcpPath && this.core !== undefined && (req.method === 'POST' || req.method === 'GET' || req.method === 'DELETE');
    if (!mcp) {
      new HostExchange(this, req, res, undefined, undefined, undefined).relayBody();
      return;
    }
    const ready = this.#ready;
    if (ready !== undefined) {
      void ready.then(() => this.#mcp(req, res));
      return;
    }
    this.#mcp(req, res);
  };

  #mcp(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') {
      const session = this.#sessionOf(req, undefined);
      if (session !== undefined) this.#remember(session, req);
      new HostExchange(this, req, res, session, undefined, undefined).send();
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
      new HostExchange(this, req, res, undefined, undefined, undefined).relayBody(prefix);
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
    const session = this.#sessionOf(req, body);
    if (session === undefined) {
      new HostExchange(this, req, res, undefined, body, undefined).send();
      return;
    }
    this.#remember(session, req);
    const frame = session.frame(body, 'client-to-server', at);
    const pending = session.check(frame);
    if (pending === undefined) {
      this.#forward(req, res, session, frame, body);
      return;
    }
    const onClose = (): void => {
      if (!res.writableFinished) session.holds.giveUpCall(frame, CLIENT_CLOSED);
    };
    res.on('close', onClose);
    void pending.then((frames) => {
      res.off('close', onClose);
      const out = outcomeBytes(frames, frame, body);
      if (out !== undefined) {
        this.#forward(req, res, session, frame, out);
        return;
      }
      const answer = this.#answers.get(frame);
      if (answer !== undefined) {
        this.#answers.delete(frame);
        this.#answerHost(req, res, session, jsonOf(answer));
        return;
      }
      // A notification dropped, or an answer dropped for a retry: nothing goes upstream, as the server would accept it.
      if (!res.headersSent) res.writeHead(202).end();
    });
  }

  #forward(req: IncomingMessage, res: ServerResponse, session: McpHttpSession, frame: Frame, body: Buffer): void {
    const exchange = new HostExchange(this, req, res, session, body, frame.type === 'request' ? frame : undefined);
    if (frame.type === 'request') this.#exchanges.set(frame, exchange);
    exchange.send();
  }

  /** Answer a host request here, as the server would have: JSON, or an SSE event when the host takes one and the server answers so. */
  #answerHost(req: IncomingMessage, res: ServerResponse, session: McpHttpSession, json: Buffer): void {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = {};
    if (session.sessionId !== undefined) headers['mcp-session-id'] = session.sessionId;
    if (this.#state.get(session)?.sse === true && accepts(req, 'text/event-stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers }).end(sseEventBytes(json.toString('utf8')));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(json.length), ...headers }).end(json);
  }

  /**
   * The session a request belongs to, or undefined while reporting is off.
   * A POST (`body`) makes one when there is none; a GET or DELETE only
   * finds one.
   */
  #sessionOf(req: IncomingMessage, body: Buffer | undefined): McpHttpSession | undefined {
    if (this.core === undefined || this.#closed) return undefined;
    const id = rawHeader(req.rawHeaders, 'mcp-session-id');
    if (id !== undefined) {
      const known = this.#byId.get(id);
      if (known !== undefined && !known.finished) return known;
      if (req.method === 'DELETE' || this.#endedIds.has(id)) return undefined;
      // A session begun before this proxy started (or ended here): followed from now on.
      const session = this.#newSession(id);
      this.#byId.set(id, session);
      return session;
    }
    const socket = req.socket;
    const current = this.#bySocket.get(socket);
    const initialize = body !== undefined && isInitialize(body);
    if (current !== undefined && !current.finished && !initialize) return current;
    if (body === undefined) return undefined;
    // A new client session on this connection: an earlier stateless one on it ends.
    if (current !== undefined && current.sessionId === undefined) this.#end(current);
    const session = this.#newSession(undefined);
    this.#bySocket.set(socket, session);
    if (!this.#watched.has(socket)) {
      this.#watched.add(socket);
      socket.once('close', () => {
        const last = this.#bySocket.get(socket);
        if (last !== undefined && last.sessionId === undefined) this.#end(last);
      });
    }
    return session;
  }

  #newSession(sessionId: string | undefined): McpHttpSession {
    const session = new McpHttpSession({
      reporter: this.reporter as Reporter,
      core: this.core as DebuggerGate,
      hide: hideSettings(this.#env),
      name: `${this.upstream.host}${this.upstream.pathname}`,
      meta: { transport: 'streamable-http', upstream: this.#shown, proxyPid: process.pid },
      sessionId,
      loopAllow: this.#loopAllow,
      onHolding: (notice) => this.#holding(notice),
      onFrame: this.#trace ? (frame) => this.#say(traceText(frame)) : undefined,
    });
    session.holds.wire = this.#wire(session);
    this.#live.add(session);
    return session;
  }

  /** How a decision answers a sender or sends a request again, over HTTP. */
  #wire(session: McpHttpSession): HoldWire {
    return {
      answerSender: (request, answer) => {
        // Answered here: its receiver never sees it, so no answer will come.
        const key = idKey(request);
        if (key !== undefined) session.correlator.take(answer.direction, key);
        if (request.direction === 'client-to-server') this.#answers.set(request, answer);
        // A server request answered here: the server gets the answer as the host would send it.
        else this.#postToServer(session, jsonOf(answer));
      },
      resend: (request) => {
        const exchange = request.direction === 'client-to-server' ? this.#exchanges.get(request) : this.#streams.get(request);
        if (exchange === undefined || !exchange.open) return false;
        session.correlator.track(request);
        if (request.direction === 'client-to-server') exchange.send();
        else exchange.write(sseEventBytes(request.raw.toString('utf8')));
        return true;
      },
    };
  }

  /** Keep the headers of the host's latest request in `session` (never recorded), to speak for the host. */
  #remember(session: McpHttpSession, req: IncomingMessage): void {
    const state = this.#state.get(session);
    const headers = req.rawHeaders;
    if (state === undefined) this.#state.set(session, { headers, sse: false });
    else state.headers = headers;
  }

  /** POST a message to the server as the host would (an answer to a server request, made in the debugger). */
  #postToServer(session: McpHttpSession, json: Buffer): void {
    const remembered = passHeaders(this.#state.get(session)?.headers ?? []);
    const pairs: string[] = [];
    for (let i = 0; i < remembered.length; i += 2) {
      if (/^(content-type|accept|last-event-id|mcp-session-id)$/i.test(remembered[i] as string)) continue;
      pairs.push(remembered[i] as string, remembered[i + 1] as string);
    }
    if (session.sessionId !== undefined) pairs.push('mcp-session-id', session.sessionId);
    pairs.push('content-type', 'application/json', 'accept', 'application/json, text/event-stream', 'host', this.upstream.host, 'content-length', String(json.length));
    const up = this.upstreamRequest('POST', undefined, pairs);
    up.on('response', (upRes) => upRes.resume());
    up.on('error', (error) => this.upstreamFailed(error));
    up.end(json);
  }

  /** A request to the upstream (keep-alive). `target` undefined: the endpoint itself. @internal */
  upstreamRequest(method: string, target: URL | undefined, headers: string[]): ClientRequest {
    const base = target === undefined ? this.#endpoint : urlToHttpOptions(target);
    return this.#request({ ...base, method, headers: headers as unknown as Record<string, string>, agent: this.#agent });
  }

  /**
   * Where a host request goes: the upstream endpoint (undefined: as given,
   * with its own query, else the host's), or the same path on the
   * upstream's origin.
   * @internal
   */
  targetOf(req: IncomingMessage): URL | undefined {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (path === this.#mcpPath) {
      if (query === -1 || this.upstream.search !== '') return undefined;
      const target = new URL(this.upstream);
      target.search = url.slice(query);
      return target;
    }
    return new URL(url, this.upstream.origin);
  }

  /** The upstream answered: a later failure is news again. @internal */
  upstreamReached(): void {
    this.#upstreamDown = false;
  }

  /** The upstream could not be reached: one line on stderr per outage. @internal */
  upstreamFailed(error: Error): string {
    const line = `${HTTP_PROXY_PREFIX}cannot reach the MCP server at ${this.#shown}: ${error.message}`;
    if (!this.#upstreamDown) {
      this.#upstreamDown = true;
      this.#say(`${line}\n`);
    }
    return line;
  }

  /** The server gave `session` its id (in the answer to `initialize`). @internal */
  learnSessionId(session: McpHttpSession, id: string, socket: Socket): void {
    if (session.sessionId !== undefined || session.finished) return;
    session.sessionId = id;
    this.#byId.set(id, session);
    if (this.#bySocket.get(socket) === session) this.#bySocket.delete(socket);
  }

  /** The server ended `session` (a DELETE answered, or a 404 for its id). @internal */
  endSession(session: McpHttpSession): void {
    this.#end(session);
  }

  /** The server answered the host's latest request in `session` with an SSE stream (true) or JSON. @internal */
  noteAnswerType(session: McpHttpSession, sse: boolean): void {
    const state = this.#state.get(session);
    if (state !== undefined) state.sse = sse;
  }

  /** Where a server request came from, for a retry. @internal */
  noteStream(request: Frame, exchange: HostExchange): void {
    this.#streams.set(request, exchange);
  }

  /** The largest body or event parsed. @internal */
  get maxFrameBytes(): number {
    return this.#max;
  }

  #end(session: McpHttpSession): void {
    if (session.finished) return;
    session.finish();
    this.#live.delete(session);
    const id = session.sessionId;
    if (id === undefined) return;
    if (this.#byId.get(id) === session) this.#byId.delete(id);
    // A client that goes on with an ended session's id (until it sees the 404) starts no new run.
    this.#endedIds.add(id);
    if (this.#endedIds.size > ENDED_IDS_KEPT) this.#endedIds.delete(this.#endedIds.values().next().value as string);
  }

  #holding(notice: HoldingNotice): void {
    const { hold, method, call, url } = notice;
    this.#say(`${holding('http-proxy', method, idForDisplay(call), hold.point, url, hold.reason === 'loop' ? (call.node?.label ?? '') : undefined)}\n`);
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
    for (const session of [...this.#live]) this.#end(session);
    this.core?.stop();
    const reporter = this.reporter;
    if (reporter !== undefined) {
      try {
        if (reporter.attached) await reporter.flush(flushMs);
      } finally {
        reporter.close();
      }
    }
    this.#agent.destroy();
  }
}

/** One `--trace` line for a frame, under this command's name. */
function traceText(frame: Frame): string {
  return traceLine('http-proxy', frame);
}

/**
 * One host request and what answers it: the request sent upstream (again,
 * on a retry), and the upstream's answer relayed back — a JSON body gated
 * whole, an SSE stream event by event (a held event stops that stream),
 * anything else as it comes.
 */
class HostExchange {
  readonly #proxy: HttpProxy;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #session: McpHttpSession | undefined;
  readonly #body: Buffer | undefined;
  /** The host's request in the body, when it is one (its answer may be retried). */
  readonly #call: Frame | undefined;
  /** Upstream requests whose answers are not all relayed yet. */
  #inflight = 0;
  /** The host's answer is an SSE stream we opened. */
  #sse = false;
  readonly #upstream = new Set<ClientRequest>();
  /** The host went away and its upstream requests were ended here: their errors are ours, not the server's. */
  #abandoned = false;
  /** The headers sent upstream (worked out once; a retry sends them again). */
  #headers: string[] | undefined;

  constructor(proxy: HttpProxy, req: IncomingMessage, res: ServerResponse, session: McpHttpSession | undefined, body: Buffer | undefined, call: Frame | undefined) {
    this.#proxy = proxy;
    this.#req = req;
    this.#res = res;
    this.#session = session;
    this.#body = body;
    this.#call = call;
    res.once('close', () => {
      if (res.writableFinished) return;
      // The host went away: nothing more is asked of the server for it.
      this.#abandoned = true;
      for (const up of this.#upstream) up.destroy();
      this.#upstream.clear();
      if (call !== undefined) session?.holds.giveUpCall(call, CLIENT_CLOSED);
    });
  }

  /** The host still waits for (more of) this answer. */
  get open(): boolean {
    return !this.#res.writableEnded && !this.#res.destroyed;
  }

  /** Relay a request whose body is not read here (not MCP, or too large): piped as it comes, after `prefix`. */
  relayBody(prefix?: Buffer): void {
    const req = this.#req;
    const headers = passHeaders(req.rawHeaders, true);
    headers.push('host', this.#proxy.upstream.host);
    const up = this.#start(req.method ?? 'GET', headers);
    if (prefix !== undefined) up.write(prefix);
    req.pipe(up);
    req.resume();
  }

  /** Send the host's request upstream (again, for a retry). */
  send(): void {
    const req = this.#req;
    const body = this.#body;
    let headers = this.#headers;
    if (headers === undefined) {
      headers = passHeaders(req.rawHeaders);
      headers.push('host', this.#proxy.upstream.host);
      if (body !== undefined) headers.push('content-length', String(body.length));
      this.#headers = headers;
    }
    const up = this.#start(req.method ?? 'GET', headers);
    up.end(body);
  }

  #start(method: string, headers: string[]): ClientRequest {
    const proxy = this.#proxy;
    const up = proxy.upstreamRequest(method, proxy.targetOf(this.#req), headers);
    this.#inflight++;
    this.#upstream.add(up);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      this.#upstream.delete(up);
      this.#inflight--;
      this.#settle();
    };
    up.on('response', (upRes) => {
      proxy.upstreamReached();
      upRes.on('error', finish);
      upRes.on('aborted', finish);
      this.#response(upRes, finish);
    });
    up.on('error', (error) => {
      if (done) return;
      if (this.#abandoned) return finish();
      const line = proxy.upstreamFailed(error);
      const res = this.#res;
      if (!res.headersSent && !res.destroyed) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(`${line}\n`);
      finish();
    });
    return up;
  }

  /** Nothing more will come: end an SSE answer we opened. */
  #settle(): void {
    if (this.#inflight === 0 && this.#sse && this.open) this.#res.end();
  }

  /** Write to the host, pausing `source` while the host's side is full. */
  write(bytes: Buffer, source?: IncomingMessage): void {
    if (!this.open) return;
    if (!this.#res.write(bytes) && source !== undefined) {
      source.pause();
      this.#res.once('drain', () => source.resume());
    }
  }

  #response(upRes: IncomingMessage, finish: () => void): void {
    const proxy = this.#proxy;
    const session = this.#session;
    const status = upRes.statusCode ?? 502;
    if (session !== undefined) {
      const id = rawHeader(upRes.rawHeaders, 'mcp-session-id');
      if (id !== undefined) proxy.learnSessionId(session, id, this.#req.socket);
      const method = this.#req.method;
      if ((method === 'DELETE' && status >= 200 && status < 300) || (status === 404 && rawHeader(this.#req.rawHeaders, 'mcp-session-id') !== undefined)) {
        upRes.once('end', () => proxy.endSession(session));
      }
    }
    const type = (rawHeader(upRes.rawHeaders, 'content-type') ?? '').toLowerCase();
    if (session !== undefined && !session.finished && type.startsWith('text/event-stream')) {
      if (this.#call !== undefined) proxy.noteAnswerType(session, true);
      this.#stream(upRes, finish);
      return;
    }
    if (session !== undefined && !session.finished && type.startsWith('application/json')) {
      if (this.#call !== undefined) proxy.noteAnswerType(session, false);
      this.#json(upRes, finish);
      return;
    }
    this.#plain(upRes, finish);
  }

  #plain(upRes: IncomingMessage, finish: () => void): void {
    const res = this.#res;
    if (res.headersSent) {
      // A retry's answer to an SSE stream that came as something else: nothing to add.
      upRes.resume();
      upRes.once('end', finish);
      return;
    }
    res.writeHead(upRes.statusCode ?? 502, passHeaders(upRes.rawHeaders, true));
    upRes.on('data', (chunk: Buffer) => this.write(chunk, upRes));
    upRes.once('end', () => {
      if (!this.#sse && this.open) res.end();
      finish();
    });
  }

  #json(upRes: IncomingMessage, finish: () => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    const max = this.#proxy.maxFrameBytes;
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= max || this.#sse) return;
      // Too large to parse: relayed as it comes, unread.
      upRes.off('data', onData);
      upRes.off('end', onEnd);
      const res = this.#res;
      res.writeHead(upRes.statusCode ?? 502, passHeaders(upRes.rawHeaders, true));
      this.write(Buffer.concat(chunks), upRes);
      upRes.on('data', (more: Buffer) => this.write(more, upRes));
      upRes.once('end', () => {
        if (this.open) res.end();
        finish();
      });
    };
    const onEnd = (): void => {
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      const session = this.#session as McpHttpSession;
      const frame = session.frame(body, 'server-to-client');
      const pending = session.check(frame);
      if (pending === undefined) {
        this.#jsonOut(upRes, body, finish);
        return;
      }
      void pending.then((frames) => this.#jsonOut(upRes, outcomeBytes(frames, frame, body), finish));
    };
    upRes.on('data', onData);
    upRes.once('end', onEnd);
  }

  /** A JSON answer decided: `out` goes to the host (nothing: a retry answers instead). */
  #jsonOut(upRes: IncomingMessage, out: Buffer | undefined, finish: () => void): void {
    const res = this.#res;
    if (out !== undefined && this.open) {
      if (this.#sse) {
        // A retry's answer on the SSE stream the first answer opened.
        this.write(sseEventBytes(out.toString('utf8')));
      } else {
        const headers = passHeaders(upRes.rawHeaders);
        headers.push('content-length', String(out.length));
        res.writeHead(upRes.statusCode ?? 200, headers).end(out);
      }
    }
    finish();
  }

  #stream(upRes: IncomingMessage, finish: () => void): void {
    const res = this.#res;
    if (!this.#sse) {
      if (res.headersSent) {
        upRes.resume();
        upRes.once('end', finish);
        return;
      }
      this.#sse = true;
      res.writeHead(upRes.statusCode ?? 200, passHeaders(upRes.rawHeaders));
      res.flushHeaders();
    }
    const splitter = new SseSplitter();
    const backlog: SseEvent[] = [];
    let busy = false;
    let ended = false;
    const run = (): void => {
      busy = true;
      while (backlog.length > 0) {
        const event = backlog.shift() as SseEvent;
        const pending = this.#event(event, upRes);
        if (pending !== undefined) {
          // Held: this stream stops until the decision.
          upRes.pause();
          void pending.then(() => {
            if (!ended) upRes.resume();
            run();
          });
          return;
        }
      }
      busy = false;
      if (ended) finish();
    };
    upRes.on('data', (chunk: Buffer) => {
      for (const event of splitter.push(chunk)) backlog.push(event);
      if (!busy) run();
    });
    upRes.once('end', () => {
      ended = true;
      const rest = splitter.rest();
      if (rest !== undefined) backlog.push({ raw: rest, data: undefined, id: undefined, event: undefined, head: '' });
      if (!busy) run();
    });
  }

  /** One SSE event: relayed, or held (the promise settles once what replaces it is written). */
  #event(event: SseEvent, upRes: IncomingMessage): Promise<void> | undefined {
    const session = this.#session as McpHttpSession;
    const data = event.data;
    if (data === undefined || data === '' || session.finished || event.raw.length > this.#proxy.maxFrameBytes) {
      this.write(event.raw, upRes);
      return undefined;
    }
    const frame = session.frame(Buffer.from(data, 'utf8'), 'server-to-client');
    if (frame.type === 'request') this.#proxy.noteStream(frame, this);
    const pending = session.check(frame);
    if (pending === undefined) {
      this.write(event.raw, upRes);
      return undefined;
    }
    return pending.then((frames) => {
      if (frames.length === 0) {
        const stub = droppedEventBytes(event);
        if (stub !== undefined) this.write(stub);
        return;
      }
      for (const next of frames) this.write(next === frame ? event.raw : sseEventBytes(jsonOf(next).toString('utf8'), event));
    });
  }
}
