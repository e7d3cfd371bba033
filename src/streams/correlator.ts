import type { Direction, Frame, JsonRpcId } from './frame.js';

/**
 * Pairs responses with the requests they answer, for one session and both
 * directions. A request from the client is answered by the server and the
 * other way round, so the table is keyed by the request's direction and id.
 */
export class Correlator {
  /** Requests the client sent, by id. */
  readonly #fromClient = new Map<JsonRpcId, Frame>();
  /** Requests the server sent, by id. */
  readonly #fromServer = new Map<JsonRpcId, Frame>();

  /** Remember a request until its answer comes back. */
  track(request: Frame): void {
    if (request.id === undefined) return;
    (request.direction === 'client-to-server' ? this.#fromClient : this.#fromServer).set(request.id, request);
  }

  /**
   * Find (and forget) the request that a response travelling in `direction`
   * answers. Returns undefined for an answer to nothing we saw.
   */
  take(direction: Direction, id: JsonRpcId): Frame | undefined {
    // An answer travelling to the server answers a request from the server.
    const table = direction === 'client-to-server' ? this.#fromServer : this.#fromClient;
    if (table.size === 0) return undefined;
    const request = table.get(id);
    if (request !== undefined) table.delete(id);
    return request;
  }

  /** Requests still waiting for an answer, oldest first. */
  outstanding(direction: Direction): Frame[] {
    return [...(direction === 'client-to-server' ? this.#fromClient : this.#fromServer).values()];
  }
}
