/**
 * What a run's record says beyond its {@link Run}: the holds of each call
 * (a run keeps only the calls, the hold events are history in its log),
 * each request's JSON-RPC id (as its start said, else as a held frame of
 * it showed), and who decided each hold (the
 * server's `decisions` meta). Exporters read these to tell, in a trace or
 * a HAR file, what the debugger did to a call.
 *
 * @module
 */
import type { GatePoint, HoldAction } from '../protocol/control.js';
import type { Instance, InstanceError, NodeStatus } from '../protocol/run-model.js';
import type { RunEvent } from '../protocol/ingest.js';
import { isObject } from '../json/is-object.js';

export { DECISIONS_META_KEY, MAX_DECISIONS, decisionsOf, decisionsReader, withDecision, type DecisionRecord } from '../protocol/decisions.js';

/** One hold of a call, from its `hold.opened` to its `hold.released`. */
export interface HoldRecord {
  holdId: string;
  instanceId: string;
  nodeId: string;
  gate: GatePoint;
  method: string;
  /** `breakpoint`, `error` or `loop`, when the reporter said. */
  reason?: string;
  /** The held frame's JSON-RPC id as text (numbers as JSON writes them), when it had one. */
  requestId?: string;
  /** Milliseconds since the epoch. */
  openedAt: number;
  releasedAt?: number;
  /** How the frame went on. */
  action?: HoldAction;
  /** Why its requester gave up on it, if it did. */
  givenUp?: string;
  /**
   * For an answer held at an after or error gate: how the call had ended
   * when it was held, before anyone decided (a decision may replace it).
   */
  heldOutcome?: { status: NodeStatus; error?: InstanceError };
}

/** A JSON-RPC id as text; undefined for none or `null` (the conventions record neither). */
function idText(id: unknown): string | undefined {
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return JSON.stringify(id);
  return undefined;
}

/** The JSON-RPC id of a held frame, as text (see {@link idText}). */
function requestIdOf(frame: unknown): string | undefined {
  return isObject(frame) ? idText(frame.id) : undefined;
}

/**
 * The holds of a run, gathered from its events. Feed it every event after
 * the run itself has applied it (`instanceOf` then sees the call as the
 * event left it).
 */
export class RunFacts {
  readonly #holds = new Map<string, HoldRecord>();
  readonly #byInstance = new Map<string, HoldRecord[]>();
  /** Holds open right now, per instance. */
  readonly #open = new Map<string, number>();
  /** JSON-RPC ids of requests, per instance: as their start said, else as a held frame showed. */
  readonly #requestIds = new Map<string, string>();

  /** Take one event; `instanceOf` finds a call of the run as it is now. */
  apply(event: RunEvent, instanceOf: (instanceId: string) => Instance | undefined): void {
    switch (event.type) {
      case 'instance.started':
      case 'instance.completed': {
        // The recorder's own word for the id comes first; a later held frame does not replace it.
        const requestId = idText(event.requestId);
        if (requestId !== undefined && !this.#requestIds.has(event.instanceId)) this.#requestIds.set(event.instanceId, requestId);
        return;
      }
      case 'hold.opened': {
        if (this.#holds.has(event.holdId)) return;
        const hold: HoldRecord = {
          holdId: event.holdId,
          instanceId: event.instanceId,
          nodeId: event.nodeId,
          gate: event.gate,
          method: event.method,
          openedAt: event.t,
        };
        if (typeof event.reason === 'string') hold.reason = event.reason;
        const requestId = requestIdOf(event.frame);
        if (requestId !== undefined) {
          hold.requestId = requestId;
          if (!this.#requestIds.has(event.instanceId)) this.#requestIds.set(event.instanceId, requestId);
        }
        const instance = instanceOf(event.instanceId);
        if (event.gate !== 'before' && instance !== undefined && instance.status !== 'open') {
          hold.heldOutcome = instance.error === undefined ? { status: instance.status } : { status: instance.status, error: instance.error };
        }
        this.#holds.set(event.holdId, hold);
        let list = this.#byInstance.get(event.instanceId);
        if (list === undefined) this.#byInstance.set(event.instanceId, (list = []));
        list.push(hold);
        this.#open.set(event.instanceId, (this.#open.get(event.instanceId) ?? 0) + 1);
        return;
      }
      case 'hold.updated': {
        const hold = this.#holds.get(event.holdId);
        if (hold !== undefined && hold.releasedAt === undefined) hold.givenUp = event.givenUp;
        return;
      }
      case 'hold.released': {
        const hold = this.#holds.get(event.holdId);
        if (hold === undefined || hold.releasedAt !== undefined) return;
        hold.releasedAt = event.t;
        hold.action = event.action;
        this.#closeOne(hold.instanceId);
        return;
      }
      default:
        return;
    }
  }

  /** The run ended: holds still open were let go with it (their reporter is gone). */
  endAll(t: number): void {
    for (const hold of this.#holds.values()) {
      if (hold.releasedAt !== undefined) continue;
      hold.releasedAt = t;
      this.#closeOne(hold.instanceId);
    }
  }

  /** Is a frame of this call held right now? */
  isHeld(instanceId: string): boolean {
    return this.#open.has(instanceId);
  }

  /** The holds of a call, in the order they opened. */
  holdsOf(instanceId: string): readonly HoldRecord[] {
    return this.#byInstance.get(instanceId) ?? [];
  }

  /** The call's JSON-RPC id as text: as its start said, else as a held frame of it showed; undefined when neither did. */
  requestIdOf(instanceId: string): string | undefined {
    return this.#requestIds.get(instanceId);
  }

  /** Forget a call whose facts were used (a live run's call, sent on its way). */
  forget(instanceId: string): void {
    const list = this.#byInstance.get(instanceId);
    if (list !== undefined) for (const hold of list) this.#holds.delete(hold.holdId);
    this.#byInstance.delete(instanceId);
    this.#requestIds.delete(instanceId);
    this.#open.delete(instanceId);
  }

  #closeOne(instanceId: string): void {
    const open = (this.#open.get(instanceId) ?? 1) - 1;
    if (open <= 0) this.#open.delete(instanceId);
    else this.#open.set(instanceId, open);
  }
}
