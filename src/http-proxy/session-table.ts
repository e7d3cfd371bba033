import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { rawHeader } from './headers.js';
import type { SessionEnd } from '../relay/session-end.js';
import type { McpHttpSession } from './http-session.js';
import { EndedIds, isInitialize, sessionForConnection, sessionForId, type SessionLook } from './session-rules.js';

/** How many ended session ids the proxy remembers. */
const ENDED_IDS_KEPT = 1024;

/** What the proxy keeps of a session for the requests it makes on its own. */
interface SessionState {
  /** The raw headers of the host's latest MCP request in the session (to answer the server as the host would; filtered when used). */
  headers: readonly string[];
  /** The server answered the host's latest request with an SSE stream. */
  sse: boolean;
}

/** What the table holds, as the rules see it. */
function look(session: McpHttpSession | undefined): SessionLook {
  if (session === undefined) return 'none';
  return session.finished ? 'finished' : 'live';
}

/**
 * The HTTP proxy's sessions: by `Mcp-Session-Id`, and by client connection
 * while a session has no id (an `initialize` under way) or never will (a
 * stateless server). It applies the rules of `session-rules` to each
 * request, opens sessions through the proxy's `open`, ends them, and keeps
 * what the proxy needs to speak for a session's host.
 */
export class SessionTable {
  /** Sessions by `Mcp-Session-Id`. */
  readonly #byId = new Map<string, McpHttpSession>();
  /** Sessions without an id yet (an `initialize` under way) or ever (a stateless server), by client connection. */
  readonly #bySocket = new WeakMap<Socket, McpHttpSession>();
  readonly #watched = new WeakSet<Socket>();
  /** Every session not finished. */
  readonly #live = new Set<McpHttpSession>();
  /** Session ids the server ended: a request still carrying one is relayed, not a new run. */
  readonly #endedIds = new EndedIds(ENDED_IDS_KEPT);
  readonly #state = new WeakMap<McpHttpSession, SessionState>();
  readonly #open: (sessionId: string | undefined) => McpHttpSession;
  #closed = false;

  /** `open` makes a new session (with the server's id, when known). */
  constructor(open: (sessionId: string | undefined) => McpHttpSession) {
    this.#open = open;
  }

  /** The sessions not finished. */
  get live(): readonly McpHttpSession[] {
    return [...this.#live];
  }

  /**
   * The session a request belongs to, or undefined (once closed, none). A
   * POST (`body`) makes one when there is none; a GET or DELETE only finds
   * one.
   */
  sessionOf(req: IncomingMessage, body: Buffer | undefined): McpHttpSession | undefined {
    if (this.#closed) return undefined;
    const id = rawHeader(req.rawHeaders, 'mcp-session-id');
    if (id !== undefined) {
      const known = this.#byId.get(id);
      switch (sessionForId(look(known), this.#endedIds.has(id), req.method)) {
        case 'known':
          return known;
        case 'none':
          return undefined;
        default:
          return this.#add(this.#open(id), id);
      }
    }
    const socket = req.socket;
    const current = this.#bySocket.get(socket);
    const now = look(current);
    // Parsed only when it matters: a live session on this connection goes on unless this begins another.
    const initialize = now === 'live' && body !== undefined && isInitialize(body);
    const choice = sessionForConnection(now, current?.sessionId !== undefined, body !== undefined, initialize);
    if (choice === 'current') return current;
    if (choice === 'none') return undefined;
    // A new client session on this connection: an earlier stateless one on it ends.
    if (choice === 'replace') this.end(current as McpHttpSession);
    const session = this.#add(this.#open(undefined), undefined);
    this.#bySocket.set(socket, session);
    this.#watch(socket);
    return session;
  }

  #add(session: McpHttpSession, id: string | undefined): McpHttpSession {
    this.#live.add(session);
    if (id !== undefined) this.#byId.set(id, session);
    return session;
  }

  /** When the connection closes, its session without an id ends (nothing else can find it). */
  #watch(socket: Socket): void {
    if (this.#watched.has(socket)) return;
    this.#watched.add(socket);
    socket.once('close', () => {
      const last = this.#bySocket.get(socket);
      if (last !== undefined && last.sessionId === undefined) this.end(last);
    });
  }

  /** The server gave `session` its id (in the answer to `initialize`, asked on `socket`). */
  learnId(session: McpHttpSession, id: string, socket: Socket): void {
    if (session.sessionId !== undefined || session.finished) return;
    session.sessionId = id;
    this.#byId.set(id, session);
    if (this.#bySocket.get(socket) === session) this.#bySocket.delete(socket);
  }

  /** End `session`'s run (once); a client that goes on with its id (until it sees the 404) starts no new run. */
  end(session: McpHttpSession): void {
    if (this.#forget(session, {})) this.#endedIds.add(session.sessionId as string);
  }

  /**
   * End the run of `session`, idle for `idleMs`. The server still knows its
   * id: a client that comes back with it later starts a new run, followed
   * from then on.
   */
  endIdle(session: McpHttpSession, idleMs: number): void {
    this.#forget(session, { idleMs });
  }

  /** Finish `session` and drop it from the table; true if it had an id. */
  #forget(session: McpHttpSession, end: SessionEnd): boolean {
    if (session.finished) return false;
    session.finish(end);
    this.#live.delete(session);
    const id = session.sessionId;
    if (id === undefined) return false;
    if (this.#byId.get(id) === session) this.#byId.delete(id);
    return true;
  }

  /** End every session; from now on no request belongs to one. */
  close(): void {
    this.#closed = true;
    for (const session of [...this.#live]) this.end(session);
  }

  /** Keep the headers of the host's latest request in `session` (never recorded), to speak for the host. */
  remember(session: McpHttpSession, req: IncomingMessage): void {
    const state = this.#state.get(session);
    const headers = req.rawHeaders;
    if (state === undefined) this.#state.set(session, { headers, sse: false });
    else state.headers = headers;
  }

  /** The server answered the host's latest request in `session` with an SSE stream (true) or JSON. */
  noteAnswerType(session: McpHttpSession, sse: boolean): void {
    const state = this.#state.get(session);
    if (state !== undefined) state.sse = sse;
  }

  /** Did the server answer the host's latest request in `session` with an SSE stream? */
  answersWithSse(session: McpHttpSession): boolean {
    return this.#state.get(session)?.sse === true;
  }

  /** The raw headers of the host's latest request in `session` (none before its first). */
  hostHeaders(session: McpHttpSession): readonly string[] {
    return this.#state.get(session)?.headers ?? [];
  }
}
