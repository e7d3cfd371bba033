/**
 * The control protocol's types: where the debugger stops frames
 * (breakpoints), the frames held right now, and a decision about one. The
 * REST API (docs/CONTROL-API.md), the live feed and the reporters all speak
 * in these.
 *
 * @module
 */

/**
 * A node's breakpoint: which gates hold its calls, and on which servers.
 */
export interface NodeBreakpoint {
  /** True: hold the node's requests (and notifications) at the before gate, before they reach the server or handler. */
  before?: boolean;
  /** True: hold the answers to the node's requests at the after gate, before they reach the requester. */
  after?: boolean;
  /**
   * The server it is scoped to: only sessions whose MCP server calls itself
   * this (`serverInfo.name` in its answer to `initialize`; for the adapter,
   * the wrapped server's name) hold here. Absent: every server (as before
   * scopes existed). A session whose server has not answered `initialize`
   * yet is held by breakpoints for every server only. 1 to 256 characters.
   */
  server?: string;
}

/** The most rules one {@link Breakpoints} may carry (a PUT with more is refused). */
export const MAX_RULES = 1000;

/**
 * A rule: a conditional breakpoint (`action: "pause"`) or a logpoint
 * (`action: "log"`). It applies to every frame at its gate whose call
 * matches its `when` expression (the condition language, docs/conditions.md).
 */
export interface BreakpointRule {
  /** The rule's id; the server gives `rule-<n>` when absent. 1 to 64 characters. */
  id?: string;
  /** The expression a frame's call must match (the condition language). */
  when: string;
  /** The gate it applies at: `before` (requests and notifications), `after` (answers) or `both`. @default 'before' */
  gate?: 'before' | 'after' | 'both';
  /** `pause`: hold the matching frame (`reason: "rule"`); `log`: never hold, record a logpoint line on the run. @default 'pause' */
  action?: 'pause' | 'log';
  /** How many matches it acts on before it disarms: `every`, `once` or a positive integer. @default 'every' */
  hits?: 'every' | 'once' | number;
  /** False: kept, but never matches. @default true */
  enabled?: boolean;
}

/** A rule as `GET /api/breakpoints` returns it: every default filled in, with its hit count and whether it still acts. */
export interface RuleState extends Required<BreakpointRule> {
  /** How many frames it has matched (held or logged) since it was set. */
  hitCount: number;
  /** False once its `hits` are used up (a disarmed rule matches nothing until it is set again). */
  armed: boolean;
}

/** Where the debugger stops frames. */
export interface Breakpoints {
  /** Hold failing calls (JSON-RPC errors and `isError` results), on every server. @default true */
  pauseOnError: boolean;
  /** Hold a list answer that differs from the session's first (or from the proxy's `--lock`), with reason `drift`. @default false */
  pauseOnDrift?: boolean;
  /** Per nodeId: hold before the request goes out, after the answer comes back; on one server or on every one. */
  nodes: Record<string, NodeBreakpoint>;
  /**
   * Conditional breakpoints and logpoints, at most {@link MAX_RULES}. A PUT
   * without `rules` keeps the rules as they are; `[]` clears them. `GET`
   * returns each as a {@link RuleState}; the server sends reporters the
   * armed ones only.
   */
  rules?: BreakpointRule[];
}

/** The gate a frame is held at. */
export type GatePoint = 'before' | 'after' | 'error';
/** What the user decides about a held frame. */
export type HoldAction = 'continue' | 'inject' | 'retry' | 'abort';

/** A frame held right now. */
export interface Hold {
  /** The hold's id, made by the reporter that holds it (the bundled gates make `hold_…`): `POST /api/holds/:holdId` decides it. */
  holdId: string;
  /** The run the held call belongs to. */
  runId: string;
  /** The node of the held call. */
  nodeId: string;
  /** The execution (of that node) the held frame belongs to. */
  instanceId: string;
  /** The gate it is held at: `before` (the request), `after` (the answer), `error` (a failed answer held by pause-on-error). */
  gate: GatePoint;
  /** The JSON-RPC method of the held call, e.g. `tools/call`. */
  method: string;
  /** The held JSON-RPC message, parsed (with the hide switches applied). */
  frame: unknown;
  /** When it started holding (ISO 8601): the time of its `hold.opened` event. */
  since: string;
  /** Why it holds: `breakpoint`, `error` (the error gate), `loop` (the loop hold) or `rule` (a rule matched: {@link Hold.ruleId}). */
  reason?: string;
  /** With `reason: "rule"`: the id of the {@link BreakpointRule} that held it. */
  ruleId?: string;
  /**
   * Set once the requester has given up on the held call, saying why (the
   * client sent `notifications/cancelled` for it, or closed the session).
   * The hold can still be decided; its answer then goes nowhere useful.
   * Reported by the reporter with a `hold.updated` event. An extension.
   */
  givenUp?: string;
}

/** A decision about a hold. */
export interface HoldDecision {
  /** What to do with the held frame (see docs/gates.md for what each does at each gate). */
  action: HoldAction;
  /**
   * With `inject`, and required there: the answer to give, lifted into the
   * method's result shape (a whole JSON-RPC message, with a `jsonrpc` key,
   * goes as it is); for a held notification, what goes in its place. Not
   * used with the other actions.
   */
  value?: unknown;
}

/**
 * How far the server's start-up load of its run logs has got, while it
 * loads: `GET /api/health` and the live feed's `snapshot` carry it as
 * `loading`, `GET /api/runs` as its `GraphMind-Loading` header
 * (`<loaded>/<total>`). Absent once every log is loaded.
 */
export interface RunsLoading {
  /** Logs read so far (those that could not be read included). */
  loaded: number;
  /** Logs found in the data directory (0 while it is still being listed). */
  total: number;
}

/** What `--max-runs` has deleted since the server started (the live feed's snapshot carries it as `trimmed`). */
export interface RunsTrimmed {
  /** How many runs it deleted (the oldest that had ended). */
  deleted: number;
  /** The server's `--max-runs`: the runs it keeps. */
  maxRuns: number;
}
