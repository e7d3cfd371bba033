// What the debugger did to a call, the same wherever the call shows: a
// badge (injected by viewer, aborted by api, retried by graphmind mcp…)
// read from the run model's one field, `Instance.changed`; and the call's
// time split three ways (the server's, held by the debugger, what the client
// waited) by protocol/call-times, the rule `graphmind mcp` uses too.
import type { Instance } from '../protocol/run-model.js';
import { callTimes, changeText } from '../protocol/call-times.js';
import { changeWords } from './answer-pairs.js';
import { el, setAttr } from './dom.js';
import { duration, ordinal } from './format.js';

/** The tooltip of every change badge: why it is there. */
const CHANGED_TITLE = 'what the host got was decided in the debugger, not the server\'s own answer as it came';

/**
 * The badge of a call the debugger changed (`injected by viewer`; `compact`:
 * just `injected`, for the waterfall's narrow names), or null for one it
 * left alone. Its tooltip says all: the gate, and whether it replaced the
 * server's answer.
 */
export function changeBadge(instance: Instance, compact = false): HTMLElement | null {
  const full = changeText(instance);
  const words = changeWords(instance);
  const change = instance.changed;
  if (full === undefined || words === undefined || change === undefined) return null;
  const gate = change.gate === undefined ? '' : ` at the ${change.gate} gate`;
  const text = compact ? words.replace(/ by .*$/, '') : words;
  const badge = el('span', { class: 'changed-badge', text, title: `${full}${gate}: ${CHANGED_TITLE}` });
  setAttr(badge, 'data-action', change.action);
  setAttr(badge, 'data-by', change.by);
  return badge;
}

/**
 * What a call's answer block is labelled: `output`, or, when the debugger
 * changed it, whose it is (`output (injected by viewer)`), so a made-up
 * answer never reads as the server's plain output.
 */
export function answerLabel(base: 'output' | 'error', instance: Instance, tries: number): string {
  const text = changeWords(instance);
  if (text !== undefined && instance.changed?.action !== 'retry') return `${base} the host got (${text})`;
  if (tries > 0) return `${base} (${ordinal(tries + 1)} answer)`;
  return base;
}

/**
 * The call's time split, for its detail: the server's time, the time held
 * by the debugger and what the client waited in all, each apart. Null for a
 * call still waiting (its row's ticking time says it).
 */
export function timesLine(instance: Instance): HTMLElement | null {
  const times = callTimes(instance);
  if (times.waitedMs === null) return null;
  const line = el(
    'p',
    { class: 'call-times' },
    el('span', { class: 'time-server', text: `server ${times.serverMs === null ? 'never answered' : duration(times.serverMs)}`, title: "the server's time: what the client waited less the time the debugger held the call" }),
    el('span', { class: 'time-held', text: `held ${duration(times.heldMs)}`, title: "the debugger's time: the call's frames held at gates (before, after, error)" }),
    el('span', { class: 'time-waited', text: `client waited ${duration(times.waitedMs)}`, title: 'from the request to the answer the client got' }),
  );
  setAttr(line, 'data-server-ms', times.serverMs === null ? '' : String(times.serverMs));
  setAttr(line, 'data-held-ms', String(times.heldMs));
  setAttr(line, 'data-waited-ms', String(times.waitedMs));
  return line;
}
