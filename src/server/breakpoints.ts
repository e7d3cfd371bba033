import type { Breakpoints, NodeBreakpoint } from '../protocol/control.js';
import { parseRules, RuleBook, type RuleProblem } from './breakpoint-rules.js';

export type { RuleProblem } from './breakpoint-rules.js';

const MAX_NODES = 10_000;
const MAX_NODE_ID = 1024;
/** The longest server name a scope may give: as long as a run's summary keeps one (`runServer`). */
const MAX_SERVER_NAME = 256;

/** Check one node's breakpoint: a clean copy, or a short reason for a 400. */
function parseNodeBreakpoint(value: unknown): NodeBreakpoint | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'each node takes { before?, after?, server? }';
  const { before, after, server, ...others } = value as Record<string, unknown>;
  if (Object.keys(others).length > 0) return 'each node takes only before, after and server';
  if (before !== undefined && typeof before !== 'boolean') return 'before must be true or false';
  if (after !== undefined && typeof after !== 'boolean') return 'after must be true or false';
  if (server !== undefined && (typeof server !== 'string' || server.length === 0 || server.length > MAX_SERVER_NAME)) {
    return 'server must be a server name (serverInfo.name, 1 to 256 characters), or absent for every server';
  }
  const point: NodeBreakpoint = {};
  if (before !== undefined) point.before = before;
  if (after !== undefined) point.after = after;
  if (server !== undefined) point.server = server;
  return point;
}

/**
 * Check a `PUT /api/breakpoints` body. Returns the breakpoints, copied into
 * a clean object, or a short reason for a 400 (a {@link RuleProblem} for
 * its `rules`: which rule, and where in a bad expression). `rules` absent:
 * the breakpoints have none (the server then keeps those it has).
 */
export function parseBreakpoints(body: unknown): Breakpoints | string | RuleProblem {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body must be an object';
  const { pauseOnError, nodes, pauseOnDrift, rules, ...rest } = body as Record<string, unknown>;
  // The field's name is not echoed back: errors never reflect input.
  if (Object.keys(rest).length > 0) return 'only pauseOnError, pauseOnDrift, nodes and rules are allowed';
  if (typeof pauseOnError !== 'boolean') return 'pauseOnError must be true or false';
  if (nodes === null || typeof nodes !== 'object' || Array.isArray(nodes)) return 'nodes must be an object keyed by nodeId';
  const entries = Object.entries(nodes as Record<string, unknown>);
  if (entries.length > MAX_NODES) return `at most ${MAX_NODES} nodes`;
  const clean: Breakpoints['nodes'] = Object.create(null) as Breakpoints['nodes'];
  for (const [nodeId, value] of entries) {
    if (nodeId.length === 0 || nodeId.length > MAX_NODE_ID) return 'a nodeId must be 1 to 1024 characters';
    const point = parseNodeBreakpoint(value);
    if (typeof point === 'string') return point;
    clean[nodeId] = point;
  }
  const parsed: Breakpoints = { pauseOnError, nodes: { ...clean } };
  // pauseOnDrift is optional: absent stays absent (false), so older clients' PUTs and GETs read as before.
  if (pauseOnDrift !== undefined) {
    if (typeof pauseOnDrift !== 'boolean') return 'pauseOnDrift must be true or false';
    parsed.pauseOnDrift = pauseOnDrift;
  }
  if (rules === undefined) return parsed;
  const checked = parseRules(rules);
  if (!Array.isArray(checked)) return checked;
  parsed.rules = checked;
  return parsed;
}

/**
 * How long `PUT /api/breakpoints` waits for the reporters connected at that
 * moment to say they applied the new breakpoints. A reporter that does not
 * ack (one older than the ack, or one that is stuck) costs the request this
 * long at most, never a hang.
 */
export const BREAKPOINTS_ACK_TIMEOUT_MS = 2000;

/**
 * A reporter's connection as the breakpoints see it: it is sent them, with
 * their version, and acks that version once applied; and it is told
 * whether anyone watches the live feed.
 */
export interface BreakpointsPeer {
  /** Send the reporter `breakpoints`, numbered `version`. */
  sendBreakpoints(breakpoints: Breakpoints, version: number): void;
  /** Tell the reporter whether anyone watches the live feed (a `viewers` message). */
  sendViewers?(watching: boolean): void;
}

