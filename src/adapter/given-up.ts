import { cancelledBy } from '../gates/give-up.js';

/** Why a hold is given up when the client's connection closed under it (2.x says so). */
export const CLIENT_WENT_AWAY = 'the client went away (its connection to the server closed)';

/** Why a hold is given up when the SDK aborted its request without saying why (1.x, on a cancel without a reason or a closed connection). */
export const CLIENT_GAVE_UP = 'the client cancelled the request or went away (the SDK aborted the request)';

/**
 * Why a hold is reported given up (see the give-up rule, `gates/give-up`)
 * when the SDK aborts the signal of its request with `reason`. Pure.
 *
 * | reason | given up because |
 * |---|---|
 * | a string: the client's `notifications/cancelled` reason (1.x and 2.x) | the client cancelled the request, as the proxies say it |
 * | an Error saying "Connection closed" (2.x, when the connection closes) | {@link CLIENT_WENT_AWAY} |
 * | anything else (1.x aborts with no reason on a cancel without one and on a close) | {@link CLIENT_GAVE_UP} |
 */
export function givenUpWhy(reason: unknown): string {
  if (typeof reason === 'string') return cancelledBy('client-to-server', reason);
  if (reason instanceof Error && /connection closed/i.test(reason.message)) return CLIENT_WENT_AWAY;
  return CLIENT_GAVE_UP;
}
