// A logpoint's line in the timeline: a rule with `action: "log"` matched a
// call, and the run recorded a log line on it (`stream: "logpoint"`) with
// the rule's id and the values its expression looked at. Shown apart from
// the server's stderr: a "logpoint" tag, the rule, the call, and the values
// as text (never as markup: they are the server's and the user's data).
import type { LogLine } from '../protocol/run-model.js';
import { el, setAttr } from './dom.js';
import { clock, cut } from './format.js';

/** The stream of a logpoint's line. */
export const LOGPOINT_STREAM = 'logpoint';

/** What a logpoint line may carry beyond a log line's fields (read defensively: a reporter may leave any out). */
interface LogpointFields {
  ruleId?: unknown;
  values?: unknown;
}

/** Is this a logpoint's line? */
export function isLogpoint(log: LogLine): boolean {
  return log.stream === LOGPOINT_STREAM;
}

/** A value looked at, in short text: JSON, cut to `max` characters. */
export function valueText(value: unknown, max = 120): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return cut(text, max);
}

/** The values a logpoint line carries, as `at = value` pairs (those well formed; at most `limit`). */
export function logpointValues(log: LogLine, limit = 8): Array<{ at: string; value: string }> {
  const values = (log as LogLine & LogpointFields).values;
  if (!Array.isArray(values)) return [];
  const out: Array<{ at: string; value: string }> = [];
  for (const entry of values as unknown[]) {
    if (out.length >= limit) break;
    if (entry === null || typeof entry !== 'object') continue;
    const { at, value } = entry as { at?: unknown; value?: unknown };
    if (typeof at !== 'string') continue;
    out.push({ at: cut(at, 80), value: valueText(value) });
  }
  return out;
}

/** The rule a logpoint line names, if it names one. */
export function logpointRule(log: LogLine): string | undefined {
  const ruleId = (log as LogLine & LogpointFields).ruleId;
  return typeof ruleId === 'string' && ruleId !== '' ? ruleId : undefined;
}

/** The timeline row of a logpoint line. */
export function logpointRow(log: LogLine): HTMLElement {
  const rule = logpointRule(log);
  const text = el('span', { class: 'tl-text' });
  if (rule !== undefined) text.append(el('code', { class: 'lp-rule', text: cut(rule, 64), title: `rule ${rule}` }), ' ');
  if (log.instanceId !== undefined) text.append(el('span', { class: 'muted lp-call', text: log.instanceId }), ' ');
  const values = logpointValues(log);
  if (values.length > 0) {
    for (const { at, value } of values) text.append(el('span', { class: 'lp-value' }, el('code', { class: 'lp-at', text: at }), ' = ', el('code', { class: 'lp-val', text: value })), ' ');
  } else text.append(el('span', { class: 'lp-text', text: log.text }));
  const row = el(
    'div',
    { class: 'tl tl-log tl-logpoint', title: log.text },
    el('span', { class: 'tl-time', text: clock(log.at) }),
    el('span', { class: 'tl-tag', text: 'logpoint' }),
    text,
  );
  if (rule !== undefined) setAttr(row, 'data-rule-id', rule);
  return row;
}
