/**
 * Send again, on the HTTP proxy: the debugger asks (a `send` message, after
 * `POST /api/runs/:runId/instances/:instanceId/send`) and the proxy POSTs
 * the request to the server in that session (its `Mcp-Session-Id`, and the
 * host's latest headers: protocol version, credentials), under an id of its
 * own; records it as a new call marked `sentBy`; and reads the answer (a
 * JSON body or an SSE stream) on its own HTTP response, so nothing of it
 * ever reaches the host.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { InstanceError } from '../protocol/instance-outcome.js';
import { SENT_ID_PREFIX, sentRequestLine } from '../relay/sent-call.js';
import type { SendMessage } from '../report/server-message.js';
import { classify } from '../streams/classifier.js';
import { idKey } from '../streams/exact-id.js';
import { newFrame, type Frame } from '../streams/frame.js';
import { serverPostHeaders } from './answer-here.js';
import { eventIsMessage } from './frame-bytes.js';
import { rawHeader } from './headers.js';
import type { McpHttpSession } from './http-session.js';
import { answerKind } from './routing.js';
import type { SessionTable } from './session-table.js';
import { SseSplitter } from './sse.js';
import type { UpstreamClient } from './upstream.js';

/** The stdio proxy's code for a request no server can take (`ServerNotRunning` in docs/errors.md). */
const NOT_RUNNING_CODE = -32097;

/** The error a request of the server on our own answer's stream gets: there is no host to ask. */
const NO_HOST_CODE = -32601;

/** What the HTTP proxy's Send again works with. */
export interface HttpSendAgainOptions {
  /** The proxy's sessions: a `send` goes to the live one of its run. */
  sessions: SessionTable;
  /** The MCP server. */
  upstream: UpstreamClient;
  /** The largest JSON body or SSE event parsed. */
  maxFrameBytes: number;
}

/** Sends the debugger's requests for the HTTP proxy's sessions (see the module); {@link HttpSendAgain.send} takes the reporter's `send` messages. */
export class HttpSendAgain {
  readonly #o: HttpSendAgainOptions;
  /** Random per proxy: with the count, ids no host takes (see `SENT_ID_PREFIX`). */
  readonly #tag = randomBytes(6).toString('hex');
  #count = 0;

  constructor(options: HttpSendAgainOptions) {
    this.#o = options;
  }

  /** The debugger's `send`: for a live session of this proxy, the request goes to the server; otherwise nothing (the run has ended). */
  send(send: SendMessage): void {
    const { sessions, upstream } = this.#o;
    const session = sessions.live.find((live) => live.runId === send.runId);
    if (session === undefined || session.finished) return;
    const line = sentRequestLine(`${SENT_ID_PREFIX}${this.#tag}-${++this.#count}`, send.method, send.params);
    // Classified in the session, and tracked, so that its answer is paired with it and ends its call.
    const request = classify(newFrame(line, 'client-to-server', 0, true), session.correlator);
    if (request.type !== 'request') return;
    try {
      session.recorder.onSent(request, send.by);
    } catch {
      // Observation is best-effort; the request is still sent.
    }
    const headers = serverPostHeaders(sessions.hostHeaders(session), session.sessionId, upstream.host, line.length);
    const up = upstream.request('POST', undefined, headers);
    up.on('response', (res) => {
      upstream.reached();
      this.#answer(session, request, res);
    });
    up.on('error', (error) => fail(session, request, { name: 'ServerNotRunning', message: `the MCP server is not running: ${upstream.failed(error)}`, code: NOT_RUNNING_CODE }));
    up.end(line);
  }

  /** The server's answer to our request: its messages recorded, nothing relayed; an end without the JSON-RPC answer ends the call as failed. */
  #answer(session: McpHttpSession, request: Frame, res: IncomingMessage): void {
    const status = res.statusCode ?? 502;
    const kind = status >= 200 && status < 300 ? answerKind(rawHeader(res.rawHeaders, 'content-type'), true) : 'plain';
    const max = this.#o.maxFrameBytes;
    const splitter = kind === 'sse' ? new SseSplitter() : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (splitter !== undefined) {
        for (const event of splitter.push(chunk)) if (eventIsMessage(event, max)) this.#message(session, Buffer.from(event.data as string, 'utf8'));
        return;
      }
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    res.once('end', () => {
      if (kind === 'json' && size <= max) this.#message(session, Buffer.concat(chunks, size));
      // 404: the server no longer knows the session (it ended, or the server restarted): as no server to take it.
      const gone = status === 404;
      const message = gone ? `the MCP server is not running: it no longer knows this session (HTTP 404)` : `the MCP server answered HTTP ${status} without a JSON-RPC answer`;
      fail(session, request, gone ? { name: 'ServerNotRunning', message, code: NOT_RUNNING_CODE } : { name: 'NoAnswer', message });
    });
    res.on('error', () => {});
  }

  /** One message of the answer: recorded in the session (never held: the host waits for none of it); a request of the server is refused, as no host will answer it. */
  #message(session: McpHttpSession, bytes: Buffer): void {
    const frame = session.frame(bytes, 'server-to-client');
    if (frame.type !== 'request' || frame.id === undefined) return;
    const error = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: frame.id, error: { code: NO_HOST_CODE, message: 'a request made while answering the debugger’s Send again: no host answers it' } }));
    session.frame(error, 'client-to-server');
    const { sessions, upstream } = this.#o;
    upstream.post(serverPostHeaders(sessions.hostHeaders(session), session.sessionId, upstream.host, error.length), error);
  }
}

/** End `request`'s call with `error` when it still waits for its answer (none came, and none will). */
function fail(session: McpHttpSession, request: Frame, error: InstanceError): void {
  const key = idKey(request);
  if (key === undefined || session.correlator.take('server-to-client', key) !== request) return;
  try {
    session.recorder.onProxyAnswer(request, error);
  } catch {
    // Observation is best-effort.
  }
}
