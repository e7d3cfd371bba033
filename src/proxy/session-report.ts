import { hideSettings, switchOn } from '../report/hide.js';
import { Reporter } from '../report/reporter.js';
import type { Frame } from '../streams/frame.js';
import { GraphRecorder, type SessionEnd } from './graph-recorder.js';

/** How long the proxy waits at exit for a connected debugger to take the last events. */
const FLUSH_ATTACHED_MS = 2000;
/** How long the proxy waits at exit for a connection attempt already in flight. */
const SETTLE_CONNECT_MS = 1000;
/** How long a proxy whose server could not start waits for a debugger to appear. */
export const SPAWN_FAILURE_ATTACH_MS = 1000;

/** The reporting side of one proxy session. */
export interface SessionReport {
  readonly reporter: Reporter;
  readonly recorder: GraphRecorder;
  onFrame(frame: Frame): void;
  onStderr(lines: readonly string[]): void;
  /** Record the end, then give the debugger a moment to receive it. */
  finish(end: SessionEnd, waitForAttachMs: number): Promise<void>;
}

/** Options for {@link startSessionReport}. */
export interface SessionReportOptions {
  command: string;
  args: readonly string[];
  port: number;
  env: NodeJS.ProcessEnv;
}

/**
 * Start reporting a proxy session to `graphmind serve`, or return undefined
 * when reporting is switched off (`GRAPHMIND_DISABLED=1`). Nothing here can
 * throw into the relay: every hook swallows its own failures.
 */
export function startSessionReport(options: SessionReportOptions): SessionReport | undefined {
  // Read as the hide switches are: `0`, `false` or empty leave reporting on.
  if (switchOn(options.env.GRAPHMIND_DISABLED)) return undefined;
  const reporter = new Reporter({ port: options.port, env: options.env });
  const recorder = new GraphRecorder({ reporter, command: options.command, args: options.args, hide: hideSettings(options.env) });
  return {
    reporter,
    recorder,
    // Called for every frame: a plain function, no wrapper allocating its arguments.
    onFrame(frame: Frame): void {
      try {
        recorder.onFrame(frame);
      } catch {
        // Observation is best-effort.
      }
    },
    onStderr(lines: readonly string[]): void {
      try {
        recorder.onStderr(lines);
      } catch {
        // Observation is best-effort.
      }
    },
    async finish(end, waitForAttachMs) {
      try {
        recorder.finish(end);
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
    },
  };
}
