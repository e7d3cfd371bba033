import { isUtf8 } from 'node:buffer';
import type WebSocket from 'ws';
import type { Breakpoints, HoldAction } from '../protocol/control.js';
import type { RunEvent } from '../protocol/ingest.js';
import type { ServerToReporter } from '../protocol/to-reporter.js';
import { breakpointsAck, type BreakpointsPeer, type BreakpointsState } from './breakpoints.js';
import type { HoldOwner, HoldRegistry } from './holds.js';
import type { LiveFeed } from './live-feed.js';
import type { SummaryNews } from './summary-news.js';
import type { RunStore } from './run-store.js';
import { arrayElementEnds } from '../json/element-ends.js';
import { BatchText } from './batch-text.js';
import { BatchReader } from './batch-reader.js';
import { COMPLETED_RUN_EVENTS } from './completed-record.js';
import { expandCompletedGroup, isCompletedGroup } from '../report/completed-group.js';
import { parseStrictJson } from '../json/strict-json.js';
import { validateEvent } from '../protocol/validate-event.js';

/**
 * Can a message's events be logged as the text they came in? Not if it
 * holds a line break (JSON allows them as whitespace, inside values too):
 * the log is one event per line, and a break would split an event, or
 * smuggle a line of its own into the log. Such events are written as
 * `JSON.stringify` spells them.
 */
function lineSafe(message: Buffer | string): boolean {
  return !message.includes('\n') && !message.includes('\r');
}

/**
 * The message's bytes in memory of their own. What the server keeps of a
 * batch (its values, see RawJson) keeps the memory under it alive for as
 * long as the run: a message that is a small part of a larger block (a
 * socket read that held several, a shared pool) is copied out first, so
 * that it does not keep the rest of that block too.
 */
export function ownBytes(message: Buffer): Buffer {
  if (message.buffer.byteLength <= 2 * message.length + 1024) return message;
  const own = Buffer.allocUnsafeSlow(message.length);
  message.copy(own);
  return own;
}

/** Bytes a reporter may leave unread before its connection is dropped (its runs end, its holds are released). */
const MAX_UNREAD_BYTES = 32 * 1024 * 1024;

/** What the ingest side needs from the server. */
export interface IngestContext {
  store: RunStore;
  holds: HoldRegistry;
  feed: LiveFeed;
  /** The breakpoints: sent to each reporter as it connects, and told of its acks. */
  breakpoints: BreakpointsState;
  /** Summaries changed by calls, sent on the live feed a few times a second. */
  news?: SummaryNews;
}

/**
 * One reporter's connection. It owns the runs it started (or reclaimed):
 * events for any other run are ignored, so a reporter cannot write into
 * another session, nor see or decide its holds. A hold it reports that the
 * server does not record (the run is another's, or was deleted) is answered
 * with `continue` at once, so its session never waits for it.
 */
export class ReporterConnection implements HoldOwner, BreakpointsPeer {
  readonly #ws: WebSocket;
  readonly #ctx: IngestContext;
  readonly #runs = new Set<string>();
  readonly #reader = new BatchReader();

