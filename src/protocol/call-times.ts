/**
 * Where a call's time went: the server's, the debugger's (held at gates),
 * and what the requester waited in all. One rule for every place a
 * duration shows (the viewer's rows and waterfall, `graphmind mcp`'s calls
 * and slow-call problems), read from the run model alone.
 *
 * @module
 */
import type { Instance } from './run-model.js';

/** A call's time, split (milliseconds). */
export interface CallTimes {
  /**
   * What the requester waited: from the call's start to the answer it got
   * (`deliveredAt` when a held answer went on later, else `endedAt`; `now`
   * for a call still open, when given). Null for an open call without `now`.
   */
  waitedMs: number | null;
  /** The debugger's: time held at gates ({@link Instance.heldMs}), at most `waitedMs`; 0 for a call never held. */
  heldMs: number;
  /**
   * The server's: what the requester waited less the time held. Null when
   * the server never answered the call (the debugger injected an answer or
   * aborted it at the before gate), or when `waitedMs` is.
   */
  serverMs: number | null;
}

/** The split of `instance`'s time (see {@link CallTimes}); `now` (ms since the epoch) counts an open call up to it. */
export function callTimes(instance: Instance, now?: number): CallTimes {
  const heldMs = instance.heldMs ?? 0;
  const start = Date.parse(instance.startedAt);
  const end = instance.deliveredAt ?? instance.endedAt;
  const until = end === null ? now : Date.parse(end);
  if (until === undefined || Number.isNaN(start) || Number.isNaN(until)) return { waitedMs: null, heldMs, serverMs: null };
  const waitedMs = Math.max(0, until - start);
  // A hold is let go a moment after the answer a decision made went out: never counted past the requester's wait.
  const held = Math.min(heldMs, waitedMs);
  const change = instance.changed;
  // Answered by the debugger before the server had answered: the server's part of it is unknown, not zero.
  const unanswered = change !== undefined && change.action !== 'retry' && change.server === undefined;
  return { waitedMs, heldMs: held, serverMs: unanswered ? null : Math.max(0, waitedMs - held) };
}

/** The words for who changed a call and how, for badges and lists: `injected by viewer`, `aborted by api`, `retried by graphmind mcp`. */
export function changeText(instance: Instance): string | undefined {
  const change = instance.changed;
  if (change === undefined) return undefined;
  const verb = change.action === 'inject' ? 'injected' : change.action === 'abort' ? 'aborted' : 'retried';
  const where = change.server !== undefined ? ' (replaced the server\'s answer)' : '';
  return `${verb} by ${change.by}${where}`;
}
