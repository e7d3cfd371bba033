import type { Argv } from 'yargs';
import { runProxy } from '../proxy/run-proxy.js';
import { createStderrSink } from '../proxy/stderr-sink.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../streams/line-framer.js';
import { proxyRecipe } from './recipe.js';

/** Exit code for a usage problem (no command, a bad flag value). */
export const EXIT_USAGE = 2;

/** The proxy's flags, for yargs (help text and validation). */
export function proxyFlags(yargs: Argv): Argv<ProxyFlags> {
  return yargs
    .usage('$0 mcp-proxy [flags] -- <server command...>')
    .option('trace', {
      type: 'boolean',
      default: false,
      describe: 'Print one line per relayed frame on stderr (works with no debugger running)',
    })
    .option('wait-for-attach', {
      type: 'boolean',
      default: false,
      describe: 'Hold the first frame until the debugger attaches (up to 3 s)',
    })
    .option('inherit-stderr', {
      type: 'boolean',
      default: false,
      describe: "Give the server this process's stderr instead of capturing it",
    })
    .option('max-frame-bytes', {
      type: 'number',
      // Without it, a flag left without its value silently means the default.
      requiresArg: true,
      default: DEFAULT_MAX_FRAME_BYTES,
      describe: 'Largest line parsed; a longer one turns that stream into a raw byte pipe',
    })
    .option('port', {
      type: 'number',
      requiresArg: true,
      default: 4747,
      describe: 'Port of the graphmind debugger to report to',
    })
    .check((argv) => {
      const size = argv['max-frame-bytes'];
      if (!Number.isSafeInteger(size) || size < 1) throw new Error('--max-frame-bytes must be a positive whole number of bytes');
      const port = argv.port;
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('--port must be a port number (1-65535)');
      return true;
    }) as unknown as Argv<ProxyFlags>;
}

/** Parsed `mcp-proxy` flags. */
export interface ProxyFlags {
  trace: boolean;
  'wait-for-attach': boolean;
  'inherit-stderr': boolean;
  'max-frame-bytes': number;
  port: number;
}

/** Run the proxy for `server` (the command line after `--`) and exit with its code. */
export async function runProxyCommand(flags: ProxyFlags, server: readonly string[]): Promise<never> {
  const sink = createStderrSink();
  const [command, ...args] = server;
  if (command === undefined || command === '') {
    sink.write(proxyRecipe());
    await sink.flush(1000);
    process.exit(EXIT_USAGE);
  }
  const result = await runProxy({
    command,
    args,
    trace: flags.trace,
    inheritStderr: flags['inherit-stderr'],
    waitForAttach: flags['wait-for-attach'],
    maxFrameBytes: flags['max-frame-bytes'],
    port: flags.port,
    stderr: sink,
  });
  process.exit(result.exitCode);
}
