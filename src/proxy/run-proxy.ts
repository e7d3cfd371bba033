import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { createRelay, type Relay } from '../streams/create-relay.js';
import type { Frame } from '../streams/frame.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../streams/line-framer.js';
import { DEFAULT_RELEASE_EVERY_BYTES, MemoryRelease } from './memory-release.js';
import * as messages from './messages.js';
import { processExists, signalDescendants, signalMembers, type TreeMember } from './process-tree.js';
import { SharedStderr, createStderrSink, type TextSink } from './stderr-sink.js';
import { StderrLines } from './stderr-lines.js';
import { StderrTail } from './stderr-tail.js';
import { traceLine } from './trace.js';
import { startDebugSession } from '../relay/debug-session.js';
import { idForDisplay, idKey } from '../streams/exact-id.js';
import { madeFrame } from '../streams/lifter.js';
import { watchFiles } from './file-watch.js';
import { RestartGate } from './restart-gate.js';
import { Restarter, idleServer } from './restarter.js';
import { SessionMemory } from './session-memory.js';

/** The shape of `child_process.spawn` the proxy needs; injectable for tests. */
export type SpawnFunction = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** Options for {@link runProxy}. */
export interface ProxyOptions {
  /** The server's executable, run without a shell. */
  command: string;
  /** Its arguments, passed unchanged. @default [] */
  args?: readonly string[];
  /** One stderr line per relayed frame. @default false */
  trace?: boolean;
  /** Give the server our stderr instead of a pipe. @default false */
  inheritStderr?: boolean;
  /** Frame-assembly ceiling per direction. @default 67108864 (64 MiB) */
  maxFrameBytes?: number;
  /** Where the debugger listens (used by the reporter). @default 4747 */
  port?: number;
  /** The debugger's data directory, where its token is. @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
  /**
   * Files and folders to watch: a change restarts the server under the
   * live host session (see docs/restart.md). While it is set, a server that
   * exits on its own also leaves the proxy up, answering requests with an
   * error, until the next change. @default [] (no watching)
   */
  watch?: readonly string[];
  /** Hold the first frame until a debugger attaches. @default false */
  waitForAttach?: boolean;
  /** The host side's input. @default process.stdin */
  stdin?: Readable;
  /** The host side's output: the wire. @default process.stdout */
  stdout?: NodeJS.WritableStream & Writable;
  /** Where diagnostics and the server's stderr go. @default a non-blocking sink on fd 2 */
  stderr?: TextSink;
  /** The environment the server starts from (`GRAPHMIND_TOKEN` is removed). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Start the child. @default child_process.spawn */
  spawn?: SpawnFunction;
  /** Forward SIGINT, SIGTERM and SIGHUP to the server. @default true */
  handleSignals?: boolean;
  /**
   * After the host closes our stdin, how long the server may keep running
   * before it is sent SIGTERM (and SIGKILL {@link ProxyOptions.killGraceMs}
   * later).
   * @default 5000
   */
  stdinCloseGraceMs?: number;
  /** Between SIGTERM and SIGKILL. @default 3000 */
  killGraceMs?: number;
  /**
   * How often to check that the process that started the proxy (the host)
   * is still its parent; when it is not, the host has died and the session
   * ends as if it had closed stdin. 0 turns the check off.
   * @default 1000 with the process's own stdin; 0 when `stdin` is given
   *   (the host is then not our parent)
   */
  watchHostMs?: number;
  /**
   * Report the session to `graphmind serve` on `port`. Off when
   * `GRAPHMIND_DISABLED=1` is in `env`.
   * @default true
   */
  report?: boolean;
  /**
   * After this many bytes relayed (both directions), ask V8 for a
   * young-generation collection, so that read buffers already written on
   * are freed instead of piling up (see docs/mcp-proxy.md, "Memory"). `0` leaves
   * the collector alone.
   * @default 16777216 (16 MiB)
   */
  releaseMemoryEvery?: number;
}

/** How a proxy session ended. */
export interface ProxyResult {
  /** What the proxy process should exit with: the server's code, 128+n for a signal, 127 when it could not start. */
  exitCode: number;
  /** `spawn-failed`, or `exited` once the server ran. */
  outcome: 'spawn-failed' | 'exited';
  /** The server answered at least one request. */
  answered: boolean;
  /** Non-JSON-RPC lines the server wrote to stdout. */
  stdoutNoise: number;
}

