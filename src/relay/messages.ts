/**
 * The stderr lines both proxies print (`graphmind mcp-proxy` over stdio,
 * `graphmind http-proxy` over Streamable HTTP), each made for the command
 * that prints it. Like every line a proxy prints, these texts are an
 * interface: hosts show them to users, and scripts match them.
 *
 * @module
 */

import { idForDisplay } from '../streams/exact-id.js';
import type { Frame } from '../streams/frame.js';
import type { HoldingNotice } from './no-viewer.js';

/** The commands that print these lines. */
export type ProxyCommand = 'mcp-proxy' | 'http-proxy';

/** The start of every stderr line `command` prints (`graphmind mcp-proxy: `). */
export function proxyPrefix(command: ProxyCommand): string {
  return `graphmind ${command}: `;
}

/**
 * The debugger on the port turned this proxy away (`status` 401: the token
 * presented is not its own). Said once per session; the proxy goes on
 * relaying, unobserved, and keeps trying.
 */
export function debuggerRefused(command: ProxyCommand, url: string, status: number): string {
  const why =
    status === 401
      ? `its token is not the one this proxy presents (give ${command} the --data-dir that \`graphmind serve\` was given, or set GRAPHMIND_DATA_DIR to it, or GRAPHMIND_TOKEN)`
      : `it answered HTTP ${status}`;
  return `${proxyPrefix(command)}the debugger at ${url} refused this proxy: ${why}; relaying without it, and trying again`;
}

/** Who prints a reporter's lines: one of the proxies, or the adapter inside the MCP server. */
export type ReportingCommand = ProxyCommand | 'adapter';

/**
 * Something listens on the debugger's port but could not prove it holds
 * the token (control API, security rule 12): another program, or a
 * `graphmind serve` too old to know the identity route. It was sent
 * neither the token nor any session. Said once per process; the relay (or
 * the adapter's server) goes on without a debugger, and keeps looking for
 * the real one.
 */
export function debuggerImpostor(command: ReportingCommand, port: number): string {
  return `graphmind ${command}: ${somethingElseAnswers(port)}; not sending it the token or any session, and going on without a debugger`;
}

/** The words every client uses for a listener on `port` that could not prove it is the debugger (the CLI's commands add what they did instead). */
export function somethingElseAnswers(port: number): string {
  return `something else answers on port ${port} (it could not prove it is the debugger)`;
}

/**
 * A frame is held and the host is waiting: said once per hold, where hosts
 * show server logs. `url` is the debugger's. A loop hold (`loopTool`: the
 * tool called the same way three times in a row) says so after the usual
 * line, with how to let that tool be polled; a hold by a rule (`ruleId`)
 * names the rule after it: `… — resume it in <url> (rule rule-1)`.
 */
export function holding(
  command: ProxyCommand,
  method: string,
  id: unknown,
  gate: 'before' | 'after' | 'error',
  url: string,
  loopTool?: string,
  ruleId?: string,
): string {
  const number = id === undefined || id === null ? '' : ` #${typeof id === 'string' ? id : JSON.stringify(id)}`;
  const held = `${proxyPrefix(command)}HOLDING ${method}${number} at the ${gate} gate — resume it in ${url}`;
  // Held by a rule: which one, after the line as it always was.
  const line = ruleId === undefined ? held : `${held} (rule ${ruleId})`;
  if (loopTool === undefined) return line;
  return `${line} (loop hold: the third identical call to ${JSON.stringify(loopTool)} in a row; if it is polled on purpose, set GRAPHMIND_LOOP_ALLOW=${loopTool})`;
}

/**
 * A frame is held and no viewer watches the debugger, in words for the
 * run's log (stream `graphmind`, on the session node): which call, where,
 * and how to get it going. {@link noViewer} is the stderr line.
 */
export function noViewerText(notice: HoldingNotice): string {
  const { method, call, hold, url } = notice;
  const id = idForDisplay(call);
  const nodeId = call.node?.nodeId ?? 'mcp:session';
  return `${method}${id === undefined ? '' : ` #${id}`} is held at ${nodeId} (${hold.point} gate) and no viewer is open: open ${url} to decide it; until then its client waits, and may time out`;
}

/** {@link noViewerText} as the line `command` prints on stderr (once per hold). */
export function noViewer(command: ProxyCommand, notice: HoldingNotice): string {
  return `${proxyPrefix(command)}${noViewerText(notice)}`;
}

/** One `--trace` line for a relayed frame, newline included. */
export function traceLine(command: ProxyCommand, frame: Frame): string {
  const arrow = frame.direction === 'client-to-server' ? 'client → server' : 'server → client';
  const parts = [`graphmind ${command}: trace ${arrow}`, frame.type ?? 'raw'];
  if (frame.method !== undefined) parts.push(frame.method);
  if (frame.id !== undefined) parts.push(`#${typeof frame.id === 'number' ? idForDisplay(frame) : JSON.stringify(frame.id)}`);
  if (frame.node !== undefined && frame.node.kind !== 'custom') parts.push(frame.node.nodeId);
  parts.push(`(${frame.size} bytes)`);
  return `${parts.join(' ')}\n`;
}
