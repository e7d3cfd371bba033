import type { EventEmitter } from 'node:events';
import type { Breakpoints, GatePoint, HoldAction } from '../protocol/control.js';
import type { HoldOpenedEvent, HoldReleasedEvent, HoldUpdatedEvent, LogEvent } from '../protocol/ingest.js';
import { Gate, type Decision, type PendingHold } from './gate.js';
import type { HoldPlan, HoldQuery } from './hold-policy.js';
import type { LogpointHit, RuleSet } from './rules.js';

/**
 * The reporter as a {@link DebuggerGate} uses it: events out, breakpoints
 * and decisions in. The `Reporter` of `graphmind-ai` is one.
 *
 * Events it emits: `'breakpoints'` (Breakpoints), `'decision'`
 * ({ holdId, action, value }), `'detached'`, `'rejected'` (runId), and
 * optionally `'viewers'` (whether anyone watches now).
 */
export interface GateReporter extends EventEmitter {
  /** True while a debugger is connected. */
  readonly attached: boolean;
  /** The debugger's address, for messages such as the proxy's HOLDING line. */
  readonly url: string;
  /**
   * False while the debugger says nobody watches its live feed (no viewer
   * open); absent or true otherwise. It emits `'viewers'` when this changes.
   */
  readonly watched?: boolean;
  /** Queue an event of a run. */
  send(runId: string, event: HoldOpened | HoldReleased | HoldUpdated | Logpoint): void;
  /** Somebody waits for a debugger for `ms`: look for one often meanwhile (optional). */
  hurry?(ms: number): void;
}

/**
 * The `hold.opened` event a {@link DebuggerGate} reports: the ingest
 * protocol's event without what the reporter adds (`runId`, `seq`, `t`),
 * its reason always given. The held message may be a deferred value.
 */
export type HoldOpened = Omit<HoldOpenedEvent, 'runId' | 'seq' | 't' | 'reason'> & {
  /** Why it holds (a {@link HoldReason}). */
  reason: string;
};

/** A logpoint's `log` event (`stream: "logpoint"`), without what the reporter adds. */
export type Logpoint = Omit<LogEvent, 'runId' | 'seq' | 't'>;

/** The `hold.released` event a {@link DebuggerGate} reports, without what the reporter adds. */
export type HoldReleased = Omit<HoldReleasedEvent, 'runId' | 'seq' | 't'>;

/** The `hold.updated` event a {@link DebuggerGate} reports (a requester gave up), without what the reporter adds. */
export type HoldUpdated = Omit<HoldUpdatedEvent, 'runId' | 'seq' | 't'>;

/** What is held, for {@link DebuggerGate.withHold}. */
export interface HoldSubject {
  /** The run the held call belongs to. */
  runId: string;
  /** The graph node of the held call. */
  nodeId: string;
  /** The execution of that node. */
  instanceId: string;
  /** The JSON-RPC method of the held call, e.g. `tools/call`. */
  method: string;
  /** The held message as the debugger shows it (hide switches already applied). */
  frame: unknown;
}

/** Options for {@link DebuggerGate}. */
export interface DebuggerGateOptions {
  /** The connection to the debugger: holds are reported to it, breakpoints and decisions come from it. */
  reporter: GateReporter;
}

/**
 * The gate connected to a debugger: the {@link Gate} kept in step with a
 * reporter (breakpoints pushed by `graphmind serve`, decisions routed to
 * their hold, every hold let go when the debugger goes and a run's holds
 * when that run is rejected), and {@link DebuggerGate.withHold}, the one
 * lifecycle of a hold for every integration: report it, say so, wait for
 * the decision, apply it, and always report the release.
 *
 * No streams and no wire: the proxy, the in-process adapter and a relay of
 * your own decide what a decision does (see `outcomeOf`).
 */
export class DebuggerGate {
  /** The decision core, kept in step with the reporter. */
  readonly gate = new Gate();
  /** The reporter this gate listens to and reports holds through. */
  readonly reporter: GateReporter;
  /** Nothing holds any more (see {@link DebuggerGate.stop}). */
  #stopped = false;
  /**
   * Runs the debugger records nothing more of on this connection (deleted
   * while live, or reported by another connection): a hold there would be
   * let go at once, after telling the user about it, so nothing holds until
   * the next connection.
   */
  readonly #unrecorded = new Set<string>();
  readonly #armWaiters = new Set<() => void>();
  /** Called when the last viewer goes (see {@link DebuggerGate.onUnwatched}). */
  readonly #unwatchedListeners = new Set<() => void>();

