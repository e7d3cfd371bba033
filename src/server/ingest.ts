import type WebSocket from 'ws';
import type { Breakpoints, HoldAction, RunEvent, ServerToReporter } from '../report/events.js';
import type { HoldOwner, HoldRegistry } from './holds.js';
import type { LiveFeed } from './live-feed.js';
import type { RunStore } from './run-store.js';
import { validateEvent } from './validate-event.js';

/** What the ingest side needs from the server. */
export interface IngestContext {
  store: RunStore;
  holds: HoldRegistry;
  feed: LiveFeed;
  breakpoints(): Breakpoints;
}

/**
 * One reporter's connection. It owns the runs it started (or reclaimed):
 * events for any other run are ignored, so a reporter cannot write into
 * another session, nor see or decide its holds.
 */
export class ReporterConnection implements HoldOwner {
  readonly #ws: WebSocket;
  readonly #ctx: IngestContext;
  readonly #runs = new Set<string>();

  constructor(ws: WebSocket, ctx: IngestContext, owners: Map<string, ReporterConnection>) {
    this.#ws = ws;
    this.#ctx = ctx;
    this.send({ type: 'breakpoints', breakpoints: ctx.breakpoints() });
    ws.on('message', (data, isBinary) => {
      if (isBinary || !this.#receive(data.toString(), owners)) {
        // A malformed message ends this connection, and only this one.
        ws.close(1008, 'malformed message');
      }
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => this.#closed(owners));
  }

  send(message: ServerToReporter): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(JSON.stringify(message));
  }

  decide(holdId: string, action: HoldAction, value: unknown): void {
    this.send(value === undefined ? { type: 'decision', holdId, action } : { type: 'decision', holdId, action, value });
  }

  #receive(text: string, owners: Map<string, ReporterConnection>): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
    const items = Array.isArray(parsed) ? parsed : [parsed];
    const events: RunEvent[] = [];
    for (const item of items) {
      const event = validateEvent(item);
      if (event === undefined) return false;
      events.push(event);
    }
    for (const event of events) this.#apply(event, owners);
    return true;
  }

  #apply(event: RunEvent, owners: Map<string, ReporterConnection>): void {
    const { store, feed, holds } = this.#ctx;
    const runId = event.runId;
    if (event.type === 'run.started') {
      const owner = owners.get(runId);
      if (owner !== undefined && owner !== this) {
        this.send({ type: 'rejected', runId, reason: 'run is reported by another connection' });
        return;
      }
      owners.set(runId, this);
      this.#runs.add(runId);
      const existed = store.has(runId);
      const state = store.append(event);
      if (state !== undefined) feed.broadcast({ type: existed ? 'run.updated' : 'run.started', run: { ...state.summary } });
      return;
    }
    if (!this.#runs.has(runId)) return;
    if (event.type === 'hold.opened') {
      const state = store.get(runId);
      if (state === undefined) return;
      const hold = {
        holdId: event.holdId,
        runId,
        nodeId: event.nodeId,
        instanceId: event.instanceId,
        gate: event.gate,
        method: event.method,
        frame: event.frame,
        since: new Date(event.t).toISOString(),
        ...(typeof event.reason === 'string' ? { reason: event.reason } : {}),
      };
      if (!holds.open(hold, this)) return;
      feed.broadcast({ type: 'hold.opened', hold });
    } else if (event.type === 'hold.released') {
      if (holds.release(event.holdId, this) === undefined) return;
      feed.broadcast({ type: 'hold.released', holdId: event.holdId, action: event.action });
    }
    const state = store.append(event);
    if (state === undefined) return;
    feed.broadcast({ type: 'run.event', runId, event });
    if (event.type === 'run.finished') {
      owners.delete(runId);
      this.#runs.delete(runId);
      feed.broadcast({ type: 'run.updated', run: { ...state.summary } });
    }
  }

  #closed(owners: Map<string, ReporterConnection>): void {
    const { store, feed, holds } = this.#ctx;
    // Its holds can never be resumed through this connection: let them go.
    for (const hold of holds.dropOwner(this)) feed.broadcast({ type: 'hold.released', holdId: hold.holdId, action: 'continue' });
    for (const runId of this.#runs) {
      if (owners.get(runId) === this) owners.delete(runId);
      const state = store.abandon(runId, Date.now());
      if (state !== undefined) feed.broadcast({ type: 'run.updated', run: { ...state.summary } });
    }
    this.#runs.clear();
  }
}
