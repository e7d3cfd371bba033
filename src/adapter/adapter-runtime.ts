import { createRequire } from 'node:module';
import { DebuggerGate } from '../gates/debugger-gate.js';
import type { PendingHold } from '../gates/gate.js';
import { loopAllowList } from '../gates/loop-detector.js';
import { debuggerImpostor } from '../relay/messages.js';
import { HIDDEN, hideSettings, type HideSettings } from '../report/hide.js';
import { Reporter } from '../report/reporter.js';
import { CONNECT_WAIT_MS, type GraphmindOptions } from './adapter-options.js';
import { newStats, type AdapterStats } from './adapter-stats.js';
import { DetachedCalls, type DetachedCall } from './detached-calls.js';
import { FirstContact } from './first-contact.js';
import { HoldWarning } from './hold-warning.js';
import { LiveCalls } from './live-calls.js';
import { ScopeTracking } from './request-scope.js';
import type { RunningCall } from './running-call.js';

/** How long a process about to exit waits for its last events to reach the debugger. */
export const EXIT_FLUSH_MS = 1000;

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
 * debugger-connected gate, the settings and hide switches, the counts, the
 * calls running now and those made while detached. Created only when the
 * adapter is on. The pieces never import it: each is handed it as the
 * narrow interface it declares (`ServerSettings`, `RunHost`, `CallHost`,
 * `SamplingHost`, `DetachedHost`, …).
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
  readonly stats: AdapterStats = newStats();
  /** The gated calls running now. */
  readonly live = new LiveCalls<RunningCall>();
  /** How code finds the request it runs in. */
  readonly scopes = new ScopeTracking();
  /** The first contact with a debugger, which the first call made while detached waits for. */
  readonly contact: FirstContact;
  #connections = 0;
  #disposed = false;
  readonly #warning: HoldWarning;
  /** Calls made while no debugger was attached, replayed once one is (see `DetachedCalls`). */
  readonly #detached: DetachedCalls;
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
    this.#warning = new HoldWarning(warn, this.reporter);
    this.#detached = new DetachedCalls(this);
    this.contact = new FirstContact(this.reporter, this.core, CONNECT_WAIT_MS);
    // A debugger has attached and armed the gate: what happened before is recorded now.
    this.reporter.on('breakpoints', () => {
      if (!this.core.armed) return;
      this.contact.close();
      if (this.#detached.size > 0) this.#detached.replay();
      this.live.showLongCalls();
    });
    this.reporter.on('detached', () => this.live.stopShowing());
    // Something else on the debugger's port: said once, and it gets nothing.
    this.reporter.once('impostor', (port: number) => warn(debuggerImpostor('adapter', port)));
    watchExit(this);
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

  /** A new connection's id, namespacing its requests' instance ids: `c1`, `c2`, … */
  nextConnection(): string {
    return `c${++this.#connections}`;
  }

  /** A hold opened: counted, and warned about once if it lasts (see `HoldWarning`). Returns what to call when it ends. */
  onHolding(hold: PendingHold, describe: string): () => void {
    this.stats.holds++;
    return this.#warning.onHolding(hold, describe);
  }

  /**
   * The process is about to exit because nothing is left to do (a stdio
   * server whose client closed its stdin): what is still kept goes to the
   * debugger first (see {@link AdapterRuntime.sendRest}). The batch timer
   * and the connection do not keep the process alive, so without this the
   * last calls of a session would never be recorded. Once per batch that
   * cannot go.
   */
  flushBeforeExit(): void {
    if (this.#disposed || this.#exitFlushing || (this.#detached.size === 0 && this.reporter.pending === 0)) return;
    this.#exitFlushing = true;
    void this.sendRest(EXIT_FLUSH_MS).then((sent) => {
      // A debugger that cannot take it now will not at the next idle either: let the process go.
      if (sent) this.#exitFlushing = false;
    });
  }

  /**
   * Record the calls kept while detached, and hand everything queued to the
   * debugger: over the connection that is up, else over the attempt in
   * flight (one is made now if none is), which nothing listening refuses at
   * once. Waits `ms` at most in all. Resolves true if it all went.
   */
  async sendRest(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    this.#detached.replay();
    const reporter = this.reporter;
    if (reporter.pending === 0) return true;
    if (!reporter.attached) {
      reporter.hurry(0);
      if (!(await reporter.settle(ms))) return false;
    }
    return reporter.flush(Math.max(1, deadline - Date.now()));
  }

  /**
   * Let every hold go on, stop reporting (after a last flush of up to
   * `flushMs`): the end of the adapter's session, where the give-up rule
   * releases what is still held.
   */
  async dispose(flushMs = 1000): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#warning.stop();
    unwatchExit(this);
    this.contact.close();
    this.live.stopShowing();
    this.core.stop();
    try {
      await this.sendRest(flushMs);
    } finally {
      this.reporter.close();
    }
  }
}
