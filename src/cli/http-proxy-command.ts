import type { Argv } from 'yargs';
import { DEFAULT_HTTP_PROXY_PORT, listenAddress, startHttpProxy } from '../http-proxy/start.js';
import { DEFAULT_SESSION_IDLE_MS } from '../http-proxy/idle-sessions.js';
import { HTTP_PROXY_PREFIX } from '../http-proxy/texts.js';
import { createStderrSink } from '../proxy/stderr-sink.js';
import { PORT_FLAG_HELP, portFlagProblem } from './debugger-port.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../streams/line-framer.js';

/** Exit code for a usage problem (a bad flag value). */
const EXIT_USAGE = 2;
/** Exit code when the proxy cannot listen (the address is in use, or refused). */
const EXIT_LISTEN = 1;

/** Parsed `http-proxy` flags. */
export interface HttpProxyFlags {
  upstream: string;
  listen: string;
  'allow-remote': boolean;
  /** Undefined when not given: the reporter's rule decides (GRAPHMIND_URL, else 4747; see debugger-port.ts). */
  port?: number;
  'data-dir': string | undefined;
  trace: boolean;
  'wait-for-attach': boolean;
  'max-frame-bytes': number;
  'session-idle': number;
}

/** What is wrong with the flag values, in one line, or undefined. */
export function httpProxyFlagsProblem(flags: HttpProxyFlags): string | undefined {
  let upstream: URL;
  try {
    upstream = new URL(flags.upstream);
  } catch {
    return `--upstream must be the MCP server's URL, e.g. http://127.0.0.1:3000/mcp (got ${JSON.stringify(flags.upstream)})`;
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') return `--upstream must be an http: or https: URL (got ${upstream.protocol})`;
  const listen = listenAddress(flags.listen, flags['allow-remote']);
  if (typeof listen === 'string') return listen;
  if (flags['data-dir'] === '') return '--data-dir must name a directory';
  const size = flags['max-frame-bytes'];
  if (!Number.isSafeInteger(size) || size < 1) return '--max-frame-bytes must be a positive whole number of bytes';
  const portProblem = portFlagProblem(flags.port);
  if (portProblem !== undefined) return portProblem;
  const idle = flags['session-idle'];
  if (!Number.isFinite(idle) || idle < 0) return '--session-idle must be a number of seconds (0: never)';
  return undefined;
}

/** The command's flags, for yargs. */
export function httpProxyFlags(yargs: Argv): Argv<HttpProxyFlags> {
  return yargs
    .usage(
      '$0 http-proxy --upstream <url> [flags]\n\n' +
        'A reverse proxy for a Streamable HTTP MCP server: point your MCP host at the listen URL instead of the server\'s. ' +
        'Every request, answer and SSE stream is relayed byte for byte, each MCP session is reported to the graphmind debugger as a run, ' +
        'and its messages can be held, injected, retried or aborted as with mcp-proxy. With no debugger running it is a plain reverse proxy.',
    )
    .example('$0 http-proxy --upstream http://127.0.0.1:3000/mcp', `serve it on http://127.0.0.1:${DEFAULT_HTTP_PROXY_PORT}/mcp`)
    .example('$0 http-proxy --upstream https://mcp.example.com/mcp --listen 127.0.0.1:9000', 'a remote server, through a port of your choice')
    .option('upstream', { type: 'string', demandOption: true, requiresArg: true, describe: "The MCP server's Streamable HTTP URL (http or https)" })
    .option('listen', {
      type: 'string',
      requiresArg: true,
      default: `127.0.0.1:${DEFAULT_HTTP_PROXY_PORT}`,
      describe: 'Address to serve on, host:port (port 0 picks a free one); loopback only unless --allow-remote',
    })
    .option('allow-remote', { type: 'boolean', default: false, describe: 'Allow --listen on an address other hosts can reach (anybody who reaches it can use the server through it)' })
    .option('port', { type: 'number', requiresArg: true, describe: PORT_FLAG_HELP })
    .option('data-dir', {
      type: 'string',
      requiresArg: true,
      describe: "The debugger's data directory, where its token is: give the one `graphmind serve --data-dir` was given (default: GRAPHMIND_DATA_DIR, else ~/.graphmind)",
    })
    .option('trace', { type: 'boolean', default: false, describe: 'Print one line per JSON-RPC message on stderr (works with no debugger running)' })
    .option('wait-for-attach', { type: 'boolean', default: false, describe: 'Let the first requests wait (up to 3 s after the start) until the debugger attaches' })
    .option('max-frame-bytes', { type: 'number', requiresArg: true, default: DEFAULT_MAX_FRAME_BYTES, describe: 'Largest body or SSE event parsed; a larger one is relayed unread' })
    .option('session-idle', {
      type: 'number',
      requiresArg: true,
      default: DEFAULT_SESSION_IDLE_MS / 1000,
      describe: "End a session's run once none of its requests has been under way for this many seconds (a client that left without a DELETE); 0: never",
    })
    .check((argv) => {
      const problem = httpProxyFlagsProblem(argv as unknown as HttpProxyFlags);
      if (problem !== undefined) throw new Error(problem);
      return true;
    }) as unknown as Argv<HttpProxyFlags>;
}

/** Run the proxy until SIGINT or SIGTERM. */
export async function runHttpProxyCommand(flags: HttpProxyFlags): Promise<void> {
  const sink = createStderrSink();
  const listen = listenAddress(flags.listen, flags['allow-remote']);
  if (typeof listen === 'string') {
    sink.write(`${HTTP_PROXY_PREFIX}${listen}\n`);
    await sink.flush(1000);
    process.exit(EXIT_USAGE);
  }
  let running;
  try {
    running = await startHttpProxy({
      upstream: flags.upstream,
      host: listen.host,
      listenPort: listen.port,
      allowRemote: flags['allow-remote'],
      port: flags.port,
      dataDir: flags['data-dir'],
      trace: flags.trace,
      waitForAttach: flags['wait-for-attach'],
      maxFrameBytes: flags['max-frame-bytes'],
      sessionIdleMs: Math.round(flags['session-idle'] * 1000),
      stderr: sink,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? `${flags.listen} is in use (another proxy? pick another with --listen)` : (error as Error).message;
    sink.write(`${HTTP_PROXY_PREFIX}cannot listen on ${flags.listen}: ${why}\n`);
    await sink.flush(1000);
    process.exit(EXIT_LISTEN);
  }
  sink.write(`${HTTP_PROXY_PREFIX}relaying ${running.url} to ${running.proxy.shownUpstream}; point your MCP host at ${running.url}\n`);
  const stop = (): void => {
    void running.close().finally(async () => {
      await sink.flush(1000);
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