  constructor(ws: WebSocket, ctx: IngestContext, owners: Map<string, ReporterConnection>) {
    this.#ws = ws;
    this.#ctx = ctx;
    ctx.breakpoints.join(this);
    ws.on('message', (data, isBinary) => {
      let ok: boolean;
      try {
        // ws checks a text message's UTF-8; a binary one is taken when it is valid UTF-8 too.
        ok = (!isBinary || isUtf8(data as Buffer)) && this.#receive(data, owners);
      } catch {
        // Something in it the server cannot handle (a value nested too deep to serialise): as malformed.
        ok = false;
      }
      // A malformed message ends this connection, and only this one.
      if (!ok) ws.close(1008, 'malformed message');
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => this.#closed(owners));
  }

  send(message: ServerToReporter): void {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    // A reporter that stopped reading (breakpoints pile up unread) is let go rather than buffered for without bound.
    if (this.#ws.bufferedAmount > MAX_UNREAD_BYTES) {
      this.#ws.terminate();
      return;
    }
    this.#ws.send(JSON.stringify(message));
  }

  sendBreakpoints(breakpoints: Breakpoints, version: number): void {
    this.send({ type: 'breakpoints', breakpoints, version });
  }

  sendViewers(watching: boolean): void {
    this.send({ type: 'viewers', watching });
  }

  decide(holdId: string, action: HoldAction, value: unknown): void {
    this.send(value === undefined ? { type: 'decision', holdId, action } : { type: 'decision', holdId, action, value });
  }

  /** Apply one message: an event or an array of them. */
  #receive(data: WebSocket.RawData, owners: Map<string, ReporterConnection>): boolean {
    const message = this.#read(data);
    if (message === undefined) return false;
    if (message.ack !== undefined) this.#ctx.breakpoints.ack(this, message.ack);
    const { events, batch, elements } = message;
    for (let i = 0; i < events.length; i++) {
      const element = elements === undefined ? i : (elements[i] as number);
      // A run that arrived whole (its events come from one element): in one step when it can be.
      if (elements !== undefined && elements[i + 1] === element && this.#completed(events, i, batch, element, owners)) i += COMPLETED_RUN_EVENTS - 1;
      else this.#apply(events[i] as RunEvent, batch, element, owners);
    }
    return true;
  }

  /**
   * A small run that arrived whole, from `events[i]` on: applied in one
   * step (see RunStore.appendCompleted) when nobody watches (nothing to
   * tell the viewers of it) and no connection owns its id; false when it
   * must go event by event.
   */
  #completed(events: readonly RunEvent[], i: number, batch: BatchText | undefined, element: number, owners: Map<string, ReporterConnection>): boolean {
    const event = events[i] as RunEvent;
    if (event.type !== 'run.started' || this.#ctx.feed.size > 0 || owners.has(event.runId)) return false;
    return this.#ctx.store.appendCompleted(events, i, batch, element);
  }

  /**
   * A message's events, every one valid, and their text if it can be logged
   * as it came (with the element of the text each event came from, when a
   * group of calls made them differ); undefined if malformed.
   */
  #read(data: WebSocket.RawData): { events: RunEvent[]; batch: BatchText | undefined; elements?: number[]; ack?: number } | undefined {
    const bytes = Buffer.isBuffer(data) ? ownBytes(data) : undefined;
    // A reporter's batch, read from its bytes; anything else the plain way.
    const read = bytes === undefined ? undefined : this.#reader.read(bytes);
    if (read !== undefined) {
      const batch = lineSafe(bytes as Buffer) ? new BatchText(bytes as Buffer, read.ends, read.groups) : undefined;
      return { events: read.events, batch, elements: read.elements };
    }
    const text = data.toString();
    // Nested deeper than the fast path allows (JSON.parse takes far more, but
    // serialising it again later would throw): malformed, as there.
    const plain = parseStrictJson(bytes ?? Buffer.from(text), text);
    if (plain === undefined) return undefined;
    const parsed = plain.value;
    // Not an event: the reporter applied the breakpoints of that version.
    const ack = breakpointsAck(parsed);
    if (ack !== undefined) return { events: [], batch: undefined, ack };
    const elements = Array.isArray(parsed) ? parsed : [parsed];
    const items: unknown[] = [];
    let grouped = false;
    for (const element of elements) {
      // A group of calls stands for the events it holds.
      const expanded = expandCompletedGroup(element);
      if (expanded === undefined) return undefined;
      grouped ||= isCompletedGroup(element);
      items.push(...expanded);
    }
    for (const item of items) {
      if (validateEvent(item) === undefined) return undefined;
    }
    const events = items as RunEvent[];
    // Each event's own text, to log (and feed) without stringifying it again (not with a group among them: stringified).
    const ends = Array.isArray(parsed) && !grouped ? arrayElementEnds(text, events.length) : undefined;
    return { events, batch: ends === undefined || !lineSafe(bytes ?? text) ? undefined : new BatchText(text, ends, bytes) };
  }

  #apply(event: RunEvent, batch: BatchText | undefined, index: number, owners: Map<string, ReporterConnection>): void {
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
      // A deleted run stays deleted (append ignores it), but this connection owns it: its holds are let go at once,
      // and its reporter hears again (a reclaim after a reconnect) that nothing of it is recorded, so it holds nothing.
      if (store.isDeleted(runId)) {
        this.send({ type: 'rejected', runId, reason: 'the run was deleted' });
        return;
      }
      const state = store.append(event, batch, index);
      // The summary is copied only for someone to see it (nobody watches a busy adapter's runs come and go, as a rule).
      if (state !== undefined && feed.size > 0) feed.broadcast({ type: existed ? 'run.updated' : 'run.started', run: { ...state.summary } });
      return;
    }
    if (!this.#runs.has(runId) || !store.has(runId)) {
      // Nothing of this run is recorded from this connection: another one
      // reports it, or it was deleted while its reporter is live. Observation
      // may be lost, the session never: a frame held for it would wait for a
      // decision nobody can make, so it goes on at once, unchanged.
      if (event.type === 'hold.opened') this.decide(event.holdId, 'continue', undefined);
      else if (event.type === 'run.finished' && this.#runs.has(runId)) this.#disown(runId, owners);
      return;
    }
    if (event.type === 'hold.opened') {
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
        ...(typeof event.ruleId === 'string' ? { ruleId: event.ruleId } : {}),
      };
      if (!holds.open(hold, this)) {
        // Another connection holds a frame under this id: this one is not
        // recorded, so nobody could decide it; its frame goes on unchanged.
        // (The same connection sending it again changes nothing.)
        if (!holds.ownedBy(event.holdId, this)) this.decide(event.holdId, 'continue', undefined);
        return;
      }
      feed.broadcast({ type: 'hold.opened', hold });
      // A rule held it: the server counts the rule's hit (and disarms it when its hits are used up).
      if (hold.ruleId !== undefined) this.#ctx.breakpoints.ruleHit(hold.ruleId);
    } else if (event.type === 'log' && event.ruleId !== undefined) {
      this.#ctx.breakpoints.ruleHit(event.ruleId);
    } else if (event.type === 'hold.updated') {
      const hold = holds.giveUp(event.holdId, this, event.givenUp);
      if (hold === undefined) return;
      feed.broadcast({ type: 'hold.updated', hold });
    } else if (event.type === 'hold.released') {
      if (holds.release(event.holdId, this) === undefined) return;
      feed.broadcast({ type: 'hold.released', holdId: event.holdId, action: event.action });
    }
    const state = store.append(event, batch, index);
    if (state === undefined) return;
    if (feed.size > 0) feed.broadcastEvent(runId, event, batch?.eventText(index));
    if (state.summaryChanged) this.#ctx.news?.note(state);
    if (event.type === 'run.finished') {
      this.#disown(runId, owners);
      if (feed.size > 0) feed.broadcast({ type: 'run.updated', run: { ...state.summary } });
    }
  }

  /** The run ended: this connection no longer reports it. */
  #disown(runId: string, owners: Map<string, ReporterConnection>): void {
    if (owners.get(runId) === this) owners.delete(runId);
    this.#runs.delete(runId);
  }

  #closed(owners: Map<string, ReporterConnection>): void {
    const { store, feed, holds } = this.#ctx;
    this.#ctx.breakpoints.leave(this);
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
