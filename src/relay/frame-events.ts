/**
 * Frames to run events: what a relayed session's classified frames become
 * on the graph (a node and an execution per call, stdout noise, degrade
 * notices, decisions), with no timer, socket or reporter, only a sink.
 *
 * @module
 */

import { abortedRecord } from '../gates/outcome.js';
import { isObject } from '../json/is-object.js';
import { HIDDEN_TOOL_ERROR, hidesResult, recordInjected, rpcError } from '../report/answer-record.js';
import { DeferredValue } from '../report/deferred.js';
import type { GatePoint } from '../protocol/control.js';
import type { InstanceError } from '../protocol/run-model.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import { HIDDEN, type HideSettings } from '../report/hide.js';
import { IdSequence } from '../report/id-sequence.js';
import { declared } from '../report/node-declaration.js';
import { RunEvents, type RunEventSink } from '../report/run-events.js';
import { messageOf, type Direction, type Frame } from '../streams/frame.js';
import { PROTOCOL_NODE_ID, SESSION_NODE_ID, STDOUT_NOISE_NODE } from '../streams/node-naming.js';
import { lineOwner, noiseError } from './line-owner.js';
import { OpenCalls } from './open-calls.js';
import { noiseText, paramsOf, recorded, recordedBytes, resultOf, sourceOf, toolErrorText } from './recorded-value.js';
import { answerNotObserved } from './session-end.js';

/** How many stdout-noise lines become executions on the graph. */
export const MAX_NOISE_INSTANCES = 25;

/** The `stream` of the log lines the proxy itself adds to the session node (the degrade notice). */
export const PROXY_LOG_STREAM = 'graphmind';

const PROTOCOL_NODE: NodeDeclaration = { nodeId: PROTOCOL_NODE_ID, kind: 'custom', parent: SESSION_NODE_ID, label: 'protocol' };

/**
 * The instanceId of a call whose events were only counted while no debugger
 * was attached (see {@link FrameEvents.countUnkept}), answered or not; never sent.
 */
const UNKEPT = '[graphmind] not kept';
const UNKEPT_ANSWERED = '[graphmind] not kept, answered';

/** An instance the debugger knows: not none, and not a call whose events were only counted. */
function seen(instanceId: string | undefined): instanceId is string {
  return instanceId !== undefined && instanceId !== UNKEPT && instanceId !== UNKEPT_ANSWERED;
}

/** Where {@link FrameEvents} sends events (the `Reporter` is one). */
export interface FrameEventSink extends RunEventSink {
  /** A debugger is attached: recorded values read from the frame, else from its bytes (see `sourceOf`). */
  readonly attached: boolean;
  /** Events of `runId` that were counted, not built (see {@link FrameEvents.recordDropped}). */
  countDropped(runId: string, count: number): void;
}

/**
 * One session's frames as run events. {@link FrameEvents.record} takes
 * frames in the order they passed; every event carries the time of the
 * frame being recorded (or now, outside a frame). The state is the
 * session's: instance ids, the calls awaiting answers, the protocol node's
 * totals, the directions that became raw byte pipes.
 */
export class FrameEvents {
  /** The run the events belong to. */
  readonly runId: string;
  readonly #sink: FrameEventSink;
  readonly #events: RunEvents;
  readonly #hide: HideSettings;
  readonly #open: OpenCalls;
  readonly #unsent = new Set<Frame>(); // Requests held at the before gate: in flight for the requester, not for the receiver.
  /** Instance ids: a per-session counter, `mcp_1`, `mcp_2`, … */
  readonly #ids = new IdSequence('mcp_');
  #protocolInstance: string | undefined;
  /** The time of the frame being recorded; 0 outside {@link FrameEvents.record}. */
  #frameTime = 0;
  /** The frame being recorded is one whose events are counted, not built (see {@link FrameEvents.recordDropped}). */
  #dropping = false;
  #droppedEvents = 0;
  /** Calls counted as unkept and not answered yet. */
  #unkeptOpen = 0;
  #calls = 0;
  /** Protocol calls whose record ends in error now: the size of {@link FrameEvents.#failedCalls}. */
  #errors = 0;
  /** The protocol calls counted in `#errors` (a later decision may end one well after all). */
  readonly #failedCalls = new WeakSet<Frame>();
  /** Directions that became raw byte pipes: their frames, answers included, are no longer seen. */
  readonly #degraded = new Set<Direction>();
  /** Degrade notices to log on the session node when the first raw frame of their direction is recorded. */
  readonly #notices = new Map<Direction, string>();
  #noise = 0;

