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
 * Start `node dist/cli/graphmind.js mcp-proxy <proxyArgs> -- <server...>`.
 * Pass `server: []` to run it with no server command.
 */
export function startProxy(proxyArgs: readonly string[], server: readonly string[], options: SpawnOptions = {}): ProxyProcess {
  const args = [CLI, 'mcp-proxy', ...proxyArgs, ...(server.length > 0 ? ['--', ...server] : [])];
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
