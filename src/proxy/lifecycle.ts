/**
 * The life of one stdio proxy session as a pure state machine: spawn →
 * attach → relay → restart → exit. {@link step} takes the session's state
 * and one thing that happened (a signal, the host leaving, a server's exit,
 * a restart's progress, a timer) and returns the new state and what to do
 * about it (signal a process tree, start a timer, end the session). It
 * touches no process, stream or clock: the shell in `proxy-session.ts` owns
 * those, turns what they do into events, and carries out the effects.
 *
 * @module
 */

import { WAIT_FOR_ATTACH_MS } from '../relay/frame-holds.js';
import type { ServerStanding } from './restart-gate.js';

/** A server process of the session, by number: 1 for the first, one more for each process a restart starts. */
export type ServerId = number;

/** How a server process ended: its exit code, or the signal that killed it. */
export type Exit = readonly [code: number | null, signal: NodeJS.Signals | null];

/** How long a proxy whose server could not start waits for a debugger to appear (without `--wait-for-attach`). */
export const SPAWN_FAILURE_ATTACH_MS = 1000;

/** What the session was started with, as far as its life is concerned. */
export interface LifecycleConfig {
  /** `--watch`: a server that exits on its own leaves the session up, waiting for a change. */
  staysUp: boolean;
  /** The server can be restarted under the session (`--watch`, or reporting on): a restart gate stands on the host's side. */
  restartable: boolean;
  /** `--wait-for-attach`: the first frame waits up to {@link WAIT_FOR_ATTACH_MS} from the start for a debugger. */
  waitForAttach: boolean;
  /** After the host is done with us, how long the server may run on before SIGTERM. */
  stdinCloseGraceMs: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
}

/** Where the session is. */
export interface LifecycleState {
  /** What the session was started with. */
  readonly config: LifecycleConfig;
  /** `spawning` until the first server started (or could not); `ended` once the session's end is known. */
  readonly phase: 'spawning' | 'running' | 'ended';
  /** The server running now (a restart replaces it); 0 before the first. */
  readonly current: ServerId;
  /** Servers that have exited. */
  readonly gone: readonly ServerId[];
  /** Servers being stopped by a restart: their exit is not the session's end. */
  readonly retiring: readonly ServerId[];
  /** Where the restart gate says the server stands (`up` when there is no restart gate). */
  readonly standing: ServerStanding;
  /** A restart is under way. */
  readonly restarting: boolean;
  /** The proxy told the server to stop (a signal to the proxy, the host gone). */
  readonly stoppedByUs: boolean;
  /** The host closed our stdin, or it broke: a server that exits then was asked to, or has nobody left. */
  readonly hostClosed: boolean;
  /** The signals the proxy sent to stop the session's servers (passed on from the host, SIGTERM after the grace, SIGKILL after that). */
  readonly sentSignals: readonly NodeJS.Signals[];
  /** The host is done with us and the server's grace period has begun. */
  readonly graceStarted: boolean;
  /** Told to end (by this signal) while a restart was under way: the restart starts no server, or the one it started is stopped. */
  readonly ending: NodeJS.Signals | undefined;
  /** A signal that came while the first server was being spawned: passed on once it exists. */
  readonly earlySignal: NodeJS.Signals | undefined;
  /** The last exit of the session's current server. */
  readonly lastExit: Exit;
}

/** Something that happened to the session. */
export type LifecycleEvent =
  /** SIGINT, SIGTERM or SIGHUP to the proxy. */
  | { type: 'signal'; signal: NodeJS.Signals }
  /** The first server started (it is server 1). */
  | { type: 'spawned' }
  /** The first server could not be started, `elapsedMs` after the session began. */
  | { type: 'spawn-failed'; elapsedMs: number }
  /** Our stdin ended or closed. */
  | { type: 'host-input-ended' }
  /** The host is done with us: its side of the relay ended, or it is no longer our parent. */
  | { type: 'host-done' }
  /** Our stdout broke (EPIPE): nobody is left to answer. */
  | { type: 'host-output-broken' }
  /** The grace period after the host left is over. */
  | { type: 'grace-expired' }
  /** The time between SIGTERM and SIGKILL for `server` is over. */
  | { type: 'kill-grace-expired'; server: ServerId }
  /** `server` exited; `starting`: a restart is still bringing it up (its exit is the restart's to handle). */
  | { type: 'server-exited'; server: ServerId; code: number | null; signal: NodeJS.Signals | null; starting: boolean }
  /** A file changed (`--watch`), or the debugger asked for a restart. */
  | { type: 'restart-asked'; reason: string; file?: string }
  /** The restart asked for (and any asked for during it) is over. */
  | { type: 'restart-settled' }
  /** A restart started `server`: it is the session's server from now on. */
  | { type: 'adopted'; server: ServerId }
  /** A restart is stopping `server`. */
  | { type: 'retiring'; server: ServerId }
  /** The restart gate's standing changed. */
  | { type: 'standing'; standing: ServerStanding };

