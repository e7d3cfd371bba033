// A call's own lines in its row of the node detail: what the server printed
// outside the protocol while that call was the only one in flight. Stderr
// lines are the run's log lines attributed to it (LogLine.instanceId);
// stdout noise is a mcp:stdout-noise record whose error data names it
// ({ during: { instanceId } }). The timeline still shows every one of them.
import type { Instance, LogLine } from '../protocol/run-model.js';
import { el, setAttr } from './dom.js';
import { clock, plural } from './format.js';
import { STDOUT_NOISE_NODE_ID, type RunModel } from './run-model.js';

/** Lines drawn in a call's row; the rest are counted (the timeline has them all). */
const SHOWN_LINES = 200;

/** A run's attributed log lines by call, brought up to date as lines arrive (a run's logs only grow). */
interface LinesIndex {
  /** Log lines read so far. */
  read: number;
  byCall: Map<string, LogLine[]>;
}

const indexes = new WeakMap<RunModel, LinesIndex>();

/** The index of `run`, with the lines that came since it was last asked. */
function indexOf(run: RunModel): LinesIndex {
  let index = indexes.get(run);
  if (index === undefined) indexes.set(run, (index = { read: 0, byCall: new Map() }));
  const logs = run.logs;
  for (; index.read < logs.length; index.read++) {
    const log = logs[index.read] as LogLine;
    const id = log.instanceId;
    if (id === undefined) continue;
    const list = index.byCall.get(id);
    if (list === undefined) index.byCall.set(id, [log]);
    else list.push(log);
  }
  return index;
}

/** The call a stdout-noise record came during, from its error data. */
function noiseDuring(noise: Instance): string | undefined {
  const data = noise.error?.data;
  if (data === null || typeof data !== 'object') return undefined;
  const during = (data as Record<string, unknown>).during;
  if (during === null || typeof during !== 'object') return undefined;
  const id = (during as Record<string, unknown>).instanceId;
  return typeof id === 'string' ? id : undefined;
}

/** One line of a call: when, from where, what. */
interface CallLine {
  at: string;
  stream: string;
  text: string;
}

/** The lines of `instance`, in the order they came: its stderr lines, and its stdout noise (at most 25 records exist). */
export function callLinesOf(run: RunModel, instance: Instance): CallLine[] {
  const id = instance.instanceId;
  const lines: CallLine[] = (indexOf(run).byCall.get(id) ?? []).map((log) => ({ at: log.at, stream: log.stream, text: log.text }));
  for (const noise of run.node(STDOUT_NOISE_NODE_ID)?.instances ?? []) {
    if (typeof noise.input === 'string' && noiseDuring(noise) === id) lines.push({ at: noise.startedAt, stream: 'stdout', text: noise.input });
  }
  return lines.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** How many lines `instance` has (for a row's version: a line that arrives redraws an open row). */
export function callLineCount(run: RunModel | null, instance: Instance): number {
  if (run === null) return 0;
  const id = instance.instanceId;
  let count = indexOf(run).byCall.get(id)?.length ?? 0;
  for (const noise of run.node(STDOUT_NOISE_NODE_ID)?.instances ?? []) if (noiseDuring(noise) === id) count++;
  return count;
}

/** The block of a call's lines for its expanded row; null when it has none. */
export function callLinesBlock(run: RunModel | null, instance: Instance): HTMLElement | null {
  if (run === null) return null;
  const lines = callLinesOf(run, instance);
  if (lines.length === 0) return null;
  const list = el('ol', { class: 'call-lines-list' });
  for (const line of lines.slice(0, SHOWN_LINES)) {
    list.appendChild(
      el(
        'li',
        { class: `call-line tl-log stream-${line.stream === 'stderr' ? 'stderr' : 'other'}` },
        el('span', { class: 'tl-time', text: clock(line.at) }),
        el('span', { class: 'tl-tag', text: line.stream }),
        el('span', { class: 'tl-text', text: line.text }),
      ),
    );
  }
  const more = lines.length > SHOWN_LINES ? ` (the first ${SHOWN_LINES}; the timeline has them all)` : '';
  const block = el(
    'div',
    { class: 'call-lines' },
    el('div', { class: 'call-lines-title', text: `Printed while this was the only call in flight: ${plural(lines.length, 'line')}${more}` }),
    list,
  );
  setAttr(block, 'aria-label', 'lines of this call');
  return block;
}
