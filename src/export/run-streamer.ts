/**
 * A run exported as its log is read, in one pass, with memory bounded by
 * the calls still open (and the largest call) rather than by the run: the
 * lines are replayed as the server replays them ({@link LogReplay}), and
 * each call is written as soon as it has settled, then its bodies are
 * dropped. What the output holds per call (a HAR entry, a span) is made by
 * a {@link CallFormat}.
 *
 * The order calls are written in is their start order, as when a run was
 * exported whole. A call has settled when it has ended, no hold of it is
 * open, and {@link SETTLE_EVENTS} more events have been read (an answer
 * held at an after gate opens its hold right after it is recorded). A
 * settled call waits behind the calls that started before it and are still
 * open; once more than {@link REORDER_BYTES} of log wait so, the settled
 * ones are written at once, out of start order, and the open ones when they
 * settle or when the log ends. Nothing at all is written before
 * {@link HOLD_BYTES} of log have been read (or the log ends), so that the
 * header (the server's name, from `initialize`) is the run's, and a small
 * run comes out exactly as a whole export made it.
 *
 * Writing calls is work done in the pump's slices too ({@link RunStreamer.work}):
 * the calls that can be written are formatted until the slice is used up,
 * and the rest wait for the next slice (the pump reads no further line
 * while some wait). Written all at once, the calls held back at the start
 * (or those left at the end of a live run) held the event loop for
 * hundreds of ms.
 *
 * @module
 */
import type { RunEvent } from '../protocol/ingest.js';
import type { Instance } from '../protocol/run-model.js';
import type { RunState } from '../protocol/run-state.js';
import type { LineConsumer } from './export-pump.js';
import { LogReplay } from './log-replay.js';
import type { RunFacts } from './run-facts.js';
import { isCall, MAX_LOG_EVENTS, type TraceRun } from './trace-model.js';

/** Events read after a call ended before it counts as settled. */
export const SETTLE_EVENTS = 32;
/** Log bytes that may wait behind an open call before settled calls are written out of start order. */
export const REORDER_BYTES = 16 * 1024 * 1024;
/** Log bytes read before anything is written. */
export const HOLD_BYTES = 8 * 1024 * 1024;

/** The snapshot an export ends with. */
export interface SnapshotEnd {
  /** The run was live when asked for: the output is marked so. */
  live: boolean;
  /** When the export was asked for, ms since the epoch. */
  askedAt: number;
  /** The run's last sequence number in the output. */
  lastSeq: number;
}

/** How one format writes a run: its header, each call, its end. */
export interface CallFormat {
  /** Text before the first call (the run as known when it is written). */
  head(run: TraceRun): string;
  /** One call's text ('' or no piece for none), whole or in pieces; `first`: no call was written before it. */
  call(run: TraceRun, facts: RunFacts, instance: Instance, now: number, first: boolean): string | readonly string[];
  /** Text after the last call, with the run as it ended (or as it is now, live). */
  tail(run: TraceRun, facts: RunFacts, end: SnapshotEnd, now: number, wroteAny: boolean): string;
}

/** A call waiting to be written. */
interface Waiting {
  instance: Instance;
  /** Events read when it was last touched. */
  touchedAt: number;
  /** Log bytes of the lines that touched it. */
  bytes: number;
}

/** Options for {@link RunStreamer}. */
export interface RunStreamerOptions {
  /** Read until the run's sequence number reaches this (the snapshot); undefined: to the end of the log. */
  untilSeq?: number;
  /** The run was live when asked for. */
  live: boolean;
  /** When it was asked for, ms since the epoch. @default Date.now() */
  askedAt?: number;
  /** Write only the calls this keeps (`--where`); the others are read and left out. @default every call */
  keep?: (run: TraceRun, instance: Instance) => boolean;
}