/** Something the shell is to do. */
export type LifecycleEffect =
  /** Send `signal` to `server` and to the processes it started. */
  | { type: 'signal-tree'; server: ServerId; signal: NodeJS.Signals }
  /** Dispatch `fire` after `ms` (unless the session is over by then). */
  | { type: 'timer'; ms: number; fire: LifecycleEvent }
  /** With `--watch`, `server` exited on its own (`how`: "exited with code 1"): relay to nothing, requests get an error, say so. */
  | { type: 'server-down'; server: ServerId; how: string }
  /** `server`'s last output, then the end of it, goes to the host. */
  | { type: 'end-output'; server: ServerId }
  /** Restart the server. */
  | { type: 'restart'; reason: string; file?: string }
  /** The session is over: the last server ended with `exit`. */
  | { type: 'end'; exit: Exit }
  /** The server could not be started: report it, giving a debugger up to `attachWaitMs` to attach and take the record. */
  | { type: 'spawn-failed'; attachWaitMs: number };

/** The outcome of one {@link step}. */
export interface Step {
  /** The session's state after the event. */
  state: LifecycleState;
  /** What the shell is to do, in order. */
  effects: readonly LifecycleEffect[];
}

/** A session about to spawn its first server. */
export function initialState(config: LifecycleConfig): LifecycleState {
  return {
    config,
    phase: 'spawning',
    current: 0,
    gone: [],
    retiring: [],
    standing: 'up',
    restarting: false,
    stoppedByUs: false,
    hostClosed: false,
    sentSignals: [],
    graceStarted: false,
    ending: undefined,
    earlySignal: undefined,
    lastExit: [null, null],
  };
}

/** No server runs, and none is being started: a session told to end can end now. */
export function noServer(state: LifecycleState): boolean {
  return state.gone.includes(state.current) && state.standing === 'down';
}

/** How a server ended, in the words of a restart's record and the `--watch` line ("exited with code 1"). */
export function howItEnded(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
}

/**
 * How long a session whose server could not start waits for a debugger to
 * attach, so that the failure reaches the graph. Without `--wait-for-attach`,
 * {@link SPAWN_FAILURE_ATTACH_MS}. With it, what is left of the attach wait
 * the first frame would have had ({@link WAIT_FOR_ATTACH_MS} from the
 * session's start): a spawn fails within moments, long before a debugger
 * started alongside the proxy has attached, so ending at once would lose the
 * record that flag is there to keep.
 */
export function spawnFailureAttachMs(waitForAttach: boolean, elapsedMs: number): number {
  return waitForAttach ? Math.max(0, WAIT_FOR_ATTACH_MS - elapsedMs) : SPAWN_FAILURE_ATTACH_MS;
}

/** No effects (shared: a step never changes the effects it returns). */
const NOTHING: readonly LifecycleEffect[] = Object.freeze([]);

/** One thing happened: the session's new state, and what to do about it. */
export function step(state: LifecycleState, event: LifecycleEvent): Step {
  switch (event.type) {
    case 'signal':
      // Caught from the start: one that comes during the spawn waits for the server to exist.
      if (state.phase === 'spawning') return { state: { ...state, earlySignal: event.signal }, effects: NOTHING };
      return terminate(state, event.signal);
    case 'spawned': {
      const running: LifecycleState = { ...state, phase: 'running', current: 1 };
      return state.earlySignal === undefined ? { state: running, effects: NOTHING } : terminate(running, state.earlySignal);
    }
    case 'spawn-failed':
      return {
        state: { ...state, phase: 'ended' },
        effects: [{ type: 'spawn-failed', attachWaitMs: spawnFailureAttachMs(state.config.waitForAttach, event.elapsedMs) }],
      };
    case 'host-input-ended':
      return { state: { ...state, hostClosed: true }, effects: NOTHING };
    case 'host-done':
      return startGrace(state);
    case 'host-output-broken':
    case 'grace-expired':
      return terminate(state, 'SIGTERM');
    case 'kill-grace-expired':
      if (state.gone.includes(event.server)) return { state, effects: NOTHING };
      return { state: withSent(state, 'SIGKILL'), effects: [{ type: 'signal-tree', server: event.server, signal: 'SIGKILL' }] };
    case 'server-exited':
      return serverExited(state, event);
    default:
      return restartStep(state, event);
  }
}

