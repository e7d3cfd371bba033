/**
 * What `graphmind mcp` says of a call the debugger changed, and of where
 * its time went, pure: read from the run model's `Instance.changed` and
 * `callTimes` (one rule, shared with the viewer), so an assistant never
 * takes an injected answer for the server's, nor held time for slowness.
 *
 * @module
 */
import { callTimes, changeText } from '../protocol/call-times.js';
import type { Instance } from '../protocol/run-model.js';
import { capValue, preview } from './cap.js';
import { PREVIEW_CHARS } from './limits.js';
import { object, oneOf, string, stringOrNull, anything, numberOrNull } from './schemas.js';

/** A call's time split: the server's, the debugger's (held), and what the requester waited (ms). */
export interface TimeSplit {
  /** The server's time: what the requester waited less the time held; null when the server never answered (or still open). */
  serverMs: number | null;
  /** Time held at the debugger's gates (its breakpoints), not the server's. */
  heldMs: number;
  /** What the requester waited in all; null while open. */
  waitedMs: number | null;
}

/** The time split of `instance` (see {@link TimeSplit}). */
export function timeSplit(instance: Instance): TimeSplit {
  const { serverMs, heldMs, waitedMs } = callTimes(instance);
  return { serverMs, heldMs, waitedMs };
}

/** What the debugger did to a call, as the tools show it. */
export interface ChangeView {
  /** `inject`, `abort` or `retry`. */
  action: string;
  /** The gate it was decided at (`before`, `after`, `error`), or null when not known. */
  gate: string | null;
  /** Who decided: `viewer`, `api`, `graphmind mcp`, … (`unknown` when not recorded). */
  by: string;
  /** When (ISO 8601). */
  at: string;
  /** Short, for a badge or a list: `injected by viewer`, `aborted by api (replaced the server's answer)`. */
  label: string;
  /** One line for people: the label, then whose the output is. */
  summary: string;
  /** The server's own answer the decision replaced (its output or error, capped), when there was one. */
  serverAnswer?: { status: string; output?: unknown; error?: unknown };
}

/** The words that say whose answer the requester got. */
function whose(instance: Instance): string {
  const change = instance.changed;
  if (change === undefined) return '';
  if (change.action === 'retry') return 'the request was sent again: the output is the server\'s answer to the last attempt';
  if (change.server !== undefined) return 'the output is the debugger\'s, not the server\'s (the server\'s own answer is in serverAnswer)';
  return 'the output is the debugger\'s: the server never answered this call';
}

/** The view of what the debugger did to `instance`; null when it got the server's answer untouched. `maxChars` caps the server's answer. */
export function changeView(instance: Instance, maxChars = PREVIEW_CHARS): ChangeView | null {
  const change = instance.changed;
  if (change === undefined) return null;
  const label = changeText(instance) ?? '';
  const view: ChangeView = { action: change.action, gate: change.gate ?? null, by: change.by, at: change.at, label, summary: `${label}: ${whose(instance)}` };
  const server = change.server;
  if (server !== undefined) {
    view.serverAnswer = { status: server.status };
    if (server.output !== undefined) view.serverAnswer.output = capValue(server.output, maxChars).value;
    if (server.error !== undefined) view.serverAnswer.error = capValue(server.error, maxChars).value;
  }
  return view;
}

/**
 * Who had the debugger send `instance` (Send again: `viewer`, `api`,
 * `graphmind mcp`, …), or null for a call the host made. A call the
 * debugger sent is not the host's: its answer never reached the host.
 */
export function sentByOf(instance: Instance): string | null {
  return instance.sentBy ?? null;
}

/** Short, for a list: `sent again by viewer: not the host's call`. */
export function sentLabel(by: string): string {
  return `sent again by ${by}: not the host's call`;
}

/** One line for people: who had the debugger send it, and that the host neither made it nor got its answer. */
export function sentSummary(by: string): string {
  return `the debugger sent this request itself (Send again, for ${by}): the host did not make this call and never got its answer`;
}

/** A preview of the server's replaced answer, for a line of text ('' when none). */
export function serverAnswerLine(view: ChangeView | null): string {
  if (view?.serverAnswer === undefined) return '';
  const { status, output, error } = view.serverAnswer;
  return `the server's own answer (${status}): ${preview(error ?? output, 600)}`;
}

/** How a call's time reads in a line: `12 ms server + 5000 ms held = 5012 ms waited`. */
export function timeText(split: TimeSplit): string {
  if (split.waitedMs === null) return 'still open';
  if (split.heldMs === 0) return `${split.waitedMs} ms`;
  const server = split.serverMs === null ? 'no server time' : `${split.serverMs} ms server`;
  return `${server} + ${split.heldMs} ms held by the debugger = ${split.waitedMs} ms waited`;
}

/** The output schemas of the fields above. */
export const timeSplitSchema = { serverMs: numberOrNull, heldMs: numberOrNull, waitedMs: numberOrNull };

/** The schema of {@link ChangeView}, or null. */
export const changeSchema = {
  anyOf: [
    object(
      {
        action: oneOf(['inject', 'abort', 'retry']),
        gate: stringOrNull,
        by: string,
        at: string,
        label: string,
        summary: string,
        serverAnswer: object({ status: string, output: anything, error: anything }, ['output', 'error']),
      },
      ['serverAnswer'],
    ),
    { type: 'null' },
  ],
};
