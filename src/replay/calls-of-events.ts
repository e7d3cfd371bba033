/**
 * A run's events folded into the calls a replay answers (see
 * {@link RecordedRun}): each request the host sent with the answer it
 * received (its last end) and the answer the server sent (its first end,
 * unless a decision at a before gate ended it: then the server never saw
 * it), and what the server sent the client while it was open. Events are
 * taken in log order, which is the order the frames passed.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { NodeDeclaration, RunEvent } from '../protocol/ingest.js';
import type { InstanceError } from '../protocol/run-model.js';
import { HIDDEN } from '../report/hide.js';
import { isNotification, methodOf, serverInitiated } from '../export/call-shape.js';
import type { RecordedAnswer, RecordedCall, RecordedRun, ServerMessage } from './recorded-run.js';

/** Nodes that are not calls: the session, the protocol card, stdout noise. */
const NOT_CALLS = new Set(['mcp:session', 'mcp:protocol', 'mcp:stdout-noise']);

/** The key a value too large to record holds instead (see the relay's `recorded`). */
export const NOT_RECORDED_KEY = '[graphmind]';

/** A call or a server message being built. */
interface Building {
  call?: RecordedCall;
  message?: ServerMessage;
  ends: number;
  /** A decision at a before gate is to end it: the server never saw it. */
  decidedBefore: boolean;
}

/** The answer an end stands for; undefined when it answered nothing (no answer came, the server was gone). */
function answerOfEnd(output: unknown, error: InstanceError | undefined): RecordedAnswer | undefined {
  if (error === undefined) return { result: output ?? {} };
  // A failed tool result is a result, with isError.
  if (error.name === 'ToolError') return { result: output ?? {} };
  if (typeof error.code !== 'number') return undefined;
  return error.data === undefined ? { error: { code: error.code, message: error.message } } : { error: { code: error.code, message: error.message, data: error.data } };
}

/** The answer a held answer frame carries. */
function answerOfFrame(frame: unknown): RecordedAnswer | undefined {
  if (!isObject(frame)) return undefined;
  if ('result' in frame) return { result: frame.result };
  const error = frame.error;
  if (isObject(error) && typeof error.code === 'number') {
    const message = typeof error.message === 'string' ? error.message : '';
    return error.data === undefined ? { error: { code: error.code, message } } : { error: { code: error.code, message, data: error.data } };
  }
  return undefined;
}

/** Events to calls, one at a time (see the module). */
export class CallsOfEvents {
  readonly calls: RecordedCall[] = [];
  readonly #building = new Map<string, Building>();
  /** Client requests open now, oldest first. */
  readonly #open: RecordedCall[] = [];
  /** Before-gate holds by id, with their instance. */
  readonly #beforeHolds = new Map<string, string>();
  readonly #missing = new Map<string, number>();

