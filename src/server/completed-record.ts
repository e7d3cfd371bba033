/**
 * A small run that arrived whole (an adapter's `run.completed`: five events,
 * one call that ended well), kept as its summary and its events until
 * somebody opens it. Replaying its events into a `RunState` (its maps, its
 * instances, its nodes) was most of what such a run cost the server, and
 * nearly all of them are only listed, then trimmed by `--max-runs`. The
 * summary is the one `RunState` makes: built by a real replay once per
 * shape of run (name, source, meta, nodes), and copied for the next runs of
 * that shape with their own id and times (see {@link CompletedSummaries}).
 *
 * @module
 */
import type { RunSummary } from '../protocol/run-model.js';
import type { InstanceCompletedEvent, InstanceStartedEvent, RunEvent, RunFinishedEvent, RunStartedEvent } from '../protocol/ingest.js';
import { isoTime } from '../protocol/run-replay.js';
import { RunState, runGroup } from '../protocol/run-state.js';

/** The events of a run that arrived whole and ended well: run.started, its root started, the call, the root ended, run.finished. */
export const COMPLETED_RUN_EVENTS = 5;

/** A run kept as its summary and its events; {@link CompletedRecord.replay} makes it a `RunState` when it is opened. */
export class CompletedRecord {
  /** The summary, as `RunState` would have it. */
  readonly summary: RunSummary;
  /** Its {@link COMPLETED_RUN_EVENTS} events, in order. */
  readonly events: readonly RunEvent[];

  /** `summary` as {@link CompletedSummaries.summaryOf} made it; `events` the run's, which the record keeps. */
  constructor(summary: RunSummary, events: readonly RunEvent[]) {
    this.summary = summary;
    this.events = events;
  }

  /** The run as a `RunState`: its events applied in order, as ingest would have applied them one by one. */
  replay(): RunState {
    const events = this.events;
    const state = new RunState(this.summary.runId, (events[0] as RunEvent).t);
    for (const event of events) state.apply(event);
    // What the store set on the summary since (a log that stopped) stays.
    if (this.summary.recordingStopped !== undefined) state.summary.recordingStopped = this.summary.recordingStopped;
    return state;
  }
}

/**
 * Is `events[from…]` a whole run that ended well, as a `run.completed`
 * expands (report/completed-run.ts)? Checked on the events, not their
 * text: whatever sent them, they are exactly what the summary is made of.
 */
export function isCompletedRun(events: readonly RunEvent[], from: number): boolean {
  if (from + COMPLETED_RUN_EVENTS > events.length) return false;
  const start = events[from] as RunEvent;
  const root = events[from + 1] as RunEvent;
  const call = events[from + 2] as RunEvent;
  const rootEnd = events[from + 3] as RunEvent;
  const end = events[from + 4] as RunEvent;
  const runId = start.runId;
  return (
    start.type === 'run.started' &&
    root.type === 'instance.started' &&
    call.type === 'instance.completed' &&
    rootEnd.type === 'instance.finished' &&
    end.type === 'run.finished' &&
    root.runId === runId &&
    call.runId === runId &&
    rootEnd.runId === runId &&
    end.runId === runId &&
    rootEnd.instanceId === root.instanceId &&
    call.instanceId !== root.instanceId &&
    call.node.nodeId !== root.node.nodeId &&
    start.seq > 0 &&
    root.seq === start.seq + 1 &&
    call.seq === start.seq + 2 &&
    rootEnd.seq === start.seq + 3 &&
    end.seq === start.seq + 4
  );
}

/**
 * The summaries of completed runs (see the module): the first run of a
 * shape is replayed in full, and its summary is the template for the next
 * ones of that shape. The shape is the objects the summary is made of, by
 * identity: the batch reader hands a connection's runs the same meta and
 * node objects, and nobody changes them in place.
 */
export class CompletedSummaries {
  #name = '';
  #source = '';
  #meta: unknown;
  #rootNode: unknown;
  #node: unknown;
  #template: RunSummary | undefined;

  /**
   * The summary of the completed run at `events[from…]` (see
   * {@link isCompletedRun}); undefined for the first run of its shape,
   * whose replay made the template (that run is applied the full way).
   */
  summaryOf(events: readonly RunEvent[], from: number): RunSummary | undefined {
    const start = events[from] as RunStartedEvent;
    const root = events[from + 1] as InstanceStartedEvent;
    const call = events[from + 2] as InstanceCompletedEvent;
    const end = events[from + 4] as RunFinishedEvent;
    const template = this.#template;
    if (
      template === undefined ||
      end.status !== template.status ||
      start.meta !== this.#meta ||
      root.node !== this.#rootNode ||
      call.node !== this.#node ||
      start.name !== this.#name ||
      start.source !== this.#source
    ) {
      this.#learn(events, from);
      return undefined;
    }
    // Its own copy, its keys in the order the replay put them; the group, server and client objects are shared
    // (as runGroup and the peer caches share them: a summary never changes them in place), and so is `tools`.
    const summary: RunSummary = { ...template };
    summary.runId = start.runId;
    summary.startedAt = isoTime(start.t);
    summary.endedAt = isoTime(end.t);
    if (template.group !== undefined) {
      // The group depends on the run id too (its process part).
      const group = runGroup(start.runId, start.source, start.meta);
      if (group === undefined) return undefined;
      summary.group = group;
    }
    return summary;
  }

  /** Make the template of this shape from a replay of the run, the way ingest applies it. */
  #learn(events: readonly RunEvent[], from: number): void {
    const start = events[from] as RunStartedEvent;
    const state = new RunState(start.runId, start.t);
    for (let i = from; i < from + COMPLETED_RUN_EVENTS; i++) state.apply(events[i] as RunEvent);
    this.#template = state.summary;
    this.#name = start.name;
    this.#source = start.source;
    this.#meta = start.meta;
    this.#rootNode = (events[from + 1] as InstanceStartedEvent).node;
    this.#node = (events[from + 2] as InstanceCompletedEvent).node;
  }
}
