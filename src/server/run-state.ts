import type { Run } from '../report/events.js';
import { isoTime, RunReplay } from '../report/run-replay.js';

/**
 * One run as the server keeps it: the replay of its events (the same
 * reducer serves live ingest and the reload of a log from disk, so a
 * restarted server sees exactly what the live one did), and its end when
 * its reporter vanishes.
 */
export class RunState extends RunReplay {
  constructor(runId: string, t: number) {
    super({ runId, name: runId, source: 'unknown', status: 'running', startedAt: isoTime(t), endedAt: null });
  }

  /** Instances recorded so far. */
  get instanceCount(): number {
    return this.instances.length;
  }

  /** Close a run whose reporter vanished: open work will never finish. */
  abandon(t: number): void {
    if (this.summary.status !== 'running') return;
    this.revision++;
    this.summary.status = 'error';
    this.summary.endedAt = isoTime(t);
  }

  /** The whole run, as `GET /api/runs/:runId` returns it. */
  toRun(): Run {
    return {
      ...this.summary,
      meta: this.meta,
      nodes: this.graphNodes(),
      instances: this.instances,
      logs: this.logs,
      droppedEvents: this.droppedEvents,
      lastSeq: this.lastSeq,
    };
  }
}
