import { idKey, type CorrelationKey } from './exact-id.js';
import type { Direction, Frame } from './frame.js';

/** Slots for small integer ids (a power of two). */
const SLOTS = 1024;
const MASK = SLOTS - 1;

/**
 * The requests of one direction that await an answer, by id. Clients
 * number their requests 1, 2, 3, …, so an integer id is looked up by its
 * low bits in a small table (a store and a compare, no hashing); any other
 * id, or one whose slot another request still holds, goes to a map. Either
 * way, a request reusing an id that is still waiting replaces the older one,
 * as a map would.
 */
class RequestTable {
  readonly #slots: Array<Frame | undefined> = new Array<Frame | undefined>(SLOTS).fill(undefined);
  readonly #others = new Map<CorrelationKey, Frame>();
  size = 0;

  set(id: CorrelationKey, request: Frame): void {
    const others = this.#others;
    if (typeof id === 'number' && id >>> 0 === id) {
      const slot = id & MASK;
      const held = this.#slots[slot];
      if (held === undefined || held.id === id) {
        if (held === undefined) this.size++;
        this.#slots[slot] = request;
        // An older request with this id that had to wait in the map is replaced too.
        if (others.size > 0 && others.delete(id)) this.size--;
        return;
      }
    }
    if (!others.has(id)) this.size++;
    others.set(id, request);
  }

  take(id: CorrelationKey): Frame | undefined {
    if (typeof id === 'number' && id >>> 0 === id) {
      const slot = id & MASK;
      const held = this.#slots[slot];
      if (held !== undefined && held.id === id) {
        this.#slots[slot] = undefined;
        this.size--;
        return held;
      }
    }
    const others = this.#others;
    if (others.size === 0) return undefined;
    const request = others.get(id);
    if (request !== undefined) {
      others.delete(id);
      this.size--;
    }
    return request;
  }

  /** Every waiting request, in the order they arrived. */
  values(): Frame[] {
    const all = [...this.#others.values()];
    for (const frame of this.#slots) if (frame !== undefined) all.push(frame);
    return all.sort((a, b) => a.seq - b.seq);
  }
}

/**
 * Pairs responses with the requests they answer, for one session and both
 * directions. A request from the client is answered by the server and the
 * other way round, so the table is keyed by the request's direction and id.
 */
export class Correlator {
  /** Requests the client sent, by id. */
  readonly #fromClient = new RequestTable();
  /** Requests the server sent, by id. */
  readonly #fromServer = new RequestTable();

  /**
   * Remember a request until its answer comes back.
   *
   * @param key what to pair it by: its id, or for an integer past 2^53 the
   *   exact value (see {@link CorrelationKey}); read again from the frame's
   *   bytes when not given.
   */
  track(request: Frame, key: CorrelationKey | undefined = idKey(request)): void {
    if (key === undefined) return;
    (request.direction === 'client-to-server' ? this.#fromClient : this.#fromServer).set(key, request);
  }

  /**
   * Find (and forget) the request that a response travelling in `direction`
   * answers. Returns undefined for an answer to nothing we saw.
   *
   * @param id the answer's id; for an integer past 2^53, its exact value
   *   as a `bigint` (see {@link CorrelationKey}), or the rounded number
   *   will not find its request.
   */
  take(direction: Direction, id: CorrelationKey): Frame | undefined {
    // An answer travelling to the server answers a request from the server.
    const table = direction === 'client-to-server' ? this.#fromServer : this.#fromClient;
    if (table.size === 0) return undefined;
    return table.take(id);
  }

  /** Requests still waiting for an answer, oldest first. */
  outstanding(direction: Direction): Frame[] {
    return (direction === 'client-to-server' ? this.#fromClient : this.#fromServer).values();
  }
}
