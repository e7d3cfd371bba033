// Two lines of a run's row in the run list: who talked (the session's
// client and server, from clientInfo and serverInfo) and what came of it
// (its calls and failed calls), both from the run's summary.
import type { RunSummary } from '../protocol/run-model.js';
import { el, setAttr } from './dom.js';
import { plural } from './format.js';

/** A name with its version, when it has one. */
function named(peer: { name: string; version?: string }): string {
  return peer.version === undefined ? peer.name : `${peer.name} ${peer.version}`;
}

/**
 * The run's client and server (a line with element id `id`): `claude-code 2.1.332 → tracker 0.3.1`.
 * Null when neither is known (an adapter run, a session before
 * `initialize`); a side not known yet is `…`.
 */
export function runPeers(run: RunSummary, id: string): HTMLElement | null {
  const { client, server } = run;
  if (client === undefined && server === undefined) return null;
  const clientText = client === undefined ? '…' : named(client);
  const serverText = server === undefined ? '…' : named(server);
  const line = el(
    'div',
    { class: 'run-line muted run-peers', title: `client ${clientText} → server ${serverText}`, attrs: { id } },
    el('span', { class: 'run-client', text: clientText }),
    el('span', { class: 'run-arrow', text: '→' }),
    el('span', { class: 'run-server', text: serverText }),
  );
  return line;
}

/**
 * The run's counts (a line with element id `id`): `12 calls · 4 failed` (`12 calls` when none failed).
 * Null before the run's first call.
 */
export function runCounts(run: RunSummary, id: string): HTMLElement | null {
  const calls = run.calls;
  if (typeof calls !== 'number') return null;
  const failed = typeof run.failedCalls === 'number' ? run.failedCalls : 0;
  const line = el('div', { class: 'run-line muted run-counts', attrs: { id } }, el('span', { class: 'run-calls', text: plural(calls, 'call') }));
  if (failed > 0) {
    line.appendChild(el('span', { class: 'run-sep', text: '·' }));
    line.appendChild(el('span', { class: 'run-failed', text: `${failed.toLocaleString()} failed` }));
  }
  setAttr(line, 'data-calls', String(calls));
  setAttr(line, 'data-failed', String(failed));
  return line;
}
