/**
 * Every line the stdio proxy prints on stderr, in one place, except those
 * it shares with the HTTP proxy (the debugger's refusal, HOLDING, `--trace`),
 * which are in relay/messages.ts. These texts are an interface: hosts show
 * them to users, and scripts match them.
 *
 * @module
 */

import { isAbsolute } from 'node:path';
import { proxyPrefix } from '../relay/messages.js';

const PREFIX = proxyPrefix('mcp-proxy');

/** `line` without the prefix of our stderr lines: the message as the graph records it. */
export function withoutPrefix(line: string): string {
  return line.startsWith(PREFIX) ? line.slice(PREFIX.length) : line;
}

/** How many stderr lines the early-exit message shows. */
export const EXIT_TAIL_LINES = 40;

/** NTSTATUS codes a crashing Windows process exits with, by name. */
const WINDOWS_EXIT_CODES: Record<number, string> = {
  3221225477: 'STATUS_ACCESS_VIOLATION',
  3221225495: 'STATUS_NO_MEMORY',
  3221225501: 'STATUS_ILLEGAL_INSTRUCTION',
  3221225620: 'STATUS_INTEGER_DIVIDE_BY_ZERO',
  3221225725: 'STATUS_STACK_OVERFLOW',
  3221225781: 'STATUS_DLL_NOT_FOUND',
  3221225785: 'STATUS_ENTRYPOINT_NOT_FOUND',
  3221225786: 'STATUS_CONTROL_C_EXIT',
  3221225794: 'STATUS_DLL_INIT_FAILED',
  3221226356: 'STATUS_HEAP_CORRUPTION',
  3221226505: 'STATUS_STACK_BUFFER_OVERRUN',
  3221226525: 'STATUS_INVALID_CRUNTIME_PARAMETER',
};

/** The name of a Windows crash exit code, if it is one we know. */
export function windowsExitCodeName(code: number): string | undefined {
  return WINDOWS_EXIT_CODES[code];
}

/** Quote a line of server output for a one-line message: JSON string syntax, at most 200 bytes of text. */
export function quoteLine(raw: Buffer, maxBytes = 200): string {
  let end = raw.length;
  while (end > 0 && (raw[end - 1] === 0x0a || raw[end - 1] === 0x0d)) end--;
  let text = raw.subarray(0, Math.min(end, maxBytes)).toString('utf8');
  if (end > maxBytes) text = `${text.replace(/\uFFFD$/, '')}…`;
  return JSON.stringify(text);
}

/** The first non-JSON-RPC line the server wrote to stdout. */
export function stdoutNoiseFirst(quoted: string): string {
  return (
    `${PREFIX}the MCP server wrote a line to stdout that is not JSON-RPC: ${quoted}` +
    ' — stdout is the MCP wire; log to stderr instead (console.error, or your logger pointed at stderr).' +
    ' Relayed verbatim; the client may reject it. Further lines are counted, not printed.'
  );
}

/** The end-of-session count of non-JSON-RPC stdout lines. */
export function stdoutNoiseSummary(count: number): string {
  return (
    `${PREFIX}${count} line(s) the server wrote to stdout were not JSON-RPC and were relayed verbatim` +
    ' — stdout is the MCP wire; log to stderr (see "stdout noise" on the graph)'
  );
}

/** The error a failed spawn reports, as Node describes it. */
export interface SpawnFailure {
  code?: string;
  message: string;
  /**
   * For a command given as a path: what is there. ENOENT for a file that
   * exists means its interpreter (its `#!` line) was not found; EACCES for
   * a directory is not about permissions.
   */
  pathKind?: 'none' | 'file' | 'directory';
}

