// A logpoint's line in the timeline: a rule with `action: "log"` matched a
// call, and the run recorded a log line on it (`stream: "logpoint"`) with
// the rule's id and the values its expression looked at. Shown apart from
// the server's stderr: a "logpoint" tag, the rule, the call, and the values
// as text (never as markup: they are the server's and the user's data).
import type { LogLine } from '../protocol/run-model.js';
import { el, setAttr } from './dom.js';
import { clock, cut } from './format.js';
import { logpointRule, logpointValues } from './logpoint-values.js';

export { isLogpoint } from './logpoint-values.js';

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
