import type { ServerResponse } from 'node:http';
import type { McpHttpSession } from './http-session.js';

/** How long a session may go without a request in flight before its run ends, unless told otherwise. */
export const DEFAULT_SESSION_IDLE_MS = 300_000;

/**
 * Ends the runs of sessions nobody uses any more. Streamable HTTP has no
 * connection that ends with the client: a client that exits without a
 * DELETE leaves its session for ever, and its run would stay `running`
 * until the proxy stops. A session is busy while any of its requests is
 * under way (a POST waiting for its answer, a GET's event stream held
 * open, a held request); once none has been for `idleMs`, `onIdle` is
 * told. A client that keeps an event stream open is never idle.
 */
export class IdleSessions {
  readonly #idleMs: number;
  readonly #onIdle: (session: McpHttpSession) => void;
  readonly #active = new WeakMap<McpHttpSession, number>();
  readonly #timers = new Map<McpHttpSession, NodeJS.Timeout>();

  /** `idleMs` 0 (or less): sessions never end for being idle. */
  constructor(idleMs: number, onIdle: (session: McpHttpSession) => void) {
    this.#idleMs = idleMs;
    this.#onIdle = onIdle;
  }

  /** A request of `session` is under way until `res` closes. */
  busy(session: McpHttpSession, res: ServerResponse): void {
    if (this.#idleMs <= 0 || session.finished) return;
    this.#active.set(session, (this.#active.get(session) ?? 0) + 1);
    const timer = this.#timers.get(session);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.#timers.delete(session);
    }
    res.once('close', () => this.#done(session));
  }

  /** Forget every timer (the proxy is closing). */
  clear(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  #done(session: McpHttpSession): void {
    const active = (this.#active.get(session) ?? 1) - 1;
    this.#active.set(session, active);
    if (active > 0 || session.finished) return;
    const timer = setTimeout(() => {
      this.#timers.delete(session);
      if ((this.#active.get(session) ?? 0) === 0 && !session.finished) this.#onIdle(session);
    }, this.#idleMs);
    // An idle session never keeps the proxy's process alive.
    timer.unref();
    this.#timers.set(session, timer);
  }
}