/** How long a proxy whose server could not start waits for a debugger to appear. */
export const SPAWN_FAILURE_ATTACH_MS = 1000;

/** Exit code for a command that could not be started, as shells use. */
export const EXIT_CANNOT_RUN = 127;

const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** After the child exits, how long to wait for its stdout to close (a grandchild may hold it open). */
const STDOUT_SETTLE_MS = 2000;

/** The line of a server's last stderr lines that names its error (`SyntaxError: …`, `ModuleNotFoundError: …`), the last such; cut to 200 characters. */
function errorLine(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (/^[\w.$]*(Error|Exception)\b/.test(line)) return line.length > 200 ? `${line.slice(0, 199)}…` : line;
  }
  return undefined;
}

/** What is at `command`, when it is a path (a bare name is looked up on PATH: undefined). */
function pathKind(command: string): 'none' | 'file' | 'directory' | undefined {
  if (!/[\\/]/.test(command)) return undefined;
  try {
    return statSync(command).isDirectory() ? 'directory' : 'file';
  } catch {
    return 'none';
  }
}

function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 0);
}

function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  // The debugger's token can rewrite tool results; the server under debug never gets it.
  delete copy.GRAPHMIND_TOKEN;
  return copy;
}

function startChild(spawn: SpawnFunction, options: ProxyOptions): Promise<ChildProcess | Error> {
  let child: ChildProcess;
  try {
    child = spawn(options.command, options.args ?? [], {
      stdio: ['pipe', 'pipe', options.inheritStderr ? 'inherit' : 'pipe'],
      env: childEnv(options.env ?? process.env),
      windowsHide: true,
    });
  } catch (error) {
    return Promise.resolve(error as Error);
  }
  return new Promise((resolve) => {
    const onSpawn = (): void => {
      child.off('error', onError);
      resolve(child);
    };
    const onError = (error: Error): void => {
      child.off('spawn', onSpawn);
      resolve(error);
    };
    child.once('spawn', onSpawn);
    child.once('error', onError);
  });
}

/**
 * Run one proxy session: start the server, relay both directions byte for
 * byte until the server exits, and report what went wrong in plain lines on
 * stderr. Resolves with the exit code the proxy should use; never writes
 * anything but relayed frames to `stdout`.
 */
