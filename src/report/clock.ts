/**
 * The wall clock events are stamped with (`t`, milliseconds since the
 * epoch), cheaper than a `Date.now()` per event.
 *
 * `Date.now()` is a call into the runtime (a clock read), and a busy proxy
 * stamps two events per call. This clock reads the time once, then hands
 * out the same value until a 1 ms timer refreshes it, or until it has been
 * handed out {@link MAX_USES} times, whichever comes first; the timer runs
 * only while events are being stamped (it stops after a millisecond with
 * none) and is unref'd, so it never keeps a process alive nor wakes an idle
 * one. A value is never older than the last refresh: after an idle spell
 * the first event reads the clock afresh, and within a long burst the time
 * is read again at least every {@link MAX_USES} events. Event times have
 * millisecond resolution on the wire anyway.
 *
 * @module
 */

/** Events stamped with one reading of the clock, at most. */
const MAX_USES = 64;

let now = 0;
/** Uses left of `now` before the clock is read again. */
let budget = 0;
/** Whether the clock was used since the last refresh. */
let used = false;
let timer: NodeJS.Timeout | undefined;

function refresh(): void {
  if (!used) {
    // Nothing to stamp for a whole millisecond: stop until something is.
    clearInterval(timer);
    timer = undefined;
    budget = 0;
    return;
  }
  used = false;
  now = Date.now();
  budget = MAX_USES;
}

function read(): number {
  now = Date.now();
  budget = MAX_USES - 1;
  if (timer === undefined) {
    timer = setInterval(refresh, 1);
    timer.unref();
  }
  return now;
}

/** The current wall-clock time in milliseconds since the epoch (see the module notes). */
export function wallClock(): number {
  used = true;
  if (budget > 0) {
    budget--;
    return now;
  }
  return read();
}
