import type { InstanceError } from '../protocol/run-model.js';
import type { LogEvent, NodeDeclaration, RunEvent } from '../protocol/ingest.js';
import { CompletedEvent, FinishedEvent, StartedEvent } from './execution-events.js';

/** The reporter as {@link RunEvents} uses it (the `Reporter` of `graphmind-ai` is one). */
export interface RunEventSink {
  nextSeq(runId: string): number;
  sendComplete(runId: string, event: RunEvent, heldBytes: number): void;
}

/**
 * The events of one run, built whole (`runId`, `seq` and `t` included) in
 * one place per kind, for every recorder: one object shape per kind from
 * the start, the fields in the order they go out in. `held` is what an
 * event holds on to beyond itself (frames behind deferred values), for the
 * reporter's buffer bound; `t` is when it happened (ms since the epoch).
 */
export class RunEvents {
  readonly runId: string;
  readonly #sink: RunEventSink;

  constructor(sink: RunEventSink, runId: string) {
    this.#sink = sink;
    this.runId = runId;
  }

  /** An execution began; `node` is declared with it; `requestId` is the JSON-RPC id of the request it answers, if any. */
  started(instanceId: string, node: NodeDeclaration, input: unknown, held: number, t: number, requestId?: string | number): void {
    const sink = this.#sink;
    const runId = this.runId;
    sink.sendComplete(runId, new StartedEvent(instanceId, node, input, runId, sink.nextSeq(runId), t, requestId), held);
  }

  /** An execution began (at `t`) and ended well (at `endT`), in one event; `requestId` as for {@link RunEvents.started}. */
  completed(
    instanceId: string,
    node: NodeDeclaration,
    input: unknown,
    output: unknown,
    endT: number,
    held: number,
    t: number,
    requestId?: string | number,
  ): void {
    const sink = this.#sink;
    const runId = this.runId;
    sink.sendComplete(runId, new CompletedEvent(instanceId, node, input, output, endT, runId, sink.nextSeq(runId), t, requestId), held);
  }

  /** An execution ended well. */
  ended(instanceId: string, output: unknown, held: number, t: number): void {
    const sink = this.#sink;
    const runId = this.runId;
    sink.sendComplete(runId, new FinishedEvent(instanceId, output, runId, sink.nextSeq(runId), t), held);
  }

  /** An execution ended in error. */
  failed(instanceId: string, output: unknown, error: InstanceError, held: number, t: number): void {
    const sink = this.#sink;
    const runId = this.runId;
    sink.sendComplete(runId, { type: 'instance.error', instanceId, output, error, runId, seq: sink.nextSeq(runId), t }, held);
  }

  /** An execution that ended is open again (a retry). */
  reopened(instanceId: string, t: number): void {
    const sink = this.#sink;
    const runId = this.runId;
    sink.sendComplete(runId, { type: 'instance.reopened', instanceId, runId, seq: sink.nextSeq(runId), t }, 0);
  }

  /** More metadata for the run. */
  meta(meta: Record<string, unknown>, t: number): void {
    const sink = this.#sink;
    const runId = this.runId;
    sink.sendComplete(runId, { type: 'run.meta', meta, runId, seq: sink.nextSeq(runId), t }, 0);
  }

  /** A log line on `nodeId`; `instanceId`, the call it is attributed to (see `LogLine.instanceId`). */
  log(nodeId: string, text: string, stream: string, t: number, instanceId?: string): void {
    const sink = this.#sink;
    const runId = this.runId;
    const event: LogEvent = { type: 'log', nodeId, stream, text, runId, seq: sink.nextSeq(runId), t };
    if (instanceId !== undefined) event.instanceId = instanceId;
    sink.sendComplete(runId, event, text.length);
  }
}
