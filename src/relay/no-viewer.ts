import type { DebuggerGate } from '../gates/debugger-gate.js';
import type { PendingHold } from '../gates/gate.js';
import type { Frame } from '../streams/frame.js';

/** What the gate tells whoever watches when a frame starts holding. */
export interface HoldingNotice {
  /** The hold just opened. */
  hold: PendingHold;
  /** The held call's method, e.g. `tools/call`. */
  method: string;
  /** The call's request frame (for an answer, the request it answers). */
  call: Frame;
  /** The debugger's address. */
  url: string;
}

/**
 * Says when a frame is held and no viewer watches the debugger (nobody can
 * see the hold, let alone decide it, and the client just waits): when the
 * hold opens with nobody watching, or when the last viewer goes while it
 * waits. Once per hold, whatever comes and goes after. It listens for the
 * last viewer going only while it has holds not said yet, so a gate shared
 * by many sessions (the HTTP proxy's) keeps no listener per idle session.
 */
export class NoViewerNotice {
  readonly #core: Pick<DebuggerGate, 'watched' | 'onUnwatched'>;
  readonly #say: (notice: HoldingNotice) => void;
  /** Holds open and not said yet, by id. */
  readonly #waiting = new Map<string, HoldingNotice>();
  #stopListening: (() => void) | undefined;

  /** `say` is called once for each hold that nobody watches. */
  constructor(core: Pick<DebuggerGate, 'watched' | 'onUnwatched'>, say: (notice: HoldingNotice) => void) {
    this.#core = core;
    this.#say = say;
  }

  /** A hold opened: said now if nobody watches, else kept until it closes or the last viewer goes. */
  opened(notice: HoldingNotice): void {
    if (!this.#core.watched) {
      this.#tell(notice);
      return;
    }
    this.#waiting.set(notice.hold.holdId, notice);
    this.#stopListening ??= this.#core.onUnwatched(() => this.#unwatched());
  }

  /** A hold was decided (or let go): nothing more to say of it. */
  closed(holdId: string): void {
    if (this.#waiting.delete(holdId) && this.#waiting.size === 0) this.#quiet();
  }

  /** Nothing more is said (the session is over). */
  stop(): void {
    this.#waiting.clear();
    this.#quiet();
  }

  #unwatched(): void {
    const notices = [...this.#waiting.values()];
    this.stop();
    for (const notice of notices) this.#tell(notice);
  }

  #tell(notice: HoldingNotice): void {
    try {
      this.#say(notice);
    } catch {
      // Saying so is best-effort: the hold waits either way.
    }
  }

  #quiet(): void {
    this.#stopListening?.();
    this.#stopListening = undefined;
  }
}
