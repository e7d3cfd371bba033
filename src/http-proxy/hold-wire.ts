import type { HoldWire } from '../relay/frame-holds.js';
import type { Frame } from '../streams/frame.js';
import { answerRequester, type WaitingHost } from './answer-here.js';
import type { McpHttpSession } from './http-session.js';
import type { SessionTable } from './session-table.js';
import { sseEventBytes } from './sse.js';
import type { UpstreamClient } from './upstream.js';

/** An exchange a retry acts on again: the host's request sent again, or a server request written again on its SSE stream. */
export interface ExchangeHandle {
  /** The host still waits for (more of) the exchange's answer. */
  readonly open: boolean;
  /** Send the host's request upstream again. */
  send(): void;
  /** Write bytes to the host on the exchange's answer. */
  write(bytes: Buffer): void;
}

/**
 * Where a proxy's frames travelled, so that a decision can reach them again
 * (weakly held, by frame: nothing is kept for a frame no longer referenced).
 */
export class FrameRoutes {
  /** A host request's exchange, for a retry. */
  readonly exchanges = new WeakMap<Frame, ExchangeHandle>();
  /** The exchange whose SSE stream a server request came on, for a retry. */
  readonly streams = new WeakMap<Frame, ExchangeHandle>();
  /** Host requests held before they were forwarded, for an answer made here. */
  readonly waiting = new WeakMap<Frame, WaitingHost>();
}

/**
 * How a decision answers a sender or sends a request again, over HTTP,
 * for one session (the `HoldWire` of its `FrameHolds`).
 */
export class HttpHoldWire implements HoldWire {
  readonly #session: McpHttpSession;
  readonly #routes: FrameRoutes;
  readonly #sessions: SessionTable;
  readonly #upstream: UpstreamClient;

  constructor(session: McpHttpSession, routes: FrameRoutes, sessions: SessionTable, upstream: UpstreamClient) {
    this.#session = session;
    this.#routes = routes;
    this.#sessions = sessions;
    this.#upstream = upstream;
  }

  /** A request answered here (see `answerRequester`). */
  answerSender(request: Frame, answer: Frame): void {
    const waiting = this.#routes.waiting;
    const host = request.direction === 'client-to-server' ? waiting.get(request) : undefined;
    if (host !== undefined) waiting.delete(request);
    answerRequester(this.#session, request, answer, host, this.#sessions, this.#upstream);
  }

  /** Retry: the host's request sent again, or the server's written again on the stream it came on (false: that is gone). */
  resend(request: Frame): boolean {
    const toServer = request.direction === 'client-to-server';
    const exchange = toServer ? this.#routes.exchanges.get(request) : this.#routes.streams.get(request);
    if (exchange === undefined || !exchange.open) return false;
    this.#session.correlator.track(request);
    if (toServer) exchange.send();
    else exchange.write(sseEventBytes(request.raw.toString('utf8')));
    return true;
  }
}
