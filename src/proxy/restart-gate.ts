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
  /**
   * Write a request of the host to the server again (the debugger's retry
   * of a held answer, decided while no server could take it): called for
   * each such request once a server is up.
   * @default undefined (they are answered with {@link NOT_RUNNING_CODE} instead)
   */
  resend?: (request: Frame) => void;
  /** Told each time the standing is set (the session's lifecycle keeps track of it). @default undefined */
  onStanding?: (standing: ServerStanding) => void;
}

/** What goes on in place of a frame that is dropped. */
const SWALLOWED: Promise<readonly Frame[]> = Promise.resolve([]);

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
 * dropped in every state: the server that asked is gone. So are the
 * server's answers to requests the debugger sent it (`sent`, Send again).
 *
 * A frame the debugger's gate holds is decided whenever its user decides,
 * restart or not: what a decision lets go towards the server waits for a
 * restart under way to end, and is refused while the server is down; a
 * held answer retried (its request sent again) while no server can take
 * the request has it sent again once one is up.
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
  /** The number of the current server: a request given to it has it as its `deliveredTo`. */
  #server = 1;
  readonly #resend: ((request: Frame) => void) | undefined;
  readonly #onStanding: ((standing: ServerStanding) => void) | undefined;
  /** Requests re-sent by a retry while no server could take them: sent again by {@link RestartGate.up}. */
  #resends: Frame[] = [];
  /**
   * Requests the debugger sent the server itself (Send again), not yet
   * answered: their answers are dropped here, so the host never gets one.
   */
  readonly sent = new Set<Frame>();

  constructor(options: RestartGateOptions) {
    this.#inner = options.inner;
    this.#answer = options.answer;
    this.#resend = options.resend;
    this.#onStanding = options.onStanding;
  }

  /** Where the server stands now. */
  get standing(): ServerStanding {
    return this.#standing;
  }

  /** A restart begins: the host's frames wait from now on. */
  pause(): void {
    if (this.#standing === 'restarting') return;
    this.#standing = 'restarting';
    this.#onStanding?.('restarting');
    this.#released = new Promise((resolve) => (this.#release = resolve));
  }

  /** The server is up (again): waiting frames go on, and requests retried meanwhile are sent to it. */
  up(): void {
    this.#standing = 'up';
    this.#downReason = '';
    this.#onStanding?.('up');
    this.#release?.();
    const resends = this.#resends;
    this.#resends = [];
    for (const request of resends) {
      if (this.#resend === undefined) {
        this.#refuse(request);
        continue;
      }
      this.#resend(request);
      request.deliveredTo = this.#server;
    }
  }

  /** No server: waiting frames, and those to come, get the error (see {@link NOT_RUNNING_CODE}). */
  down(reason: string): void {
    this.#standing = 'down';
    this.#downReason = reason;
    this.#onStanding?.('down');
    this.#release?.();
    const resends = this.#resends;
    this.#resends = [];
    for (const request of resends) this.#refuse(request);
  }

  check(frame: Frame): Promise<readonly Frame[]> | undefined {
    if (frame.direction !== 'client-to-server') return this.#fromServer(frame);
    if (this.stale.size > 0 && (frame.type === 'response' || frame.type === 'error') && frame.request === undefined && this.stale.delete(idKey(frame))) {
      return Promise.resolve([]);
    }
    if (this.#standing === 'restarting') return this.#settled().then(() => this.check(frame) ?? [frame]);
    if (this.#standing === 'down') return Promise.resolve(this.#refuse(frame));
    const held = this.#inner?.check(frame);
    // What reaches the server now is in flight there until answered (see takeInFlight).
    if (held === undefined) {
      if (frame.type === 'request') frame.deliveredTo = this.#server;
      return undefined;
    }
    return held.then((frames) => this.#decided(frame, frames));
  }

  /** Resolves once no restart is under way (one asked for during another included). */
  async #settled(): Promise<void> {
    while (this.#standing === 'restarting') await this.#released;
  }

  /**
   * The debugger decided about a frame of the host it held: what goes on
   * to the server waits for a restart under way, and is refused while no
   * server runs.
   */
  async #decided(frame: Frame, frames: readonly Frame[]): Promise<readonly Frame[]> {
    if (frames.length === 0) return frames;
    await this.#settled();
    if (this.#standing === 'down') {
      for (const made of frames) this.#refuse(made);
      return [];
    }
    if (frame.type === 'request' && frames.includes(frame)) frame.deliveredTo = this.#server;
    return frames;
  }

  /**
   * Send a request of the debugger's own (Send again, see
   * {@link RestartGate.sent}) with `write`: to the server that is up, after
   * a restart under way, and refused (answered as the host's would be,
   * through `answer`) while none runs.
   */
  async sendOwn(request: Frame, write: (request: Frame) => void): Promise<void> {
    this.sent.add(request);
    await this.#settled();
    if (this.#standing === 'down') {
      this.#refuse(request);
      return;
    }
    write(request);
    request.deliveredTo = this.#server;
  }

  /** The server's frames: the debugger's gate decides; a held answer retried sends its request again, to the server there is by then. */
  #fromServer(frame: Frame): Promise<readonly Frame[]> | undefined {
    const request = frame.request;
    // The answer to a request the debugger sent: recorded (it was classified), never the host's.
    if (request !== undefined && this.sent.size > 0 && this.sent.delete(request)) return SWALLOWED;
    const held = this.#inner?.check(frame);
    if (held === undefined || (frame.type !== 'response' && frame.type !== 'error') || request === undefined || request.direction !== 'client-to-server') return held;
    return held.then((frames) => {
      // A held answer dropped is a retry: its request was written again (see RelayGate), to whatever the server side was then.
      if (frames.length === 0) this.#retried(request);
      return frames;
    });
  }

  #retried(request: Frame): void {
    if (this.#standing === 'up') request.deliveredTo = this.#server;
    // Written to no server: sent again once one is up, or refused.
    else if (this.#standing === 'restarting') this.#resends.push(request);
    else this.#refuse(request);
  }

  /**
   * Of the host's requests still unanswered (`outstanding`, from the
   * correlator), those the current server was given: a request held at a
   * gate, or waiting behind one, has not reached it. Forgets them: the next
   * server starts with none.
   */
  takeInFlight(outstanding: readonly Frame[]): Frame[] {
    const server = this.#server++;
    return outstanding.filter((frame) => frame.deliveredTo === server);
  }

  /** A look behind a held frame is the debugger's gate's (see `FrameGate.behind`): the host may be cancelling a held request. */
  behind(frame: Frame): void {
    this.#inner?.behind?.(frame);
  }

  mayHold(direction: Direction): boolean {
    // An answer to the debugger's own request is dropped: it must be seen before it is written.
    if (direction === 'server-to-client' && this.sent.size > 0) return true;
    // An answer to an earlier server's request is dropped: it must be seen before it is written.
    if (direction === 'client-to-server' && (this.#standing !== 'up' || this.stale.size > 0)) return true;
    return this.#inner === undefined ? false : this.#inner.mayHold?.(direction) !== false;
  }

  #refuse(frame: Frame): readonly Frame[] {
    if (frame.type === 'request') this.#answer(frame, NOT_RUNNING_CODE, `the MCP server is not running: ${this.#downReason}`);
    return [];
  }
}
