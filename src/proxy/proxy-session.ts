import { spawn as nodeSpawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { answerRequester, errorAnswer } from '../relay/answer-requester.js';
import { startDebugSession, type DebugSession } from '../relay/debug-session.js';
import { debuggerImpostor, debuggerRefused, holding, noViewer } from '../relay/messages.js';
import { createRelay, type Relay } from '../streams/create-relay.js';
import { idForDisplay } from '../streams/exact-id.js';
import type { Frame } from '../streams/frame.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../streams/line-framer.js';
import { exitOf, pathKind, startChild } from './child-process.js';
import { diagnoseExit, diagnoseSpawnFailure } from './exit-diagnosis.js';
import { tallyFrames, type FrameTally } from './frame-tally.js';
import type { FileWatch } from './file-watch.js';
import { watchHost } from './host-watch.js';
import { initialState, noServer, step, type Exit, type LifecycleEffect, type LifecycleEvent, type LifecycleState, type ServerId } from './lifecycle.js';
import { DEFAULT_RELEASE_EVERY_BYTES, MemoryRelease } from './memory-release.js';
import * as messages from './messages.js';
import type { ProxyOptions, ProxyResult, SpawnFunction } from './proxy-options.js';
import { RestartGate } from './restart-gate.js';
import { idleServer, type Restarter } from './restarter.js';
import { ServerOutputs } from './server-output.js';
import { ServerStderr } from './server-stderr.js';
import { forgetSent, startSendAgain } from './send-again.js';
import { startRestarts, type RestartHost } from './session-restarts.js';
import { SessionMemory } from './session-memory.js';
import { catchSignals } from './signals.js';
import { SharedStderr, createStderrSink } from './stderr-sink.js';
import { TreeSignals } from './tree-signals.js';

/** After the last server exits, how long to wait for its stdout to close (a grandchild may hold it open). */
const STDOUT_SETTLE_MS = 2000;

/** How the session came to its end. */
type Outcome = { kind: 'exited'; exit: Exit } | { kind: 'spawn-failed'; attachWaitMs: number };

/**
 * The shell around the session's lifecycle (lifecycle.ts): it owns the
 * server processes, the signals, the timers and the streams, turns what they
 * do into lifecycle events, and carries out the effects {@link step}
 * returns. Everything decided about the session's life is decided there.
 */
export class ProxySession implements RestartHost {
  readonly #options: ProxyOptions;
  readonly #spawn: SpawnFunction;
  /** Our lines each start a line of their own, even after a server line left open. */
  readonly #sink: SharedStderr;
  readonly #report: DebugSession | undefined;
  /** When the session began: a spawn failure's attach wait counts from here. */
  readonly #began = performance.now();
  #state: LifecycleState;
  readonly #letSignalsGo: () => void;
  /** The server processes that have not exited, by number. */
  readonly #servers = new Map<ServerId, ChildProcess>();
  readonly #ids = new WeakMap<ChildProcess, ServerId>();
  #lastId = 0;
  readonly #timers: NodeJS.Timeout[] = [];
  #settle: (outcome: Outcome) => void = () => {};
  readonly #outcome = new Promise<Outcome>((resolve) => (this.#settle = resolve));
  readonly #stderr: ServerStderr;
  readonly #tree: TreeSignals;
  readonly #outputs: ServerOutputs;
  /** What the relay has seen (set once the first server runs). */
  #tally: FrameTally | undefined;
  readonly #sessionState: SessionMemory | undefined;
  readonly #restartGate: RestartGate | undefined;
  #relay: Relay | undefined;
  #restarter: Restarter | undefined;
  #watching: FileWatch | undefined;
  /** The server's stdout became a raw byte pipe: from then on its answers are relayed unread. */
  #serverDegraded = false;

  constructor(options: ProxyOptions) {
    this.#options = options;
    this.#spawn = options.spawn ?? nodeSpawn;
    const sink = new SharedStderr(options.stderr ?? createStderrSink());
    this.#sink = sink;
    this.#report = (options.report ?? true) ? this.#debugSession() : undefined;
    const watchPaths = options.watch ?? [];
    // The server can be restarted under the session: by --watch, or from the debugger (which needs reporting on).
    const restartable = watchPaths.length > 0 || this.#report !== undefined;
    this.#state = initialState({
      staysUp: watchPaths.length > 0,
      restartable,
      waitForAttach: options.waitForAttach ?? false,
      stdinCloseGraceMs: options.stdinCloseGraceMs ?? 5000,
      killGraceMs: options.killGraceMs ?? 3000,
    });
    // Signals are caught from the start: one that arrives while the child is
    // being spawned is passed on as soon as it exists, so it is never orphaned.
    this.#letSignalsGo = (options.handleSignals ?? true) ? catchSignals((signal) => this.#dispatch({ type: 'signal', signal })) : () => {};
    this.#stderr = new ServerStderr(sink, this.#report);
    this.#tree = new TreeSignals(this.#state.config.killGraceMs);
    this.#outputs = new ServerOutputs(this.#state.config.staysUp);
    this.#sessionState = restartable ? new SessionMemory() : undefined;
    this.#restartGate = restartable
      ? new RestartGate({
          inner: this.#report?.gate,
          answer: (request, code, message) => this.answer(request, code, message, 'ServerNotRunning'),
          // A retry decided while no server could take the request: its bytes again, to the server that is up now.
          resend: (request) => this.#relay?.toServer.writer.writeBytes(request.raw),
          onStanding: (standing) => this.#dispatch({ type: 'standing', standing }),
        })
      : undefined;
  }

  /** The session reported to the debugger, printing its HOLDING lines where MCP hosts show server logs. */
  #debugSession(): DebugSession | undefined {
    const options = this.#options;
    return startDebugSession({
      command: options.command,
      args: options.args ?? [],
      port: options.port ?? 4747,
      dataDir: options.dataDir,
      env: options.env ?? process.env,
      waitForAttach: options.waitForAttach ?? false,
      // A held call is somebody's agent waiting.
      onHolding: ({ hold, method, call, url }) =>
        this.#sink.write(`${holding('mcp-proxy', method, idForDisplay(call), hold.point, url, hold.reason === 'loop' ? (call.node?.label ?? '') : undefined, hold.ruleId)}\n`),
      // And when nobody watches the debugger, nobody can decide it: said once per hold.
      onUnwatched: (notice) => this.#sink.write(`${noViewer('mcp-proxy', notice)}\n`),
    });
  }

  /** Start the server, relay until the session ends, and say how it went. */
  async run(): Promise<ProxyResult> {
    const started = await startChild(this.#spawn, this.#options);
    if (started instanceof Error) this.#dispatch({ type: 'spawn-failed', elapsedMs: performance.now() - this.#began });
    else this.#start(started);
    const outcome = await this.#outcome;
    return outcome.kind === 'spawn-failed' ? this.#endSpawnFailed(started as Error, outcome.attachWaitMs) : this.#endExited(outcome.exit);
  }

  /** One thing happened: the lifecycle decides, the shell does what it says. */
  #dispatch(event: LifecycleEvent): void {
    const { state, effects } = step(this.#state, event);
    this.#state = state;
    for (const effect of effects) this.#apply(effect);
  }

  #apply(effect: LifecycleEffect): void {
    switch (effect.type) {
      case 'signal-tree': {
        const server = this.#servers.get(effect.server);
        if (server !== undefined) this.#tree.signal(server, effect.signal);
        return;
      }
      case 'timer': {
        const timer = setTimeout(() => this.#dispatch(effect.fire), effect.ms);
        timer.unref();
        this.#timers.push(timer);
        return;
      }
      case 'server-down':
        // Nothing goes to it any more (a request sent again by a retry would meet a closed pipe).
        this.#relay?.replaceServer(idleServer());
        this.#restartGate?.down(`it ${effect.how}; fix it and save to restart it`);
        this.#sink.write(`${messages.serverDownWatching(effect.how)}\n`);
        return;
      case 'end-output': {
        const server = this.#servers.get(effect.server);
        if (server !== undefined) this.#outputs.end(server);
        return;
      }
      case 'restart':
        void this.#restarter?.restart(effect.reason, effect.file).then(() => this.#dispatch({ type: 'restart-settled' }));
        return;
      case 'end':
        this.#settle({ kind: 'exited', exit: effect.exit });
        return;
      case 'spawn-failed':
        this.#settle({ kind: 'spawn-failed', attachWaitMs: effect.attachWaitMs });
        return;
    }
  }

  /** Number a server process, take its stderr on, and follow its exit. */
  #take(server: ChildProcess): ServerId {
    const id = ++this.#lastId;
    this.#servers.set(id, server);
    this.#ids.set(server, id);
    this.#stderr.wire(server);
    void exitOf(server).then(([code, signal]) => {
      this.#dispatch({ type: 'server-exited', server: id, code, signal, starting: this.#restarter?.starting(server) === true });
      this.#servers.delete(id);
    });
    return id;
  }

  /** The first server runs: the relay, the host's side, the restarter, then the lifecycle is told. */
  #start(child: ChildProcess): void {
    const options = this.#options;
    const report = this.#report;
    this.#take(child);
    // A debugger that turns us away is worth one line: otherwise the session is silently unobserved.
    report?.reporter.once('refused', (status: number) => this.#sink.write(`${debuggerRefused('mcp-proxy', report.reporter.url, status)}\n`));
    report?.reporter.once('impostor', (port: number) => this.#sink.write(`${debuggerImpostor('mcp-proxy', port)}\n`));
    report?.recorder.onSpawned(child.pid);
    const relay = this.#createRelay(child);
    this.#relay = relay;
    report?.attach(relay);
    const stdin = options.stdin ?? process.stdin;
    // The host closed our stdin, or it broke: a server that exits then was asked to, or has nobody left.
    const hostInputEnded = (): void => this.#dispatch({ type: 'host-input-ended' });
    stdin.once('end', hostInputEnded);
    stdin.once('close', hostInputEnded);
    const hostDone = (): void => this.#dispatch({ type: 'host-done' });
    const hostWatch = watchHost(options.watchHostMs ?? (options.stdin === undefined ? 1000 : 0), hostDone);
    if (hostWatch !== undefined) this.#timers.push(hostWatch);
    relay.toServer.done.then(hostDone, () => {
      // The server stopped reading (EPIPE on its stdin). Its stdout may
      // still carry answers, so the session goes on until it exits.
    });
    // The host is gone (EPIPE on our stdout): nobody is left to answer.
    relay.toClient.done.catch(() => this.#dispatch({ type: 'host-output-broken' }));
    this.#dispatch({ type: 'spawned' });
    const gate = this.#restartGate;
    const memory = this.#sessionState;
    if (gate === undefined || memory === undefined) return;
    const parts = { sink: this.#sink, report, stderr: this.#stderr, tree: this.#tree, outputs: this.#outputs };
    ({ restarter: this.#restarter, watching: this.#watching } = startRestarts({ options, spawn: this.#spawn, host: this, relay, gate, memory, ...parts }));
    // Send again: the debugger's own requests, whose answers the host never gets (nor the lists a restart compares).
    memory.notHost = gate.sent;
    if (report !== undefined) startSendAgain({ report, relay, gate });
  }

  /** The relay between the host (our stdin and stdout) and `child`. */
  #createRelay(child: ChildProcess): Relay {
    const options = this.#options;
    const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    const releaseEvery = options.releaseMemoryEvery ?? DEFAULT_RELEASE_EVERY_BYTES;
    const tally = tallyFrames({
      memory: releaseEvery > 0 ? new MemoryRelease(releaseEvery) : undefined,
      report: this.#report,
      sessionState: this.#sessionState,
      trace: options.trace ?? false,
      sink: this.#sink,
    });
    this.#tally = tally;
    return createRelay({
      gate: this.#restartGate ?? this.#report?.gate,
      client: { readable: options.stdin ?? process.stdin, writable: options.stdout ?? process.stdout, end: false },
      server: { readable: this.#outputs.of(child), writable: child.stdin as NodeJS.WritableStream & Writable },
      maxFrameBytes,
      onFrame: tally.onFrame,
      onDegrade: (direction) => {
        const notice = messages.degraded(direction === 'client-to-server' ? 'client' : 'server', maxFrameBytes);
        if (direction === 'server-to-client') this.#serverDegraded = true;
        this.#sink.write(`${notice}\n`);
        try {
          this.#report?.recorder.onDegraded(direction, notice);
        } catch {
          // Observation is best-effort.
        }
      },
    });
  }

  /** Answer a request of the host here, with a JSON-RPC error (no server can), and record it (error name `name`). */
  answer(request: Frame, code: number, message: string, name: string): void {
    // Only the relay's frames are ever answered here: there is none before it exists.
    if (this.#relay === undefined) return;
    // A request the debugger sent (Send again) is only recorded: the host never asked it.
    if (this.#restartGate?.sent.delete(request) === true) forgetSent(this.#relay, request);
    else answerRequester(this.#relay, request, errorAnswer(request, code, message));
    try {
      this.#report?.recorder.onProxyAnswer(request, { name, message, code });
    } catch {
      // Observation is best-effort.
    }
  }

  /** The server process running now, if one is. */
  current(): ChildProcess | undefined {
    return this.#servers.get(this.#state.current);
  }

  /** The session is ending: a restart under way starts no server. */
  ending(): boolean {
    return this.#state.ending !== undefined;
  }

  /** A restart started `server`: the session's server from now on. */
  adopt(server: ChildProcess): void {
    this.#dispatch({ type: 'adopted', server: this.#take(server) });
  }

  /** A restart is stopping `server`: its exit is not the session's end. */
  retire(server: ChildProcess): void {
    const id = this.#ids.get(server);
    if (id !== undefined) this.#dispatch({ type: 'retiring', server: id });
  }

  /** A restart was asked for: the lifecycle decides whether it happens. */
  ask(reason: string, file?: string): void {
    this.#dispatch({ type: 'restart-asked', reason, ...(file === undefined ? {} : { file }) });
  }

  /** The server could not be started: one line, the record (with time for a debugger to take it), exit 127. */
  async #endSpawnFailed(error: Error, attachWaitMs: number): Promise<ProxyResult> {
    this.#letSignalsGo();
    const failure = error as Error & { code?: string };
    const command = this.#options.command;
    const diagnosis = diagnoseSpawnFailure(command, { code: failure.code, message: failure.message, pathKind: pathKind(command) });
    this.#sink.write(`${diagnosis.line}\n`);
    await this.#report?.finish(diagnosis.end, attachWaitMs);
    await this.#sink.flush(1000);
    return { exitCode: diagnosis.exitCode, outcome: 'spawn-failed', answered: false, stdoutNoise: 0 };
  }

  /** The last server ended with `exit`: let its output drain, then the diagnostics, the record, the exit code. */
  async #endExited(exit: Exit): Promise<ProxyResult> {
    // The session ends only once its first server ran: the relay is there.
    const relay = this.#relay as Relay;
    const tally = this.#tally as FrameTally;
    this.#watching?.close();
    for (const timer of this.#timers) clearTimeout(timer);
    // Nobody is left to answer a held frame: let everything drain, and hold nothing more.
    this.#report?.gate.stop();
    // Everything the server wrote before it died still goes to the host. (With
    // no server left after a restart the relay reads nothing, and its end
    // never comes: nothing to wait for.)
    if (!noServer(this.#state)) {
      await Promise.race([relay.toClient.done.catch(() => {}), new Promise((resolve) => setTimeout(resolve, STDOUT_SETTLE_MS).unref())]);
    }
    this.#letSignalsGo();
    // The server is gone; what it started and we told to stop gets no more time than that.
    this.#tree.killLeft();
    this.#stderr.end();
    const state = this.#state;
    const diagnosis = diagnoseExit({
      exit,
      answered: tally.answered(),
      stoppedByUs: state.stoppedByUs,
      serverDegraded: this.#serverDegraded,
      hostClosed: state.hostClosed,
      sentSignals: state.sentSignals,
      pending: relay.correlator.outstanding('client-to-server').length,
      noise: tally.noise(),
      stderrTail: this.#options.inheritStderr ? 'inherited' : this.#stderr.tail.lines(),
    });
    for (const line of diagnosis.lines) this.#sink.write(`${line}\n`);
    await this.#report?.finish(diagnosis.end, 0);
    relay.toServer.framer.destroy();
    await this.#sink.flush(1000);
    return { exitCode: diagnosis.exitCode, outcome: 'exited', answered: tally.answered(), stdoutNoise: tally.noise() };
  }
}