/** A run log's lines in, a format's text out (see the module). */
export class RunStreamer implements LineConsumer {
  readonly #replay: LogReplay;
  readonly #format: CallFormat;
  readonly #options: RunStreamerOptions;
  readonly #askedAt: number;
  #view: TraceRun | undefined;
  /** Calls in start order, not yet written (written ones out of order leave a hole). */
  #queue: Array<Waiting | undefined> = [];
  #head = 0;
  readonly #waiting = new Map<string, Waiting>();
  #waitingBytes = 0;
  #events = 0;
  #readBytes = 0;
  #wroteAny = false;
  #headWritten = false;
  #out: string[] = [];
  /** Instances an event of the current line touched, and whether each existed before. */
  #touched: Array<{ id: string; isNew: boolean }> = [];
  /** Log lines past those kept as events (the rest are only counted). */
  #logsDropped = 0;
  #complete = false;
  /** The time taken as "now" for what is still open: when asked, or the end of a run that ended. */
  #now: number;
  /** Formatting stops once `performance.now()` passes this; what is left waits for {@link RunStreamer.work}. */
  #until = Number.POSITIVE_INFINITY;
  /** Calls that could be written were left for the next slice. */
  #behind = false;
  /** A call was written since the slice began (each slice writes one at least, however late it began). */
  #wroteInSlice = false;
  /** The log is read ({@link RunStreamer.finish}): the tail is written once every call is. */
  #end: { view: TraceRun; end: SnapshotEnd } | undefined;
  #tailWritten = false;

  constructor(runId: string, format: CallFormat, options: RunStreamerOptions) {
    this.#replay = new LogReplay(runId);
    this.#format = format;
    this.#options = options;
    this.#askedAt = options.askedAt ?? Date.now();
    this.#now = this.#askedAt;
    this.#replay.onEvent = (event) => this.#note(event);
  }

  /** The run so far; undefined while no event of it was read. */
  get state(): RunState | undefined {
    return this.#replay.state;
  }

  /** Lines that were not events of the run. */
  get skippedLines(): number {
    return this.#replay.skippedLines;
  }

