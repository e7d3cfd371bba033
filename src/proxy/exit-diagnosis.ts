/**
 * What a stdio proxy session's end comes to, as pure functions of what was
 * seen: which of the failure diagnostics to print (the server could not
 * start, ended before answering anything, ended after its output became a
 * raw byte pipe), the stdout-noise summary, what the run is told
 * (`SessionEnd`) and the proxy's exit code.
 *
 * @module
 */

import { constants as osConstants } from 'node:os';
import type { SessionEnd } from '../relay/relay-recorder.js';
import type { Exit } from './lifecycle.js';
import * as messages from './messages.js';

/** Exit code for a command that could not be started, as shells use. */
export const EXIT_CANNOT_RUN = 127;

/** What was seen of a session whose server ran, at its end. */
export interface ExitFacts {
  /** How the last server ended. */
  exit: Exit;
  /** The server answered at least one request. */
  answered: boolean;
  /** The proxy told the server to stop (a signal to the proxy, the host gone). */
  stoppedByUs: boolean;
  /** The server's stdout became a raw byte pipe: its answers since went by unread. */
  serverDegraded: boolean;
  /** The host had closed our stdin (or it broke). */
  hostClosed: boolean;
  /** The signals the proxy sent the server to stop it (none when it was not told to stop). */
  sentSignals: readonly NodeJS.Signals[];
  /** Requests of the host still unanswered. */
  pending: number;
  /** Non-JSON-RPC lines the server wrote to stdout. */
  noise: number;
  /** The server's last stderr lines, or `inherited` (`--inherit-stderr`: we never saw them). */
  stderrTail: readonly string[] | 'inherited';
}

/** Which failure diagnostic a session's end gets. */
export type ExitDiagnostic = 'exited-early' | 'exited-unobserved' | 'none';

/** What a session's end comes to. */
export interface ExitDiagnosis {
  /** Which failure diagnostic it gets. */
  diagnostic: ExitDiagnostic;
  /** The lines to print on stderr, in order, each without its newline. */
  lines: string[];
  /** What the run is told. */
  end: SessionEnd;
  /** What the proxy exits with: the server's code, 128+n for a signal (1 when neither is known). */
  exitCode: number;
}

/** The exit code a shell gives a process killed by `signal`: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 0);
}

/** The exit code the proxy passes on for a server that ended with `exit`. */
export function proxyExitCode([code, signal]: Exit): number {
  return signal !== null ? signalExitCode(signal) : (code ?? 1);
}

/** Which failure diagnostic the facts call for. */
export function exitDiagnostic(facts: ExitFacts): ExitDiagnostic {
  const [code, signal] = facts.exit;
  const crashed = code !== 0 || signal !== null;
  if (facts.answered || facts.stoppedByUs) return 'none';
  // Its answers, if any, went by unread: never say it answered nothing. A crash is still a crash, and worth its line.
  if (facts.serverDegraded) return crashed ? 'exited-unobserved' : 'none';
  // A crash before any answer is worth the line even when the host had
  // already closed our stdin (a smoke test that starts the proxy with no
  // input): the server still died before answering anything. So is a
  // clean exit the host never asked for (it still had our stdin open).
  return facts.pending > 0 || crashed || !facts.hostClosed ? 'exited-early' : 'none';
}

/**
 * Was the server's end one the host asked for? It was when the host ended
 * the session (signalled the proxy, which passed the signal on, or closed
 * our stdin) and the server then exited, or died of a signal the proxy sent
 * it. A server that died of a signal nobody here sent (SIGSEGV, a kill from
 * elsewhere) was not asked to, whatever the host did.
 */
export function endAsked(facts: Pick<ExitFacts, 'exit' | 'stoppedByUs' | 'hostClosed' | 'sentSignals'>): boolean {
  const signal = facts.exit[1];
  if (!facts.stoppedByUs && !facts.hostClosed) return false;
  return signal === null || facts.sentSignals.includes(signal);
}

/** The diagnostic's line, what the run is told, and the exit code, for the end of a session whose server ran. */
export function diagnoseExit(facts: ExitFacts): ExitDiagnosis {
  const [code, signal] = facts.exit;
  const diagnostic = exitDiagnostic(facts);
  const lines: string[] = [];
  let early: { message: string; stderr: string[] } | undefined;
  let unobserved: { message: string; stderr: string[] } | undefined;
  if (diagnostic !== 'none') {
    const text = diagnostic === 'exited-early' ? messages.exitedEarly(code, signal, facts.stderrTail) : messages.exitedUnobserved(code, signal, facts.stderrTail);
    lines.push(text);
    // The graph has the message without our prefix, and the stderr lines apart.
    const recorded = { message: messages.withoutPrefix(text.split('\n')[0] ?? text), stderr: facts.stderrTail === 'inherited' ? [] : [...facts.stderrTail] };
    if (diagnostic === 'exited-early') early = recorded;
    else unobserved = recorded;
  }
  if (facts.noise > 0) lines.push(messages.stdoutNoiseSummary(facts.noise));
  const asked = diagnostic === 'none' && endAsked(facts);
  return { diagnostic, lines, end: { exitedEarly: early, exitedUnobserved: unobserved, exitCode: code, signal, ...(asked ? { asked } : {}) }, exitCode: proxyExitCode(facts.exit) };
}

/** What the proxy says and records about a server command that could not be started. */
export interface SpawnFailureDiagnosis {
  /** The one line on stderr. */
  line: string;
  /** What the run is told. */
  end: SessionEnd;
  /** {@link EXIT_CANNOT_RUN}. */
  exitCode: number;
}

/** The line, the record and the exit code for `command`, which could not be started (`failure`: as Node reported it). */
export function diagnoseSpawnFailure(command: string, failure: messages.SpawnFailure): SpawnFailureDiagnosis {
  const line = messages.spawnFailed(command, failure);
  return { line, end: { spawnError: { message: messages.withoutPrefix(line), code: failure.code } }, exitCode: EXIT_CANNOT_RUN };
}

/** The line of a server's last stderr lines that names its error (`SyntaxError: …`, `ModuleNotFoundError: …`), the last such; cut to 200 characters. */
export function errorLine(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (/^[\w.$]*(Error|Exception)\b/.test(line)) return line.length > 200 ? `${line.slice(0, 199)}…` : line;
  }
  return undefined;
}
