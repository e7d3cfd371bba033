import type { Argv } from 'yargs';
import { defaultDataDir } from '../report/config.js';
import { debuggerPort, PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';

/** Parsed `mcp` flags. */
export interface McpFlags {
  /** Undefined when not given: GRAPHMIND_URL's port, else 4747 (see debugger-port.ts). */
  port?: number;
  'data-dir'?: string;
  'allow-control': boolean;
}

/** The `mcp` flags, for yargs. */
export function mcpFlags(yargs: Argv): Argv<McpFlags> {
  return yargs
    .usage('graphmind mcp [--port N] [--data-dir D] [--allow-control]\n\nServe the debugger\'s recorded runs to an assistant as an MCP server over stdio.')
    .option('port', { type: 'number', describe: PORT_FLAG_HELP })
    .option('data-dir', { type: 'string', describe: 'Where the token and the run logs are (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' })
    .option('allow-control', { type: 'boolean', default: false, describe: 'Also offer decide_hold and set_breakpoints (the assistant can then rewrite tool results)' })
    .check((argv) => {
      const portProblem = portFlagProblem(argv.port);
      if (portProblem !== undefined) throw new Error(portProblem);
      if (argv['data-dir'] !== undefined && argv['data-dir'] === '') throw new Error('--data-dir must not be empty');
      return true;
    }) as unknown as Argv<McpFlags>;
}

/**
 * Run `graphmind mcp` on stdin and stdout until the client closes stdin.
 * Stdout carries the protocol and nothing else: diagnostics go to stderr,
 * and so does anything printed with console.log/info/debug.
 */
export async function runMcpCommand(parsed: McpFlags, version: string): Promise<void> {
  const flags = { ...parsed, port: debuggerPort('graphmind mcp', parsed.port) };
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  // Loaded here, not at the top: only this command needs the SDK.
  const [{ StdioServerTransport }, { connectMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('../mcp/server.js')]);
  const dataDir = flags['data-dir'] ?? defaultDataDir();
  const server = await connectMcpServer(
    {
      port: flags.port,
      dataDir,
      allowControl: flags['allow-control'],
      version,
      onDiagnostic: (line) => process.stderr.write(`graphmind mcp: ${line.replace(/[\r\n]+$/, '')}\n`),
    },
    new StdioServerTransport(),
  );
  process.stderr.write(`graphmind mcp: serving runs from the debugger on 127.0.0.1:${flags.port}, else from ${dataDir}${flags['allow-control'] ? '; control tools on (decide_hold, set_breakpoints)' : ''}\n`);
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    void server.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  // The client closing our stdin ends the session (MCP's stdio shutdown);
  // so does a client that stopped reading (EPIPE on stdout).
  process.stdin.once('end', stop);
  process.stdin.once('close', stop);
  process.stdout.on('error', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
