import { Gate, type Decision, type HoldReason } from '../gates/gate.js';
import { ERA_2026, PROTOCOL_VERSION_META_KEY, isWholeFrame, liftResult } from '../gates/lift.js';
import { LoopDetector } from '../gates/loop-detector.js';
import { DeferredValue } from '../report/deferred.js';
import { HIDDEN, hiddenRpcError, type HideSettings } from '../report/hide.js';
import type { Breakpoints, GatePoint } from '../report/events.js';
import type { DecisionMessage, Reporter } from '../report/reporter.js';
import type { Relay } from '../streams/create-relay.js';
import { scanEnvelope } from '../streams/envelope.js';
import { beyondSafe, idForDisplay, idKey } from '../streams/exact-id.js';
import { hasWholeLine, messageOf, newFrame, type Frame } from '../streams/frame.js';
import type { FrameGate } from '../streams/gate-transform.js';
import type { GraphRecorder } from './graph-recorder.js';
import * as messages from './messages.js';
import type { TextSink } from './stderr-sink.js';

/** The JSON-RPC error code a client receives when a call is aborted in the debugger. */
export const ABORT_CODE = -32099;
/** How long `--wait-for-attach` delays the first frame for a debugger (a wait, not a hold). */
export const WAIT_FOR_ATTACH_MS = 3000;

/** Options for {@link WireGate}. */
export interface WireGateOptions {
  reporter: Reporter;
  recorder: GraphRecorder;
  sink: TextSink;
  /** Delay the first frame until the debugger attaches (up to {@link WAIT_FOR_ATTACH_MS}). */
  waitForAttach: boolean;
  /** Tools polled on purpose (`GRAPHMIND_LOOP_ALLOW`). */
  loopAllow: readonly string[];
}

