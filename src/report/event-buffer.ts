/**
 * The reporter's buffer of events not yet sent, without the socket: a ring
 * of events with their weights, bounded in count and in bytes, and the rules
 * of what dropping the oldest means for a run (its start and its root are
 * kept aside, the rest counted and told). Pure state, driven by the
 * reporter's shell and by a playbook test (test/event-buffer.test.ts).
 *
 * @module
 */
import { COMPLETED_RUN } from './completed-run.js';
import { deferredBytes } from './deferred.js';
import type { RunEvent, RunStartedEvent } from '../protocol/ingest.js';

/** Events a reporter keeps while detached or behind, by default. */
export const DEFAULT_MAX_BUFFERED_EVENTS = 1000;

/** What keeping an event costs, beyond the bytes it holds on to (see `Reporter.sendComplete`). */
export const EVENT_OVERHEAD_BYTES = 128;

/** Slots the ring starts with (it grows when a larger bound needs it). */
const INITIAL_SLOTS = 1024;

/**
 * Roughly what an event costs to keep: a fixed overhead, the frames its
 * deferred values hold on to, and log text.
 */
export function eventWeight(event: RunEvent): number {
  let weight = EVENT_OVERHEAD_BYTES + deferredBytes(event);
  if (event.type === 'log') weight += event.text.length;
  return weight;
}

/** The root of a run's graph (the session): never dropped from the buffer. */
export function isRoot(event: RunEvent): boolean {
  return event.type === 'instance.started' && event.node?.parent === null && event.node.kind === 'server';
}

/** What the reporter keeps per run. */
export class RunState {
  /** The run. */
  readonly runId: string;
  /** The seq of the run's last event. */
  seq = 1;
  /** Its events dropped from the buffer since the last `events.dropped` notice. */
  dropped = 0;
  /** Its run.started was dropped from the buffer while the run was live. */
  startDropped = false;

  constructor(runId: string) {
    this.runId = runId;
  }
}

/**
 * Events waiting to be sent, and what the runs they belong to need said
 * when some had to go. Each event is pushed with its owner: its run, whose
 * drops are counted, or null for one that is not counted when it goes
 * (a run.started, a graph's root, a completed run).
 */
export class EventBuffer {
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  // The ring: oldest at #head, with, per slot, the event's weight and its owner.
  #events: Array<RunEvent | undefined>;
  #owners: Array<RunState | null | undefined>;
  #weights: number[];
  #head = 0;
  #size = 0;
  #mask: number;
  #bytes = 0;
  readonly #runs = new Map<string, RunState>();
  /** The run of the last event: a proxy reports one run, so this is nearly always it. */
  #lastRun: RunState | undefined;
  /** run.started of every live run, reclaimed on every attach. */
  readonly #started = new Map<string, RunStartedEvent>();
  /** Runs with dropped events to report, in the order they first dropped one. */
  #droppedRuns: RunState[] = [];
  /** run.started events dropped from the ring for runs that have finished since (so are not reclaimed). */
  readonly #droppedStarts = new Map<string, RunStartedEvent>();
  /**
   * How many events at the front of the ring came back from batches the
   * socket never wrote: older than the rest, so a later such batch goes
   * behind them and before the rest.
   */
  #requeued = 0;
  /** Root instances that overflowed the ring; sent first, never dropped. */
  #pinned: RunEvent[] = [];

  /** At most `maxEvents` events, holding on to about `maxBytes` (one event is kept whatever it weighs). */
  constructor(maxEvents: number, maxBytes: number) {
    this.#maxEvents = maxEvents;
    this.#maxBytes = maxBytes;
    let slots = 16;
    while (slots < INITIAL_SLOTS && slots <= maxEvents) slots *= 2;
    this.#events = new Array<RunEvent | undefined>(slots).fill(undefined);
    this.#owners = new Array<RunState | null | undefined>(slots).fill(undefined);
    this.#weights = new Array<number>(slots).fill(0);
    this.#mask = slots - 1;
  }

  /** Events in the ring. */
  get size(): number {
    return this.#size;
  }

  /** Events waiting to be sent (those of batches never written included: they are back in the ring). */
  get pending(): number {
    return this.#size;
  }

  /** Anything to send: events, or notices and starts and roots kept aside. */
  get hasBacklog(): boolean {
    return this.pending > 0 || this.#droppedRuns.length > 0 || this.#droppedStarts.size > 0 || this.#pinned.length > 0;
  }

