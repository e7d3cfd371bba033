import type { DebuggerGate } from '../gates/debugger-gate.js';
import type { HideSettings } from '../report/hide.js';
import type { Reporter } from '../report/reporter.js';
import { FrameHolds, type HoldingNotice, type HoldWire } from '../relay/frame-holds.js';
import { RelayRecorder } from '../relay/relay-recorder.js';
import type { SessionEnd } from '../relay/session-end.js';
import { classify } from '../streams/classifier.js';
import { Correlator } from '../streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../streams/frame.js';

/** Options for {@link McpHttpSession}. */
export interface McpHttpSessionOptions {
  /** Where the run is recorded (one reporter may serve every session of a process). */
  reporter: Reporter;
  /** The debugger-connected gate the holds go through (one may serve every session). */
  core: DebuggerGate;
  /** What the record hides (`GRAPHMIND_HIDE_*`, see `hideSettings`). */
  hide: HideSettings;
  /** The run's name (its session node's label). @default 'http' */
  name?: string;
  /** The run's source, as listed. @default 'mcp-http-proxy' */
  source?: string;
  /** Metadata for the run (never a header's value that authenticates). @default {} */
  meta?: Record<string, unknown>;
  /** The session's `Mcp-Session-Id`, when known. @default undefined */
  sessionId?: string;
  /** Tools polled on purpose, never loop-held (`GRAPHMIND_LOOP_ALLOW`). @default [] */
  loopAllow?: readonly string[];
  /** Called when a frame starts holding. @default undefined */
  onHolding?: (notice: HoldingNotice) => void;
  /** Called once for a hold no viewer watches (the run's log says so too). @default undefined */
  onUnwatched?: (notice: HoldingNotice) => void;
  /** Called with every classified frame (`--trace`). @default undefined */
  onFrame?: (frame: Frame) => void;
  /** How a decision answers a sender or sends a request again on this transport (see `HoldWire`). @default undefined */
  wire?: HoldWire;
}

/**
 * One MCP session seen over HTTP, as one run: its JSON-RPC messages become
 * frames (one per message: a POST body, a JSON answer, an SSE event's data),
 * classified with the session's own {@link Correlator}, recorded by a
 * `RelayRecorder` (the node table, the folding under `mcp:protocol`, the
 * instances) and gated by a `FrameHolds` (the hold-and-decide core the
 * stdio proxy uses). It does no I/O: the transport reads and writes the
 * bytes, asks {@link McpHttpSession.check} about each frame, and carries
 * out what the `HoldWire` is asked to do.
 */
export class McpHttpSession {
  /** Pairs answers with requests, both ways, for this session only. */
  readonly correlator = new Correlator();
  /** Records the session as a run. */
  readonly recorder: RelayRecorder;
  /** The hold rules for this session's frames. */
  readonly holds: FrameHolds;
  readonly #reporter: Reporter;
  readonly #onFrame: ((frame: Frame) => void) | undefined;
  #sessionId: string | undefined;
  #toServer = 0;
  #toClient = 0;
  #finished = false;

  constructor(options: McpHttpSessionOptions) {
    this.#reporter = options.reporter;
    this.#onFrame = options.onFrame;
    this.recorder = new RelayRecorder({ reporter: options.reporter, hide: options.hide, name: options.name ?? 'http', source: options.source ?? 'mcp-http-proxy' });
    this.holds = new FrameHolds({ core: options.core, recorder: this.recorder, loopAllow: options.loopAllow, onHolding: options.onHolding, onUnwatched: options.onUnwatched, wire: options.wire });
    const meta = { ...(options.meta ?? {}) };
    if (options.sessionId !== undefined) {
      this.#sessionId = options.sessionId;
      meta.sessionId = options.sessionId;
    }
    if (Object.keys(meta).length > 0) this.#meta(meta);
  }

  /** The run this session is recorded as. */
  get runId(): string {
    return this.recorder.runId;
  }

  /** The session's `Mcp-Session-Id`, once the server gave one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Set when the server names the session; the run's metadata gains it once (unset or the same id: nothing happens). */
  set sessionId(id: string | undefined) {
    if (id === undefined || id === this.#sessionId) return;
    this.#sessionId = id;
    this.#meta({ sessionId: id });
  }

  /** True once {@link McpHttpSession.finish} was called. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * One JSON-RPC message's bytes (exactly as they travel: a POST body, a
   * JSON answer, an SSE event's data) as a frame of this session:
   * classified, paired with its request, shown to `onFrame` and recorded.
   * A body that is not one JSON-RPC message (a batch, something else) is
   * classified as such and not recorded, as the stdio proxy does.
   */
  frame(bytes: Buffer, direction: Direction, at: number = Date.now()): Frame {
    const seq = direction === 'client-to-server' ? ++this.#toServer : ++this.#toClient;
    const frame = newFrame(bytes, direction, seq, true, at);
    classify(frame, this.correlator);
    if (frame.type !== 'noise' && frame.type !== 'batch' && !this.#finished) {
      try {
        this.recorder.onFrame(frame);
      } catch {
        // Observation is best-effort.
      }
    }
    if (this.#onFrame !== undefined) {
      try {
        this.#onFrame(frame);
      } catch {
        // Observation is best-effort.
      }
    }
    return frame;
  }

  /**
   * Does `frame` hold? `undefined`: let it go on now. Otherwise a promise
   * of the frames that go on in its place once the hold is decided: the
   * frame itself (continue), a made frame (an injected answer or
   * notification, the abort's error: `madeBytes` gives its bytes), or none
   * (answered to its sender through the wire, re-sent, or dropped).
   */
  check(frame: Frame): Promise<readonly Frame[]> | undefined {
    if (this.#finished) return undefined;
    return this.holds.check(frame);
  }

  /** Close the run (`end`: how the session ended, when known): its holds go on, its calls still open end unanswered. */
  finish(end: SessionEnd = {}): void {
    if (this.#finished) return;
    this.#finished = true;
    try {
      this.holds.stop();
      this.recorder.finish(end);
    } catch {
      // The session is over either way.
    }
  }

  #meta(meta: Record<string, unknown>): void {
    try {
      this.#reporter.send(this.recorder.runId, { type: 'run.meta', meta });
    } catch {
      // Observation is best-effort.
    }
  }
}
