import type { DebuggerGate } from '../gates/debugger-gate.js';
import type { Decision, PendingHold } from '../gates/gate.js';
import { cancelledBy } from '../gates/give-up.js';
import type { HoldPlan } from '../gates/hold-policy.js';
import { liftOptionsFor } from '../gates/lift.js';
import { LoopDetector } from '../gates/loop-detector.js';
import { outcomeOf, type Outcome } from '../gates/outcome.js';
import { isObject } from '../json/is-object.js';
import { DeferredValue } from '../report/deferred.js';
import type { GatePoint } from '../protocol/control.js';
import { isMethodProbe } from '../protocol/run-counts.js';
import { heldMessage, type HideSettings } from '../report/hide.js';
import { messageOf, type Direction, type Frame, type JsonRpcMessage } from '../streams/frame.js';
import { madeFrame } from '../streams/lifter.js';
import { madeValue } from '../streams/made-frame.js';
import { ListDrift, isListMethod, type DriftLock, type DriftRecorder } from './drift-watch.js';
import { noViewerText } from './messages.js';
import type { HoldWire } from './hold-wire.js';
import { frameRules } from './rule-subject.js';
import { NoViewerNotice, type HoldingNotice } from './no-viewer.js';

export { cancelledBy } from '../gates/give-up.js';
export type { HoldingNotice } from './no-viewer.js';
export type { HoldWire } from './hold-wire.js';

/** How long `waitForAttach` delays the first frame for a debugger (a wait, not a hold). */
export const WAIT_FOR_ATTACH_MS = 3000;

/** The recorder as the gate uses it (a `RelayRecorder` is one). */
export interface GateRecorder extends DriftRecorder {
  /** The run the relayed session is recorded as: holds are reported on it. */
  readonly runId: string;
  /** What the record hides (`GRAPHMIND_HIDE_*`): a hold shows no more. */
  readonly hide?: HideSettings;
  /** The instance a request or notification frame was recorded as. */
  instanceIdOf(frame: Frame): string | undefined;
  /** What a decision did to a call. */
  onDecision(request: Frame, point: GatePoint, action: 'inject' | 'abort' | 'retry', value?: unknown): void;
  /** A line of the proxy's own for the run's log (a hold nobody watches). @default undefined */
  onNotice?(text: string): void;
  /** A request held at the before gate (`held`), or let go: its receiver has not got it meanwhile. @default undefined */
  onHeldBefore?(request: Frame, held: boolean): void;
}

/** Options for {@link FrameHolds}. */
export interface FrameHoldsOptions {
  /** The debugger-connected gate the holds go through (one may serve many sessions). */
  core: DebuggerGate;
  /** The session's recorder: names the run and instance of a hold, and records what decisions do. */
  recorder: GateRecorder;
  /** How answers made here reach a sender, and how a request is sent again (see {@link FrameHolds.wire}). @default undefined */
  wire?: HoldWire;
  /**
   * Delay the first frame until a debugger attaches (up to
   * {@link WAIT_FOR_ATTACH_MS}), so even `initialize` can be gated.
   * @default false
   */
  waitForAttach?: boolean;
  /** Tools polled on purpose, never loop-held (`GRAPHMIND_LOOP_ALLOW`). @default [] */
  loopAllow?: readonly string[];
  /** Called when a frame starts holding (the proxies print their HOLDING line). @default undefined */
  onHolding?: (notice: HoldingNotice) => void;
  /**
   * Called once for a hold that no viewer watches (when it opens, or when
   * the last viewer goes while it waits): the proxies say so on stderr. The
   * run's log says so too, through the recorder's `onNotice`.
   * @default undefined
   */
  onUnwatched?: (notice: HoldingNotice) => void;
  /** Compare list answers with this lock file's surface instead of with the session's first answers (`mcp-proxy --lock`). @default undefined @internal */
  lock?: DriftLock;
}

const NO_HIDING: HideSettings = { inputs: false, toolResults: false };

/** The method a requester gives up with. */
const CANCELLED = 'notifications/cancelled';

/** A hold open right now: the call it belongs to, so that the requester's giving up can be matched to it. */
interface OpenHold {
  runId: string;
  /** The held call's request (for an answer, the request it answers). */
  call: Frame;
}

/** The held frame as the hold reports it (see `heldMessage`). */
function heldFrame(frame: Frame, call: Frame, hide: HideSettings): unknown {
  const isCall = frame.type === 'request' || frame.type === 'notification';
  return heldMessage(messageOf(frame), isCall, call.method, hide, () => frame.raw.toString('utf8'));
}

