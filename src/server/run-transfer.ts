/**
 * The server's side of export and import (`GET /api/runs/:runId/export`,
 * `POST /api/runs/import`, routed by export-routes.ts): a run exported
 * from its log as it is read, up to the run's last event when asked, and a run log
 * loaded as a run of this server, told to the viewers but not streamed.
 *
 * @module
 */
import type { RunTransfer } from './export-routes.js';
import type { LiveFeed } from './live-feed.js';
import type { ObservedRunStore } from './observed-store.js';

/** The export and import of `store`'s runs; `version` is GraphMind's (HAR's creator, the spans' scope). */
export function createRunTransfer(store: ObservedRunStore, feed: LiveFeed, version: string): RunTransfer {
  return {
    knows: (runId) => store.get(runId) !== undefined,
    async exportRun(runId, format, sink, options) {
      const state = store.get(runId);
      if (state === undefined) return 'unknown';
      // The snapshot: the run as it is at this moment, up to its last event, read in one pass
      // (lines still on their way to the log are waited for; later ones are not read).
      const askedAt = Date.now();
      const live = state.summary.status === 'running';
      const untilSeq = state.lastSeq;
      const { exportRun } = await import('../export/export-run.js');
      store.flush();
      // A run in a segment gets a log of its own first (see RunStore.logFile).
      return exportRun(store.logFile(runId), runId, format, sink, { version, live, untilSeq, askedAt, redact: options?.redact, where: options?.where });
    },
    async importRun(log) {
      if (store.has(log.runId)) return 'exists';
      if (store.isDeleted(log.runId)) return 'deleted';
      // Someone else's run is not news to the OTLP stream: it is not sent.
      store.muted = true;
      try {
        for (const event of log.events) store.append(event);
        const loaded = store.get(log.runId);
        // A log that does not end with the run's end ends as a stopped server's does: in error, at its last event.
        if (loaded !== undefined && loaded.summary.status === 'running') store.abandon(log.runId, loaded.lastT);
      } finally {
        store.muted = false;
      }
      const state = store.get(log.runId);
      if (state !== undefined) feed.broadcast({ type: 'run.started', run: { ...state.summary } });
      // Retention trims on the next microtask: an import older than every run kept goes at once.
      await new Promise((resolve) => setImmediate(resolve));
      const kept = store.get(log.runId);
      return kept === undefined ? 'trimmed' : { ...kept.summary };
    },
  };
}
