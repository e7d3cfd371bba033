import type { InstanceError, RestartRecord } from '../protocol/run-model.js';
import type { GatePoint } from '../protocol/control.js';
import type { HideSettings } from '../report/hide.js';
import type { Reporter } from '../report/reporter.js';
import { RunEvents } from '../report/run-events.js';
import type { Direction, Frame } from '../streams/frame.js';
import { SESSION_NODE_ID } from '../streams/node-naming.js';
import { DRIFT_LOG_STREAM, driftText, type Drift } from './drift-watch.js';
import { FrameEvents, PROXY_LOG_STREAM } from './frame-events.js';
import { OpenCalls } from './open-calls.js';
import { recordSent } from './sent-call.js';
import { sessionEndRecord, type SessionEnd } from './session-end.js';
import { sessionRun } from './session-label.js';
import { MAX_WAITING_BYTES, MAX_WAITING_FRAMES, PAIR_WAIT_MS, RECORD_AT_ONCE_BYTES, RECORD_DELAY_MS, WaitingFrames } from './waiting-frames.js';

export { MAX_NOISE_INSTANCES, PROXY_LOG_STREAM } from './frame-events.js';
export { MAX_RECORDED_FRAME_BYTES } from './recorded-value.js';
export { answerNotObserved, type SessionEnd } from './session-end.js';
export { labelPath, sessionLabel } from './session-label.js';
export { PAIR_WAIT_MS, RECORD_DELAY_MS } from './waiting-frames.js';
export type { RestartRecord } from '../protocol/run-model.js';

/** Options for {@link RelayRecorder}. */
export interface RelayRecorderOptions {
  /** Where the run is started and its events sent. */
  reporter: Reporter;
  /** What to keep out of the record (`GRAPHMIND_HIDE_*`, see `hideSettings`). */
  hide: HideSettings;
  /**
   * The server's command, when the relay spawned it (the proxy): the run
   * and its session node are named after it, and it is recorded (as hidden
   * inputs allow) in the run's metadata.
   * @default undefined
   */
  command?: string;
  /** The command's arguments. @default [] */
  args?: readonly string[];
  /** The run's name when there is no command. @default 'relay' */
  name?: string;
  /** The run's source, as listed. @default 'mcp-proxy' with a command, else 'mcp-relay' */
  source?: string;
}

/**
 * Turns one proxy session into a run on the graph: the session node, a node
 * per logical call, an instance per execution, stderr as log lines, and
 * the session's end. It reads frames that the relay already classified and
 * never touches their bytes.
 *
 * The shell around `FrameEvents` (what frames record): it decides when
 * frames are recorded (they wait in `WaitingFrames`, on a timer, off the
 * relay's path), starts and finishes the run, and records
 * stderr, restarts and decisions in order with the frames.
 */
export class RelayRecorder {
  /** The id of the run this session is recorded as. */
  readonly runId: string;
  readonly #reporter: Reporter;
  readonly #frames: FrameEvents;
  readonly #open = new OpenCalls();
  readonly #hide: HideSettings;
  /** What this session records of values (`GRAPHMIND_HIDE_*`): the gate hides the same in what it reports of a hold. */
  get hide(): HideSettings {
    return this.#hide;
  }
  readonly #sessionInstance: string;
  /** The frames not recorded yet, each with the time it was read. */
  readonly #waiting = new WaitingFrames(MAX_WAITING_FRAMES);
  #timer: NodeJS.Timeout | undefined;
  #timerArmed = false;
  /** The restarts so far (see {@link RelayRecorder.onRestart}). */
  readonly #restarts: RestartRecord[] = [];
  #finished = false;
  /** Where drift lines are built (made at the first drift). */
  #drifts: RunEvents | undefined;
  readonly #detachedLimit: number;
  /** Records what waited as soon as a debugger attaches; let go when the session finishes (a reporter may serve many sessions). */
  readonly #onAttached = (): void => this.flush();

