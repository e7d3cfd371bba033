import type { InstanceCompletedEvent, InstanceFinishedEvent, InstanceStartedEvent, NodeDeclaration } from '../protocol/ingest.js';

// The events a reporter sends most, one or two per call, built as instances
// of these classes: their fields always exist, in the order declared here
// (the order a plain object of the same event would have), so the batch
// encoder can write them from a template (encode-batch.ts) instead of
// walking their keys. An optional field left undefined is left out of the
// JSON, as it is for a plain object. Fields added to one after it is built
// would not be sent: the template writes only these. The request id comes
// last among the constructor's arguments (it is optional there) but stands
// where the layout puts it among the fields.

/** An execution began (see {@link InstanceStartedEvent}). */
export class StartedEvent implements InstanceStartedEvent {
  readonly type = 'instance.started' as const;
  readonly instanceId: string;
  readonly node: NodeDeclaration;
  readonly input: unknown;
  readonly requestId: string | number | undefined;
  readonly runId: string;
  readonly seq: number;
  readonly t: number;

  constructor(instanceId: string, node: NodeDeclaration, input: unknown, runId: string, seq: number, t: number, requestId?: string | number) {
    this.instanceId = instanceId;
    this.node = node;
    this.input = input;
    this.requestId = requestId;
    this.runId = runId;
    this.seq = seq;
    this.t = t;
  }
}

/** An execution began and ended well, in one event (see {@link InstanceCompletedEvent}). */
export class CompletedEvent implements InstanceCompletedEvent {
  readonly type = 'instance.completed' as const;
  readonly instanceId: string;
  readonly node: NodeDeclaration;
  readonly input: unknown;
  readonly output: unknown;
  readonly endT: number;
  readonly requestId: string | number | undefined;
  readonly runId: string;
  readonly seq: number;
  readonly t: number;

  constructor(
    instanceId: string,
    node: NodeDeclaration,
    input: unknown,
    output: unknown,
    endT: number,
    runId: string,
    seq: number,
    t: number,
    requestId?: string | number,
  ) {
    this.instanceId = instanceId;
    this.node = node;
    this.input = input;
    this.output = output;
    this.endT = endT;
    this.requestId = requestId;
    this.runId = runId;
    this.seq = seq;
    this.t = t;
  }
}

/** An execution ended well (see {@link InstanceFinishedEvent}). */
export class FinishedEvent implements InstanceFinishedEvent {
  readonly type = 'instance.finished' as const;
  readonly instanceId: string;
  readonly output: unknown;
  readonly runId: string;
  readonly seq: number;
  readonly t: number;

  constructor(instanceId: string, output: unknown, runId: string, seq: number, t: number) {
    this.instanceId = instanceId;
    this.output = output;
    this.runId = runId;
    this.seq = seq;
    this.t = t;
  }
}