/** What `GET /api/health` says of the breakpoints. */
export interface BreakpointsHealth {
  /** The breakpoints' version: 1 at start, one more for every `PUT /api/breakpoints`. */
  version: number;
  /** Reporters connected now. */
  reporters: number;
  /** Of those, how many have acked this version (applied these breakpoints). */
  applied: number;
}

/** The timers a {@link BreakpointsState} bounds its waits with: injectable, so a test drives the clock. */
export interface AckTimers {
  /** Call `fn` after `ms`; returns a handle for `clear`. */
  set(fn: () => void, ms: number): unknown;
  /** Cancel a timer `set` returned. */
  clear(handle: unknown): void;
}

const REAL_TIMERS: AckTimers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** One `PUT` waiting for the reporters that were connected when it came. */
interface AckWait {
  version: number;
  waiting: Set<BreakpointsPeer>;
  done: () => void;
}

/** Options for {@link BreakpointsState}. */
export interface BreakpointsStateOptions {
  /** How long a change waits for acks. @default BREAKPOINTS_ACK_TIMEOUT_MS */
  ackTimeoutMs?: number;
  /** @default setTimeout and clearTimeout (unref'd) */
  timers?: AckTimers;
  /**
   * The rules' hit counts or armed states changed (a reporter told of a
   * hit): called at most every {@link RULE_NEWS_MS}, at once when a rule
   * disarmed. The server tells the live feed. @default undefined
   */
  onRules?: () => void;
}

/** How often at most the rules' hit counts are told (see {@link BreakpointsStateOptions.onRules}). */
export const RULE_NEWS_MS = 250;

/**
 * The breakpoints in force, their version, and who has applied them (and
 * whether anyone watches the live feed, which every reporter is told too).
 * Every reporter that connects is sent them numbered; a change goes to all of
 * them, and {@link BreakpointsState.set} settles once every reporter
 * connected at that moment has acked the new version, has gone, or the
 * bound passed. No I/O: the connections are {@link BreakpointsPeer}s and
 * the clock is injected.
 */
export class BreakpointsState {
  /** The breakpoints in force, without their rules (those are in {@link BreakpointsState.#rules}). */
  #current: Breakpoints;
  readonly #rules = new RuleBook();
  /** What reporters are sent: the breakpoints with the rules they act on (made once per change). */
  #sent: Breakpoints;
  readonly #onRules: (() => void) | undefined;
  #rulesNews: unknown;
  #version = 1;
  /** Each connected reporter and the highest version it acked (0: none yet). */
  readonly #peers = new Map<BreakpointsPeer, number>();
  readonly #waits = new Set<AckWait>();
  readonly #timeoutMs: number;
  readonly #timers: AckTimers;
  #watching = false;

  constructor(initial: Breakpoints, options: BreakpointsStateOptions = {}) {
    const { rules, ...rest } = initial;
    if (rules !== undefined) this.#rules.replace(rules);
    this.#current = rest;
    this.#sent = this.#forReporters();
    this.#timeoutMs = options.ackTimeoutMs ?? BREAKPOINTS_ACK_TIMEOUT_MS;
    this.#timers = options.timers ?? REAL_TIMERS;
    this.#onRules = options.onRules;
  }

  /**
   * The breakpoints in force, with each rule's defaults filled in, its hit
   * count and whether it is armed (`rules` only when there are any, so the
   * breakpoints of a debugger without rules look as they always did).
   */
  get current(): Breakpoints {
    return this.#rules.size === 0 ? this.#current : { ...this.#current, rules: this.#rules.states() };
  }

