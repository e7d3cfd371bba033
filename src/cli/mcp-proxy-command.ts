import type { Argv } from 'yargs';
import { readFile } from 'node:fs/promises';
import { runProxy } from '../proxy/run-proxy.js';
import type { DriftLock } from '../relay/drift-watch.js';
import { parseSurfaceFile } from '../surface/index.js';
import { createStderrSink } from '../proxy/stderr-sink.js';
import { EXIT_USAGE, PROXY_FLAG_DEFAULTS, proxyFlagsProblem, watchList, type ProxyFlags } from './proxy-flags.js';
import { PORT_FLAG_HELP } from './debugger-port.js';
import { proxyRecipe } from './recipe.js';

export { EXIT_USAGE, type ProxyFlags };

/**
 * The proxy's flags, for yargs (help text and validation). The common forms
 * are read without yargs by `parseProxyFlags` (proxy-flags.ts), with the
 * same defaults and the same check.
 */
export function proxyFlags(yargs: Argv): Argv<ProxyFlags> {
  return yargs
    .usage(
      '$0 mcp-proxy [flags] -- <server command...>\n\n' +
        'Relay an MCP server over stdio, byte for byte, and report the session to the graphmind debugger, where its frames ' +
        "can be held, injected, retried or aborted. Put it in your MCP host's config in place of the server's own command. " +
        'With no debugger running it is a plain relay: nothing is held.',
    )
    .example('$0 mcp-proxy -- node /abs/path/to/server.js', 'relay a Node server (run `graphmind` in another terminal to watch it)')
    .example('$0 mcp-proxy --trace -- uv run python -m my_server', 'also print one line per frame on stderr')
    .example('$0 mcp-proxy --watch src -- node dist/server.js', 'restart the server when a file under src/ changes')
    .example('$0 mcp-proxy --port 4800 --data-dir ~/.graphmind-work -- ./my-server', 'report to a debugger started with the same --port and --data-dir')
    .option('trace', {
      type: 'boolean',
      default: PROXY_FLAG_DEFAULTS.trace,
      describe: 'Print one line per relayed frame on stderr (works with no debugger running)',
    })
    .option('wait-for-attach', {
      type: 'boolean',
      default: PROXY_FLAG_DEFAULTS['wait-for-attach'],
      describe: 'Hold the first frame until the debugger attaches (up to 3 s)',
    })
    .option('inherit-stderr', {
      type: 'boolean',
      default: PROXY_FLAG_DEFAULTS['inherit-stderr'],
      describe: "Give the server this process's stderr instead of capturing it",
    })
    .option('max-frame-bytes', {
      type: 'number',
      // Without it, a flag left without its value silently means the default.
      requiresArg: true,
      default: PROXY_FLAG_DEFAULTS['max-frame-bytes'],
      describe: 'Largest line parsed; a longer one turns that stream into a raw byte pipe',
    })
    .option('port', {
      type: 'number',
      requiresArg: true,
      describe: PORT_FLAG_HELP,
    })
    .option('watch', {
      type: 'string',
      requiresArg: true,
      describe: 'Restart the server when one of these files or folders changes (comma-separated), keeping the host session up',
    })
    .option('lock', {
      type: 'string',
      requiresArg: true,
      describe: 'A surface file (graphmind surface -o): list answers that differ from it are drift (recorded; held with pauseOnDrift)',
    })
    .option('data-dir', {
      type: 'string',
      requiresArg: true,
      describe: "The debugger's data directory, where its token is: give the one `graphmind serve --data-dir` was given (default: GRAPHMIND_DATA_DIR, else ~/.graphmind)",
    })
    .check((argv) => {
      const problem = proxyFlagsProblem(argv);
      if (problem !== undefined) throw new Error(problem);
      return true;
    }) as unknown as Argv<ProxyFlags>;
}

/** Run the proxy for `server` (the command line after `--`) and exit with its code. */
export async function runProxyCommand(flags: ProxyFlags, server: readonly string[]): Promise<never> {
  const sink = createStderrSink();
  const [command, ...args] = server;
  if (command === undefined || command === '') {
    sink.write(proxyRecipe(flags.port, flags['data-dir']));
    await sink.flush(1000);
    process.exit(EXIT_USAGE);
  }
  const lock = flags.lock === undefined ? undefined : await readLock(flags.lock);
  if (typeof lock === 'string') {
    sink.write(`graphmind mcp-proxy: ${lock}\n`);
    await sink.flush(1000);
    process.exit(EXIT_USAGE);
  }
  const result = await runProxy({
    lock,
    command,
    args,
    trace: flags.trace,
    inheritStderr: flags['inherit-stderr'],
    waitForAttach: flags['wait-for-attach'],
    maxFrameBytes: flags['max-frame-bytes'],
    port: flags.port,
    dataDir: flags['data-dir'],
    watch: watchList(flags.watch),
    stderr: sink,
  });
  process.exit(result.exitCode);
}

/** The `--lock` file read and parsed, or the one line that says why it cannot be used. */
export async function readLock(file: string): Promise<DriftLock | string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `--lock ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : (code ?? 'unreadable')})`;
  }
  const surface = parseSurfaceFile(text);
  if ('error' in surface) return `--lock ${file}: not a surface file: ${surface.error}`;
  return { surface, name: file };
}
