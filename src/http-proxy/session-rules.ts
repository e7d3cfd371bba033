/**
 * Which MCP session a request belongs to, and when a session ends, as
 * pure rules; {@link SessionTable} keeps the sessions and applies them.
 *
 * A session is the server's `Mcp-Session-Id`. A request without one is
 * followed per client connection: an `initialize` begun there (its id comes
 * with the answer), or a stateless server's session, a new one at each
 * `initialize`.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { rawHeader } from './headers.js';

/** What the table holds for a request: no session, one still followed, or one finished. */
export type SessionLook = 'none' | 'live' | 'finished';

/**
 * The session of a request carrying an `Mcp-Session-Id`:
 * - `known`: the live session under that id;
 * - `follow`: a new session under that id (one begun before this proxy
 *   started, or ended here by the proxy), followed from now on;
 * - `none`: none (a DELETE of a session not followed, or an id the server
 *   ended: the client goes on with it until it sees the 404; no new run).
 */
export type IdChoice = 'known' | 'follow' | 'none';

/** The session of a request with an id: what the table holds under it, whether the server ended that id, and the request's method. */
export function sessionForId(known: SessionLook, ended: boolean, method: string | undefined): IdChoice {
  if (known === 'live') return 'known';
  if (method === 'DELETE' || ended) return 'none';
  return 'follow';
}

/**
 * The session of a request without an id, on a client connection:
 * - `current`: the connection's live session (not for an `initialize`);
 * - `none`: none (a GET or DELETE only finds one);
 * - `new`: a new session on the connection;
 * - `replace`: the connection's stateless session ends, and a new one begins.
 */
export type ConnectionChoice = 'current' | 'none' | 'new' | 'replace';

/**
 * The session of a request without an id: what the table holds for its
 * connection (and whether that session has an id by now), whether the
 * request is a POST, and whether its body is an `initialize`.
 */
export function sessionForConnection(current: SessionLook, currentHasId: boolean, post: boolean, initialize: boolean): ConnectionChoice {
  if (current === 'live' && !initialize) return 'current';
  if (!post) return 'none';
  return current !== 'none' && !currentHasId ? 'replace' : 'new';
}

/** Does `body` look like an `initialize` request? (Read only for requests without a session id.) */
export function isInitialize(body: Buffer): boolean {
  if (body.indexOf('"initialize"') === -1) return false;
  try {
    const message: unknown = JSON.parse(body.toString('utf8'));
    return isObject(message) && message.method === 'initialize';
  } catch {
    return false;
  }
}

/**
 * Does an upstream answer (its `status`) end the session the request (its
 * `method` and raw headers) was asked in? A DELETE answered with success,
 * or a 404 for a request that named a session id (the server no longer
 * knows it).
 */
export function endsSession(method: string | undefined, requestHeaders: readonly string[], status: number): boolean {
  return (method === 'DELETE' && status >= 200 && status < 300) || (status === 404 && rawHeader(requestHeaders, 'mcp-session-id') !== undefined);
}

/**
 * The session ids the server ended, the newest `kept` of them: a request
 * still carrying one is relayed, not made a new run. The oldest is
 * forgotten first.
 */
export class EndedIds {
  readonly #ids = new Set<string>();
  readonly #kept: number;

  constructor(kept: number) {
    this.#kept = kept;
  }

  /** Remember `id` (forgetting the oldest beyond the limit). */
  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > this.#kept) this.#ids.delete(this.#ids.values().next().value as string);
  }

  /** Did the server end `id` (among those remembered)? */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** How many ids are remembered. */
  get size(): number {
    return this.#ids.size;
  }
}