export async function runProxy(options: ProxyOptions): Promise<ProxyResult> {
  // Our lines each start a line of their own, even after a server line left open.
  const sink = new SharedStderr(options.stderr ?? createStderrSink());
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const env = options.env ?? process.env;
  const report =
    (options.report ?? true)
      ? startDebugSession({
          command: options.command,
          args: options.args ?? [],
          port: options.port ?? 4747,
          dataDir: options.dataDir,
          env,
          waitForAttach: options.waitForAttach ?? false,
          // Where MCP hosts show server logs: a held call is somebody's agent waiting.
          onHolding: ({ hold, method, call, url }) =>
            sink.write(`${messages.holding(method, idForDisplay(call), hold.point, url, hold.reason === 'loop' ? (call.node?.label ?? '') : undefined)}\n`),
        })
      : undefined;
  // Signals are caught from the start: one that arrives while the child is
  // being spawned is passed on as soon as it exists, so it is never orphaned.
  let forwardSignal: (signal: NodeJS.Signals) => void = (signal) => {
    earlySignal = signal;
  };
  let earlySignal: NodeJS.Signals | undefined;
  const signalHandlers = new Map<NodeJS.Signals, () => void>();
  if (options.handleSignals ?? true) {
    for (const signal of FORWARDED_SIGNALS) {
      const handler = (): void => forwardSignal(signal);
      signalHandlers.set(signal, handler);
      process.on(signal, handler);
    }
  }
  const removeSignalHandlers = (): void => {
    for (const [sig, handler] of signalHandlers) process.off(sig, handler);
  };
  const started = await startChild(options.spawn ?? nodeSpawn, options);
  if (started instanceof Error) {
    removeSignalHandlers();
    const failure = started as Error & { code?: string };
    const line = messages.spawnFailed(options.command, { code: failure.code, message: failure.message, pathKind: pathKind(options.command) });
    sink.write(`${line}\n`);
    // Give a debugger that is running a moment to attach, so the failure
    // reaches the graph (with --wait-for-attach it already had its chance).
    await report?.finish(
      { spawnError: { message: messages.withoutPrefix(line), code: failure.code } },
      options.waitForAttach ? 0 : SPAWN_FAILURE_ATTACH_MS,
    );
    await sink.flush(1000);
    return { exitCode: EXIT_CANNOT_RUN, outcome: 'spawn-failed', answered: false, stdoutNoise: 0 };
  }
  /** The server process running now (a restart replaces it). */
  let child = started;
  const tail = new StderrTail();
  const recordLines = new StderrLines();
  /** Each server's own last stderr lines (a restarted server's error line names why it did not come back). */
  const ownTails = new WeakMap<ChildProcess, StderrTail>();
  /** Take a server process on: its errors, its stderr (to our stderr, the tail, the graph). */
  const wireChild = (server: ChildProcess): void => {
    // After a successful spawn the child's own errors (a failed kill, say) are not ours to crash on.
    server.on('error', () => {});
    const own = new StderrTail({ maxLines: 50, maxBytes: 8192 });
    ownTails.set(server, own);
    if (server.stderr) {
      server.stderr.on('data', (chunk: Buffer) => {
        sink.server(chunk);
        tail.push(chunk);
        own.push(chunk);
        if (report !== undefined) {
          const lines = recordLines.push(chunk);
          if (lines.length > 0) report.onStderr(lines);
        }
      });
      server.stderr.on('error', () => {});
    }
  };
  wireChild(child);

  // A debugger that turns us away is worth one line: otherwise the session is silently unobserved.
  report?.reporter.once('refused', (status: number) => {
    sink.write(`${messages.debuggerRefused(report.reporter.url, status)}\n`);
  });

  let answered = false;
  // The server's stdout became a raw byte pipe: from then on its answers are relayed unread.
  let serverDegraded = false;
  let noise = 0;
  report?.recorder.onSpawned(child.pid);
  const releaseEvery = options.releaseMemoryEvery ?? DEFAULT_RELEASE_EVERY_BYTES;
  const memory = releaseEvery > 0 ? new MemoryRelease(releaseEvery) : undefined;
  // The server can be restarted under the session: by --watch, or from the debugger (which needs reporting on).
  const watchPaths = options.watch ?? [];
  const restartable = watchPaths.length > 0 || report !== undefined;
  const sessionState = restartable ? new SessionMemory() : undefined;
  const onFrame = (frame: Frame): void => {
    // `size`: a long line relayed in pieces is counted whole, when it ends.
    memory?.relayed(frame.size);
    report?.onFrame(frame);
    sessionState?.observe(frame);
    if (options.trace) sink.write(traceLine(frame));
    if (frame.direction !== 'server-to-client') return;
    if (frame.type === 'response' || frame.type === 'error' || frame.type === 'batch') {
      answered = true;
    } else if (frame.type === 'noise') {
      if (++noise === 1) sink.write(`${messages.stdoutNoiseFirst(messages.quoteLine(frame.raw))}\n`);
    }
  };

  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  // Set once the relay exists: requests answered here (no server can) go back through it.
  let answerHere: (request: Frame, code: number, message: string, name: string) => void = () => {};
  let sendAgain: (request: Frame) => void = () => {};
  const restartGate = restartable
    ? new RestartGate({
        inner: report?.gate,
        answer: (request, code, message) => answerHere(request, code, message, 'ServerNotRunning'),
        resend: (request) => sendAgain(request),
      })
    : undefined;
  /** Whether a server that exits on its own leaves the proxy up (waiting for the next change), rather than ending the session. */
  const staysUp = watchPaths.length > 0;
  /** Per server (with --watch): end the output the relay reads, once the server's own has ended (see outputOf). */
  const endOutput = new WeakMap<ChildProcess, () => void>();
  /**
   * What the relay reads of a server. With --watch, a server that exits on
   * its own leaves the session up: the relay must not see its output end
   * (which ends the host's side), so it reads a stream of ours that the
   * server's output is piped into and that ends only when the session ends
   * with that server. Without --watch, the server's stdout itself.
   */
  const outputOf = (server: ChildProcess): Readable => {
    const stdout = server.stdout as Readable;
    if (!staysUp) return stdout;
    const out = new PassThrough();
    stdout.pipe(out, { end: false });
    let ended = false;
    stdout.once('end', () => (ended = true));
    endOutput.set(server, () => (ended ? out.end() : stdout.once('end', () => out.end())));
    return out;
  };
  const relay: Relay = createRelay({
    gate: restartGate ?? report?.gate,
    client: { readable: stdin, writable: stdout, end: false },
    server: { readable: outputOf(child), writable: child.stdin as NodeJS.WritableStream & Writable },
    maxFrameBytes,
    onFrame,
    onDegrade: (direction) => {
      const notice = messages.degraded(direction === 'client-to-server' ? 'client' : 'server', maxFrameBytes);
      if (direction === 'server-to-client') serverDegraded = true;
      sink.write(`${notice}\n`);
      try {
        report?.recorder.onDegraded(direction, notice);
      } catch {
        // Observation is best-effort.
      }
    },
  });

  report?.attach(relay);
  answerHere = (request, code, message, name) => {
    const key = idKey(request);
    if (key !== undefined) relay.correlator.take('server-to-client', key);
    relay.toClient.send([madeFrame({ outcome: { kind: 'fail', code, message }, request, lift: {} }, 'server-to-client', request.seq)]);
    try {
      report?.recorder.onProxyAnswer(request, { name, message, code });
    } catch {
      // Observation is best-effort.
    }
  };
  // A retry decided while no server could take the request: its bytes again, to the server that is up now.
  sendAgain = (request) => relay.toServer.writer.writeBytes(request.raw);

  /** Server processes that have exited. */
  const gone = new WeakSet<ChildProcess>();
  /** Server processes being stopped for a restart: their exit is not the session's end. */
  const retiring = new WeakSet<ChildProcess>();
  let stoppedByUs = false;
  // The host closed our stdin, or it broke: a server that exits then was asked to, or has nobody left.
  let hostClosed = false;
  const onHostGone = (): void => {
    hostClosed = true;
  };
  stdin.once('end', onHostGone);
  stdin.once('close', onHostGone);
  const timers: NodeJS.Timeout[] = [];
  const killGraceMs = options.killGraceMs ?? 3000;
  // Processes the server started, told to stop with it: a shell's or a
  // launcher's child (npx, sh -c '…; node server.js') holds the server's
  // stdout as much as the server does, and must not outlive the session.
  const signalled = new Map<number, TreeMember>();
  const signalTree = (server: ChildProcess, signal: NodeJS.Signals): TreeMember[] => {
    // Below it first: a server that dies at once hands its children to init, out of its tree.
    const below = server.pid === undefined ? [] : signalDescendants(server.pid, signal);
    for (const member of below) signalled.set(member.pid, member);
    server.kill(signal);
    return below;
  };
  // The session ends with the last server's exit (or, with no server left running, the host's leaving).
  let lastExit: [number | null, NodeJS.Signals | null] = [null, null];
  let endSession: (exit: [number | null, NodeJS.Signals | null]) => void = () => {};
  const sessionEnd = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => (endSession = resolve));
  /** Restarts the server under the session (set further down, once the relay exists). */
  let restarter: Restarter | undefined;
  // The session is to end (a signal, the host gone) while a restart may be under way: the restart starts no server, or the one it started is stopped.
  let ending: NodeJS.Signals | undefined;
  /** No server runs, and none is being started: a session told to end can end now. */
  const noServer = (): boolean => gone.has(child) && restartGate?.standing === 'down';
  const terminate = (signal: NodeJS.Signals): void => {
    const server = child;
    if (restarter?.busy === true) ending ??= signal;
    if (gone.has(server)) {
      // No server is running (it failed to come back after a restart): nothing to wait for.
      if (noServer()) endSession(lastExit);
      return;
    }
    stoppedByUs = true;
    signalTree(server, signal);
    const timer = setTimeout(() => {
      if (!gone.has(server)) signalTree(server, 'SIGKILL');
    }, killGraceMs);
    timer.unref();
    timers.push(timer);
  };

  // The host is done with us: the server gets the stdin-close grace period, then SIGTERM.
  let graceStarted = false;
  const startGrace = (): void => {
    if (graceStarted) return;
    graceStarted = true;
    hostClosed = true;
    // No server to give time to (it did not come back after a restart): the session is over.
    if (noServer()) {
      endSession(lastExit);
      return;
    }
    const timer = setTimeout(() => terminate('SIGTERM'), options.stdinCloseGraceMs ?? 5000);
    timer.unref();
    timers.push(timer);
  };
  // While a frame is held the proxy reads nothing from the host (held means
  // stopped), so a host that dies then is never seen as the end of our
  // stdin. It is seen as the loss of our parent: we are handed to another
  // process (init, or a subreaper), or (where nobody adopts orphans, as on
  // Windows) the parent's pid no longer exists; the session then ends as if
  // the host had closed stdin, instead of a held proxy and its server living
  // on forever. Only when the host is our parent, with our own stdin.
  const hostPid = process.ppid;
  const watchEvery = options.watchHostMs ?? (options.stdin === undefined ? 1000 : 0);
  if (watchEvery > 0 && hostPid > 1) {
    const watch = setInterval(() => {
      if (process.ppid === hostPid && processExists(hostPid)) return;
      clearInterval(watch);
      startGrace();
    }, watchEvery);
    watch.unref();
    timers.push(watch);
  }

  relay.toServer.done.then(
    startGrace,
    () => {
      // The server stopped reading (EPIPE on its stdin). Its stdout may
      // still carry answers, so the session goes on until it exits.
    },
  );
  relay.toClient.done.catch(() => {
    // The host is gone (EPIPE on our stdout): nobody is left to answer.
    terminate('SIGTERM');
  });

  forwardSignal = (signal) => terminate(signal);
  if (earlySignal !== undefined) forwardSignal(earlySignal);

  const exitOf = (server: ChildProcess): Promise<[number | null, NodeJS.Signals | null]> =>
    new Promise((resolve) => {
      if (typeof server.exitCode === 'number' || typeof server.signalCode === 'string') resolve([server.exitCode, server.signalCode]);
      else server.once('exit', (code, signal) => resolve([code, signal]));
    });
  restarter =
    restartGate === undefined || sessionState === undefined
      ? undefined
      : new Restarter({
          relay,
          gate: restartGate,
          memory: sessionState,
          spawn: () => startChild(options.spawn ?? nodeSpawn, options),
          current: () => (gone.has(child) ? undefined : child),
          cancelled: () => ending !== undefined,
          adopt: (server) => {
            child = server;
            wireChild(server);
            followExit(server);
            // Told to end while it was being started: it goes the way the old one went.
            if (ending !== undefined) terminate(ending);
          },
          stop: async (server) => {
            retiring.add(server);
            const below = signalTree(server, 'SIGTERM');
            const kill = setTimeout(() => signalTree(server, 'SIGKILL'), killGraceMs);
            kill.unref();
            await exitOf(server);
            clearTimeout(kill);
            // What it started and left behind (a watcher, a worker that ignores SIGTERM) does not outlive it for long.
            if (below.length > 0) setTimeout(() => signalMembers(below, 'SIGKILL'), killGraceMs).unref();
          },
          exited: async (server) => {
            const [code, signal] = await exitOf(server);
            // What it wrote last is still on its way: its pipes close after it exits.
            await Promise.race([new Promise((resolve) => server.once('close', resolve)), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
            return signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
          },
          lastWords: (server) => errorLine(ownTails.get(server)?.lines() ?? []),
          answer: (request, code, message, name) => answerHere(request, code, message, name),
          output: outputOf,
          retryHint: watchPaths.length > 0 ? 'fix it and save to restart it' : 'fix it and restart it from the debugger',
          report: (record) => {
            sink.write(`${record.ok ? messages.restarted(record) : messages.restartFailed(record)}\n`);
            try {
              report?.recorder.onRestart(record);
              // meta.serverPid names the server running now.
              if (record.ok) report?.recorder.onSpawned(record.pid);
            } catch {
              // Observation is best-effort.
            }
          },
        });
  const followExit = (server: ChildProcess): void => {
    void exitOf(server).then(([code, signal]) => {
      gone.add(server);
      // An old server stopped by a restart: not the session's. A new one the restart is still bringing up: the restart's to handle.
      if (retiring.has(server) || server !== child) return;
      lastExit = [code, signal];
      if (restarter?.starting(server) === true) return;
      // On its own, that is: not told to stop (a signal to the proxy, the host gone).
      if (staysUp && !hostClosed && !stoppedByUs && ending === undefined && restartGate !== undefined) {
        const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
        // Nothing goes to it any more (a request sent again by a retry would meet a closed pipe).
        relay.replaceServer(idleServer());
        restartGate.down(`it ${how}; fix it and save to restart it`);
        sink.write(`${messages.serverDownWatching(how)}\n`);
        return;
      }
      // Its last output, then the end of it, reaches the host.
      endOutput.get(server)?.();
      endSession([code, signal]);
    });
  };
  followExit(child);
  /** Restart the server, unless the session is on its way out (the host gone, or told to stop). */
  const askRestart = (reason: string, file?: string): void => {
    if (restarter === undefined || ending !== undefined || stoppedByUs || hostClosed) return;
    void restarter.restart(reason, file).then(() => {
      // Told to end during the restart, which started no server (or one that was stopped at once).
      if (ending !== undefined && noServer()) endSession(lastExit);
    });
  };
  const watching =
    restarter !== undefined && watchPaths.length > 0
      ? watchFiles(
          watchPaths,
          (file) => askRestart('file change', file),
          (problem) => sink.write(`${messages.usageError(`--watch: ${problem}`)}\n`),
        )
      : undefined;
  // The debugger's Restart server button (POST /api/runs/:runId/restart).
  report?.reporter.on('restart', (runId: string) => {
    if (runId === report.recorder.runId) askRestart('the debugger');
  });

  const [code, signal] = await sessionEnd;
  watching?.close();
  for (const timer of timers) clearTimeout(timer);
  // Nobody is left to answer a held frame: let everything drain, and hold nothing more.
  report?.gate.stop();

  // Everything the server wrote before it died still goes to the host. (With
  // no server left after a restart the relay reads nothing, and its end
  // never comes: nothing to wait for.)
  if (!noServer()) {
    await Promise.race([
      relay.toClient.done.catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, STDOUT_SETTLE_MS).unref()),
    ]);
  }
  removeSignalHandlers();
  // The server is gone; what it started and we told to stop gets no more time than that.
  if (signalled.size > 0) signalMembers([...signalled.values()], 'SIGKILL');

  const pending = relay.correlator.outstanding('client-to-server').length;
  const crashed = code !== 0 || signal !== null;
  // A last stderr line without its newline is still part of the log.
  const unterminated = recordLines.end();
  if (unterminated.length > 0) report?.onStderr(unterminated);
  const lastLines = tail.lines();
  let early: { message: string; stderr: string[] } | undefined;
  let unobserved: { message: string; stderr: string[] } | undefined;
  const stderrTail = options.inheritStderr ? 'inherited' : lastLines;
  const recorded = (text: string): { message: string; stderr: string[] } => ({
    message: messages.withoutPrefix(text.split('\n')[0] ?? text),
    stderr: options.inheritStderr ? [] : lastLines,
  });
  if (!answered && !stoppedByUs && serverDegraded) {
    // Its answers, if any, went by unread: never say it answered nothing.
    // A crash is still a crash, and worth its line.
    if (crashed) {
      const text = messages.exitedUnobserved(code, signal, stderrTail);
      sink.write(`${text}\n`);
      unobserved = recorded(text);
    }
  } else if (!answered && !stoppedByUs && (pending > 0 || crashed || !hostClosed)) {
    // A crash before any answer is worth the line even when the host had
    // already closed our stdin (a smoke test that starts the proxy with no
    // input): the server still died before answering anything. So is a
    // clean exit the host never asked for (it still had our stdin open).
    const text = messages.exitedEarly(code, signal, stderrTail);
    sink.write(`${text}\n`);
    early = recorded(text);
  }
  if (noise > 0) sink.write(`${messages.stdoutNoiseSummary(noise)}\n`);
  await report?.finish({ exitedEarly: early, exitedUnobserved: unobserved, exitCode: code, signal }, 0);
  relay.toServer.framer.destroy();
  await sink.flush(1000);
  const exitCode = signal !== null ? signalExitCode(signal) : (code ?? 1);
  return { exitCode, outcome: 'exited', answered, stdoutNoise: noise };
}
