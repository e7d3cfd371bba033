import { idKey } from '../streams/exact-id.js';
import type { Direction, Frame } from '../streams/frame.js';
import type { FrameGate } from '../streams/gate-transform.js';

/** Where the server stands, as the host's frames see it. */
export type ServerStanding = 'up' | 'restarting' | 'down';

/** Options for {@link RestartGate}. */
export interface RestartGateOptions {
  /** The gate behind this one (the debugger's), asked about every frame that goes on. @default undefined */
  inner?: FrameGate;
  /**
   * Answer a request of the host here, with a JSON-RPC error: while the
   * server is down nobody else can.
   */
  answer: (request: Frame, code: number, message: string) => void;
}

/** The JSON-RPC error a request of the host gets while the server is down (it failed to start, or exited). */
export const NOT_RUNNING_CODE = -32097;

/**
 * The gate in front of the debugger's gate on the host's frames, for a
 * server that can be restarted under a live session:
 *
 * - `up`: every frame goes to the inner gate, as if this one were not here.
 * - `restarting`: the host's frames wait, in order, until the new server
 *   has been brought up (held means stopped: the host's stdin is paused
 *   behind them), then are asked about again.
 * - `down`: no server to take them. A request is answered here with
 *   {@link NOT_RUNNING_CODE} and the reason; a notification or an answer is
 *   dropped (there is nobody to deliver it to).
 *
 * Answers of the host to requests an earlier server made (`stale`) are
 * dropped in every state: the server that asked is gone.
 */
export class RestartGate implements FrameGate {
  readonly #inner: FrameGate | undefined;
  readonly #answer: (request: Frame, code: number, message: string) => void;
  #standing: ServerStanding = 'up';
  #downReason = '';
  #released: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;
  /** Correlation keys of requests an earlier server sent the host, answered by nobody now. */
  readonly stale = new Set<unknown>();
  /** The host's requests the current server was given. */
  #sent = new WeakSet<Frame>();

  constructor(options: RestartGateOptions) {
    this.#inner = options.inner;
    this.#answer = options.answer;
  }

  /** Where the server stands now. */
  get standing(): ServerStanding {
    return this.#standing;
  }

  /** A restart begins: the host's frames wait from now on. */
  pause(): void {
    if (this.#standing === 'restarting') return;
    this.#standing = 'restarting';
    this.#released = new Promise((resolve) => (this.#release = resolve));
  }

  /** The server is up (again): waiting frames go on. */
  up(): void {
    this.#standing = 'up';
    this.#downReason = '';
    this.#release?.();
  }

  /** No server: waiting frames, and those to come, get the error (see {@link NOT_RUNNING_CODE}). */
  down(reason: string): void {
    this.#standing = 'down';
    this.#downReason = reason;
    this.#release?.();
  }

  check(frame: Frame): Promise<readonly Frame[]> | undefined {
    if (frame.direction !== 'client-to-server') return this.#inner?.check(frame);
    if (this.stale.size > 0 && (frame.type === 'response' || frame.type === 'error') && frame.request === undefined && this.stale.delete(idKey(frame))) {
      return Promise.resolve([]);
    }
    if (this.#standing === 'restarting') return this.#released.then(() => this.check(frame) ?? [frame]);
    if (this.#standing === 'down') return Promise.resolve(this.#refuse(frame));
    const held = this.#inner?.check(frame);
    if (frame.type !== 'request') return held;
    // What reaches the server now is in flight there until answered (see inFlight).
    if (held === undefined) {
      this.#sent.add(frame);
      return undefined;
    }
    return held.then((frames) => {
      if (frames.includes(frame) && this.#standing === 'up') this.#sent.add(frame);
      return frames;
    });
  }

  /**
   * Of the host's requests still unanswered (`outstanding`, from the
   * correlator), those the current server was given: a request held at a
   * gate, or waiting behind one, has not reached it. Forgets them: the next
   * server starts with none.
   */
  takeInFlight(outstanding: readonly Frame[]): Frame[] {
    const sent = this.#sent;
    this.#sent = new WeakSet();
    return outstanding.filter((frame) => sent.has(frame));
  }

  mayHold(direction: Direction): boolean {
    if (direction === 'client-to-server' && this.#standing !== 'up') return true;
    return this.#inner === undefined ? false : this.#inner.mayHold?.(direction) !== false;
  }

  #refuse(frame: Frame): readonly Frame[] {
    if (frame.type === 'request') this.#answer(frame, NOT_RUNNING_CODE, `the MCP server is not running: ${this.#downReason}`);
    return [];
  }
}
