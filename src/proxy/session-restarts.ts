import type { ChildProcess } from 'node:child_process';
import type { DebugSession } from '../relay/debug-session.js';
import type { Relay } from '../streams/create-relay.js';
import type { Frame } from '../streams/frame.js';
import { exitOf, startChild } from './child-process.js';
import { errorLine } from './exit-diagnosis.js';
import { watchFiles, type FileWatch } from './file-watch.js';
import { howItEnded } from './lifecycle.js';
import * as messages from './messages.js';
import type { ProxyOptions, SpawnFunction } from './proxy-options.js';
import type { RestartGate } from './restart-gate.js';
import { Restarter } from './restarter.js';
import type { ServerOutputs } from './server-output.js';
import type { ServerStderr } from './server-stderr.js';
import type { SessionMemory } from './session-memory.js';
import type { TextSink } from './stderr-sink.js';
import type { TreeSignals } from './tree-signals.js';

/** What a restart asks of the session around it (the proxy's shell, which tells its lifecycle). */
export interface RestartHost {
  /** The server process running now, if one is. */
  current(): ChildProcess | undefined;
  /** The session is ending: a restart under way starts no server. */
  ending(): boolean;
  /** A restart started `server`: the session's server from now on. */
  adopt(server: ChildProcess): void;
  /** A restart is stopping `server`: its exit is not the session's end. */
  retire(server: ChildProcess): void;
  /** A restart was asked for (`reason`; `file`: the change that asked). */
  ask(reason: string, file?: string): void;
  /** Answer a request of the host here, with a JSON-RPC error, and record it (error name `name`). */
  answer(request: Frame, code: number, message: string, name: string): void;
}

/** Options for {@link startRestarts}. */
export interface SessionRestartsOptions {
  /** The session's options (the command line, `--watch`). */
  options: ProxyOptions;
  /** Starts a server process. */
  spawn: SpawnFunction;
  /** The session around the restarts. */
  host: RestartHost;
  /** The relay a restart switches over to the new server. */
  relay: Relay;
  /** The gate that holds the host's frames while a restart is under way. */
  gate: RestartGate;
  /** What a restart replays to the new server. */
  memory: SessionMemory;
  /** Our stderr: a line per restart. */
  sink: TextSink;
  /** The debugger's session: a record per restart. @default undefined (reporting off) */
  report: DebugSession | undefined;
  /** The servers' stderr (a new server's last words name why it did not come back). */
  stderr: ServerStderr;
  /** Stops an old server and what it started. */
  tree: TreeSignals;
  /** What the relay reads of a new server. */
  outputs: ServerOutputs;
}

/** The session's restarter, and the watch that asks it (with `--watch`). */
export interface SessionRestarts {
  /** Restarts the server when the lifecycle says so. */
  restarter: Restarter;
  /** The `--watch` watch (closed at the session's end), if there is one. */
  watching: FileWatch | undefined;
}

/**
 * The restarter of a session's server, asked by `--watch` (a file change)
 * and by the debugger (its Restart server button): each ask goes to the
 * lifecycle, which decides whether a restart happens.
 */
export function startRestarts(o: SessionRestartsOptions): SessionRestarts {
  const { options, host, sink, report } = o;
  const watchPaths = options.watch ?? [];
  const restarter = new Restarter({
    relay: o.relay,
    gate: o.gate,
    memory: o.memory,
    spawn: () => startChild(o.spawn, options),
    current: () => host.current(),
    cancelled: () => host.ending(),
    adopt: (server) => host.adopt(server),
    stop: async (server) => {
      host.retire(server);
      await o.tree.stop(server);
    },
    exited: async (server) => {
      const [code, signal] = await exitOf(server);
      // What it wrote last is still on its way: its pipes close after it exits.
      await Promise.race([new Promise((resolve) => server.once('close', resolve)), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
      return howItEnded(code, signal);
    },
    lastWords: (server) => errorLine(o.stderr.linesOf(server)),
    answer: (request, code, message, name) => host.answer(request, code, message, name),
    output: (server) => o.outputs.of(server),
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
  const watching =
    watchPaths.length > 0
      ? watchFiles(
          watchPaths,
          (file) => host.ask('file change', file),
          (problem) => sink.write(`${messages.usageError(`--watch: ${problem}`)}\n`),
        )
      : undefined;
  // The debugger's Restart server button (POST /api/runs/:runId/restart).
  report?.reporter.on('restart', (runId: string) => {
    if (runId === report.recorder.runId) host.ask('the debugger');
  });
  return { restarter, watching };
}
