import { createRequire } from 'node:module';
import { DebuggerGate } from '../gates/debugger-gate.js';
import type { PendingHold } from '../gates/gate.js';
import { loopAllowList } from '../gates/loop-detector.js';
import { HIDDEN, hideSettings, type HideSettings } from '../report/hide.js';
import { Reporter } from '../report/reporter.js';
import type { GraphmindOptions } from './adapter-options.js';
import { DetachedCalls, type DetachedCall } from './detached-calls.js';
import type { GatedCall } from './gated-call.js';

/** How long a hold lasts before the adapter warns (once) that a client may give up. */
export const HOLD_WARNING_MS = 1000;
/**
 * How long a call may run before its run is sent as running (a quicker one
 * is sent whole when it ends, see `CallRun`): a slow or stuck call shows in
 * the viewer within about twice this.
 */
export const SHOW_RUNNING_AFTER_MS = 10;
/** How long a process about to exit waits for its last events to reach the debugger. */
export const EXIT_FLUSH_MS = 1000;
/** How long `connect()` waits for a debugger with `waitForAttach`. */
export const CONNECT_WAIT_MS = 2000;

/** Counts the adapter keeps (see `gm.session.stats`). */
export interface AdapterStats {
  /** Runs started (one per request, plus one per connection). */
  runs: number;
  /** Handler calls gated (tools, resources, prompts). */
  calls: number;
  /** Calls that ended in error. */
  errors: number;
  /** Holds opened. */
  holds: number;
  /** Sampling requests gated. */
  sampling: number;
}

/** The SDK package installed next to this one, 2.x preferred, if any. */
function installedSdk(): string | undefined {
  const require = createRequire(import.meta.url);
  for (const name of ['@modelcontextprotocol/server', '@modelcontextprotocol/sdk']) {
    try {
      require.resolve(`${name}/package.json`);
      return name;
    } catch {
      try {
        // A package whose exports map hides package.json still resolves by its main entry.
        require.resolve(name);
        return name;
      } catch {
        // not installed
      }
    }
  }
  return undefined;
}

/** A hold's end, when no warning was set up for it. */
const NO_WARNING = (): void => {};

/** The runtimes not disposed yet, flushed when the process is about to exit (one listener for them all). */
const live = new Set<AdapterRuntime>();

function flushAll(): void {
  for (const runtime of live) runtime.flushBeforeExit();
}

function watchExit(runtime: AdapterRuntime): void {
  if (live.size === 0) process.on('beforeExit', flushAll);
  live.add(runtime);
}

function unwatchExit(runtime: AdapterRuntime): void {
  live.delete(runtime);
  if (live.size === 0) process.off('beforeExit', flushAll);
}

/**
 * What every server wrapped by one `graphmind()` shares: the reporter, the
 * debugger-connected gate, the hide switches, and the counts. Created only
 * when the adapter is on.
 */
export class AdapterRuntime {
  readonly reporter: Reporter;
  readonly core: DebuggerGate;
  readonly hide: HideSettings;
  readonly app: string;
  readonly serverOverride: { name: string; version?: string } | undefined;
  readonly waitForAttach: boolean;
  readonly loopAllow: readonly string[];
  /** The SDK the session reports (the `sdk` option, else the installed one). */
  readonly sdk: string | undefined;
  readonly stats: AdapterStats = { runs: 0, calls: 0, errors: 0, holds: 0, sampling: 0 };
  #connections = 0;
  #warned = false;
  #disposed = false;
  readonly #warn: (line: string) => void;
  /** Calls made while no debugger was attached, replayed once one is (see `DetachedCalls`). */
  readonly #detached = new DetachedCalls();
  /** Gated calls running now whose runs have not been sent yet (see `CallRun`). */
  readonly inFlight = new Set<GatedCall>();
  /** Gated calls running now (until their answer is recorded). */
  readonly running = new Set<GatedCall>();
  /**
   * Carry request scopes through async context (`requestScope`): off until a
   * handler calls the server's `createMessage` directly, the one thing that
   * needs it (it names no request). Until then a handler finds its request
   * through the SDK's context object (`scopeOfContext`).
   */
  trackAsync = false;
  /** Inside the synchronous start of a sampling request the adapter sends itself: a nested `createMessage` is that request. */
  samplingDepth = 0;
  #showTimer: NodeJS.Timeout | undefined;
  #exitFlushing = false;

