import type { Direction, Frame, JsonRpcId } from './frame.js';

/**
 * Pairs responses with the requests they answer, for one session and both
 * directions. A request from the client is answered by the server and the
 * other way round, so the table is keyed by the request's direction and id.
 */
export class Correlator {
  readonly #pending: Record<Direction, Map<JsonRpcId, Frame>> = {
    'client-to-server': new Map(),
    'server-to-client': new Map(),
  };

  /** Remember a request until its answer comes back. */
  track(request: Frame): void {
    if (request.id === undefined) return;
    this.#pending[request.direction].set(request.id, request);
  }

  /**
   * Find (and forget) the request that a response travelling in `direction`
   * answers. Returns undefined for an answer to nothing we saw.
   */
  take(direction: Direction, id: JsonRpcId): Frame | undefined {
    const table = this.#pending[direction === 'client-to-server' ? 'server-to-client' : 'client-to-server'];
    const request = table.get(id);
    if (request !== undefined) table.delete(id);
    return request;
  }

  /** Requests still waiting for an answer, oldest first. */
  outstanding(direction: Direction): Frame[] {
    return [...this.#pending[direction].values()];
  }
}
