/**
 * A run log replayed for an export or an import: the run (the same
 * `RunState` replay the server uses) and its {@link RunFacts} (holds and
 * their decisions, which the run itself keeps only as history), from the
 * log's lines, each checked as the server checks what it loads
 * (`eventsOfLine`). A line that is not an event of the run is skipped and
 * counted, as at the server's start.
 *
 * @module
 */
import type { RunEvent } from '../protocol/ingest.js';
import { RunState } from '../protocol/run-state.js';
import { readLines } from './log-lines.js';
import { readRegularFile } from './regular-file.js';
import { eventsOfLine } from './read-run-log.js';
import { RunFacts } from './run-facts.js';
import type { TraceRun } from './trace-model.js';

/** A run's parts as the exports read them. */
export function traceRunOf(state: RunState): TraceRun {
  return {
    summary: state.summary,
    meta: state.meta,
    instances: state.instances,
    logs: state.logs,
    droppedEvents: state.droppedEvents,
    node: (nodeId) => state.nodes.get(nodeId)?.node,
  };
}

/** The run id a log line's event names, without checking the rest of it. */
export function runIdOfLine(line: Buffer): string | undefined {
  try {
    const value = JSON.parse(line.toString('utf8')) as { runId?: unknown };
    return typeof value?.runId === 'string' ? value.runId : undefined;
  } catch {
    return undefined;
  }
}

/** A log replayed line by line (see the module). */
export class LogReplay {
  #runId: string | undefined;
  #state: RunState | undefined;
  readonly facts = new RunFacts();
  /** Lines that were not events of the run. */
  skippedLines = 0;
  /** Events applied (a group of calls counts each call). */
  events = 0;
  /** Was the last event a `run.finished`? */
  endedLast = false;
  /** Called with every event of the run, in order, before it is applied (an import keeps them). */
  onEvent: ((event: RunEvent) => void) | undefined;

  /** @param runId - the run the log must be of; undefined takes it from the first line that names one */
  constructor(runId?: string) {
    this.#runId = runId;
  }

  get runId(): string | undefined {
    return this.#runId;
  }

  /** The run so far (undefined while no event of it was read). */
  get state(): RunState | undefined {
    return this.#state;
  }

  /** Take one line (without its newline; an empty one is ignored). */
  line(line: Buffer): void {
    if (line.length === 0) return;
    this.#runId ??= runIdOfLine(line);
    const events = this.#runId === undefined ? undefined : eventsOfLine(line, this.#runId);
    if (events === undefined || events.length === 0) {
      this.skippedLines++;
      return;
    }
    for (const event of events) {
      this.onEvent?.(event);
      const state = (this.#state ??= new RunState(event.runId, event.t));
      state.apply(event);
      this.facts.apply(event, (instanceId) => state.byId.get(instanceId));
      this.events++;
      this.endedLast = event.type === 'run.finished';
    }
  }

  /**
   * The log is read. A run whose log does not end with its end was live
   * when it was read: unless `live`, it is ended as the server ends it on
   * loading such a log (status `error` at its last event).
   */
  finish(live = false): RunState | undefined {
    const state = this.#state;
    if (state === undefined) return undefined;
    if (!live && !this.endedLast) {
      state.resume();
      state.abandon(state.lastT);
    }
    if (state.summary.status !== 'running') this.facts.endAll(state.lastT);
    return state;
  }
}

/** A log file read whole into a {@link LogReplay}, or why it could not be read. */
export type LogFileRead = { ok: true; replay: LogReplay; bytes: number } | { ok: false; reason: string };

/**
 * Replay the log file of `runId` (a regular file only: a FIFO or a device
 * is not waited on or read forever).
 */
export function replayLogFile(file: string, runId: string | undefined, onLine?: (line: Buffer) => void): LogFileRead {
  const read = readRegularFile(
    file,
    (fd): LogFileRead => {
      const replay = new LogReplay(runId);
      const lines = readLines(fd, (line) => {
        onLine?.(line);
        replay.line(line);
      });
      replay.skippedLines += lines.tooLong;
      return { ok: true, replay, bytes: lines.bytes };
    },
    { nameKind: false },
  );
  return read.ok ? read.value : read;
}
