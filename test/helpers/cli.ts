import { spawn, spawnSync, type ChildProcessWithoutNullStreams, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The built CLI (`npm test` builds first). */
export const CLI = fileURLToPath(new URL('../../dist/cli/graphmind.js', import.meta.url));
/** Test fixtures. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
/** Proxy fixtures. */
export const PROXY_FIXTURES = fileURLToPath(new URL('../fixtures/mcp-proxy/', import.meta.url));

/**
 * True when `python3` runs here; otherwise fails `t` with one clear line
 * (rather than with a timeout further on) and returns false.
 */
export function hasPython(t: { fail(message: string): void }): boolean {
  const probe = spawnSync('python3', ['--version'], { stdio: 'ignore' });
  if (probe.error === undefined && probe.status === 0) return true;
  t.fail('python3 is not on PATH: the Python server fixture needs it (Debian: apt-get install -y python3)');
  return false;
}

/** A running `graphmind mcp-proxy`, with its stdout and stderr collected. */
export interface ProxyProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stdout so far. */
  stdout(): Buffer;
  /** Everything written to stderr so far, as text. */
  stderr(): string;
  /** Resolves with the exit code (or 128+n for a signal... as reported by Node: code, signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A port where no debugger listens (nothing listens on port 1 here, and
 * connecting to it is refused at once). A proxy started with no `--port`
 * reports to 4747, where a developer may be running `graphmind serve` while
 * the tests run: the tests' sessions would fill their debugger, and its
 * breakpoints (the error gate is on by default) would hold the tests'
 * frames. With something listening on 4747 during `npm test`, a diagnostics
 * test failed on the stderr line that refusal added.
 */
export const NO_DEBUGGER_PORT = 1;

/** {@link NO_DEBUGGER_PORT} as proxy flags. */
export const NO_DEBUGGER = ['--port', String(NO_DEBUGGER_PORT)] as const;

/** `proxyArgs` with {@link NO_DEBUGGER} unless they name a port. */
export function awayFromDebugger(proxyArgs: readonly string[]): string[] {
  return proxyArgs.some((arg) => arg === '--port' || arg.startsWith('--port=')) ? [...proxyArgs] : [...NO_DEBUGGER, ...proxyArgs];
}

/**
 * Start `node dist/cli/graphmind.js mcp-proxy <proxyArgs> -- <server...>`.
 * Pass `server: []` to run it with no server command. Without a `--port`
 * among `proxyArgs` it gets {@link NO_DEBUGGER}.
 */
export function startProxy(proxyArgs: readonly string[], server: readonly string[], options: SpawnOptions = {}): ProxyProcess {
  const args = [CLI, 'mcp-proxy', ...awayFromDebugger(proxyArgs), ...(server.length > 0 ? ['--', ...server] : [])];
  const child = spawn(process.execPath, args, { stdio: 'pipe', ...options }) as ChildProcessWithoutNullStreams;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => {});
  const exited = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return {
    child,
    stdout: () => Buffer.concat(out),
    stderr: () => Buffer.concat(err).toString('utf8'),
    exited,
  };
}

/** Resolve when `predicate` holds, polling every 10 ms; reject after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
