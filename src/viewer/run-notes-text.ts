// The words of the run list's notes (run-list-notes.ts), free of the DOM so
// that a test in Node can check them.
import type { RunsLoading } from '../protocol/control.js';

/** A count with thousands separators, the same in every locale: `10,000`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `loading 4,210 of 10,000` (`loading runs…` while the server still lists its logs). */
export function loadingText(loading: RunsLoading): string {
  return loading.total === 0 ? 'loading runs…' : `loading ${count(loading.loaded)} of ${count(loading.total)}`;
}

/** `deleted 12 oldest runs to keep --max-runs 200`, as the server's stderr says it. */
export function trimmedText(deleted: number, maxRuns: number): string {
  return `deleted ${count(deleted)} oldest run${deleted === 1 ? '' : 's'} to keep --max-runs ${count(maxRuns)}`;
}