/** The one line for a command that could not be started. */
export function spawnFailed(command: string, error: SpawnFailure): string {
  const head = `${PREFIX}cannot run ${JSON.stringify(command)}: ${error.message}`;
  switch (error.code) {
    case 'ENOENT':
      if (!/[\\/]/.test(command)) return `${head} — the command was not found on PATH; check the "command" in your MCP client config`;
      if (error.pathKind === 'file') {
        return `${head} — the file exists, so the interpreter its #! line names was not found; fix that line, or put the interpreter in "command" (such as "node" or "python3") and the file in "args"`;
      }
      return isAbsolute(command)
        ? `${head} — there is no such file; check the "command" in your MCP client config`
        : `${head} — there is no such file here; a relative path depends on the directory the host starts the server in, so use an absolute path`;
    case 'EACCES':
      if (error.pathKind === 'directory') return `${head} — that is a directory; point "command" at the server's executable or script`;
      return `${head} — the file is not executable; make it executable (chmod +x ${command}) or put its interpreter in "command" (such as "node" or "python3") and the file in "args"`;
    case 'EINVAL':
      return (
        `${head} — Windows cannot start a .cmd or .bat file (such as npx) directly;` +
        ` use "command": "cmd" with ["/c", ${JSON.stringify(command)}, …], or point at the .exe or the script itself`
      );
    default:
      return head;
  }
}

/** How the server's process ended, in words. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) return `was killed by ${signal}`;
  const name = code === null ? undefined : windowsExitCodeName(code);
  return name === undefined ? `exited with code ${code ?? 'unknown'}` : `exited with code ${code} (${name})`;
}

/** The server ended before it answered a single request. */
export function exitedEarly(
  code: number | null,
  signal: NodeJS.Signals | null,
  stderrTail: readonly string[] | 'inherited',
): string {
  return withTail(`${PREFIX}the MCP server ${describeExit(code, signal)} before answering anything`, stderrTail);
}

/**
 * The server failed after its output had become a raw byte pipe (a line
 * over --max-frame-bytes): what it wrote since was relayed unread, so
 * whether it ever answered is not known, and the line does not claim it
 * did not.
 */
export function exitedUnobserved(
  code: number | null,
  signal: NodeJS.Signals | null,
  stderrTail: readonly string[] | 'inherited',
): string {
  return withTail(
    `${PREFIX}the MCP server ${describeExit(code, signal)}; whether it answered is not known,` +
      ' since its stdout had become a raw byte pipe (a line larger than --max-frame-bytes)',
    stderrTail,
  );
}

/** A line about the server's end, with its last stderr lines under it. */
function withTail(head: string, stderrTail: readonly string[] | 'inherited'): string {
  if (stderrTail === 'inherited') {
    return `${head} — its stderr was passed straight through (--inherit-stderr), so look for its last output above`;
  }
  if (stderrTail.length === 0) return `${head} — it wrote nothing to stderr`;
  const lines = stderrTail.slice(-EXIT_TAIL_LINES).map((line) => `    ${line}`);
  return `${head} — its last stderr output was:\n${lines.join('\n')}`;
}

/** A line grew past --max-frame-bytes. */
export function degraded(from: 'client' | 'server', limit: number): string {
  return (
    `${PREFIX}a line from the ${from} is larger than --max-frame-bytes (${limit} bytes);` +
    ' the rest of that stream is relayed as raw bytes, without inspection'
  );
}

/** An argument problem, before anything was started. */
export function usageError(text: string): string {
  return `${PREFIX}${text}`;
}

/** The server was restarted under the session (`--watch`, or from the debugger). */
export function restarted(record: { reason: string; file?: string; pid?: number; ms?: number; changed?: Array<{ kind: string; told: boolean }> }): string {
  const why = record.file === undefined ? record.reason : `${record.reason}: ${record.file}`;
  const lists = (record.changed ?? []).map(({ kind, told }) => (told ? `${kind} changed (the host was told)` : `${kind} changed (the server does not announce list changes: the host keeps its old list)`));
  return `${PREFIX}restarted the MCP server (${why}) — pid ${record.pid ?? '?'}, ready in ${record.ms ?? 0} ms${lists.length === 0 ? '' : `; ${lists.join('; ')}`}`;
}

/** A restart did not bring the server back: the session stays up, and requests get an error until the next restart. */
export function restartFailed(record: { reason: string; error?: string }): string {
  return `${PREFIX}the MCP server did not come back after a restart (${record.reason}): ${record.error ?? 'it failed'} — requests get an error until it is restarted again`;
}

/** With --watch, the server exited on its own: the proxy stays up until the next change. */
export function serverDownWatching(how: string): string {
  return `${PREFIX}the MCP server ${how}; waiting for a change to restart it (--watch) — requests get an error until then`;
}
