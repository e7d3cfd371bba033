import { randomBytes } from 'node:crypto';
import type { Breakpoints, GatePoint, HoldAction } from '../protocol/control.js';
import { isNewGiveUp } from './give-up.js';
import { holdPlan, type HoldPlan, type HoldQuery, type HoldReason } from './hold-policy.js';
import { NO_RULES, RuleSet } from './rules.js';

export type { HoldReason } from './hold-policy.js';

/** What a decision resolves to. */
export interface Decision {
  /** What to do with the held call. */
  action: HoldAction;
  /** The injected value, for `inject`. */
  value?: unknown;
  /** True when nobody decided: the debugger went away (or the run did) and the hold continued. */
  auto?: boolean;
}

/** A hold waiting for its decision. */
export interface PendingHold {
  /** The hold's id (`hold_` and 12 random bytes in base64url): decisions name it. */
  readonly holdId: string;
  /** The gate it holds at. */
  readonly point: GatePoint;
  /** Why it holds. */
  readonly reason: HoldReason;
  /** The run the held call belongs to (`''` when none was given). */
  readonly runId: string;
  /** When the hold opened, in milliseconds since the epoch. */
  readonly since: number;
  /** With reason `rule`: the rule that holds it. */
  readonly ruleId?: string;
}

const RELEASED: Decision = Object.freeze({ action: 'continue', auto: true }) as Decision;

/**
 * The decision core shared by every integration, with no streams and no
 * I/O: which points hold ({@link holdPlan} over the breakpoints pushed from
 * the server) and the holds waiting for a decision.
 *
 * It fails open: while detached nothing holds, and {@link Gate.releaseAll}
 * (or {@link Gate.releaseRun} for one run) continues the holds when the
 * debugger or the run goes away. Deciding is idempotent: only the first
 * decision of a hold counts.
 */
export class Gate {
  #breakpoints!: Breakpoints;
  /** The rules of {@link Gate.breakpoints}, compiled when they were set (never per frame). */
  rules: RuleSet = NO_RULES;
  /** Whether a debugger is attached; holds only happen while it is. */
  attached = false;
  readonly #holds = new Map<string, { hold: PendingHold; resolve: (decision: Decision) => void; givenUp?: string }>();

  constructor(breakpoints: Breakpoints = { pauseOnError: true, nodes: {} }) {
    this.breakpoints = breakpoints;
  }

  /** The breakpoints in force (pushed by the server). */
  get breakpoints(): Breakpoints {
    return this.#breakpoints;
  }

  /** Set the breakpoints in force; their rules are compiled here, once. */
  set breakpoints(breakpoints: Breakpoints) {
    this.#breakpoints = breakpoints;
    const rules = breakpoints.rules;
    this.rules = rules === undefined || rules.length === 0 ? NO_RULES : new RuleSet(rules);
  }

  /** Holds waiting right now. */
  get pending(): number {
    return this.#holds.size;
  }

  /** Where `query` holds, if anywhere: never while detached. */
  plan(query: HoldQuery): HoldPlan | undefined {
    return this.attached ? holdPlan(this.breakpoints, query) : undefined;
  }

  /** Open a hold; the promise settles with its decision. */
  hold(
    point: GatePoint,
    reason: HoldReason,
    runId = '',
    ruleId?: string,
  ): {
    /** The hold just opened. */
    hold: PendingHold;
    /** Settles with the hold's first decision, or an automatic `continue` when it is released. */
    decision: Promise<Decision>;
  } {
    const hold: PendingHold = { holdId: `hold_${randomBytes(12).toString('base64url')}`, point, reason, runId, since: Date.now(), ...(ruleId === undefined ? {} : { ruleId }) };
    const decision = new Promise<Decision>((resolve) => this.#holds.set(hold.holdId, { hold, resolve, givenUp: undefined }));
    return { hold, decision };
  }

  /** Decide a hold. Returns false if it is unknown or already decided. */
  decide(holdId: string, decision: Decision): boolean {
    const entry = this.#holds.get(holdId);
    if (entry === undefined) return false;
    this.#holds.delete(holdId);
    entry.resolve(decision);
    return true;
  }

  /**
   * The requester of a hold of `runId` gave up on it, with `why` (see the
   * give-up rule, `gates/give-up`): the hold stays open. True when this is
   * news to report: the hold is waiting for its decision and `why` is not
   * the reason last given for it.
   */
  giveUp(runId: string, holdId: string, why: string): boolean {
    const entry = this.#holds.get(holdId);
    if (entry === undefined || entry.hold.runId !== runId || !isNewGiveUp(entry.givenUp, why)) return false;
    entry.givenUp = why;
    return true;
  }

  /** Let every hold of one run go on (the run was deleted, or ended): fail open. */
  releaseRun(runId: string): void {
    for (const [holdId, entry] of this.#holds) {
      if (entry.hold.runId !== runId) continue;
      this.#holds.delete(holdId);
      entry.resolve(RELEASED);
    }
  }

  /** Let every hold go on (the debugger went away): fail open. */
  releaseAll(): void {
    for (const [holdId, entry] of this.#holds) {
      this.#holds.delete(holdId);
      entry.resolve(RELEASED);
    }
  }
}
