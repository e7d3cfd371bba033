// How a call is shown, the same in every list: its state (a held call is
// "held", whatever the record says: a held answer has not reached the
// client), how long it took as the client saw it, its JSON-RPC id when a
// hold shows it, and why a hold holds.
import type { Instance } from '../protocol/run-model.js';
import { callTimes } from '../protocol/call-times.js';
import type { Hold } from '../protocol/control.js';
import { el } from './dom.js';
import { duration, span } from './format.js';
import { shownState, type RunModel, type ShownStatus } from './run-model.js';

/** A call's state as the lists show it. */
export type CallState = ShownStatus | 'held';

/** How one call is shown. */
export interface CallView {
  state: CallState;
  /** The pill's classes (`pill` excluded). */
  pillClass: string;
  /** The hold on it, if it is held. */
  hold: Hold | undefined;
  /** Milliseconds from its request to the answer the client got; undefined while it waits (or never got one). */
  took: number | undefined;
  /** While it waits (open, or held): since when, for a ticking time. */
  waitingSince: string | undefined;
  /** The answer reached the client later than it came: held at an after gate this long. */
  heldAnswer: number | undefined;
  /** Time held at the debugger's gates (ms, 0 when never held): the debugger's, not the server's. */
  heldMs: number;
  /** The server's time (what the client waited less the time held); null when the server never answered. */
  serverMs: number | null;
}

/** How `instance` is shown in `run`, held by `hold` or not. */
export function callView(instance: Instance, run: RunModel | null, hold: Hold | undefined): CallView {
  const shown = shownState(instance.status, run);
  if (hold !== undefined) {
    return { state: 'held', pillClass: 'status-held', hold, took: undefined, waitingSince: instance.startedAt, heldAnswer: undefined, heldMs: instance.heldMs ?? 0, serverMs: null };
  }
  const pillClass = `status-${instance.status}${shown === 'unfinished' ? ' unfinished' : ''}`;
  const times = callTimes(instance);
  const { heldMs, serverMs } = times;
  if (instance.endedAt === null) return { state: shown, pillClass, hold, took: undefined, waitingSince: shown === 'open' ? instance.startedAt : undefined, heldAnswer: undefined, heldMs, serverMs };
  const end = instance.deliveredAt ?? instance.endedAt;
  const heldAnswer = instance.deliveredAt === undefined ? undefined : span(instance.endedAt, instance.deliveredAt);
  return { state: shown, pillClass, hold, took: span(instance.startedAt, end), waitingSince: undefined, heldAnswer, heldMs, serverMs };
}

/** `waiting 3.20 s`: the ticking time of a call the client still waits for. */
export function waitingText(ms: number): string {
  return `waiting ${duration(ms)}`;
}

/** The duration a list shows for a call. */
export function tookText(view: CallView): string {
  if (view.waitingSince !== undefined) return view.state === 'held' ? waitingText(span(view.waitingSince, null)) : `open ${duration(span(view.waitingSince, null))}`;
  if (view.state === 'unfinished') return 'unfinished';
  if (view.took === undefined) return '';
  // Held time is the debugger's: the server's time first, the hold apart.
  if (view.heldMs <= 0) return duration(view.took);
  return `${serverText(view)} + ${duration(view.heldMs)} held`;
}

/** The server's time of an ended call: `502 ms`, or `no server` when the server never answered it. */
export function serverText(view: CallView): string {
  return view.serverMs === null ? 'no server' : duration(view.serverMs);
}

/** The tooltip of a call's duration: what it measures. */
export function tookTitle(instance: Instance, view: CallView): string | undefined {
  if (view.took === undefined) return view.state === 'held' ? 'the client is still waiting: the call is held' : undefined;
  const parts = [view.heldMs > 0 ? `the client waited ${duration(view.took)} from the request to the answer it got: ${view.serverMs === null ? 'the server never answered' : `the server's time ${duration(view.serverMs)}`}, held ${duration(view.heldMs)} by the debugger` : 'from the request to the answer the client got'];
  if (view.heldAnswer !== undefined) parts.push(`the answer was held ${duration(view.heldAnswer)} at the gate`);
  const tries = instance.attempts?.length ?? 0;
  if (tries > 0) parts.push(`the request was sent ${tries + 1} times (Retry)`);
  return parts.join('; ');
}

/** The JSON-RPC id of a held frame (the `#5` of the proxy's HOLDING line), as text, if it has one. */
export function heldRequestId(hold: Hold | undefined): string | undefined {
  const frame = hold?.frame;
  if (frame === null || typeof frame !== 'object') return undefined;
  const id = (frame as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? String(id) : undefined;
}

/** The chip that shows a held call's JSON-RPC id, or null. */
export function requestIdChip(hold: Hold | undefined): HTMLElement | null {
  const id = heldRequestId(hold);
  if (id === undefined) return null;
  const text = id.length > 40 ? `${id.slice(0, 39)}…` : id;
  return el('span', { class: 'rpc-id', text: `#${text}`, title: `JSON-RPC id ${id}: the #${id} of the proxy's HOLDING line` });
}

/** What a hold's reason is called on the page. */
export function reasonText(hold: Hold): string | undefined {
  switch (hold.reason) {
    case 'loop':
      return 'loop hold';
    case 'breakpoint':
      return 'breakpoint';
    case 'error':
      return 'pause on error';
    case 'rule':
      return hold.ruleId === undefined || hold.ruleId === '' ? 'rule' : `rule ${hold.ruleId.length > 40 ? `${hold.ruleId.slice(0, 39)}…` : hold.ruleId}`;
    case 'drift':
      return 'the tool list changed';
    default:
      return hold.reason === undefined || hold.reason === '' ? undefined : hold.reason;
  }
}

/** `held · before · loop hold`: a short badge text for a hold. */
export function holdBadge(hold: Hold, prefix = 'held'): string {
  const reason = reasonText(hold);
  return [`${prefix} · ${hold.gate}`, reason, hold.givenUp === undefined ? undefined : 'given up'].filter((part) => part !== undefined).join(' · ');
}