function record(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function line(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`);
}

/**
 * The held frame as the hold reports it: the message, with what the hide
 * switches keep out of the record replaced by the placeholder (a request's
 * `params`, a tool's `result`, the words of a JSON-RPC error answering a
 * tool call), as the recorder does for the same call.
 */
function heldFrame(frame: Frame, call: Frame, hide: HideSettings): unknown {
  const message = messageOf(frame);
  const isCall = frame.type === 'request' || frame.type === 'notification';
  const hidden = isCall
    ? hide.inputs && (message === undefined || 'params' in message)
    : hide.toolResults && call.method === 'tools/call' && (message === undefined || 'result' in message || 'error' in message);
  if (!hidden) return message ?? frame.raw.toString('utf8');
  if (message === undefined) return HIDDEN;
  if (isCall) return { ...message, params: HIDDEN };
  // A buggy answer may carry both: each is hidden, as the record hides them.
  const shown: Record<string, unknown> = { ...message };
  if ('result' in message) shown.result = HIDDEN;
  if ('error' in message) shown.error = hiddenRpcError(message.error);
  return shown;
}

/**
 * The id of `request` as JSON, spelled exactly as the request spelled it:
 * an answer made here must carry the sender's id, and parsing it into a
 * JavaScript number would change `12345678901234567890`, `1e400` or `1.0`.
 * Its value's JSON when the frame's bytes cannot be read again.
 */
function idJson(request: Frame): string {
  const env = scanEnvelope(request.raw);
  if (env !== undefined && env.id !== -1) return request.raw.toString('utf8', env.id, env.idEnd);
  return JSON.stringify(request.id ?? null);
}

/**
 * A whole answer typed in the debugger, as one line. An id past 2^53 was
 * rounded when the request was parsed, in the hold as shown and so in what
 * was copied from it: when the typed id is that rounded value, the line
 * carries the request's own digits instead, so it answers that call.
 */
function wholeAnswerLine(request: Frame, value: Record<string, unknown>): Buffer {
  if (!beyondSafe(request.id) || value.id !== request.id) return line(value);
  const { id: _rounded, ...members } = value;
  const rest = JSON.stringify(members).slice(1);
  return Buffer.from(`{"id":${idJson(request)}${rest === '}' ? '' : ','}${rest}\n`);
}

/** A made-up answer to `request`: its id as it came, then `tail` (the rest of the members, from the comma). */
function answerLine(request: Frame, tail: string): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","id":${idJson(request)}${tail}}\n`);
}

function answerBytes(request: Frame, result: unknown): Buffer {
  return answerLine(request, `,"result":${JSON.stringify(result) ?? 'null'}`);
}

const ABORT_TAIL = `,"error":${JSON.stringify({ code: ABORT_CODE, message: 'Aborted in the GraphMind debugger' })}`;

function abortBytes(request: Frame): Buffer {
  return answerLine(request, ABORT_TAIL);
}

/**
 * The proxy's gate: decides which frames hold (breakpoints, the error gate,
 * the loop hold; `--wait-for-attach` only delays the first frame), reports holds to the debugger, and
 * carries out the decision on the wire:
 *
 * | | held request or notification (before) | held response (after / error) |
 * |---|---|---|
 * | continue | forward | forward |
 * | inject | not forwarded; the sender gets the lifted value (a notification is replaced) | a rewritten frame carrying the value |
 * | retry | same as continue | dropped; the request's bytes re-sent; the call stays open |
 * | abort | not forwarded; the sender gets error -32099 (a notification is dropped) | dropped; the requester gets -32099 |
 */
export class WireGate implements FrameGate {
  readonly gate = new Gate();
  readonly #options: WireGateOptions;
  readonly #loop: LoopDetector;
  #relay: Relay | undefined;
  #attachWait: Promise<void> | undefined;
  /** Ends --wait-for-attach's wait at once. */
  #endAttachWait: (() => void) | undefined;
  #sessionEra: string | undefined;
  /** The server is gone (see {@link WireGate.stop}): nothing is held any more. */
  #stopped = false;
  /**
   * The debugger records nothing more of this session on this connection
   * (its run was deleted while live, or another connection reports it): a
   * hold would only be let go at once, after a HOLDING line about nothing,
   * so nothing holds until the next connection (where a reclaim of a
   * deleted run is rejected again).
   */
  #unrecorded = false;

  constructor(options: WireGateOptions) {
    this.#options = options;
    this.#loop = new LoopDetector({ allow: options.loopAllow });
    const { reporter } = options;
    // The gate arms only once the server has told us its breakpoints: until
    // then we would be guessing (pause-on-error may be off).
    reporter.on('breakpoints', (breakpoints: Breakpoints) => {
      this.gate.breakpoints = breakpoints;
      this.gate.attached = reporter.attached && !this.#stopped && !this.#unrecorded;
    });
    reporter.on('detached', () => {
      this.gate.attached = false;
      this.#unrecorded = false;
      this.gate.releaseAll();
    });
    reporter.on('rejected', (runId: string) => {
      if (runId !== options.recorder.runId) return;
      this.#unrecorded = true;
      this.gate.attached = false;
      this.gate.releaseAll();
    });
    reporter.on('decision', (decision: DecisionMessage) => {
      this.gate.decide(decision.holdId, { action: decision.action, value: decision.value });
    });
    if (options.waitForAttach) {
      this.#attachWait = new Promise<void>((resolve) => {
        if (this.gate.attached) return resolve();
        const timer = setTimeout(done, WAIT_FOR_ATTACH_MS);
        function done(): void {
          clearTimeout(timer);
          reporter.off('breakpoints', done);
          resolve();
        }
        this.#endAttachWait = done;
        reporter.on('breakpoints', done);
      });
      void this.#attachWait.then(() => {
        this.#attachWait = undefined;
      });
    }
  }

  /** The relay whose writers answer senders and re-send requests. */
  attach(relay: Relay): void {
    this.#relay = relay;
  }

  /** Nothing is held while no debugger is attached (or awaited), nor once the server is gone. */
  mayHold(): boolean {
    return !this.#stopped && (this.#attachWait !== undefined || this.gate.attached);
  }

  /**
   * The server has exited: nobody is left to answer a held frame. Every
   * hold is continued, and from now on nothing is held, so whatever the
   * server wrote before it went (answers still in the pipe, or a
   * grandchild's) reaches the host.
   */
  stop(): void {
    this.#stopped = true;
    this.gate.attached = false;
    this.#endAttachWait?.();
    this.gate.releaseAll();
  }

  check(frame: Frame): Promise<readonly Frame[]> | undefined {
    if (this.#stopped) return undefined;
    if (frame.type === 'response' && frame.method === 'initialize') this.#noteEra(frame);
    if (this.#attachWait !== undefined) {
      // --wait-for-attach: nothing moves until the debugger is there (or 3 s pass).
      return this.#attachWait.then(() => this.#evaluate(frame) ?? [frame]);
    }
    return this.#evaluate(frame);
  }

  #noteEra(frame: Frame): void {
    const result = messageOf(frame)?.result;
    if (record(result) && typeof result.protocolVersion === 'string') this.#sessionEra = result.protocolVersion;
  }

  #evaluate(frame: Frame): Promise<readonly Frame[]> | undefined {
    const gate = this.gate;
    if (!gate.attached) return undefined;
    if (frame.type === 'request' || frame.type === 'notification') {
      const node = frame.node;
      if (node === undefined) return undefined;
      let reason: HoldReason | undefined;
      if (gate.breaksAt(node.nodeId, 'before')) reason = 'breakpoint';
      if (frame.type === 'request' && frame.method === 'tools/call' && frame.direction === 'client-to-server') {
        // The classifier named the node after params.name, when it is a string.
        const name = node.kind === 'tool' ? node.label : '';
        // A tool polled on purpose needs no parse of its arguments.
        const params = this.#loop.allows(name) ? undefined : messageOf(frame)?.params;
        if (this.#loop.observe(name, record(params) ? params.arguments : undefined)) reason ??= 'loop';
      }
      return reason === undefined ? undefined : this.#hold(frame, 'before', reason);
    }
    if (frame.type === 'response' || frame.type === 'error') {
      const request = frame.request;
      if (request?.node === undefined) return undefined;
      if (gate.breaksAt(request.node.nodeId, 'after')) return this.#hold(frame, 'after', 'breakpoint');
      if ((frame.type === 'error' || frame.isError === true) && gate.errorGateArmed) return this.#hold(frame, 'error', 'error');
    }
    return undefined;
  }

  #hold(frame: Frame, point: GatePoint, reason: HoldReason): Promise<readonly Frame[]> {
    const { reporter, recorder, sink } = this.#options;
    const { hold, decision } = this.gate.hold(point, reason);
    const call = frame.request ?? frame;
    const method = call.method ?? 'unknown';
    reporter.send(recorder.runId, {
      type: 'hold.opened',
      holdId: hold.holdId,
      nodeId: call.node?.nodeId ?? 'mcp:session',
      instanceId: recorder.instanceIdOf(call) ?? 'unknown',
      gate: point,
      method,
      frame: new DeferredValue(frame.raw.length, () => heldFrame(frame, call, recorder.hide)),
      reason,
    });
    sink.write(`${messages.holding(method, idForDisplay(call), point, reporter.url)}\n`);
    return decision.then((d) => {
      let out: readonly Frame[];
      try {
        out = point === 'before' ? this.#decideBefore(frame, d) : this.#decideAfter(frame, point, d);
      } catch {
        out = [frame];
      }
      reporter.send(recorder.runId, { type: 'hold.released', holdId: hold.holdId, action: d.action });
      return out;
    });
  }

  /** The protocol version to stamp an answer to `request` for. */
  #era(request: Frame): string | undefined {
    const params = messageOf(request)?.params;
    const meta = record(params) ? params._meta : undefined;
    const pinned = record(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
    return typeof pinned === 'string' ? pinned : this.#sessionEra;
  }

  #lifted(request: Frame, value: unknown): unknown {
    const params = messageOf(request)?.params;
    const uri = record(params) && typeof params.uri === 'string' ? params.uri : undefined;
    return liftResult(request.method, value, { protocolVersion: this.#era(request), uri });
  }

  /** Bytes that answer `request` with an injected value: a whole frame verbatim, else the lifted result. */
  #injectedAnswer(request: Frame, value: unknown): { bytes: Buffer; output: unknown } {
    if (isWholeFrame(value)) return { bytes: wholeAnswerLine(request, value), output: value };
    const result = this.#lifted(request, value);
    return { bytes: answerBytes(request, result), output: result };
  }

  /** Write bytes towards whoever sent `frame`. */
  #toSender(frame: Frame, bytes: Buffer): void {
    const relay = this.#relay;
    if (relay === undefined) return;
    const writer = frame.direction === 'client-to-server' ? relay.toClient.writer : relay.toServer.writer;
    writer.writeBytes(bytes);
  }

  #replacement(like: Frame, bytes: Buffer): Frame {
    return newFrame(bytes, like.direction, like.seq, true);
  }

  #decideBefore(frame: Frame, decision: Decision): readonly Frame[] {
    const { recorder } = this.#options;
    const relay = this.#relay;
    // continue and retry (nothing has run yet) forward it; so does an action we do not know.
    if (decision.action !== 'inject' && decision.action !== 'abort') return [frame];
    if (frame.type === 'notification') {
      if (decision.action === 'abort') {
        recorder.onDecision(frame, 'before', 'abort');
        return [];
      }
      const bytes = line(decision.value);
      recorder.onDecision(frame, 'before', 'inject', decision.value);
      return [this.#replacement(frame, bytes)];
    }
    // A request that is answered here never reaches its receiver: forget it.
    const key = idKey(frame);
    if (key !== undefined) relay?.correlator.take(frame.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server', key);
    if (decision.action === 'abort') {
      this.#toSender(frame, abortBytes(frame));
      recorder.onDecision(frame, 'before', 'abort');
      return [];
    }
    const { bytes, output } = this.#injectedAnswer(frame, decision.value);
    this.#toSender(frame, bytes);
    recorder.onDecision(frame, 'before', 'inject', output);
    return [];
  }

  #decideAfter(frame: Frame, point: GatePoint, decision: Decision): readonly Frame[] {
    const { recorder } = this.#options;
    const request = frame.request as Frame;
    switch (decision.action) {
      case 'continue':
        return [frame];
      case 'inject': {
        const { bytes, output } = this.#injectedAnswer(request, decision.value);
        recorder.onDecision(request, point, 'inject', output);
        return [this.#replacement(frame, bytes)];
      }
      case 'abort':
        recorder.onDecision(request, point, 'abort');
        return [this.#replacement(frame, abortBytes(request))];
      case 'retry': {
        const relay = this.#relay;
        // A request relayed in pieces before the debugger attached may not
        // have been kept whole: it cannot be sent again, so the answer goes on.
        if (relay === undefined || !hasWholeLine(request)) return [frame];
        // Same bytes, same id: the answer pairs with the request again.
        relay.correlator.track(request);
        const writer = request.direction === 'client-to-server' ? relay.toServer.writer : relay.toClient.writer;
        writer.writeBytes(request.raw);
        recorder.onDecision(request, point, 'retry');
        return [];
      }
      default:
        // Not an action we know: fail open.
        return [frame];
    }
  }
}

/** True if an era is the one whose results need stamping (re-exported for tests). */
export const isModernEra = (version: string | undefined): boolean => version === ERA_2026;