  constructor(options: RelayRecorderOptions) {
    const reporter = options.reporter;
    this.#reporter = reporter;
    // Detached, as many frames wait as the reporter keeps events: no more than that many could be kept anyway.
    this.#detachedLimit = Math.max(1, Math.min(reporter.capacity, MAX_WAITING_FRAMES));
    this.#hide = options.hide;
    const run = sessionRun(options, process.cwd(), process.pid);
    this.runId = reporter.startRun(run.label, run.source, run.meta);
    // The calls awaiting answers, shared with the calls the debugger sends itself (see onSent).
    this.#frames = new FrameEvents(reporter, this.runId, options.hide, this.#open);
    this.#sessionInstance = this.#frames.nextId();
    // What waited while detached is recorded as soon as there is somebody to send it to.
    reporter.on('attached', this.#onAttached);
    reporter.send(this.runId, {
      type: 'instance.started',
      instanceId: this.#sessionInstance,
      node: { nodeId: SESSION_NODE_ID, kind: 'server', parent: null, label: run.label },
      input: run.input,
    });
  }

  /**
   * Record a classified frame: soon, not now. The frame waits, with the
   * time it passed, and is recorded with the others that came within
   * {@link RECORD_DELAY_MS}, off the relay's path: the relay forwards the
   * frame without paying for its record, and returns to waiting for the
   * next one as soon as it has written this one. Work around each write
   * makes the relay's process likelier to end up alone on a CPU, where
   * every hop of a one-call-at-a-time conversation is a cross-CPU wakeup
   * (see bench/README.md: on two cores the median round trip went from
   * 1.35x to 1.19x that of a plain byte relay over 40 short runs). Every
   * other method records what is waiting first, so the order of events is
   * kept.
   *
   * While no debugger is attached nothing is recorded on a timer: the
   * newest frames just wait, and are recorded when one attaches (or a
   * stderr line, a long frame or the end of the session comes first). A
   * busy session then builds no events that nobody may ever see; the
   * oldest frames, pushed out by newer ones, are only counted.
   */
  onFrame(frame: Frame): void {
    if (this.#finished) return;
    const waiting = this.#waiting;
    // Full. Attached, everything goes to the debugger: record it all now
    // (a whole burst of calls waits, so that most are recorded with their
    // answers, see `pairCalls`). Detached, the reporter would keep only the
    // newest events: the oldest frame is recorded in what it changes, its
    // events counted as dropped (see flush), and its place taken.
    const attached = this.#reporter.attached;
    if (attached) {
      if (waiting.count === waiting.slots) this.#recordOldest(waiting.whenFull());
    } else {
      while (waiting.count >= this.#detachedLimit) this.#recordOldestUnkept();
    }
    const bytes = waiting.push(frame);
    if (bytes >= MAX_WAITING_BYTES || frame.size >= RECORD_AT_ONCE_BYTES) this.flush();
    else if (!this.#timerArmed && attached) this.#armTimer();
  }

  /**
   * Record every frame still waiting, now.
   *
   * While no debugger is attached the reporter keeps only its newest
   * `capacity` events, and as many frames wait here. When more come, the
   * oldest still count (instance ids, open calls, the protocol's totals),
   * but their events, which the reporter would drop once the newer ones
   * came, are counted as dropped instead of being built: the debugger sees
   * the same session and the same notice of what was lost, and a burst of
   * calls neither builds events nobody will see nor keeps its frames alive.
   */
  flush(): void {
    this.#timerArmed = false;
    const waiting = this.#waiting;
    if (waiting.count > 1) waiting.pairCalls();
    const frames = this.#frames;
    while (waiting.count > 0) frames.record(waiting.take());
    frames.reportDropped();
  }

  /**
   * The timer's record: every waiting frame up to the first call that is
   * still in flight and younger than {@link PAIR_WAIT_MS} (see
   * `WaitingFrames.settled`). A call that takes longer is recorded as
   * started once it is that old, so it shows as running.
   */
  #recordSettled(): void {
    this.#timerArmed = false;
    const waiting = this.#waiting;
    if (waiting.count > 1) waiting.pairCalls();
    this.#recordOldest(waiting.settled(Date.now() - PAIR_WAIT_MS));
    // Answers to calls whose start was only counted, while detached, are counted too.
    this.#frames.reportDropped();
    // What still waits, waits for the next turn; detached, for a debugger.
    if (waiting.count > 0 && this.#reporter.attached) this.#armTimer();
  }

  /** Record the `n` oldest waiting frames. */
  #recordOldest(n: number): void {
    const waiting = this.#waiting;
    const frames = this.#frames;
    for (; n > 0; n--) frames.record(waiting.take());
  }

  /** Detached and full: the oldest frame makes room, its events only counted. */
  #recordOldestUnkept(): void {
    const frames = this.#frames;
    const waiting = this.#waiting;
    if (frames.countUnkept(waiting.oldest())) waiting.take();
    else frames.recordDropped(waiting.take());
  }

  #armTimer(): void {
    this.#timerArmed = true;
    if (this.#timer !== undefined) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#recordSettled();
      // One batch for the debugger too: the reporter need not wait another
      // COALESCE_MS of its own (one wakeup, one message, per delay).
      this.#reporter.sendNow();
    }, RECORD_DELAY_MS);
    // Never keep the host's process alive for the sake of the graph: the end of the session records what is left.
    this.#timer.unref();
  }

