import { loopAllowList } from '../gates/loop-detector.js';
import { hideSettings, switchOn } from '../report/hide.js';
import { Reporter } from '../report/reporter.js';
import type { Relay } from '../streams/create-relay.js';
import type { Frame } from '../streams/frame.js';
import type { DriftLock } from './drift-watch.js';
import { RelayGate, type HoldingNotice } from './relay-gate.js';
import { RelayRecorder, type SessionEnd } from './relay-recorder.js';

/** How long a session waits at its end for a connected debugger to take the last events. */
const FLUSH_ATTACHED_MS = 2000;
/** How long it waits at its end for a connection attempt already in flight. */
const SETTLE_CONNECT_MS = 1000;

/** Options for {@link startDebugSession}. */
export interface DebugSessionOptions {
  /** Port of `graphmind serve`. @default 4747 */
  port?: number;
  /** The debugger's ingest URL (`ws://127.0.0.1:4747/ingest`); wins over `port`. @default GRAPHMIND_URL */
  url?: string;
  /** The debugger's data directory, where its token is. @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
  /**
   * Where `GRAPHMIND_TOKEN`, `GRAPHMIND_DATA_DIR`, `GRAPHMIND_URL`,
   * `GRAPHMIND_DISABLED`, `GRAPHMIND_LOOP_ALLOW` and `GRAPHMIND_HIDE_*` are read.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /** The server's command line, when the relay spawned it (names the run). @default undefined */
  command?: string;
  /** Its arguments. @default [] */
  args?: readonly string[];
  /** The run's name when there is no command. @default 'relay' */
  name?: string;
  /** The run's source. @default 'mcp-proxy' with a command, else 'mcp-relay' */
  source?: string;
  /** Delay the first frame until the debugger attaches (up to 3 s). @default false */
  waitForAttach?: boolean;
  /** Compare list answers with this lock file's surface for live drift (`mcp-proxy --lock`). @default undefined @internal */
  lock?: DriftLock;
  /** Called when a frame starts holding. @default undefined */
  onHolding?: (notice: HoldingNotice) => void;
  /** Called once for a hold no viewer watches (the proxy says so on stderr). @default undefined */
  onUnwatched?: (notice: HoldingNotice) => void;
}

/**
 * One relayed MCP session reported to `graphmind serve` and gated by it:
 * the reporter, the run's recorder and the gate, wired together. Give
 * {@link DebugSession.gate} and {@link DebugSession.onFrame} to
 * `createRelay`, {@link DebugSession.attach} the relay, and
 * {@link DebugSession.finish} when the session ends. Nothing here throws
 * into the relay: every hook swallows its own failures.
 */
export class DebugSession {
  /** The session's connection to `graphmind serve`: events out, breakpoints and decisions in. */
  readonly reporter: Reporter;
  /** Records the session as a run; its frames and stderr lines go here. */
  readonly recorder: RelayRecorder;
  /** The debugger's gate, a `FrameGate` for `createRelay` or a `GateTransform`. */
  readonly gate: RelayGate;
  /** Record a classified frame: `createRelay`'s `onFrame`. */
  readonly onFrame: (frame: Frame) => void;

  constructor(options: DebugSessionOptions = {}) {
    const env = options.env ?? process.env;
    const reporter = new Reporter({ port: options.port, url: options.url, dataDir: options.dataDir, env });
    const recorder = new RelayRecorder({ reporter, command: options.command, args: options.args, name: options.name, source: options.source, hide: hideSettings(env) });
    this.reporter = reporter;
    this.recorder = recorder;
    this.gate = new RelayGate({ reporter, recorder, waitForAttach: options.waitForAttach, loopAllow: loopAllowList(env), onHolding: options.onHolding, onUnwatched: options.onUnwatched, lock: options.lock });
    // Called for every frame: a plain function, no wrapper allocating its arguments.
    this.onFrame = (frame: Frame): void => {
      try {
        recorder.onFrame(frame);
      } catch {
        // Observation is best-effort.
      }
    };
  }

  /** The relay whose frames this session gates (answers made here go out through it). */
  attach(relay: Relay): void {
    this.gate.attach(relay);
  }

  /** Record complete lines of the server's stderr on the session node. */
  onStderr(lines: readonly string[]): void {
    try {
      this.recorder.onStderr(lines);
    } catch {
      // Observation is best-effort.
    }
  }

  /**
   * Close the run (`end` says how the server ended), let every hold go on,
   * then give the debugger a moment to receive the record: up to
   * `waitForAttachMs` for one to attach when none is.
   */
  async finish(end: SessionEnd = {}, waitForAttachMs = 0): Promise<void> {
    const reporter = this.reporter;
    try {
      this.gate.stop();
      this.recorder.finish(end);
      if (reporter.attached) await reporter.flush(FLUSH_ATTACHED_MS);
      else if (waitForAttachMs > 0 && (await reporter.waitForAttach(waitForAttachMs))) await reporter.flush(FLUSH_ATTACHED_MS);
      // A session shorter than the debugger's handshake (a server that
      // crashes on boot): let the connection in flight finish, so a
      // running debugger still gets the record. Nothing listening fails
      // at once and costs no time.
      else if (await reporter.settle(SETTLE_CONNECT_MS)) await reporter.flush(FLUSH_ATTACHED_MS);
    } catch {
      // The session is over either way.
    } finally {
      reporter.close();
    }
  }
}

/**
 * Start a {@link DebugSession}, or return undefined when reporting is
 * switched off (`GRAPHMIND_DISABLED` set to anything but empty, `0` or
 * `false`).
 */
export function startDebugSession(options: DebugSessionOptions = {}): DebugSession | undefined {
  if (switchOn((options.env ?? process.env).GRAPHMIND_DISABLED)) return undefined;
  return new DebugSession(options);
}
