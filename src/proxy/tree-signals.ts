import type { ChildProcess } from 'node:child_process';
import { exitOf } from './child-process.js';
import { signalDescendants, signalMembers, type TreeMember } from './process-tree.js';

/**
 * Signals to a server and the processes it started. A shell's or a
 * launcher's child (npx, sh -c '…; node server.js') holds the server's
 * stdout as much as the server does, and must not outlive the session:
 * every process signalled here is killed at the session's end
 * ({@link TreeSignals.killLeft}).
 */
export class TreeSignals {
  readonly #killGraceMs: number;
  /** Processes the servers started that were told to stop, by pid. */
  readonly #signalled = new Map<number, TreeMember>();

  /** `killGraceMs`: between SIGTERM and SIGKILL. */
  constructor(killGraceMs: number) {
    this.#killGraceMs = killGraceMs;
  }

  /** Send `signal` to `server` and to what it started; returns those it started. */
  signal(server: ChildProcess, signal: NodeJS.Signals): TreeMember[] {
    // Below it first: a server that dies at once hands its children to init, out of its tree.
    const below = server.pid === undefined ? [] : signalDescendants(server.pid, signal);
    for (const member of below) this.#signalled.set(member.pid, member);
    server.kill(signal);
    return below;
  }

  /** Stop `server` for a restart (SIGTERM, then SIGKILL after the grace); resolves once it has exited. */
  async stop(server: ChildProcess): Promise<void> {
    const below = this.signal(server, 'SIGTERM');
    const kill = setTimeout(() => this.signal(server, 'SIGKILL'), this.#killGraceMs);
    kill.unref();
    await exitOf(server);
    clearTimeout(kill);
    // What it started and left behind (a watcher, a worker that ignores SIGTERM) does not outlive it for long.
    if (below.length > 0) setTimeout(() => signalMembers(below, 'SIGKILL'), this.#killGraceMs).unref();
  }

  /** The session is over: what the servers started and were told to stop gets no more time. */
  killLeft(): void {
    if (this.#signalled.size > 0) signalMembers([...this.#signalled.values()], 'SIGKILL');
  }
}