  /** Record complete lines the server wrote to stderr (each on the call in flight when it was the only one). */
  onStderr(lines: readonly string[]): void {
    if (this.#finished) return;
    this.flush();
    this.#frames.stderr(lines);
  }

  /**
   * A direction fell back to a raw byte pipe (`notice` is the line printed
   * on stderr). The notice goes on the session node where the first raw
   * bytes stand; from then on that direction's frames are not seen, so a
   * call waiting for an answer from it ends, with the session, as not
   * observed rather than unanswered.
   */
  onDegraded(direction: Direction, notice: string): void {
    if (this.#finished) return;
    this.#frames.degraded(direction, notice);
  }

  /** Record that the server process is known (its pid). */
  onSpawned(pid: number | undefined): void {
    this.flush();
    if (pid !== undefined) this.#frames.meta({ serverPid: pid });
  }

  /** Close every open execution and the run. */
  finish(end: SessionEnd): void {
    if (this.#finished) return;
    this.flush();
    clearTimeout(this.#timer);
    this.#reporter.off('attached', this.#onAttached);
    this.#frames.closeCalls();
    const record = sessionEndRecord(end);
    if (record.error !== undefined) this.#frames.failed(this.#sessionInstance, undefined, record.error);
    else this.#frames.ended(this.#sessionInstance, record.output);
    this.#reporter.send(this.runId, { type: 'run.finished', status: record.status });
    this.#finished = true;
  }

  /**
   * The server was restarted under the session (or could not be): a line
   * on the session node where it happened (`stream: "graphmind"`), and
   * the run's `meta.restarts`, every restart so far.
   */
  onRestart(restart: RestartRecord): void {
    if (this.#finished) return;
    this.flush();
    this.#restarts.push(restart);
    const how = restart.ok
      ? `the MCP server was restarted (${restart.reason}${restart.file === undefined ? '' : `: ${restart.file}`}); new pid ${restart.pid ?? '?'}, handshake replayed in ${restart.ms ?? 0} ms`
      : `the MCP server could not be restarted (${restart.reason}): ${restart.error ?? 'it failed'}`;
    this.#frames.log(how, PROXY_LOG_STREAM);
    this.#frames.meta({ restarts: [...this.#restarts] });
  }

  /** A line of the proxy's own (a hold nobody watches) on the session node, `stream: "graphmind"`. */
  onNotice(text: string): void {
    if (this.#finished) return;
    this.flush();
    this.#frames.log(text, PROXY_LOG_STREAM);
  }

  /**
   * A request the proxy answered itself, with an error, because no server
   * can: it was in flight when the server was restarted, or the server is
   * not running.
   */
  onProxyAnswer(request: Frame, error: InstanceError): void {
    if (this.#finished) return;
    this.flush();
    this.#frames.answeredByProxy(request, error);
  }

  /** A request the debugger sent the server itself (Send again): recorded now, as a new call marked `sentBy` (see `recordSent`). */
  onSent(request: Frame, sentBy: string): void {
    if (this.#finished) return;
    this.flush();
    recordSent({ sink: this.#reporter, runId: this.runId, ids: this.#frames, open: this.#open, hide: this.#hide }, request, sentBy);
  }

  /** A request held at the before gate (`held`), or let go: no line of the server's is put on it meanwhile. */
  onHeldBefore(request: Frame, held: boolean): void {
    if (!this.#finished) this.#frames.heldBefore(request, held);
  }

  /**
   * A list answer to `request` differs from the session's first (or the
   * lock): a log line on the call, `stream: "drift"`, one line per change
   * (see `driftText`).
   * @internal
   */
  onDrift(request: Frame, drift: Drift): void {
    if (this.#finished) return;
    this.flush();
    const instanceId = this.#frames.instanceIdOf(request);
    this.#drifts ??= new RunEvents(this.#reporter, this.runId);
    this.#drifts.log(request.node?.nodeId ?? SESSION_NODE_ID, driftText(drift), DRIFT_LOG_STREAM, Date.now(), instanceId);
  }

  /** The instance recorded for a request or notification frame. */
  instanceIdOf(frame: Frame): string | undefined {
    this.flush();
    return this.#frames.instanceIdOf(frame);
  }

  /**
   * Record what a decision at a gate did to a call (`request` is the call's
   * request or notification frame): an injected answer, an abort, or a
   * retry that re-opens the call.
   */
  onDecision(request: Frame, point: GatePoint, action: 'inject' | 'abort' | 'retry', value?: unknown): void {
    if (this.#finished) return;
    this.flush();
    this.#frames.decided(request, point, action, value);
  }
}
