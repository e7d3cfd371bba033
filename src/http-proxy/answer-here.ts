/**
 * The one way the HTTP proxy answers a requester itself: a request the
 * debugger answered before it was forwarded (an injected answer, the
 * abort's error) gets that answer from the proxy, as its receiver would
 * have sent it. The host's request is answered on its own HTTP response;
 * the server's request (sampling, elicitation…) is answered by a POST to
 * the server, as the host would send it.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { idKey } from '../streams/exact-id.js';
import type { Frame } from '../streams/frame.js';
import { jsonOf } from './frame-bytes.js';
import { accepts, passHeaders } from './headers.js';
import type { McpHttpSession } from './http-session.js';
import type { SessionTable } from './session-table.js';
import { sseEventBytes } from './sse.js';
import type { UpstreamClient } from './upstream.js';

/** A host request held before it was forwarded: where an answer made here goes. */
export interface WaitingHost {
  /** The host's HTTP request. */
  req: IncomingMessage;
  /** Its response, not begun yet. */
  res: ServerResponse;
}

/** The proxy's own answer to a host request, as the HTTP response to write (status 200). */
export interface HostAnswer {
  /** The response headers. */
  headers: Record<string, string>;
  /** The response body. */
  body: Buffer;
}

/**
 * The answer to a host request made here, as the server would have sent it:
 * `json` as one SSE event when `sse` (the server answers this session's
 * requests with SSE and the host takes it), else as a JSON body; with the
 * session's id, when it has one.
 */
export function hostAnswer(json: Buffer, sessionId: string | undefined, sse: boolean): HostAnswer {
  const id: Record<string, string> = {};
  if (sessionId !== undefined) id['mcp-session-id'] = sessionId;
  if (sse) return { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...id }, body: sseEventBytes(json.toString('utf8')) };
  return { headers: { 'content-type': 'application/json', 'content-length': String(json.length), ...id }, body: json };
}

/** Headers of the host's that the proxy does not repeat when it speaks for the host: it sets its own. */
const SET_HERE = /^(content-type|accept|last-event-id|mcp-session-id)$/i;

/**
 * The headers of a POST the proxy sends to the server as the host would:
 * the host's latest headers (`hostHeaders`, raw; hop-by-hop ones and those
 * set here left out: credentials and cookies go on), the session's id, and
 * those of a JSON body of `length` bytes for `host`.
 */
export function serverPostHeaders(hostHeaders: readonly string[], sessionId: string | undefined, host: string, length: number): string[] {
  const remembered = passHeaders(hostHeaders);
  const pairs: string[] = [];
  for (let i = 0; i < remembered.length; i += 2) {
    if (SET_HERE.test(remembered[i] as string)) continue;
    pairs.push(remembered[i] as string, remembered[i + 1] as string);
  }
  if (sessionId !== undefined) pairs.push('mcp-session-id', sessionId);
  pairs.push('content-type', 'application/json', 'accept', 'application/json, text/event-stream', 'host', host, 'content-length', String(length));
  return pairs;
}

/**
 * Answer `request` here with `answer` (a made frame travelling back to the
 * request's sender): its receiver never sees the request, so no answer of
 * its own is awaited. A host request is answered on `host`'s response
 * (nothing, when the host has gone); a server request by a POST to the
 * server.
 */
export function answerRequester(session: McpHttpSession, request: Frame, answer: Frame, host: WaitingHost | undefined, sessions: SessionTable, upstream: UpstreamClient): void {
  const key = idKey(request);
  if (key !== undefined) session.correlator.take(answer.direction, key);
  const json = jsonOf(answer);
  if (request.direction === 'server-to-client') {
    upstream.post(serverPostHeaders(sessions.hostHeaders(session), session.sessionId, upstream.host, json.length), json);
    return;
  }
  if (host === undefined) return;
  const { req, res } = host;
  if (res.headersSent || res.destroyed) return;
  const { headers, body } = hostAnswer(json, session.sessionId, sessions.answersWithSse(session) && accepts(req, 'text/event-stream'));
  res.writeHead(200, headers).end(body);
}
