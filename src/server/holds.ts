import type { Hold, HoldAction } from '../protocol/control.js';

/** The connection that reported a hold, and can be told the decision. */
export interface HoldOwner {
  decide(holdId: string, action: HoldAction, value: unknown): void;
}

interface Entry {
  hold: Hold;
  owner: HoldOwner;
  decided: HoldAction | undefined;
}

/** Decided holds remembered after their release, to answer a late decision with 409 rather than 404. */
const MAX_ENDED = 10_000;

/** The outcome of a decision request, mapped to HTTP by the API. */
export type DecideResult = 'ok' | 'unknown' | 'decided';

/**
 * Frames held right now, across all sessions. A hold is decided only by
 * its own id and only its reporter hears the decision; once decided it
 * stays until the reporter confirms the release, so a second decision is a
 * conflict, not a second action.
 */
export class HoldRegistry {
  readonly #entries = new Map<string, Entry>();
  /** Ids of holds decided and then let go, newest last: a late decision is a conflict, not "unknown". */
  readonly #ended = new Set<string>();

  /** Register a hold; false if the id is already taken. */
  open(hold: Hold, owner: HoldOwner): boolean {
    if (this.#entries.has(hold.holdId)) return false;
    this.#entries.set(hold.holdId, { hold, owner, decided: undefined });
    return true;
  }

  /** Undecided holds, oldest first. */
  list(): Hold[] {
    return [...this.#entries.values()].filter((entry) => entry.decided === undefined).map((entry) => entry.hold);
  }

  /** Decide a hold and tell its reporter. */
  decide(holdId: string, action: HoldAction, value: unknown): DecideResult {
    const entry = this.#entries.get(holdId);
    if (entry === undefined) return this.#ended.has(holdId) ? 'decided' : 'unknown';
    if (entry.decided !== undefined) return 'decided';
    // Told first: a decision its reporter could not be sent (it throws) is not taken, and the hold stays open to decide again.
    entry.owner.decide(holdId, action, value);
    entry.decided = action;
    return 'ok';
  }

  /** The reporter let the frame go. Only the owner may release. */
  release(holdId: string, owner: HoldOwner): Hold | undefined {
    const entry = this.#entries.get(holdId);
    if (entry === undefined || entry.owner !== owner) return undefined;
    this.#entries.delete(holdId);
    // Decided and let go: a decision that comes later is told so (409), not "unknown".
    if (entry.decided !== undefined) this.#remember(holdId);
    return entry.hold;
  }

  /**
   * The requester of an undecided hold gave up on it (`hold.updated`):
   * the hold says so from now on, and stays open to be decided. Only the
   * owner may say it; returns the hold as it is now, or undefined (unknown,
   * another's, decided, or already marked with the same reason).
   */
  giveUp(holdId: string, owner: HoldOwner, why: string): Hold | undefined {
    const entry = this.#entries.get(holdId);
    if (entry === undefined || entry.owner !== owner || entry.decided !== undefined || entry.hold.givenUp === why) return undefined;
    // A new object: a hold already handed out (a snapshot being sent) is not changed under it.
    entry.hold = { ...entry.hold, givenUp: why };
    return entry.hold;
  }

  /** Is this hold reported by `owner`? */
  ownedBy(holdId: string, owner: HoldOwner): boolean {
    return this.#entries.get(holdId)?.owner === owner;
  }

  /** Forget every hold of a connection that went away; returns them. */
  dropOwner(owner: HoldOwner): Hold[] {
    return this.#take((entry) => entry.owner === owner).map((entry) => entry.hold);
  }

  /**
   * Let go every hold of a run that was deleted while its reporter is live:
   * the reporter is told to continue an undecided one (its frame goes on
   * unchanged) and keeps to a decision already sent. Returns each hold with
   * the action its frame goes on with; a decision that comes later is a
   * conflict (409).
   */
  releaseRun(runId: string): Array<{ holdId: string; action: HoldAction }> {
    return this.#take((entry) => entry.hold.runId === runId).map(({ hold: { holdId }, owner, decided }) => {
      if (decided === undefined) owner.decide(holdId, 'continue', undefined);
      this.#remember(holdId);
      return { holdId, action: decided ?? 'continue' };
    });
  }

  /** Remove and return the holds that `matches`. */
  #take(matches: (entry: Entry) => boolean): Entry[] {
    const taken: Entry[] = [];
    for (const [holdId, entry] of this.#entries) {
      if (!matches(entry)) continue;
      this.#entries.delete(holdId);
      taken.push(entry);
    }
    return taken;
  }

  #remember(holdId: string): void {
    this.#ended.add(holdId);
    if (this.#ended.size > MAX_ENDED) this.#ended.delete(this.#ended.values().next().value as string);
  }
}