/**
 * The debugger's gate over classified frames, for any transport: which
 * frames hold (breakpoints, the error gate, the loop hold, through the
 * shared hold policy), the hold's lifecycle (through
 * {@link DebuggerGate.withHold}), and what a decision (through the shared
 * `outcomeOf`) does, as frames:
 *
 * | | held request or notification (before) | held response (after / error) |
 * |---|---|---|
 * | continue | forward | forward |
 * | inject | not forwarded; the sender gets the lifted value (a notification is replaced) | a rewritten frame carrying the value |
 * | retry | same as continue | dropped; the request re-sent; the call stays open |
 * | abort | not forwarded; the sender gets error -32099 (a notification is dropped) | dropped; the requester gets -32099 |
 *
 * {@link FrameHolds.check} answers with the frames that go on in place of
 * the held one (made frames get their bytes from `madeBytes`); an answer
 * to the sender and a retry go through the {@link HoldWire}. The stdio
 * relay's `RelayGate` and the HTTP proxy are both built on it.
 */
export class FrameHolds {
  /** The debugger-connected gate the holds go through. */
  readonly core: DebuggerGate;
  /** How answers made here reach a sender, and how a request is sent again. */
  wire: HoldWire | undefined;
  readonly #recorder: GateRecorder;
  readonly #onHolding: ((notice: HoldingNotice) => void) | undefined;
  readonly #loop: LoopDetector;
  #attachWait: Promise<void> | undefined;
  #sessionEra: string | undefined;
  /** The server's `serverInfo.name`, once its answer to `initialize` was seen: scoped breakpoints apply from then on. */
  #server: string | undefined;
  readonly #noViewer: NoViewerNotice;
  /** Nothing is held any more (see {@link FrameHolds.stop}). */
  #stopped = false;
  /** Holds open right now, by id. */
  readonly #open = new Map<string, OpenHold>();
  /** Requests sent this way have nobody waiting for their answers any more (see {@link FrameHolds.giveUpFrom}). */
  #gone: { direction: Direction; why: string } | undefined;
  /** Live drift: the session's list answers compared with its first ones (or the lock). */
  readonly #drift: ListDrift;