  line(line: Buffer): boolean {
    this.#readBytes += line.length + 1;
    this.#touched = [];
    this.#replay.line(line);
    const state = this.#replay.state;
    if (state === undefined) return false;
    this.#view ??= liveView(state);
    for (const { id, isNew } of this.#touched) this.#touch(state, id, isNew, line.length + 1);
    this.#trimLogs(state);
    this.#drain(false);
    const until = this.#options.untilSeq;
    this.#complete = until !== undefined && state.lastSeq >= until;
    return this.#complete;
  }

  wantsMore(): boolean {
    const until = this.#options.untilSeq;
    return until !== undefined && !this.#complete;
  }

  take(): string[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }

  /**
   * Format what can be written until `performance.now()` passes `until`
   * (and set that as the end of the slice for the lines that follow); true
   * while some is left for the next slice.
   */
  work(until: number): boolean {
    this.#until = until;
    this.#behind = false;
    this.#wroteInSlice = false;
    if (this.#end === undefined) this.#drain(false);
    else this.#finishing();
    return this.#behind;
  }

  /** Calls that can be written wait for the next slice: read no further line. */
  get behind(): boolean {
    return this.#behind;
  }

  /**
   * The log is read: write every call left (in start order) and the end,
   * as much as the slice allows ({@link RunStreamer.work} goes on while
   * {@link RunStreamer.behind}). Undefined when the log held no event of
   * the run.
   */
  finish(): { lastSeq: number } | undefined {
    const state = this.#replay.finish(this.#options.live);
    if (state === undefined || this.#view === undefined) return undefined;
    this.#now = state.summary.endedAt === null ? this.#askedAt : state.lastT;
    const view = this.#logsDropped === 0 ? this.#view : { ...this.#view, logCount: state.logs.length + this.#logsDropped };
    this.#end = { view, end: { live: this.#options.live, askedAt: this.#askedAt, lastSeq: state.lastSeq } };
    this.#behind = false;
    this.#finishing();
    return { lastSeq: state.lastSeq };
  }

  /** Write the calls left, then (once they all are) the head if none was, and the tail. */
  #finishing(): void {
    const ending = this.#end;
    if (ending === undefined || this.#tailWritten) return;
    this.#drain(true);
    if (this.#behind) return;
    if (!this.#headWritten) {
      this.#out.push(this.#format.head(this.#view as TraceRun));
      this.#headWritten = true;
    }
    this.#out.push(this.#format.tail(ending.view, this.#replay.facts, ending.end, this.#now, this.#wroteAny));
    this.#tailWritten = true;
  }

  /** An event is about to be applied: note the call it touches, and whether the call is new. */
  #note(event: RunEvent): void {
    this.#events++;
    if (!('instanceId' in event) || typeof event.instanceId !== 'string') return;
    const isNew = (event.type === 'instance.started' || event.type === 'instance.completed') && this.#replay.state?.byId.has(event.instanceId) !== true;
    this.#touched.push({ id: event.instanceId, isNew });
  }

  #touch(state: RunState, id: string, isNew: boolean, lineBytes: number): void {
    let waiting = this.#waiting.get(id);
    if (waiting === undefined) {
      const instance = state.byId.get(id);
      if (!isNew || instance === undefined || !isCall(this.#view as TraceRun, instance)) return;
      waiting = { instance, touchedAt: this.#events, bytes: 0 };
      this.#waiting.set(id, waiting);
      this.#queue.push(waiting);
    }
    waiting.touchedAt = this.#events;
    waiting.bytes += lineBytes;
    this.#waitingBytes += lineBytes;
  }

  /** Keep the first log lines only (the root span shows {@link MAX_LOG_EVENTS}), counting the rest. */
  #trimLogs(state: RunState): void {
    const logs = state.logs;
    if (logs.length <= MAX_LOG_EVENTS * 2) return;
    this.#logsDropped += logs.length - MAX_LOG_EVENTS;
    logs.length = MAX_LOG_EVENTS;
  }

  #settled(waiting: Waiting): boolean {
    const { instance } = waiting;
    return instance.status !== 'open' && !this.#replay.facts.isHeld(instance.instanceId) && this.#events - waiting.touchedAt >= SETTLE_EVENTS;
  }

  /** Write what can be written now; `all`: the log is read, write everything. */
  #drain(all: boolean): void {
    if (!all && !this.#headWritten && this.#readBytes < HOLD_BYTES) return;
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const waiting = queue[this.#head];
      if (waiting !== undefined && !all && !this.#settled(waiting)) break;
      if (waiting !== undefined && this.#late()) return;
      if (waiting !== undefined) this.#write(waiting);
      this.#head++;
    }
    if (!all && this.#waitingBytes > REORDER_BYTES) {
      for (let i = this.#head; i < queue.length; i++) {
        const waiting = queue[i];
        if (waiting === undefined || !this.#settled(waiting)) continue;
        if (this.#late()) return;
        this.#write(waiting);
        queue[i] = undefined;
      }
    }
    if (this.#head > 1024 && this.#head * 2 > queue.length) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The slice is used up: what is left to write waits for the next ({@link RunStreamer.work}). */
  #late(): boolean {
    if (!this.#wroteInSlice || performance.now() <= this.#until) return false;
    this.#behind = true;
    return true;
  }

  #write(waiting: Waiting): void {
    const view = this.#view as TraceRun;
    const { instance } = waiting;
    this.#wroteInSlice = true;
    if (!this.#headWritten) {
      this.#out.push(this.#format.head(view));
      this.#headWritten = true;
    }
    const keep = this.#options.keep;
    const text = keep !== undefined && !keep(view, instance) ? '' : this.#format.call(view, this.#replay.facts, instance, this.#now, !this.#wroteAny);
    if (typeof text === 'string' ? text !== '' : text.length > 0) {
      if (typeof text === 'string') this.#out.push(text);
      else this.#out.push(...text);
      this.#wroteAny = true;
    }
    this.#waiting.delete(instance.instanceId);
    this.#waitingBytes -= waiting.bytes;
    // Written: what it carried is not needed again (its outline stays, for the calls nested in it).
    this.#replay.facts.forget(instance.instanceId);
    delete instance.input;
    delete instance.output;
    if (instance.attempts !== undefined) instance.attempts = instance.attempts.map(({ output: _output, ...attempt }) => attempt);
  }
}

/** The run as the formats read it, always as it is now (a run's start replaces its meta object). */
function liveView(state: RunState): TraceRun {
  return {
    get summary() {
      return state.summary;
    },
    get meta() {
      return state.meta;
    },
    instances: state.instances,
    logs: state.logs,
    get droppedEvents() {
      return state.droppedEvents;
    },
    node: (nodeId) => state.nodes.get(nodeId)?.node,
  };
}