  /** The state of `runId` (a run not started here gets one too). */
  runOf(runId: string): RunState {
    const last = this.#lastRun;
    if (last !== undefined && last.runId === runId) return last;
    let run = this.#runs.get(runId);
    if (run === undefined) {
      run = new RunState(runId);
      this.#runs.set(runId, run);
    }
    this.#lastRun = run;
    return run;
  }

  /** A run begins: its state, and its start kept to reclaim it on every attach. */
  start(event: RunStartedEvent): void {
    const run = new RunState(event.runId);
    this.#runs.set(event.runId, run);
    this.#lastRun = run;
    this.#started.set(event.runId, event);
  }

  /**
   * `run` finished: it is not reclaimed on reconnect, and nothing of it is
   * kept here any more (a server that makes a run per request must not grow
   * by one entry each): its events in the ring keep what they need.
   */
  finish(run: RunState): void {
    const runId = run.runId;
    const start = this.#started.get(runId);
    this.#started.delete(runId);
    this.#runs.delete(runId);
    if (this.#lastRun === run) this.#lastRun = undefined;
    // Its run.started may already have been dropped from the ring: keep
    // it, so the run still exists when the rest arrives.
    if (start !== undefined && run.startDropped) this.#droppedStarts.set(runId, start);
  }

  /**
   * The owner an event of `run` is pushed with: the run, whose drops are
   * counted, or null for its start and its graph's root (kept aside when
   * they go). A run.finished ends the run here (see {@link EventBuffer.finish}).
   */
  ownerOf(event: RunEvent, run: RunState): RunState | null {
    if (event.type === 'run.finished') this.finish(run);
    else if (event.type === 'run.started' || isRoot(event)) return null;
    return run;
  }

  /** The start of every live run, to reclaim them on attach. */
  reclaims(): RunStartedEvent[] {
    return [...this.#started.values()];
  }

  /** `count` more of `run`'s events are gone: the next batch says so. */
  countDrops(run: RunState, count: number): void {
    if (run.dropped === 0) this.#droppedRuns.push(run);
    run.dropped += count;
  }

  /** Add an event at the end. The bounds are kept by {@link EventBuffer.trim}, called after the caller had a chance to send. */
  push(event: RunEvent, owner: RunState | null, weight: number): void {
    if (this.#size > this.#mask) this.#grow();
    const slot = (this.#head + this.#size) & this.#mask;
    this.#events[slot] = event;
    this.#owners[slot] = owner;
    this.#weights[slot] = weight;
    this.#size++;
    this.#bytes += weight;
  }

  /** Drop the oldest events until both bounds hold (one event stays, however heavy). */
  trim(): void {
    while (this.#size > this.#maxEvents || (this.#bytes > this.#maxBytes && this.#size > 1)) this.#dropOldest();
  }

  /**
   * The next batch to send, at most `max` events of the ring behind what
   * must go first: starts of finished runs
   * that were dropped, roots kept aside, and a notice of the events dropped
   * per run (`events.dropped` at `now`). Taken out of the buffer.
   */
  takeBatch(max: number, now: number): RunEvent[] {
    const batch: RunEvent[] = [];
    // A run whose run.started was dropped (and that is not reclaimed on
    // attach because it has finished) is started again first.
    for (const start of this.#droppedStarts.values()) batch.push(start);
    this.#droppedStarts.clear();
    batch.push(...this.#pinned);
    this.#pinned = [];
    for (const run of this.#droppedRuns) {
      if (run.dropped === 0) continue;
      // Out of sequence (seq 0): a fresh seq would be higher than those
      // of the buffered events behind it, and the server would take them
      // all for repeats and ignore them.
      batch.push({ type: 'events.dropped', runId: run.runId, seq: 0, t: now, count: run.dropped });
      run.dropped = 0;
    }
    this.#droppedRuns = [];
    for (let room = max; room > 0 && this.#size > 0; room--) batch.push(this.#shift());
    return batch;
  }

  /**
   * A batch that was never written (the connection dropped under it): its
   * events go back to the ring, in their order, before anything newer, to
   * be sent again (the server ignores any seq it already has). Under the
   * same bounds as the rest: a connection that dies with megabytes of
   * batches unwritten must not keep the oldest of them and drop the newest
   * events for their sake. Its notices of dropped events are counted again.
   */
  unsent(batch: readonly RunEvent[]): void {
    const ring = this.#takeAll();
    const older = Math.min(this.#requeued, ring.events.length);
    for (let i = 0; i < older; i++) this.push(ring.events[i] as RunEvent, ring.owners[i] as RunState | null, ring.weights[i] as number);
    const finished = new Map<string, RunState>();
    let added = 0;
    for (const event of batch) {
      const owner = this.#ownerAgain(event, finished);
      if (event.type === 'events.dropped') {
        if (owner !== null) this.countDrops(owner, event.count);
        continue;
      }
      this.push(event, owner, eventWeight(event));
      added++;
    }
    for (let i = older; i < ring.events.length; i++) this.push(ring.events[i] as RunEvent, ring.owners[i] as RunState | null, ring.weights[i] as number);
    this.#requeued = older + added;
    this.trim();
  }

  /**
   * The owner of an event coming back from a batch never written, by the
   * rules of {@link EventBuffer.ownerOf}; a run that has finished since
   * gets a state of its own (in `finished`), only to count its drops.
   */
  #ownerAgain(event: RunEvent, finished: Map<string, RunState>): RunState | null {
    if (event.type === 'run.started' || isRoot(event) || (event.type as string) === COMPLETED_RUN) return null;
    let run = this.#runs.get(event.runId) ?? finished.get(event.runId);
    if (run === undefined) {
      run = new RunState(event.runId);
      finished.set(event.runId, run);
    }
    return run;
  }

  /** Every event of the ring, oldest first, with its owner and weight; the ring left empty. */
  #takeAll(): { events: Array<RunEvent | undefined>; owners: Array<RunState | null | undefined>; weights: number[] } {
    const events: Array<RunEvent | undefined> = [];
    const owners: Array<RunState | null | undefined> = [];
    const weights: number[] = [];
    for (let i = 0; i < this.#size; i++) {
      const slot = (this.#head + i) & this.#mask;
      events.push(this.#events[slot]);
      owners.push(this.#owners[slot]);
      weights.push(this.#weights[slot] as number);
      this.#events[slot] = undefined;
      this.#owners[slot] = undefined;
    }
    this.#head = 0;
    this.#size = 0;
    this.#bytes = 0;
    return { events, owners, weights };
  }

  #grow(): void {
    const slots = (this.#mask + 1) * 2;
    const events = new Array<RunEvent | undefined>(slots).fill(undefined);
    const owners = new Array<RunState | null | undefined>(slots).fill(undefined);
    const weights = new Array<number>(slots).fill(0);
    for (let i = 0; i < this.#size; i++) {
      const from = (this.#head + i) & this.#mask;
      events[i] = this.#events[from];
      owners[i] = this.#owners[from];
      weights[i] = this.#weights[from] as number;
    }
    this.#events = events;
    this.#owners = owners;
    this.#weights = weights;
    this.#head = 0;
    this.#mask = slots - 1;
  }

  /** Take the oldest event out of the ring (to send or to drop). */
  #shift(): RunEvent {
    const slot = this.#head;
    const event = this.#events[slot] as RunEvent;
    this.#bytes -= this.#weights[slot] as number;
    // Let go of it now: it may hold a frame.
    this.#events[slot] = undefined;
    this.#owners[slot] = undefined;
    this.#head = (slot + 1) & this.#mask;
    this.#size--;
    if (this.#requeued > 0) this.#requeued--;
    return event;
  }

  #dropOldest(): void {
    // The run.started of each run is kept aside and re-sent on attach, so
    // dropping from the front never loses a run, only some of its history.
    const owner = this.#owners[this.#head];
    const event = this.#shift();
    if (owner !== null && owner !== undefined) {
      if (event.type === 'run.finished' && this.#droppedStarts.delete(event.runId)) {
        // The last of a run whose start went too: nothing of it is left to
        // send, nor anything to say about it (a server that makes a run per
        // request would otherwise keep every such start while detached).
        owner.dropped = 0;
        return;
      }
      this.countDrops(owner, 1);
    } else if ((event.type as string) === COMPLETED_RUN) {
      // A whole run, gone whole: there is no run left to tell.
    } else if (event.type === 'run.started') {
      if (this.#started.has(event.runId)) this.runOf(event.runId).startDropped = true;
      else this.#droppedStarts.set(event.runId, event);
    } else if (isRoot(event)) {
      // The root of a run's graph (the session) is never dropped: without
      // it every other node would hang from nothing.
      this.#pinned.push(event);
    } else {
      this.countDrops(this.runOf(event.runId), 1);
    }
  }
}
