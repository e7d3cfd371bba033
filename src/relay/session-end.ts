/**
 * How a session's end is recorded: the session node's last event and the
 * run's status, from how the server process ended. Pure functions.
 *
 * @module
 */

import type { InstanceError } from '../protocol/run-model.js';

/** How the server process ended, for `RelayRecorder.finish`. */
export interface SessionEnd {
  /** The command could not be started. */
  spawnError?: {
    /** What went wrong, in words. */
    message: string;
    /** The spawn error's code, e.g. `ENOENT`. */
    code?: string;
  };
  /** The server died before answering anything. */
  exitedEarly?: {
    /** How it ended, in words. */
    message: string;
    /** Its last stderr lines (none when its stderr was inherited). */
    stderr: string[];
  };
  /**
   * The server failed after its stdout had become a raw byte pipe: whether
   * it answered is not known (recorded as `McpServerExited`, the run ok).
   */
  exitedUnobserved?: {
    /** How it ended, in words. */
    message: string;
    /** Its last stderr lines (none when its stderr was inherited). */
    stderr: string[];
  };
  /** The process's exit code (`null` when a signal ended it). */
  exitCode?: number | null;
  /** The signal that ended the process, if one did. */
  signal?: NodeJS.Signals | null;
  /**
   * The host asked for this end: it signalled the proxy (which passed the
   * signal on) or closed the proxy's input, and the server then exited or
   * died of the signal it was sent. A normal end, whatever the exit code or
   * signal.
   */
  asked?: boolean;
  /**
   * An HTTP session that ended because nothing of it was under way for this
   * many milliseconds (its client left without a DELETE). A normal end.
   */
  idleMs?: number;
}

/** What {@link sessionEndRecord} says of a session's end. */
export interface SessionEndRecord {
  /** The run's status in `run.finished`. */
  status: 'ok' | 'error';
  /** The session node ends in this error (`instance.error`), when set. */
  error?: InstanceError;
  /** Otherwise the session node ends well (`instance.finished`) with this output (`endedBy`: `host`, the host asked for the end; `idle`, nothing of an HTTP session was under way for `idleMs`). */
  output?: { exitCode: number | null; signal: NodeJS.Signals | null; endedBy?: 'host' | 'idle'; idleMs?: number };
}

/**
 * A session's end, recorded: the run fails only when the server could not
 * start or died before answering anything. An end the host asked for (see
 * {@link SessionEnd.asked}) ends the node well, as a clean exit does. A
 * server that answered and then exited badly (or was killed) by itself, or
 * failed once its answers could no longer be seen, leaves the run ok, its
 * session node ending in `McpServerExited`.
 */
export function sessionEndRecord(end: SessionEnd): SessionEndRecord {
  const exitCode = end.exitCode ?? null;
  const signal = end.signal ?? null;
  if (end.spawnError) {
    return { status: 'error', error: { name: 'SpawnError', message: end.spawnError.message, data: { code: end.spawnError.code } } };
  }
  if (end.exitedUnobserved) {
    // Not known to have answered nothing: the run stays ok, as after an answer.
    return { status: 'ok', error: { name: 'McpServerExited', message: end.exitedUnobserved.message, data: { exitCode, signal, stderr: end.exitedUnobserved.stderr } } };
  }
  if (end.exitedEarly) {
    return { status: 'error', error: { name: 'McpServerExitedEarly', message: end.exitedEarly.message, data: { exitCode, signal, stderr: end.exitedEarly.stderr } } };
  }
  // The host ended the session: the server going (by the signal passed on, or once its input closed) is the normal end.
  if (end.asked === true) return { status: 'ok', output: { exitCode, signal, endedBy: 'host' } };
  if (end.idleMs !== undefined) return { status: 'ok', output: { exitCode, signal, endedBy: 'idle', idleMs: end.idleMs } };
  if ((end.exitCode !== 0 && end.exitCode !== undefined) || signal !== null) {
    // It answered at least once: the conversation happened, the run is ok,
    // but the session node still shows how the process ended.
    const message = end.signal ? `the MCP server was killed by ${end.signal}` : `the MCP server exited with code ${end.exitCode}`;
    return { status: 'ok', error: { name: 'McpServerExited', message, data: { exitCode, signal } } };
  }
  return { status: 'ok', output: { exitCode, signal } };
}

/**
 * The output of a call still open at the end of a session whose answers
 * could not be seen: the direction they travel in had become a raw byte
 * pipe (a line over --max-frame-bytes), so an answer may well have been
 * relayed, unread. Saying `NoAnswer` would be a guess.
 */
export function answerNotObserved(from: 'server' | 'client'): { '[graphmind]': string } {
  return {
    '[graphmind]': `answer not observed: the ${from}'s output had become a raw byte pipe (a line larger than --max-frame-bytes); an answer, if one came, was relayed unread`,
  };
}
