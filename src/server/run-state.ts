import type { GraphNode, Instance, LogLine, Run, RunEvent, RunSummary } from '../report/events.js';

interface NodeCounts {
  node: Omit<GraphNode, 'status'>;
  open: number;
  errors: number;
}

/** The last second formatted, and the last time: events come in bursts of the same few milliseconds. */
let isoSecond = NaN;
let isoPrefix = '';
let isoT = NaN;
let isoText = '';

/**
 * `new Date(t).toISOString()`, which costs about a microsecond: it is done
 * for nearly every event, so the formatted second is kept and only the
 * milliseconds are written again. `t` is validated to be within Date range.
 */
function iso(t: number): string {
  if (t === isoT) return isoText;
  const ms = Math.floor(t);
  const second = Math.floor(ms / 1000);
  let text: string;
  if (second === isoSecond) {
    const milli = ms - second * 1000;
    text = `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  } else {
    text = new Date(t).toISOString();
    // `.mmmZ` ends every ISO string Date makes; a negative fractional time rounds toward zero, so no shortcut for it.
    if (t >= 0) {
      isoSecond = second;
      isoPrefix = text.slice(0, -4);
    }
  }
  isoT = t;
  isoText = text;
  return text;
}

/**
 * One run, rebuilt by replaying its events in order. The same reducer serves
 * live ingest and the reload of a log from disk, so a restarted server sees
 * exactly what the live one did.
 */
export class RunState {
  readonly summary: RunSummary;
  meta: Record<string, unknown> = {};
  droppedEvents = 0;
  /** The highest sequence number applied; repeats are ignored. */
  lastSeq = 0;
  /** Time of the last event, ms. */
  lastT = 0;
  readonly #nodes = new Map<string, NodeCounts>();
  readonly #instances: Instance[] = [];
  readonly #byId = new Map<string, Instance>();
  readonly #logs: LogLine[] = [];

  constructor(runId: string, t: number) {
    this.summary = { runId, name: runId, source: 'unknown', status: 'running', startedAt: iso(t), endedAt: null };
  }

  /** Instances recorded so far. */
  get instanceCount(): number {
    return this.#instances.length;
  }

  /**
   * Apply one event. Returns false when it changed nothing (a repeat).
   * Sequence 0 marks events the server or reporter adds out of sequence.
   */
  apply(event: RunEvent): boolean {
    if (event.type !== 'run.started' && event.seq !== 0) {
      if (event.seq <= this.lastSeq) return false;
      this.lastSeq = event.seq;
    }
    this.lastT = Math.max(this.lastT, event.t);
    switch (event.type) {
      case 'run.started':
        if (this.lastSeq === 0) {
          this.summary.name = event.name;
          this.summary.source = event.source;
          this.summary.startedAt = iso(event.t);
          this.meta = { ...event.meta };
          this.lastSeq = Math.max(this.lastSeq, event.seq);
        }
        // Also a reclaim after a reconnect: the run is live again.
        this.summary.status = 'running';
        this.summary.endedAt = null;
        return true;
      case 'run.meta':
        for (const [key, value] of Object.entries(event.meta)) if (value !== undefined) this.meta[key] = value;
        return true;
      case 'run.finished':
        this.summary.status = event.status;
        this.summary.endedAt = iso(event.t);
        return true;
      case 'instance.started': {
        if (this.#byId.has(event.instanceId)) return false;
        let counts = this.#nodes.get(event.node.nodeId);
        if (counts === undefined) {
          const { nodeId, kind, parent, label } = event.node;
          counts = { node: { nodeId, kind, parent, label }, open: 0, errors: 0 };
          this.#nodes.set(nodeId, counts);
        }
        counts.open++;
        const instance: Instance = { instanceId: event.instanceId, nodeId: event.node.nodeId, status: 'open', startedAt: iso(event.t), endedAt: null };
        if (event.input !== undefined) instance.input = event.input;
        this.#instances.push(instance);
        this.#byId.set(event.instanceId, instance);
        return true;
      }
      case 'instance.finished':
      case 'instance.error': {
        const instance = this.#byId.get(event.instanceId);
        if (instance === undefined) return false;
        const counts = this.#nodes.get(instance.nodeId) as NodeCounts;
        if (instance.status === 'open') counts.open--;
        if (instance.status === 'error') counts.errors--;
        if (event.output !== undefined) instance.output = event.output;
        if (event.type === 'instance.error') {
          instance.status = 'error';
          instance.error = event.error;
          counts.errors++;
        } else {
          instance.status = 'ok';
          delete instance.error;
        }
        instance.endedAt = iso(event.t);
        return true;
      }
      case 'instance.reopened': {
        const instance = this.#byId.get(event.instanceId);
        if (instance === undefined || instance.status === 'open') return false;
        const counts = this.#nodes.get(instance.nodeId) as NodeCounts;
        if (instance.status === 'error') counts.errors--;
        counts.open++;
        instance.status = 'open';
        instance.endedAt = null;
        delete instance.output;
        delete instance.error;
        return true;
      }
      case 'log':
        this.#logs.push({ nodeId: event.nodeId, stream: event.stream, text: event.text, at: iso(event.t) });
        return true;
      case 'events.dropped':
        this.droppedEvents += event.count;
        return true;
      case 'hold.opened':
      case 'hold.released':
        // Holds are live state (see the hold registry); the log keeps them as history.
        return true;
      default:
        return false;
    }
  }

  /** Close a run whose reporter vanished: open work will never finish. */
  abandon(t: number): void {
    if (this.summary.status !== 'running') return;
    this.summary.status = 'error';
    this.summary.endedAt = iso(t);
  }

  /** The whole run, as `GET /api/runs/:runId` returns it. */
  toRun(): Run {
    const nodes: GraphNode[] = [];
    for (const { node, open, errors } of this.#nodes.values()) {
      nodes.push({ ...node, status: errors > 0 ? 'error' : open > 0 ? 'open' : 'ok' });
    }
    return {
      ...this.summary,
      meta: this.meta,
      nodes,
      instances: this.#instances,
      logs: this.#logs,
      droppedEvents: this.droppedEvents,
      lastSeq: this.lastSeq,
    };
  }
}
