import type { Breakpoints, GatePoint, NodeBreakpoint } from '../protocol/control.js';

/** Why a frame or a handler is held. */
export type HoldReason = 'breakpoint' | 'error' | 'loop' | 'rule';

/** A place where a call may stop, as a hold policy sees it. */
export interface HoldQuery {
  /** `before`: the call has not run (nothing is in flight); `after`: its answer is known. */
  point: 'before' | 'after';
  /** The graph node of the call. */
  nodeId: string;
  /** At `after`: the answer is a failure (a JSON-RPC error, an `isError` result, a thrown error). */
  failed?: boolean;
  /** At `before`: the loop detector says this call completes a loop. */
  loop?: boolean;
  /**
   * The name of the MCP server the call is made to (`serverInfo.name` from
   * its answer to `initialize`; the adapter's wrapped server's name), once
   * known: a breakpoint scoped to a server holds only calls to that one.
   * Undefined while unknown, when only breakpoints for every server apply.
   */
  server?: string;
  /**
   * The pause rule that holds this frame, if any: asked only when no
   * node breakpoint holds it (it counts the rule's hit). Absent when no
   * rule applies at this gate, so that a gate without rules costs nothing.
   */
  rule?: () => string | undefined;
}

/** Where a call holds, and why. */
export interface HoldPlan {
  /** The gate the call holds at (`error` for a failed answer held by pause-on-error). */
  point: GatePoint;
  /** Why it holds. */
  reason: HoldReason;
  /** With `reason: "rule"`: the id of the rule that holds it. */
  ruleId?: string;
}

/**
 * The hold policy, shared by every integration: does a call stop here, at
 * which gate, and why. Pure: it reads the breakpoints and the query only.
 *
 * | point | holds when | gate | reason |
 * |---|---|---|---|
 * | before | a `before` breakpoint on the node | before | breakpoint |
 * | before | otherwise, a pause rule at `before` matches | before | rule |
 * | before | otherwise, the call completes a loop | before | loop |
 * | after | an `after` breakpoint on the node | after | breakpoint |
 * | after | otherwise, a pause rule at `after` matches | after | rule |
 * | after | otherwise, the answer failed and pause-on-error is on | error | error |
 *
 * A node's breakpoint counts only where it applies: it has no `server`
 * (every server), or its `server` is the query's (a query whose server is
 * not known yet meets only breakpoints for every server). Pause-on-error
 * and rules are for every server. Nothing else holds.
 */
export function holdPlan(breakpoints: Breakpoints, query: HoldQuery): HoldPlan | undefined {
  let node: NodeBreakpoint | undefined = breakpoints.nodes[query.nodeId];
  if (node?.server !== undefined && node.server !== query.server) node = undefined;
  if (query.point === 'before') {
    if (node !== undefined && node.before === true) return BREAK_BEFORE;
    const ruleId = query.rule?.();
    if (ruleId !== undefined) return { point: 'before', reason: 'rule', ruleId };
    return query.loop === true ? LOOP : undefined;
  }
  if (node !== undefined && node.after === true) return BREAK_AFTER;
  const ruleId = query.rule?.();
  if (ruleId !== undefined) return { point: 'after', reason: 'rule', ruleId };
  return query.failed === true && breakpoints.pauseOnError ? ERROR : undefined;
}

const BREAK_BEFORE: HoldPlan = Object.freeze({ point: 'before', reason: 'breakpoint' });
const LOOP: HoldPlan = Object.freeze({ point: 'before', reason: 'loop' });
const BREAK_AFTER: HoldPlan = Object.freeze({ point: 'after', reason: 'breakpoint' });
const ERROR: HoldPlan = Object.freeze({ point: 'error', reason: 'error' });
