/**
 * A verify session recorded as a run, as the proxies record theirs: every
 * message verify sends and every message the server sends back becomes a
 * frame, classified and paired as the stdio proxy pairs them, and recorded
 * by the proxies' own recorder under the source `graphmind-verify`. So a
 * call that came out different can be opened in the viewer beside the run
 * it was checked against. It fails open: with no debugger listening the
 * reporter sends nothing and prints nothing, and a failing reporter never
 * stops the verify.
 *
 * @module
 */
import { hideSettings, switchOn } from '../report/hide.js';
import { Reporter } from '../report/reporter.js';
import { RelayRecorder, type SessionEnd } from '../relay/relay-recorder.js';
import { classify } from '../streams/classifier.js';
import { Correlator } from '../streams/correlator.js';
import { newFrame, type Direction } from '../streams/frame.js';

/** The run source a verify session is recorded under. */
export const VERIFY_SOURCE = 'graphmind-verify';

/** How long the end waits for a connected debugger to take the last events. */
const FLUSH_MS = 2000;
/** How long it waits for a connection attempt still in flight (none listening fails at once). */
const SETTLE_MS = 1000;

/** Where the recording goes. */
export interface VerifyRecordingOptions {
  /** The debugger's port (the one naming rule: `--port`, else `GRAPHMIND_URL`'s, else 4747). */
  port: number;
  /** Its data directory, where its token is. @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
  /** The run's name in the run list, e.g. `verify run-… against node server.js`. */
  name: string;
  /** The run's source, as listed. @default {@link VERIFY_SOURCE} */
  source?: string;
  /** Where `GRAPHMIND_DISABLED`, `GRAPHMIND_TOKEN` and `GRAPHMIND_HIDE_*` are read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** One verify session's run (see the module). */
export class VerifyRecording {
  readonly #reporter: Reporter;
  readonly #recorder: RelayRecorder;
  readonly #correlator = new Correlator();
  #toServer = 0;
  #toClient = 0;
  #finished = false;

  private constructor(options: VerifyRecordingOptions, env: NodeJS.ProcessEnv) {
    this.#reporter = new Reporter({ port: options.port, dataDir: options.dataDir, env });
    this.#recorder = new RelayRecorder({ reporter: this.#reporter, hide: hideSettings(env), name: options.name, source: options.source ?? VERIFY_SOURCE });
  }

  /** A recording, or undefined when reporting is switched off (`GRAPHMIND_DISABLED`). */
  static start(options: VerifyRecordingOptions): VerifyRecording | undefined {
    const env = options.env ?? process.env;
    if (switchOn(env.GRAPHMIND_DISABLED)) return undefined;
    try {
      return new VerifyRecording(options, env);
    } catch {
      return undefined; // fail open: the verify goes on unrecorded
    }
  }

  /** The id of the run this session is recorded as. */
  get runId(): string {
    return this.#recorder.runId;
  }

  /** Record one message, as its text, going `direction` (verify is the client). */
  message(text: string, direction: Direction): void {
    if (this.#finished) return;
    try {
      const seq = direction === 'client-to-server' ? ++this.#toServer : ++this.#toClient;
      const frame = newFrame(Buffer.from(`${text}\n`, 'utf8'), direction, seq, true);
      classify(frame, this.#correlator);
      if (frame.type !== 'noise' && frame.type !== 'batch') this.#recorder.onFrame(frame);
    } catch {
      // Observation is best-effort.
    }
  }

  /** Close the run with what verify found in `meta`, and give a debugger a moment to take it. */
  async finish(end: SessionEnd, meta: Record<string, unknown>): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    const reporter = this.#reporter;
    try {
      reporter.send(this.#recorder.runId, { type: 'run.meta', meta });
      this.#recorder.finish(end);
      if (reporter.attached) await reporter.flush(FLUSH_MS);
      else if (await reporter.settle(SETTLE_MS)) await reporter.flush(FLUSH_MS);
    } catch {
      // The verify is over either way.
    } finally {
      reporter.close();
    }
  }
}
