import { DebuggerGate, type GateReporter } from '../gates/debugger-gate.js';
import type { Gate } from '../gates/gate.js';
import type { Relay } from '../streams/create-relay.js';
import { hasWholeLine, type Frame } from '../streams/frame.js';
import type { FrameGate } from '../streams/gate-transform.js';
import { answerRequester } from './answer-requester.js';
import type { DriftLock } from './drift-watch.js';
import { FrameHolds, type GateRecorder, type HoldingNotice } from './frame-holds.js';

export { WAIT_FOR_ATTACH_MS, cancelledBy, type GateRecorder, type HoldingNotice } from './frame-holds.js';

/** Options for {@link RelayGate}. */
export interface RelayGateOptions {
  /** The connection to the debugger (see {@link DebuggerGate}). */
  reporter: GateReporter;
  /** The run's recorder: names the run and instance of a hold, and records what decisions do. */
  recorder: GateRecorder;
  /**
   * Delay the first frame until a debugger attaches (up to
   * {@link WAIT_FOR_ATTACH_MS}), so even `initialize` can be gated.
   * @default false
   */
  waitForAttach?: boolean;
  /** Tools polled on purpose, never loop-held (`GRAPHMIND_LOOP_ALLOW`). @default [] */
  loopAllow?: readonly string[];
  /** Called when a frame starts holding (the proxy prints its HOLDING line). @default undefined */
  onHolding?: (notice: HoldingNotice) => void;
  /** Called once for a hold no viewer watches (see `FrameHoldsOptions.onUnwatched`). @default undefined */
  onUnwatched?: (notice: HoldingNotice) => void;
  /** Compare list answers with this lock file's surface for live drift (see `FrameHoldsOptions.lock`). @default undefined @internal */
  lock?: DriftLock;
}

/** Why a hold is given up when the host's input ends. */
export const HOST_CLOSED = "the host closed the session (the proxy's stdin ended)";

/**
 * The debugger's gate on a relay, as a {@link FrameGate} for
 * `createRelay` or a `GateTransform`: which frames hold (breakpoints, the
 * error gate, the loop hold, through the shared hold policy), the hold's
 * lifecycle (through {@link DebuggerGate.withHold}), and what a decision
 * (through the shared `outcomeOf`) does on the wire:
 *
 * | | held request or notification (before) | held response (after / error) |
 * |---|---|---|
 * | continue | forward | forward |
 * | inject | not forwarded; the sender gets the lifted value (a notification is replaced) | a rewritten frame carrying the value |
 * | retry | same as continue | dropped; the request's bytes re-sent; the call stays open |
 * | abort | not forwarded; the sender gets error -32099 (a notification is dropped) | dropped; the requester gets -32099 |
 *
 * Answers made here go out as made frames, to which the relay's Lifter
 * gives their bytes. Call {@link RelayGate.attach} with the relay it gates.
 * The rules are {@link FrameHolds}' (shared with the HTTP proxy); this class
 * is their wire on a stream relay.
 */
export class RelayGate implements FrameGate {
  /** The debugger-connected gate this one runs its holds through. */
  readonly core: DebuggerGate;
  /** The hold rules, over this relay. */
  readonly holds: FrameHolds;
  #relay: Relay | undefined;

  constructor(options: RelayGateOptions) {
    this.core = new DebuggerGate({ reporter: options.reporter });
    this.holds = new FrameHolds({
      core: this.core,
      recorder: options.recorder,
      waitForAttach: options.waitForAttach,
      loopAllow: options.loopAllow,
      onHolding: options.onHolding,
      onUnwatched: options.onUnwatched,
      lock: options.lock,
      wire: {
        answerSender: (request, answer) => this.#answerSender(request, answer),
        resend: (request) => this.#resend(request),
      },
    });
  }

  /** The decision core under this gate. */
  get gate(): Gate {
    return this.core.gate;
  }

  /**
   * The relay whose writers answer senders and re-send requests. When its
   * host side ends (the proxy's stdin), the holds of the host's requests
   * still open are reported as given up (with the reason `HOST_CLOSED`:
   * "the host closed the session (the proxy's stdin ended)").
   */
  attach(relay: Relay): void {
    this.#relay = relay;
    const hostGone = (): void => {
      if (this.#relay !== relay) return;
      this.holds.giveUpFrom('client-to-server', HOST_CLOSED);
    };
    relay.toServer.done.then(hostGone, hostGone);
  }

  /** Nothing is held while no debugger is attached (or awaited), nor once the server is gone. */
  mayHold(): boolean {
    return this.holds.mayHold();
  }

  /**
   * The server has exited: nobody is left to answer a held frame. Every
   * hold is continued, and from now on nothing is held, so whatever the
   * server wrote before it went (answers still in the pipe, or a
   * grandchild's) reaches the host.
   */
  stop(): void {
    this.holds.stop();
    this.core.stop();
  }

  /**
   * The {@link FrameGate} question about one frame: `undefined` to let it
   * pass, or a promise of what goes on in its place once the hold is decided
   * (with `waitForAttach`, every frame waits until the debugger is there).
   */
  check(frame: Frame): Promise<readonly Frame[]> | undefined {
    return this.holds.check(frame);
  }

  /** The {@link FrameGate} look behind a held frame: the requester may be cancelling it (see {@link FrameHolds.behind}). */
  behind(frame: Frame): void {
    this.holds.behind(frame);
  }

  /** A request answered here never reaches its receiver: forget it, and send the answer back the other way. */
  #answerSender(request: Frame, answer: Frame): void {
    if (this.#relay !== undefined) answerRequester(this.#relay, request, answer);
  }

  #resend(request: Frame): boolean {
    const relay = this.#relay;
    // A request relayed in pieces before the debugger attached may not
    // have been kept whole: it cannot be sent again, so the answer goes on.
    if (relay === undefined || !hasWholeLine(request)) return false;
    // Same bytes, same id: the answer pairs with the request again.
    relay.correlator.track(request);
    const writer = request.direction === 'client-to-server' ? relay.toServer.writer : relay.toClient.writer;
    writer.writeBytes(request.raw);
    return true;
  }
}
