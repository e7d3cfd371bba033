/**
 * The give-up rule, one for every integration (the stdio proxy, the HTTP
 * proxy, the in-process adapter):
 *
 * - A hold whose requester gives up (it cancels the request with
 *   `notifications/cancelled`, or its side of the session goes away while
 *   the session lives: the stdio host's input ends, an HTTP client closes
 *   its request, the SDK's signal for the request aborts) **stays open** to
 *   be decided. The user may still want to look at it, inject into it or
 *   abort it; what is decided goes where it can (nowhere, when the
 *   requester is gone).
 * - It is reported as given up: a `hold.updated` event whose `givenUp`
 *   says who gave up and why, for people, once per distinct reason (the
 *   same reason twice in a row is reported once; see {@link isNewGiveUp}).
 *   Only a hold still waiting for its decision is reported.
 * - When the whole session ends, the run's holds are released (an
 *   automatic `continue`, `DebuggerGate.releaseRun`), as when the debugger
 *   goes away: nobody is left to carry a decision out.
 *
 * `DebuggerGate.giveUp` carries the rule out; the texts of the reasons
 * shared by several integrations are here.
 *
 * @module
 */

/** The longest part of a cancellation's `reason` quoted in a given-up hold. */
export const CANCEL_REASON_MAX = 200;

/**
 * Why a hold is given up when its requester sends `notifications/cancelled`
 * for it: who cancelled (from the way the request travelled) and the
 * cancellation's own `reason`, cut to 200 characters (`CANCEL_REASON_MAX`).
 */
export function cancelledBy(direction: 'client-to-server' | 'server-to-client', reason: unknown): string {
  const who = direction === 'client-to-server' ? 'the client cancelled the request' : 'the server cancelled its request';
  const why = typeof reason === 'string' && reason !== '' ? `: ${reason.length > CANCEL_REASON_MAX ? `${reason.slice(0, CANCEL_REASON_MAX - 1)}…` : reason}` : '';
  return `${who} (notifications/cancelled${why})`;
}

/**
 * Is `why` a reason to report for a hold whose last reported reason is
 * `reported` (undefined: none yet)? Only a non-empty reason that differs
 * from the last one is: the debugger keeps one `givenUp` per hold, and
 * drops a repeat of the same reason anyway.
 */
export function isNewGiveUp(reported: string | undefined, why: string): boolean {
  return why !== '' && why !== reported;
}
