/**
 * `--port` as every command that talks to the debugger reads it: the one
 * rule of `debuggerAddress` (src/report/config.ts): the flag, else
 * `GRAPHMIND_URL`'s port, else 4747. Documented once, in
 * docs/control-api.md, "Naming the debugger".
 *
 * @module
 */
import { debuggerAddress } from '../report/config.js';

/** The `--port` flag's help, the same for every command. */
export const PORT_FLAG_HELP = "Port of the graphmind debugger (default: GRAPHMIND_URL's port, else 4747)";

/** What is wrong with a given `--port`, in one line, or undefined (not given is fine: the rule decides). */
export function portFlagProblem(port: number | undefined): string | undefined {
  if (port === undefined) return undefined;
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? undefined : '--port must be a port number (1-65535)';
}

/**
 * The debugger's port for a command that reads from it: `--port`, else
 * `GRAPHMIND_URL`'s, else 4747; a `GRAPHMIND_URL` that names no port is
 * refused in one line (`<command>: …`, exit 2) rather than passed over.
 */
export function debuggerPort(command: string, port: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const address = debuggerAddress({ port }, env);
  if (address.problem !== undefined) {
    process.stderr.write(`${command}: ${address.problem}; set it to the debugger's, or give --port\n`);
    process.exit(2);
  }
  return address.port;
}