/** The events of a restart's progress. */
function restartStep(state: LifecycleState, event: LifecycleEvent): Step {
  switch (event.type) {
    case 'restart-asked':
      // Not while the session is on its way out (the host gone, or told to stop).
      if (!state.config.restartable || state.ending !== undefined || state.stoppedByUs || state.hostClosed) return { state, effects: NOTHING };
      return { state: { ...state, restarting: true }, effects: [{ type: 'restart', reason: event.reason, ...(event.file === undefined ? {} : { file: event.file }) }] };
    case 'restart-settled': {
      const settled: LifecycleState = { ...state, restarting: false };
      // Told to end during the restart, which started no server (or one that was stopped at once).
      return settled.ending !== undefined && noServer(settled) ? end(settled, settled.lastExit) : { state: settled, effects: NOTHING };
    }
    case 'adopted': {
      const adopted: LifecycleState = { ...state, current: event.server };
      // Told to end while it was being started: it goes the way the old one went.
      return adopted.ending === undefined ? { state: adopted, effects: NOTHING } : terminate(adopted, adopted.ending);
    }
    case 'retiring':
      return { state: { ...state, retiring: [...state.retiring, event.server] }, effects: NOTHING };
    case 'standing':
      return { state: { ...state, standing: event.standing }, effects: NOTHING };
    default:
      return { state, effects: NOTHING };
  }
}

/** The session ends with `exit` (once: later calls change nothing). */
function end(state: LifecycleState, exit: Exit): Step {
  if (state.phase === 'ended') return { state, effects: NOTHING };
  return { state: { ...state, phase: 'ended' }, effects: [{ type: 'end', exit }] };
}

/** Stop the server with `signal` (SIGKILL after the kill grace), or end the session when no server is left to stop. */
function terminate(state: LifecycleState, signal: NodeJS.Signals): Step {
  const told: LifecycleState = state.restarting && state.ending === undefined ? { ...state, ending: signal } : state;
  const server = told.current;
  if (told.gone.includes(server)) {
    // No server is running (it failed to come back after a restart): nothing to wait for.
    return noServer(told) ? end(told, told.lastExit) : { state: told, effects: NOTHING };
  }
  return {
    state: { ...withSent(told, signal), stoppedByUs: true },
    effects: [
      { type: 'signal-tree', server, signal },
      { type: 'timer', ms: told.config.killGraceMs, fire: { type: 'kill-grace-expired', server } },
    ],
  };
}

/** `signal` noted among those the proxy sent (once). */
function withSent(state: LifecycleState, signal: NodeJS.Signals): LifecycleState {
  return state.sentSignals.includes(signal) ? state : { ...state, sentSignals: [...state.sentSignals, signal] };
}

/** The host is done with us: the server gets the grace period, then SIGTERM. */
function startGrace(state: LifecycleState): Step {
  if (state.graceStarted) return { state, effects: NOTHING };
  const closed: LifecycleState = { ...state, graceStarted: true, hostClosed: true };
  // No server to give time to (it did not come back after a restart): the session is over.
  if (noServer(closed)) return end(closed, closed.lastExit);
  return { state: closed, effects: [{ type: 'timer', ms: closed.config.stdinCloseGraceMs, fire: { type: 'grace-expired' } }] };
}

/** A server exited: the session's end, a server a restart handles, or (with `--watch`) a server down until the next change. */
function serverExited(state: LifecycleState, event: Extract<LifecycleEvent, { type: 'server-exited' }>): Step {
  const gone: LifecycleState = { ...state, gone: [...state.gone, event.server] };
  // An old server stopped by a restart: not the session's. A new one the restart is still bringing up: the restart's to handle.
  if (gone.retiring.includes(event.server) || event.server !== gone.current) return { state: gone, effects: NOTHING };
  const exited: LifecycleState = { ...gone, lastExit: [event.code, event.signal] };
  if (event.starting) return { state: exited, effects: NOTHING };
  // On its own, that is: not told to stop (a signal to the proxy, the host gone).
  if (exited.config.staysUp && exited.config.restartable && !exited.hostClosed && !exited.stoppedByUs && exited.ending === undefined) {
    return { state: exited, effects: [{ type: 'server-down', server: event.server, how: howItEnded(event.code, event.signal) }] };
  }
  const ended = end(exited, [event.code, event.signal]);
  // Its last output, then the end of it, reaches the host.
  return { state: ended.state, effects: [{ type: 'end-output', server: event.server }, ...ended.effects] };
}