  /** Take one event of the run. */
  apply(event: RunEvent): void {
    switch (event.type) {
      case 'instance.started':
        // A call the debugger sent itself (Send again) is not the host's: replay never answers it, verify never plays it.
        if (event.sentBy === undefined) this.#start(event.instanceId, event.node, event.input);
        return;
      case 'instance.completed':
        this.#start(event.instanceId, event.node, event.input);
        this.#end(event.instanceId, event.output, undefined);
        return;
      case 'instance.finished':
        this.#end(event.instanceId, event.output, undefined);
        return;
      case 'instance.error':
        this.#end(event.instanceId, event.output, event.error);
        return;
      case 'instance.reopened': {
        const call = this.#building.get(event.instanceId)?.call;
        if (call !== undefined && !call.notification) {
          delete call.received;
          if (!this.#open.includes(call)) this.#open.push(call);
        }
        return;
      }
      case 'hold.opened':
        this.#held(event.holdId, event.instanceId, event.gate, event.frame);
        return;
      case 'hold.released': {
        const instanceId = this.#beforeHolds.get(event.holdId);
        const building = instanceId === undefined ? undefined : this.#building.get(instanceId);
        if (building !== undefined && (event.action === 'inject' || event.action === 'abort')) building.decidedBefore = true;
        return;
      }
      default:
        return;
    }
  }

  /** How many calls from the first have been answered (or need no answer): the calls before the oldest still open. */
  get settled(): number {
    let oldest = this.calls.length;
    for (const call of this.#open) if (call.index < oldest) oldest = call.index;
    return oldest;
  }

  /** The run read so far. */
  run(label: string): RecordedRun {
    const missing = [...this.#missing].map(([what, count]) => `${what} of ${count} ${count === 1 ? 'call' : 'calls'}`);
    return { label, calls: this.calls, missing };
  }

  #note(what: string): void {
    this.#missing.set(what, (this.#missing.get(what) ?? 0) + 1);
  }

  /** Check a recorded value: a hidden or unrecorded one is noted as missing. */
  #check(value: unknown, what: 'params' | 'answer'): void {
    if (value === HIDDEN) this.#note(what === 'params' ? 'the params (hidden by GRAPHMIND_HIDE_INPUTS)' : 'the answer (hidden by GRAPHMIND_HIDE_TOOL_RESULTS)');
    else if (isObject(value) && NOT_RECORDED_KEY in value) this.#note(`the ${what} (larger than 1 MiB, not recorded)`);
  }

  #start(instanceId: string, node: NodeDeclaration, input: unknown): void {
    if (NOT_CALLS.has(node.nodeId) || node.kind === 'server' || this.#building.has(instanceId)) return;
    const method = methodOf(node);
    this.#check(input, 'params');
    if (serverInitiated(method)) {
      const message: ServerMessage = { method, request: !isNotification(method) };
      if (input !== undefined) message.params = input;
      this.#building.set(instanceId, { message, ends: 0, decidedBefore: false });
      this.#place(message);
      return;
    }
    const notification = isNotification(method);
    const call: RecordedCall = { index: this.calls.length, instanceId, method, notification, inside: [], after: [] };
    if (input !== undefined) call.params = input;
    this.calls.push(call);
    this.#building.set(instanceId, { call, ends: 0, decidedBefore: false });
    if (!notification) this.#open.push(call);
  }

  /** Where a server message goes: inside the open call it belongs to, else after the last call. */
  #place(message: ServerMessage): void {
    let owner: RecordedCall | undefined;
    if (message.method === 'notifications/progress' && isObject(message.params)) {
      const token = message.params.progressToken;
      owner = this.#open.find((call) => isObject(call.params) && isObject(call.params._meta) && call.params._meta.progressToken === token);
    }
    owner ??= this.#open[this.#open.length - 1];
    if (owner !== undefined) owner.inside.push(message);
    else this.calls[this.calls.length - 1]?.after.push(message);
  }

  #end(instanceId: string, output: unknown, error: InstanceError | undefined): void {
    const building = this.#building.get(instanceId);
    if (building === undefined) return;
    building.ends++;
    const answer = answerOfEnd(output, error);
    if (building.message !== undefined) {
      if (answer !== undefined) building.message.answer = answer;
      return;
    }
    const call = building.call as RecordedCall;
    if (call.notification) return;
    this.#check(output, 'answer');
    if (error?.message === HIDDEN) this.#note('the answer (hidden by GRAPHMIND_HIDE_TOOL_RESULTS)');
    const index = this.#open.indexOf(call);
    if (index !== -1) this.#open.splice(index, 1);
    if (answer === undefined) delete call.received;
    else call.received = answer;
    if (building.ends === 1 && !building.decidedBefore && answer !== undefined && !('sent' in call)) call.sent = answer;
  }

  #held(holdId: string, instanceId: string, gate: string, frame: unknown): void {
    const building = this.#building.get(instanceId);
    if (building?.call === undefined) return;
    if (gate === 'before') {
      this.#beforeHolds.set(holdId, instanceId);
      return;
    }
    // An answer held before its call's end was recorded: it is the server's.
    const answer = answerOfFrame(frame);
    if (answer !== undefined && building.call.sent === undefined && building.ends === 0) building.call.sent = answer;
  }
}