  constructor(options: FrameHoldsOptions) {
    this.core = options.core;
    this.wire = options.wire;
    this.#recorder = options.recorder;
    this.#onHolding = options.onHolding;
    this.#loop = new LoopDetector({ allow: options.loopAllow ?? [] });
    this.#drift = new ListDrift(options.lock, options.recorder);
    const recorder = options.recorder;
    const onUnwatched = options.onUnwatched;
    this.#noViewer = new NoViewerNotice(options.core, (notice) => {
      recorder.onNotice?.(noViewerText(notice));
      onUnwatched?.(notice);
    });
    if (options.waitForAttach === true) {
      this.#attachWait = this.core.whenArmed(WAIT_FOR_ATTACH_MS).then(() => {
        this.#attachWait = undefined;
      });
    }
  }

  /** The protocol version the session negotiated, once its `initialize` answer was seen. */
  get sessionEra(): string | undefined {
    return this.#sessionEra;
  }

  /** The server's name (`serverInfo.name`), once its `initialize` answer was seen. */
  get server(): string | undefined {
    return this.#server;
  }

  /** Nothing is held while no debugger is attached (or awaited), nor once stopped. */
  mayHold(): boolean {
    return !this.#stopped && (this.#attachWait !== undefined || this.core.mayHold(this.#recorder.runId));
  }

  /** Nothing is held from now on, and this session's holds go on (the other side is gone). */
  stop(): void {
    this.#stopped = true;
    this.#open.clear();
    this.#noViewer.stop();
    this.core.releaseRun(this.#recorder.runId);
  }

  /**
   * The peer that sends `direction`'s requests is gone (the stdio host's
   * input ended, an HTTP client closed its request): the holds of its calls
   * still open, and those that open later, are reported as given up, with
   * `why`. They stay open to be decided.
   */
  giveUpFrom(direction: Direction, why: string): void {
    this.#gone = { direction, why };
    for (const [holdId, open] of this.#open) if (open.call.direction === direction) this.#giveUp(holdId, open, why);
  }

  /**
   * The requester of `call` stopped waiting for it (an HTTP client closed
   * the request that carried it): a hold of that call is reported as given
   * up, with `why`.
   */
  giveUpCall(call: Frame, why: string): void {
    for (const [holdId, open] of this.#open) if (open.call === call) this.#giveUp(holdId, open, why);
  }

  /**
   * The gate's question about one frame: `undefined` to let it pass, or a
   * promise of what goes on in its place once the hold is decided (with
   * `waitForAttach`, every frame waits until the debugger is there).
   */
  check(frame: Frame): Promise<readonly Frame[]> | undefined {
    if (this.#stopped) return undefined;
    if (this.#open.size > 0 && frame.type === 'notification' && frame.method === CANCELLED) this.#cancelled(frame);
    if (frame.type === 'response' && frame.method !== undefined) {
      if (frame.method === 'initialize') this.#noteEra(frame);
      else if (isListMethod(frame.method)) this.#drift.note(frame, frame.method); // only list answers are looked into
    }
    if (this.#attachWait !== undefined) {
      // waitForAttach: nothing moves until the debugger is there (or 3 s pass).
      return this.#attachWait.then(() => this.#evaluate(frame) ?? [frame]);
    }
    return this.#evaluate(frame);
  }

  /**
   * A frame behind a held one in its direction, which does not pass yet
   * (see `FrameGate.behind`): a requester cancelling a held request sends
   * its `notifications/cancelled` behind it, so the hold is given up from
   * here. A line shown as bytes only is parsed when it names the method.
   */
  behind(frame: Frame): void {
    if (this.#stopped || this.#open.size === 0) return;
    if (frame.type === undefined) {
      if (frame.raw.indexOf(CANCELLED) === -1) return;
      let message: unknown;
      try {
        message = JSON.parse(frame.raw.toString('utf8'));
      } catch {
        return;
      }
      if (!isObject(message) || message.method !== CANCELLED || 'id' in message) return;
      frame.message = message as JsonRpcMessage;
    } else if (frame.type !== 'notification' || frame.method !== CANCELLED) return;
    this.#cancelled(frame);
  }

  /**
   * A requester cancelled a request (`notifications/cancelled`, sent the
   * way the request went): a hold of that request is given up, its answer
   * (the cancel passes through {@link FrameHolds.check}) or the request
   * itself (the cancel waits behind it, see {@link FrameHolds.behind}).
   */
  #cancelled(frame: Frame): void {
    const params = messageOf(frame)?.params;
    if (!isObject(params) || (typeof params.requestId !== 'string' && typeof params.requestId !== 'number')) return;
    for (const [holdId, open] of this.#open) {
      if (open.call.direction !== frame.direction || open.call.id !== params.requestId) continue;
      this.#giveUp(holdId, open, cancelledBy(frame.direction, params.reason));
    }
  }

  /** Report a hold as given up by its requester (the shared give-up rule): it stays open to be decided. */
  #giveUp(holdId: string, open: OpenHold, why: string): void {
    if (!this.#stopped) this.core.giveUp(open.runId, holdId, why);
  }

  /** The `initialize` answer: the protocol version, and the server's name that scoped breakpoints match. */
  #noteEra(frame: Frame): void {
    const result = messageOf(frame)?.result;
    if (!isObject(result)) return;
    if (typeof result.protocolVersion === 'string') this.#sessionEra = result.protocolVersion;
    const info = result.serverInfo;
    if (isObject(info) && typeof info.name === 'string' && info.name !== '') this.#server = info.name;
  }

  #evaluate(frame: Frame): Promise<readonly Frame[]> | undefined {
    const core = this.core;
    if (!core.armed) return undefined;
    const runId = this.#recorder.runId;
    if (frame.type === 'request' || frame.type === 'notification') {
      const node = frame.node;
      if (node === undefined) return undefined;
      let loop = false;
      if (frame.type === 'request' && frame.method === 'tools/call' && frame.direction === 'client-to-server') {
        // The classifier named the node after params.name, when it is a string.
        const name = node.kind === 'tool' ? node.label : '';
        // A tool polled on purpose needs no parse of its arguments.
        const params = this.#loop.allows(name) ? undefined : messageOf(frame)?.params;
        loop = this.#loop.observe(name, isObject(params) ? params.arguments : undefined);
      }
      // No rule: one check. Else the frame's subject is made once, for its logpoints and pause rules.
      const rules = core.rules;
      const rule = rules.empty ? undefined : frameRules(this.core, this.#recorder, rules, 'before', frame);
      const plan = core.plan(runId, { point: 'before', nodeId: node.nodeId, loop, server: this.#server, rule });
      return plan === undefined ? undefined : this.#hold(frame, plan);
    }
    if (frame.type === 'response' || frame.type === 'error') {
      const request = frame.request;
      if (request?.node === undefined) return undefined;
      const nodeId = request.node.nodeId;
      // A protocol request's "Method not found" is an answer, not a failure (protocol/run-counts): pause-on-error lets it go.
      const failed = frame.type === 'error' ? !(nodeId.startsWith('mcp:') && isMethodProbe(nodeId, messageOf(frame)?.error?.code)) : frame.isError === true;
      const rules = core.rules;
      const rule = rules.empty ? undefined : frameRules(this.core, this.#recorder, rules, 'after', frame, failed);
      const plan = core.plan(runId, { point: 'after', nodeId, failed, drift: this.#drift.taken(frame), server: this.#server, rule });
      return plan === undefined ? undefined : this.#hold(frame, plan);
    }
    return undefined;
  }

  #hold(frame: Frame, plan: HoldPlan): Promise<readonly Frame[]> {
    const recorder = this.#recorder;
    const call = frame.request ?? frame;
    const method = call.method ?? 'unknown';
    const subject = {
      runId: recorder.runId,
      nodeId: call.node?.nodeId ?? 'mcp:session',
      instanceId: recorder.instanceIdOf(call) ?? 'unknown',
      method,
      frame: new DeferredValue(frame.raw.length, () => heldFrame(frame, call, recorder.hide ?? NO_HIDING)),
    };
    const onHolding = this.#onHolding;
    const reporter = this.core.reporter;
    let holdId: string | undefined;
    return this.core.withHold(
      subject,
      plan,
      (decision) => {
        if (holdId !== undefined) {
          this.#open.delete(holdId);
          this.#noViewer.closed(holdId);
          if (plan.point === 'before' && frame.type === 'request') recorder.onHeldBefore?.(frame, false);
        }
        try {
          return this.#apply(frame, plan.point, decision);
        } catch {
          // Fail open: a decision that cannot be carried out lets the frame go on.
          return [frame];
        }
      },
      (hold) => {
        holdId = hold.holdId;
        const open: OpenHold = { runId: subject.runId, call };
        this.#open.set(hold.holdId, open);
        if (plan.point === 'before' && frame.type === 'request') recorder.onHeldBefore?.(frame, true);
        // An answer held after its requester went away: nobody is waiting for it.
        const gone = this.#gone;
        if (gone !== undefined && call.direction === gone.direction) this.#giveUp(hold.holdId, open, gone.why);
        const notice = { hold, method, call, url: reporter.url };
        onHolding?.(notice);
        this.#noViewer.opened(notice);
      },
    );
  }

  /** Carry out a decision: the shared outcome, as frames. */
  #apply(frame: Frame, point: GatePoint, decision: Decision): readonly Frame[] {
    const held = frame.type === 'notification' ? 'notification' : point === 'before' ? 'request' : 'answer';
    const outcome = outcomeOf(held, decision);
    const recorder = this.#recorder;
    const request = point === 'before' ? frame : (frame.request as Frame);
    switch (outcome.kind) {
      case 'forward':
        return [frame];
      case 'drop':
        recorder.onDecision(frame, point, 'abort');
        return [];
      case 'replace': {
        const replacement = madeFrame({ outcome, request: frame, lift: {} }, frame.direction, frame.seq);
        recorder.onDecision(frame, point, 'inject', madeValue(replacement.made!));
        return [replacement];
      }
      case 'retry':
        // A request that cannot be sent again (no wire yet, or its bytes were not kept): the answer goes on.
        if (this.wire === undefined || !this.wire.resend(request)) return [frame];
        recorder.onDecision(request, point, 'retry');
        return [];
      default:
        return this.#answer(frame, request, point, outcome);
    }
  }

  /**
   * Answer `request` here (an injected value, a whole message, or the abort
   * error): before the call ran, towards its sender, and it is never
   * forwarded; after, in place of the held answer.
   */
  #answer(frame: Frame, request: Frame, point: GatePoint, outcome: Extract<Outcome, { kind: 'answer' | 'answer-frame' | 'fail' }>): readonly Frame[] {
    const recorder = this.#recorder;
    const toSender = request.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server';
    const answer = madeFrame({ outcome, request, lift: liftOptionsFor(messageOf(request)?.params, this.#sessionEra) }, toSender, frame.seq);
    if (outcome.kind === 'fail') recorder.onDecision(request, point, 'abort');
    else recorder.onDecision(request, point, 'inject', madeValue(answer.made!));
    if (point !== 'before') return [answer];
    this.wire?.answerSender(request, answer);
    return [];
  }
}
