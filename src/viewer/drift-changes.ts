// Live drift on a list call (issue 32): a list answer that differs from the
// session's first (or from the proxy's --lock) is recorded as a log line on
// the call, `stream: "drift"`, its first line for people and then one line
// per change, `<class>: <message>` (relay/drift-watch.ts writes it). Here the
// call's detail shows those changes, each with its class.
import type { Instance, LogLine } from '../protocol/run-model.js';
import { el, setAttr } from './dom.js';
import { DRIFT_STREAM, parseDriftText } from './drift-text.js';
import type { RunModel } from './run-model.js';

/** The drift lines recorded on `instance` (only list calls can have them). */
function driftLines(run: RunModel, instance: Instance): LogLine[] {
  if (!instance.nodeId.endsWith('/list')) return [];
  return run.logs.filter((log) => log.stream === DRIFT_STREAM && log.instanceId === instance.instanceId);
}

/**
 * What changed in a list call's answer, class and message per change, or
 * null for a call with no drift recorded.
 */
export function driftChangesBlock(run: RunModel | null, instance: Instance): HTMLElement | null {
  if (run === null) return null;
  const lines = driftLines(run, instance);
  if (lines.length === 0) return null;
  const block = el('div', { class: 'drift-changes' });
  for (const line of lines) {
    const { heading, changes } = parseDriftText(line.text);
    block.appendChild(el('p', { class: 'drift-heading', text: heading }));
    const list = el('ul', { class: 'drift-list' });
    for (const change of changes) {
      const item = el('li', { class: `drift-change drift-${change.class}` }, el('span', { class: 'drift-class', text: change.class }), el('span', { class: 'drift-message', text: change.message }));
      setAttr(item, 'data-class', change.class);
      list.appendChild(item);
    }
    block.appendChild(list);
  }
  return block;
}