  constructor(options: GraphmindOptions, env: NodeJS.ProcessEnv, warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {
    this.reporter = new Reporter({ url: options.url, env });
    this.core = new DebuggerGate({ reporter: this.reporter });
    this.hide = hideSettings(env);
    this.app = options.app ?? 'mcp-server';
    this.serverOverride = options.server;
    this.waitForAttach = options.waitForAttach ?? false;
    this.loopAllow = loopAllowList(env);
    this.sdk = options.sdk ?? installedSdk();
    this.#warn = warn;
    // A debugger has attached and armed the gate: what happened before is recorded now.
    this.reporter.on('breakpoints', () => {
      if (!this.core.armed) return;
      if (this.#detached.size > 0) this.#detached.replay();
      this.#showTimer ??= setInterval(() => this.#showLongCalls(), SHOW_RUNNING_AFTER_MS).unref();
    });
    this.reporter.on('detached', () => {
      clearInterval(this.#showTimer);
      this.#showTimer = undefined;
    });
    watchExit(this);
  }

  /** Calls running longer than {@link SHOW_RUNNING_AFTER_MS} are shown as running: their runs are opened. */
  #showLongCalls(): void {
    if (this.inFlight.size === 0) return;
    const before = Date.now() - SHOW_RUNNING_AFTER_MS;
    for (const call of this.inFlight) {
      if (call.run.startedAt > before) continue;
      this.inFlight.delete(call);
      try {
        call.run.open();
      } catch {
        // Observation is best-effort.
      }
    }
  }

  /** A call made on the fast path has settled: kept for the debugger (recorded at once if one is there now). */
  noteDetached(call: DetachedCall): void {
    if (this.#disposed) return;
    this.#detached.push(call);
    if (this.core.armed) this.#detached.replay();
  }

  /** An input (a call's arguments, a sampling request) as the record keeps it: `[hidden]` under `GRAPHMIND_HIDE_INPUTS`. */
  recordedInput(input: unknown): unknown {
    return this.hide.inputs ? HIDDEN : input;
  }

  /** True once {@link AdapterRuntime.dispose} ran: wrapped servers then run as if unwrapped. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** The one gated call running now, if exactly one is (a guess that is right whenever it is made). */
  onlyRunningCall(): GatedCall | undefined {
    if (this.running.size !== 1) return undefined;
    for (const call of this.running) return call;
    return undefined;
  }

  /** A new connection's id, namespacing its requests' instance ids: `c1`, `c2`, … */
  nextConnection(): string {
    return `c${++this.#connections}`;
  }

  /**
   * Called when a hold opens: a hold that lasts more than
   * {@link HOLD_WARNING_MS} prints one line on stderr (never stdout), the
   * first time only, because the client may time out while it waits.
   * Returns what to call when this hold ends: a hold decided in time never
   * warns (nor lends its name to another hold that is still waiting).
   */
  onHolding(hold: PendingHold, describe: string): () => void {
    this.stats.holds++;
    if (this.#warned) return NO_WARNING;
    const timer = setTimeout(() => {
      if (this.#warned || this.#disposed) return;
      this.#warned = true;
      this.#warn(
        `graphmind adapter: ${describe} has been held at the ${hold.point} gate for over ${HOLD_WARNING_MS / 1000} s — the MCP client may time out; resume it in ${this.reporter.url} (this warning is shown once)`,
      );
    }, HOLD_WARNING_MS);
    timer.unref();
    return () => clearTimeout(timer);
  }

  /**
   * The process is about to exit because nothing is left to do (a stdio
   * server whose client closed its stdin): what is still buffered goes to
   * the debugger first, for up to {@link EXIT_FLUSH_MS}. The batch timer
   * does not keep the process alive, so without this the last calls of a
   * session would never be recorded. Once per batch that cannot go.
   */
  flushBeforeExit(): void {
    const reporter = this.reporter;
    if (this.#disposed || this.#exitFlushing || !reporter.attached || reporter.pending === 0) return;
    this.#exitFlushing = true;
    void reporter.flush(EXIT_FLUSH_MS).then((sent) => {
      // A debugger that cannot take it now will not at the next idle either: let the process go.
      if (sent) this.#exitFlushing = false;
    });
  }

  /** Let every hold go on, stop reporting (after a last flush of up to `flushMs`). */
  async dispose(flushMs = 1000): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    unwatchExit(this);
    clearInterval(this.#showTimer);
    this.core.stop();
    try {
      if (this.reporter.attached) await this.reporter.flush(flushMs);
    } finally {
      this.reporter.close();
    }
  }
}
