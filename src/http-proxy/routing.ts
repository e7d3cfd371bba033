/**
 * Where a host request goes, as pure rules: relayed unread or read as an
 * MCP message; which upstream URL it is sent to; and how the upstream's
 * answer is relayed back.
 *
 * @module
 */

/**
 * What the proxy does with a host request:
 * - `relay`: not for the MCP endpoint (or reporting is off): relayed as it
 *   comes, unread;
 * - `message`: a POST to the MCP endpoint: its body is read, made a frame
 *   of its session and gated;
 * - `session`: a GET (an SSE stream) or DELETE (the session's end) at the
 *   MCP endpoint: sent in the session it names, if any, without a body read.
 */
export type RequestRoute = 'relay' | 'message' | 'session';

/** The path of a request target (`/mcp?x=1` → `/mcp`). */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The route of a host request: its `method`, its target (`req.url`), the
 * upstream endpoint's path, and whether sessions are reported at all.
 */
export function routeOf(method: string | undefined, url: string | undefined, mcpPath: string, reporting: boolean): RequestRoute {
  if (!reporting || pathOf(url ?? '/') !== mcpPath) return 'relay';
  if (method === 'POST') return 'message';
  return method === 'GET' || method === 'DELETE' ? 'session' : 'relay';
}

/**
 * Where a host request (its target, `req.url`) goes upstream: the
 * endpoint as given (`undefined`: its own query, if it has one, wins),
 * the endpoint with the host's query, or the same path on the upstream's
 * origin.
 */
export function upstreamTarget(url: string | undefined, upstream: URL, mcpPath: string): URL | undefined {
  const href = url ?? '/';
  const query = href.indexOf('?');
  const path = query === -1 ? href : href.slice(0, query);
  if (path === mcpPath) {
    if (query === -1 || upstream.search !== '') return undefined;
    const target = new URL(upstream);
    target.search = href.slice(query);
    return target;
  }
  return new URL(href, upstream.origin);
}

/**
 * How an upstream answer is relayed: `sse`, event by event, each a frame;
 * `json`, whole, as one frame; `plain`, as it comes, unread (any other
 * type, or no session followed).
 */
export type AnswerKind = 'sse' | 'json' | 'plain';

/** The kind of an upstream answer with `Content-Type` `contentType`, in a session still followed (`followed`) or not. */
export function answerKind(contentType: string | undefined, followed: boolean): AnswerKind {
  if (!followed) return 'plain';
  const type = (contentType ?? '').toLowerCase();
  if (type.startsWith('text/event-stream')) return 'sse';
  return type.startsWith('application/json') ? 'json' : 'plain';
}