  constructor(sink: FrameEventSink, runId: string, hide: HideSettings, open = new OpenCalls()) {
    this.#open = open;
    this.#sink = sink;
    this.runId = runId;
    this.#hide = hide;
    this.#events = new RunEvents(sink, runId);
  }

  /** The next instance id of the session. */
  nextId(): string {
    return this.#ids.next();
  }

  /** Record one frame, at the time it was read. Best-effort: a frame that cannot be recorded is skipped. */
  record(frame: Frame): void {
    this.#frameTime = frame.at;
    try {
      switch (frame.type) {
        case 'request':
        case 'notification':
          this.#onCall(frame);
          break;
        case 'response':
        case 'error':
          this.#onAnswer(frame);
          break;
        case 'noise':
          if (frame.direction === 'server-to-client') this.#onNoise(frame);
          break;
        case 'raw':
          this.#onRaw(frame);
          break;
        default:
          break;
      }
    } catch {
      // Observation is best-effort: the frames after it are still recorded.
    }
    this.#frameTime = 0;
  }

  /** Record a frame whose events the reporter would drop at once (pushed out while detached): it changes what it changes (ids, open calls, totals), its events only counted. */
  recordDropped(frame: Frame): void {
    this.#dropping = true;
    this.record(frame);
    this.#dropping = false;
  }

  /**
   * A call pushed out while detached (nearly always a tool call or its answer), counted only: it takes its number, is
   * marked unkept, and its answer (or its exit unanswered) is one more dropped event. False for anything else (see recordDropped).
   */
  countUnkept(frame: Frame): boolean {
    const type = frame.type;
    if (type === 'request') {
      const node = frame.node;
      if (node === undefined || node.parent === PROTOCOL_NODE_ID || frame.method === 'initialize' || frame.method === 'server/discover') return false;
      this.#ids.skip();
      frame.instanceId = UNKEPT;
      this.#unkeptOpen++;
      this.#droppedEvents++;
      return true;
    }
    if (type === 'response' || type === 'error') {
      const request = frame.request;
      if (request === undefined || request.instanceId !== UNKEPT) return false;
      this.#answeredUnkept(request);
      return true;
    }
    return false;
  }