  /** What reporters are sent: the enabled, armed rules with the hits each has left. */
  #forReporters(): Breakpoints {
    return this.#rules.size === 0 ? this.#current : { ...this.#current, rules: this.#rules.forReporters() };
  }

  /**
   * A reporter says rule `ruleId` matched (a hold with `reason: "rule"`, a
   * logpoint's line): counted, and when that used up its hits, every
   * reporter is sent the breakpoints without it (a new version).
   */
  ruleHit(ruleId: string): void {
    const result = this.#rules.hit(ruleId);
    if (result === undefined) return;
    if (result === 'disarmed') {
      this.#sent = this.#forReporters();
      const version = ++this.#version;
      for (const peer of this.#peers.keys()) peer.sendBreakpoints(this.#sent, version);
      this.#tellRules(true);
    } else this.#tellRules(false);
  }

  /** Tell of changed hit counts: at once, or at most every {@link RULE_NEWS_MS}. */
  #tellRules(now: boolean): void {
    const onRules = this.#onRules;
    if (onRules === undefined) return;
    if (now) {
      if (this.#rulesNews !== undefined) this.#timers.clear(this.#rulesNews);
      this.#rulesNews = undefined;
      onRules();
      return;
    }
    if (this.#rulesNews !== undefined) return;
    this.#rulesNews = this.#timers.set(() => {
      this.#rulesNews = undefined;
      onRules();
    }, RULE_NEWS_MS);
  }

  /** Their version: 1 at start, one more for every change. */
  get version(): number {
    return this.#version;
  }

  /** True while anyone watches the live feed (see {@link BreakpointsState.setWatching}). */
  get watching(): boolean {
    return this.#watching;
  }

  /**
   * A reporter connected: it is told whether anyone watches, then sent the
   * breakpoints in force (its gate arms on those, so by then it knows).
   */
  join(peer: BreakpointsPeer): void {
    this.#peers.set(peer, 0);
    peer.sendViewers?.(this.#watching);
    peer.sendBreakpoints(this.#sent, this.#version);
  }

  /**
   * Whether anyone watches the live feed changed (its first client came,
   * or its last went): every reporter is told, so that a hold nobody can
   * see is said where its host looks.
   */
  setWatching(watching: boolean): void {
    if (watching === this.#watching) return;
    this.#watching = watching;
    for (const peer of this.#peers.keys()) peer.sendViewers?.(watching);
  }

  /** A reporter went away: nothing waits for it any more. */
  leave(peer: BreakpointsPeer): void {
    if (!this.#peers.delete(peer)) return;
    for (const wait of this.#waits) this.#settled(wait, peer);
  }

  /** A reporter applied the breakpoints numbered `version` (and so every earlier change). */
  ack(peer: BreakpointsPeer, version: number): void {
    const acked = this.#peers.get(peer);
    // Not connected, or a version never sent (a reporter's mistake): changes nothing.
    if (acked === undefined || version > this.#version || version <= acked) return;
    this.#peers.set(peer, version);
    for (const wait of this.#waits) if (wait.version <= version) this.#settled(wait, peer);
  }

  /**
   * Replace the breakpoints and send them to every reporter. Without
   * `rules`, the rules in force stay (with their counts); `[]` clears them.
   * `pauseOnDrift` is a plain switch: absent is off.
   * Resolves once each reporter connected now has acked them or gone, or
   * after the bound (never rejects).
   */
  set(next: Breakpoints): Promise<void> {
    const { rules, ...rest } = next;
    if (rules !== undefined) this.#rules.replace(rules);
    this.#current = rest;
    this.#sent = this.#forReporters();
    const version = ++this.#version;
    for (const peer of this.#peers.keys()) peer.sendBreakpoints(this.#sent, version);
    if (this.#peers.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wait: AckWait = { version, waiting: new Set(this.#peers.keys()), done: resolve };
      const timer = this.#timers.set(() => this.#finish(wait), this.#timeoutMs);
      wait.done = () => {
        this.#timers.clear(timer);
        resolve();
      };
      this.#waits.add(wait);
    });
  }

  /** For `GET /api/health`. */
  health(): BreakpointsHealth {
    let applied = 0;
    for (const acked of this.#peers.values()) if (acked === this.#version) applied++;
    return { version: this.#version, reporters: this.#peers.size, applied };
  }

  /** `peer` no longer holds `wait` up. */
  #settled(wait: AckWait, peer: BreakpointsPeer): void {
    if (wait.waiting.delete(peer) && wait.waiting.size === 0) this.#finish(wait);
  }

  #finish(wait: AckWait): void {
    if (!this.#waits.delete(wait)) return;
    wait.done();
  }
}

/**
 * The version a reporter's `breakpoints.ack` message acknowledges, or
 * undefined for anything else (an event, or an ack of the wrong shape,
 * which is then malformed as a bad event is).
 */
export function breakpointsAck(message: unknown): number | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const { type, version } = message as Record<string, unknown>;
  return type === 'breakpoints.ack' && typeof version === 'number' && Number.isSafeInteger(version) && version > 0 ? version : undefined;
}
