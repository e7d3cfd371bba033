import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Frame } from '../streams/frame.js';
import { eventIsMessage, eventOutcomeBytes, outcomeBytes } from './frame-bytes.js';
import { passHeaders, rawHeader } from './headers.js';
import type { ExchangeHandle, FrameRoutes } from './hold-wire.js';
import type { McpHttpSession } from './http-session.js';
import { answerKind } from './routing.js';
import { endsSession } from './session-rules.js';
import type { SessionTable } from './session-table.js';
import { SseSplitter, sseEventBytes, type SseEvent } from './sse.js';
import { CLIENT_CLOSED } from './texts.js';
import type { UpstreamClient } from './upstream.js';

/** What every exchange of one proxy shares (made once per proxy). */
export interface ExchangeContext {
  /** The MCP server. */
  upstream: UpstreamClient;
  /** The proxy's sessions: an answer names or ends one. */
  sessions: SessionTable;
  /** Where frames travelled, for a retry. */
  routes: FrameRoutes;
  /** The largest body or SSE event parsed. */
  maxFrameBytes: number;
}

/**
 * One host request and what answers it: the request sent upstream (again,
 * on a retry), and the upstream's answer relayed back — a JSON body gated
 * whole, an SSE stream event by event (a held event stops that stream),
 * anything else as it comes.
 */
export class HostExchange implements ExchangeHandle {
  readonly #context: ExchangeContext;
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

  constructor(context: ExchangeContext, req: IncomingMessage, res: ServerResponse, session: McpHttpSession | undefined, body: Buffer | undefined, call: Frame | undefined) {
    this.#context = context;
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
    headers.push('host', this.#context.upstream.host);
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
      headers.push('host', this.#context.upstream.host);
      if (body !== undefined) headers.push('content-length', String(body.length));
      this.#headers = headers;
    }
    const up = this.#start(req.method ?? 'GET', headers);
    up.end(body);
  }

  #start(method: string, headers: string[]): ClientRequest {
    const upstream = this.#context.upstream;
    const up = upstream.request(method, upstream.targetOf(this.#req), headers);
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
      upstream.reached();
      upRes.on('error', finish);
      upRes.on('aborted', finish);
      this.#response(upRes, finish);
    });
    up.on('error', (error) => {
      if (done) return;
      if (this.#abandoned) return finish();
      const line = upstream.failed(error);
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
    const session = this.#session;
    if (session !== undefined) {
      const sessions = this.#context.sessions;
      const id = rawHeader(upRes.rawHeaders, 'mcp-session-id');
      if (id !== undefined) sessions.learnId(session, id, this.#req.socket);
      if (endsSession(this.#req.method, this.#req.rawHeaders, upRes.statusCode ?? 502)) {
        upRes.once('end', () => sessions.end(session));
      }
    }
    const kind = answerKind(rawHeader(upRes.rawHeaders, 'content-type'), session !== undefined && !session.finished);
    if (kind === 'plain') {
      this.#plain(upRes, finish);
      return;
    }
    if (this.#call !== undefined) this.#context.sessions.noteAnswerType(session as McpHttpSession, kind === 'sse');
    if (kind === 'sse') this.#stream(upRes, finish);
    else this.#json(upRes, finish);
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
    const max = this.#context.maxFrameBytes;
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
    if (session.finished || !eventIsMessage(event, this.#context.maxFrameBytes)) {
      this.write(event.raw, upRes);
      return undefined;
    }
    const frame = session.frame(Buffer.from(event.data as string, 'utf8'), 'server-to-client');
    if (frame.type === 'request') this.#context.routes.streams.set(frame, this);
    const pending = session.check(frame);
    if (pending === undefined) {
      this.write(event.raw, upRes);
      return undefined;
    }
    return pending.then((frames) => {
      for (const bytes of eventOutcomeBytes(frames, frame, event)) this.write(bytes);
    });
  }
}