  /** Tell the sink how many events were counted, not built, since it was last told. */
  reportDropped(): void {
    if (this.#droppedEvents === 0) return;
    this.#sink.countDropped(this.runId, this.#droppedEvents);
    this.#droppedEvents = 0;
  }

  /** A direction became a raw byte pipe: its notice goes where its first raw bytes stand, and its answers are no longer seen. */
  degraded(direction: Direction, notice: string): void {
    this.#degraded.add(direction);
    this.#notices.set(direction, notice);
  }

  /** The instance recorded for a request or notification frame, if the debugger knows it. */
  instanceIdOf(frame: Frame): string | undefined {
    const id = frame.instanceId;
    return seen(id) ? id : undefined;
  }

  /** What a decision at a gate did to a call (`request`, its request or notification): an injected answer, an abort, or a retry that re-opens it. */
  decided(request: Frame, point: GatePoint, action: 'inject' | 'abort' | 'retry', value?: unknown): void {
    const instanceId = request.instanceId;
    if (!seen(instanceId)) return; // Only counted: the debugger never saw it.
    if (action === 'retry') {
      this.#open.add(request);
      this.#countEnd(request, false);
      this.#events.reopened(instanceId, this.#now());
      return;
    }
    // The call is answered here, by the debugger: it can no longer go unanswered.
    this.#open.delete(request);
    if (action === 'inject') {
      // An answer made in the debugger, recorded as a real one would be (see `recordInjected`).
      const answer = recordInjected(request.method, value, this.#hide);
      this.#countEnd(request, answer.failed);
      if (answer.failed) this.failed(instanceId, answer.output, answer.error);
      else this.ended(instanceId, answer.output);
      return;
    }
    this.#countEnd(request, true);
    this.failed(instanceId, undefined, abortedRecord(point));
  }

  /** A request the proxy answered itself, with `error`, because no server can. */
  answeredByProxy(request: Frame, error: InstanceError): void {
    const instanceId = request.instanceId;
    if (!seen(instanceId)) return;
    this.#open.delete(request);
    this.#countEnd(request, true);
    this.failed(instanceId, undefined, error);
  }

  /**
   * The session is over: notices not logged yet are, every call still open ends (unanswered, or not observed when its
   * answers' direction had become a raw byte pipe), what was counted is reported, the protocol node ends with its totals.
   */
  closeCalls(): void {
    // A notice whose raw bytes were never recorded (nothing should be left).
    for (const notice of this.#notices.values()) this.log(notice, PROXY_LOG_STREAM);
    this.#notices.clear();
    for (const request of this.#open.take()) {
      const toServer = request.direction === 'client-to-server';
      if (this.#degraded.has(toServer ? 'server-to-client' : 'client-to-server')) {
        this.ended(request.instanceId as string, answerNotObserved(toServer ? 'server' : 'client'));
        continue;
      }
      this.#countEnd(request, true);
      this.failed(request.instanceId as string, undefined, { name: 'NoAnswer', message: 'the server exited without answering this request' });
    }
    // Those whose start was only counted end the same way: counted.
    this.#drop(this.#unkeptOpen);
    this.#unkeptOpen = 0;
    this.reportDropped();
    if (this.#protocolInstance !== undefined) {
      this.ended(this.#protocolInstance, { calls: this.#calls, errors: this.#errors, stdoutNoise: this.#noise });
    }
  }

  /** An execution ended well (nothing held beyond the event). */
  ended(instanceId: string, output: unknown): void {
    this.#events.ended(instanceId, output, 0, this.#now());
  }

  /** An execution ended in error (nothing held beyond the event). */
  failed(instanceId: string, output: unknown, error: InstanceError): void {
    this.#events.failed(instanceId, output, error, 0, this.#now());
  }

  /** More metadata for the run (counted, not built, while dropping). */
  meta(meta: Record<string, unknown>): void {
    if (this.#dropping) return this.#drop(1);
    this.#events.meta(meta, this.#now());
  }

  /** A request held at the before gate (`held`), or let go: while held its receiver has not got it, so no line is its. */
  heldBefore(request: Frame, held: boolean): void {
    if (held) this.#unsent.add(request);
    else this.#unsent.delete(request);
  }

  /** A log line on the session node. */
  log(text: string, stream = 'stderr'): void {
    this.#events.log(SESSION_NODE_ID, text, stream, this.#now());
  }

  /** Lines of the server's stderr that came together: on the only call in flight (see `lineOwner`), else on the session node. */
  stderr(lines: readonly string[]): void {
    const owner = lineOwner(this.#open, this.#unkeptOpen, seen, this.#unsent);
    for (const text of lines) this.#events.log(owner?.nodeId ?? SESSION_NODE_ID, text, 'stderr', this.#now(), owner?.instanceId);
  }

  /** When the event being built happened: its frame's time, or now. */
  #now(): number {
    return this.#frameTime !== 0 ? this.#frameTime : Date.now();
  }

  /** Events the reporter would drop at once: counted, not built (see {@link FrameEvents.recordDropped}). */
  #drop(events: number): void {
    this.#droppedEvents += events;
  }

  /** A call counted as unkept is answered: its end is dropped too. */
  #answeredUnkept(request: Frame): void {
    request.instanceId = UNKEPT_ANSWERED;
    this.#unkeptOpen--;
    this.#droppedEvents++;
  }

  /**
   * A protocol call's record ended, in error or not: `errors` counts the
   * protocol calls that end in error (a JSON-RPC error, a failed result,
   * an abort, no answer), each once, and a decision that ends one well
   * after all (an inject, a retry) takes it back out.
   */
  #countEnd(request: Frame, failed: boolean): void {
    if (request.node?.parent !== PROTOCOL_NODE_ID) return;
    if (!failed) {
      if (this.#failedCalls.delete(request)) this.#errors--;
    } else if (!this.#failedCalls.has(request)) {
      this.#failedCalls.add(request);
      this.#errors++;
    }
  }

  /** Raw bytes of a degraded direction: the first of them carry its notice. */
  #onRaw(frame: Frame): void {
    const notice = this.#notices.get(frame.direction);
    if (notice === undefined) return;
    this.#notices.delete(frame.direction);
    if (this.#dropping) return this.#drop(1);
    this.log(notice, PROXY_LOG_STREAM);
  }

  #ensureProtocol(): void {
    if (this.#protocolInstance !== undefined) return;
    this.#protocolInstance = this.nextId();
    if (this.#dropping) this.#drop(1);
    else this.#events.started(this.#protocolInstance, PROTOCOL_NODE, undefined, 0, this.#now());
  }

  #onCall(frame: Frame): void {
    const node = frame.node;
    if (node === undefined) return;
    if (node.parent === PROTOCOL_NODE_ID) {
      this.#ensureProtocol();
      this.#calls++;
    }
    const instanceId = this.nextId();
    frame.instanceId = instanceId;
    const notification = frame.type === 'notification';
    if (this.#dropping) this.#drop(notification ? 2 : 1);
    else {
      const hide = this.#hide;
      const attached = this.#sink.attached;
      const input = hide.inputs ? HIDDEN : recorded(frame, sourceOf(frame, attached), paramsOf);
      const held = hide.inputs ? 0 : recordedBytes(frame);
      const requestId = notification ? undefined : (frame.id ?? undefined); // As the wire had it; `null` is none.
      const answer = frame.answer;
      if (answer !== undefined) {
        // Answered in the same batch (see `pairCalls`): one event for both.
        const hideResult = hidesResult(frame.method, hide);
        const output = hideResult ? HIDDEN : recorded(answer, sourceOf(answer, attached), resultOf);
        this.#events.completed(instanceId, declared(node), input, output, answer.at, held + (hideResult ? 0 : recordedBytes(answer)), this.#now(), requestId);
      } else {
        this.#events.started(instanceId, declared(node), input, held, this.#now(), requestId);
        if (notification) this.ended(instanceId, undefined);
      }
    }
    if (notification) return;
    this.#open.add(frame);
    // The host's name and requested version are params too: hidden inputs keep them out.
    const params = frame.method === 'initialize' && !this.#hide.inputs ? messageOf(frame)?.params : undefined;
    if (isObject(params)) this.meta({ clientInfo: params.clientInfo, requestedProtocolVersion: params.protocolVersion });
  }

  #onAnswer(frame: Frame): void {
    const request = frame.request;
    if (request === undefined) return;
    if (request.instanceId === UNKEPT) return this.#answeredUnkept(request);
    // Not open: never recorded, already answered, or decided in the debugger.
    const instanceId = request.instanceId;
    if (instanceId === undefined || !this.#open.delete(request)) return;
    // `GRAPHMIND_HIDE_TOOL_RESULTS` keeps what answers a tool call out of the record.
    const hideResult = hidesResult(request.method, this.#hide);
    if (frame.type === 'error') {
      this.#countEnd(request, true);
      if (this.#dropping) return this.#drop(1);
      return this.failed(instanceId, undefined, rpcError(messageOf(frame)?.error ?? {}, hideResult));
    }
    if (request.method === 'initialize' || request.method === 'server/discover') {
      const result = messageOf(frame)?.result;
      if (isObject(result)) this.meta({ protocolVersion: result.protocolVersion, serverInfo: result.serverInfo });
    }
    // Recorded with its request, in one event.
    if (request.answer === frame) return;
    this.#countEnd(request, frame.isError === true);
    if (this.#dropping) return this.#drop(1);
    const source = sourceOf(frame, this.#sink.attached);
    const output = hideResult ? HIDDEN : recorded(frame, source, resultOf);
    const held = hideResult ? 0 : recordedBytes(frame);
    if (frame.isError === true) {
      const message = hideResult ? HIDDEN_TOOL_ERROR : new DeferredValue(0, toolErrorText, source);
      return this.#events.failed(instanceId, output, { name: 'ToolError', message: message as string }, held, this.#now());
    }
    this.#events.ended(instanceId, output, held, this.#now());
  }

  #onNoise(frame: Frame): void {
    this.#noise++;
    this.#ensureProtocol();
    if (this.#noise > MAX_NOISE_INSTANCES) return;
    // Its id is taken even when its events are only counted: later ids stay what they would be.
    const instanceId = this.nextId();
    if (this.#dropping) return this.#drop(2);
    this.#events.started(instanceId, STDOUT_NOISE_NODE, noiseText(frame.raw), 0, this.#now());
    this.failed(instanceId, undefined, noiseError(lineOwner(this.#open, this.#unkeptOpen, seen, this.#unsent)));
  }
}
