import { spawn } from 'node:child_process';
import type { Argv } from 'yargs';
import { DEFAULT_PORT } from '../report/config.js';
import { ServeError, startServer } from '../server/serve.js';
import { endpointText, OTLP_PROTOCOLS, resolveOtlpConfig, type OtlpConfig } from '../export/otlp-config.js';

/** Parsed `serve` flags. */
export interface ServeFlags {
  port: number;
  host: string;
  'data-dir'?: string;
  'pause-on-error': 'on' | 'off';
  'max-runs': number;
  'max-body': number;
  open: boolean;
  'otlp-endpoint'?: string;
  'otlp-header'?: string[];
  'otlp-protocol'?: string;
  'otlp-max-queue'?: number;
}

/** The OTLP settings of the flags and OpenTelemetry's environment variables (undefined: no streaming). */
function otlpConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): OtlpConfig | string | undefined {
  return resolveOtlpConfig(
    { endpoint: flags['otlp-endpoint'], headers: flags['otlp-header'], protocol: flags['otlp-protocol'], maxQueue: flags['otlp-max-queue'] },
    env,
  );
}

/** The `serve` flags, for yargs. */
export function serveFlags(yargs: Argv): Argv<ServeFlags> {
  return yargs
    .option('port', { type: 'number', default: DEFAULT_PORT, describe: 'Port to listen on (0 picks a free one)' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Loopback address to bind: 127.0.0.1 or ::1' })
    .option('data-dir', { type: 'string', describe: 'Where runs and the token live (default: GRAPHMIND_DATA_DIR or ~/.graphmind)' })
    .option('pause-on-error', { choices: ['on', 'off'] as const, default: 'on' as const, describe: 'Hold failing calls (JSON-RPC errors, isError results)' })
    .option('max-runs', { type: 'number', default: 200, describe: 'Recorded runs kept on disk (oldest deleted first)' })
    .option('max-body', { type: 'number', default: 64 * 1024 * 1024, describe: 'Largest request body, in bytes' })
    .option('open', { type: 'boolean', default: false, describe: 'Open the viewer in a browser' })
    .option('otlp-endpoint', { type: 'string', describe: 'Stream every run to this OTLP/HTTP receiver, e.g. http://localhost:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT)' })
    .option('otlp-header', { type: 'string', array: true, describe: 'A header for the OTLP receiver, key=value (repeatable; also OTEL_EXPORTER_OTLP_HEADERS)' })
    .option('otlp-protocol', { choices: OTLP_PROTOCOLS, describe: 'OTLP encoding (default: OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)' })
    .option('otlp-max-queue', { type: 'number', describe: 'Spans waiting for the OTLP receiver, at most; more are dropped and counted (default 8192)' })
    .check((argv) => {
      if (!Number.isInteger(argv.port) || argv.port < 0 || argv.port > 65535) throw new Error('--port must be a port number (0-65535)');
      if (!Number.isSafeInteger(argv['max-runs']) || argv['max-runs'] < 1) throw new Error('--max-runs must be a positive whole number');
      if (!Number.isSafeInteger(argv['max-body']) || argv['max-body'] < 1) throw new Error('--max-body must be a positive whole number of bytes');
      const otlp = otlpConfig(argv as unknown as ServeFlags, process.env);
      if (typeof otlp === 'string') throw new Error(otlp);
      return true;
    }) as unknown as Argv<ServeFlags>;
}

function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser opener: the URL is printed anyway.
  }
}

/** Run `graphmind serve` until SIGINT/SIGTERM. */
export async function runServeCommand(flags: ServeFlags, version: string): Promise<void> {
  let server;
  const otlp = otlpConfig(flags, process.env);
  try {
    server = await startServer({
      port: flags.port,
      host: flags.host,
      dataDir: flags['data-dir'],
      pauseOnError: flags['pause-on-error'] === 'on',
      maxRuns: flags['max-runs'],
      maxBody: flags['max-body'],
      version,
      otlp: typeof otlp === 'object' ? otlp : undefined,
    });
  } catch (error) {
    const message = error instanceof ServeError ? error.message : error instanceof Error ? error.message : String(error);
    process.stderr.write(`graphmind: ${message}\n`);
    process.exit(1);
  }
  const tokenNote = server.tokenFile === null ? 'API token from GRAPHMIND_TOKEN' : `API token in ${server.tokenFile}`;
  // One write, so a reader that waits for the first line has the second too.
  process.stdout.write(
    `graphmind: debugger listening on ${server.url}\n` +
      `graphmind: runs in ${server.dataDir}; ${tokenNote}; pause on error ${flags['pause-on-error']}\n` +
      (typeof otlp === 'object' ? `graphmind: streaming runs to ${endpointText(otlp.url)} over OTLP (${otlp.protocol})\n` : ''),
  );
  // The runs on disk load in the background; what could not be read is said once they have.
  void server.loaded.then(({ skippedLines }) => {
    if (skippedLines > 0) process.stdout.write(`graphmind: skipped ${skippedLines} unreadable line(s) in the run logs (a torn write from a crash)\n`);
  });
  if (flags.open) openBrowser(server.url);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