  constructor(options: DebuggerGateOptions) {
    const reporter = options.reporter;
    this.reporter = reporter;
    // The gate arms only once the server has said what its breakpoints are:
    // until then we would be guessing (pause-on-error may be off).
    reporter.on('breakpoints', (breakpoints: Breakpoints) => {
      this.gate.breakpoints = breakpoints;
      this.gate.attached = reporter.attached && !this.#stopped;
      this.#endWaits();
    });
    reporter.on('detached', () => {
      this.gate.attached = false;
      this.#unrecorded.clear();
      this.gate.releaseAll();
    });
    reporter.on('rejected', (runId: string) => {
      if (typeof runId !== 'string') return;
      this.#unrecorded.add(runId);
      this.gate.releaseRun(runId);
    });
    reporter.on('decision', (decision: { holdId: string; action: HoldAction; value?: unknown }) => {
      this.gate.decide(decision.holdId, { action: decision.action, value: decision.value });
    });
    reporter.on('viewers', (watching: boolean) => {
      if (watching) return;
      for (const listener of [...this.#unwatchedListeners]) {
        try {
          listener();
        } catch {
          // A listener's failure is its own: the others still hear.
        }
      }
    });
  }

  /** False while the debugger says no viewer watches (a frame held now has nobody to decide it). */
  get watched(): boolean {
    return this.reporter.watched !== false;
  }

  /**
   * Call `listener` each time the debugger's last viewer goes. Returns what
   * stops it (the proxies listen only while they hold something).
   */
  onUnwatched(listener: () => void): () => void {
    this.#unwatchedListeners.add(listener);
    return () => this.#unwatchedListeners.delete(listener);
  }

  /** True while a debugger is attached and has sent its breakpoints (and the gate is not stopped). */
  get armed(): boolean {
    return this.gate.attached;
  }

  /** Could a call of `runId` hold right now? */
  mayHold(runId: string): boolean {
    return this.gate.attached && (this.#unrecorded.size === 0 || !this.#unrecorded.has(runId));
  }

  /** The rules in force, compiled (empty while none: a gate checks {@link RuleSet.empty} first). */
  get rules(): RuleSet {
    return this.gate.rules;
  }

  /**
   * Record logpoint hits on the call of `subject` (a `log` event each, with
   * `stream: "logpoint"`, the rule's id and the values its expression
   * looked at; `text` says the same in one line). Best-effort, as all
   * observation is.
   */
  logpoints(subject: Omit<HoldSubject, 'frame'>, hits: readonly LogpointHit[], text: (hit: LogpointHit) => string): void {
    for (const hit of hits) {
      try {
        this.reporter.send(subject.runId, {
          type: 'log',
          nodeId: subject.nodeId,
          ...(subject.instanceId === '' ? {} : { instanceId: subject.instanceId }),
          stream: 'logpoint',
          text: text(hit),
          ruleId: hit.ruleId,
          values: hit.values,
        });
      } catch {
        // A log line that cannot be sent must not stop the frame.
      }
    }
  }

  /** Where a call of `runId` holds, if anywhere (see `holdPlan`); never while detached or stopped. */
  plan(runId: string, query: HoldQuery): HoldPlan | undefined {
    if (!this.gate.attached) return undefined;
    if (this.#unrecorded.size > 0 && this.#unrecorded.has(runId)) return undefined;
    return this.gate.plan(query);
  }

  /**
   * Resolve true once a debugger has attached and sent its breakpoints, or
   * false after `timeoutMs` (or at once when the gate is stopped).
   */
  whenArmed(timeoutMs: number): Promise<boolean> {
    if (this.gate.attached) return Promise.resolve(true);
    if (this.#stopped) return Promise.resolve(false);
    this.reporter.hurry?.(timeoutMs);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#armWaiters.delete(done);
        resolve(this.gate.attached);
      };
      const timer = setTimeout(done, timeoutMs);
      this.#armWaiters.add(done);
    });
  }

  #endWaits(): void {
    for (const done of [...this.#armWaiters]) done();
  }

  /**
   * Hold `subject` at `plan`: report `hold.opened`, call `onHolding` (the
   * proxy prints its HOLDING line there), wait for the decision, hand it to
   * `apply`, and report `hold.released` whatever `apply` does. Resolves
   * with what `apply` returns; rejects only if `apply` throws.
   */
  async withHold<T>(subject: HoldSubject, plan: HoldPlan, apply: (decision: Decision) => T, onHolding?: (hold: PendingHold) => void): Promise<T> {
    const { hold, decision } = this.gate.hold(plan.point, plan.reason, subject.runId, plan.ruleId);
    const reporter = this.reporter;
    reporter.send(subject.runId, {
      type: 'hold.opened',
      holdId: hold.holdId,
      nodeId: subject.nodeId,
      instanceId: subject.instanceId,
      gate: plan.point,
      method: subject.method,
      frame: subject.frame,
      reason: plan.reason,
      ...(plan.ruleId === undefined ? {} : { ruleId: plan.ruleId }),
    });
    try {
      onHolding?.(hold);
    } catch {
      // A hook that throws must not leave the hold without its decision.
    }
    const decided = await decision;
    try {
      return apply(decided);
    } finally {
      reporter.send(subject.runId, { type: 'hold.released', holdId: hold.holdId, action: decided.action });
    }
  }

  /**
   * The requester of hold `holdId` (of run `runId`) gave up on it: it
   * cancelled the request, or its side of the session went away while the
   * session lives. The hold stays open to be decided; it is reported as
   * given up (`hold.updated` with `givenUp: why`, words for people) once
   * per distinct reason, while it waits for its decision. The rule, for
   * every integration, is in `gates/give-up`.
   */
  giveUp(runId: string, holdId: string, why: string): void {
    if (!this.gate.giveUp(runId, holdId, why)) return;
    try {
      this.reporter.send(runId, { type: 'hold.updated', holdId, givenUp: why });
    } catch {
      // Observation is best-effort: the hold is there whatever the reporter does.
    }
  }

  /** Let the holds of one run go on (the session ended, or the run did). */
  releaseRun(runId: string): void {
    this.gate.releaseRun(runId);
  }

  /** Nothing holds from now on, and every hold goes on (the other side is gone). */
  stop(): void {
    this.#stopped = true;
    this.gate.attached = false;
    this.#endWaits();
    this.gate.releaseAll();
  }
}
