/**
 * Who decided each hold of a run: the server's `decisions` meta. The server
 * appends a decision to it (a `run.meta` of its own) the moment one comes
 * through the API, before its reporter carries it out, so a run replayed
 * in order knows who decided a hold by the time that hold is let go. Read
 * by the replay (an instance's {@link InstanceChange}) and the exports.
 *
 * @module
 */
import type { HoldAction } from './control.js';

/** The meta key under which the server lists who decided each hold (see {@link decisionsOf}). */
export const DECISIONS_META_KEY = 'decisions';

/** Most decisions the server lists in a run's meta; older ones are dropped first. */
export const MAX_DECISIONS = 1000;

/** Who decided a hold, as the server recorded it when the decision came (`POST /api/holds/:holdId`). */
export interface DecisionRecord {
  /** The hold decided. */
  holdId: string;
  /** What was decided. */
  action: HoldAction;
  /** `viewer`, `api`, `graphmind mcp`, or what the caller named itself. */
  by: string;
  /** When the decision came (ISO 8601). */
  at: string;
}

/** Is `value` a well-formed decision record? */
function isDecision(value: unknown): value is DecisionRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { holdId, action, by, at } = value as Record<string, unknown>;
  return typeof holdId === 'string' && typeof action === 'string' && typeof by === 'string' && typeof at === 'string';
}

/** The decisions a run's meta lists ({@link DECISIONS_META_KEY}), by hold id; malformed entries are skipped. */
export function decisionsOf(meta: Record<string, unknown>): Map<string, DecisionRecord> {
  const out = new Map<string, DecisionRecord>();
  const list = meta[DECISIONS_META_KEY];
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (!isDecision(item)) continue;
    const { holdId, action, by, at } = item;
    out.set(holdId, { holdId, action, by, at });
  }
  return out;
}

/** The decision of one hold in a run's meta (the newest, when listed twice); undefined when the server recorded none. */
export function decisionOf(meta: Record<string, unknown>, holdId: string): DecisionRecord | undefined {
  const list = meta[DECISIONS_META_KEY];
  if (!Array.isArray(list)) return undefined;
  // Newest last: the hold let go now was decided moments ago.
  for (let i = list.length - 1; i >= 0; i--) {
    const item: unknown = list[i];
    if (isDecision(item) && item.holdId === holdId) return item;
  }
  return undefined;
}

/**
 * {@link decisionsOf} for a run read as it goes: the meta's list is read
 * again only when a decision replaced it (each `run.meta` makes a new one).
 */
export function decisionsReader(): (meta: Record<string, unknown>) => ReadonlyMap<string, DecisionRecord> {
  let from: unknown;
  let decisions: ReadonlyMap<string, DecisionRecord> = new Map();
  return (meta) => {
    const list = meta[DECISIONS_META_KEY];
    if (list !== from) {
      from = list;
      decisions = decisionsOf(meta);
    }
    return decisions;
  };
}

/**
 * The meta that records one more decision: the run's list with `decision`
 * appended (the newest {@link MAX_DECISIONS} kept). The server appends it
 * to the run as a `run.meta` event of its own (sequence 0), so the run's
 * log says who decided what, for the replay and for exports made later.
 */
export function withDecision(meta: Record<string, unknown>, decision: DecisionRecord): Record<string, unknown> {
  const list = Array.isArray(meta[DECISIONS_META_KEY]) ? (meta[DECISIONS_META_KEY] as unknown[]) : [];
  const next = [...list, decision];
  return { [DECISIONS_META_KEY]: next.length > MAX_DECISIONS ? next.slice(next.length - MAX_DECISIONS) : next };
}
