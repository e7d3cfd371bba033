import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import type { TextSink } from '../../src/proxy/stderr-sink.js';
import { waitFor, type ProxyProcess } from './cli.js';

/** One newline-terminated JSON-RPC frame. */
export function frame(message: Record<string, unknown>): string {
  return `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
}

/** An `initialize` request, as a host opens a session. */
export function initialize(id: number | string = 1): string {
  return frame({
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'proxy-test', version: '0' } },
  });
}

/** A `tools/call` request. */
export function toolsCall(id: number | string, name: string, args: Record<string, unknown> = {}): string {
  return frame({ id, method: 'tools/call', params: { name, arguments: args } });
}

/** The complete lines of a text (a trailing partial line is left out). */
export function lines(text: string): string[] {
  const parts = text.split('\n');
  parts.pop();
  return parts;
}

/** The JSON objects among the complete lines of a byte stream (other lines are skipped). */
export function messagesIn(bytes: Buffer): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  for (const line of lines(bytes.toString('utf8'))) {
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) found.push(value as Record<string, unknown>);
    } catch {
      // Not JSON: noise on the wire.
    }
  }
  return found;
}

/** Wait until the proxy's stdout holds a response with this id; return it. */
export async function responseTo(proxy: ProxyProcess, id: number | string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await waitFor(
    () => {
      found = messagesIn(proxy.stdout()).find((message) => message.id === id && !('method' in message));
      return found !== undefined;
    },
    timeoutMs,
    `the response to request ${JSON.stringify(id)}`,
  );
  return found as Record<string, unknown>;
}

/** Wait for a line on the proxy's stderr matching `pattern`; return its match. */
export async function stderrMatch(proxy: ProxyProcess, pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
  let match: RegExpExecArray | null = null;
  await waitFor(() => (match = pattern.exec(proxy.stderr())) !== null, timeoutMs, `stderr to match ${pattern}`);
  return match as unknown as RegExpExecArray;
}

/** The proxy's exit, or a rejection if it is still running after `timeoutMs` (a hang fails fast). */
export async function exitedWithin(
  proxy: ProxyProcess,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the proxy was still running after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([proxy.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process with this pid exists (signal 0 probe). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Kill a process if it is still there; for teardown. */
export function killQuietly(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** A {@link TextSink} that keeps everything written to it. */
export interface CollectingSink extends TextSink {
  text(): string;
}

/** A sink for `runProxy({ stderr })` that collects text in memory. */
export function collectingSink(): CollectingSink {
  const chunks: Buffer[] = [];
  return {
    write(chunk) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    },
    flush: async () => {},
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

/**
 * A stand-in for a spawned ChildProcess, for driving `runProxy` through its
 * injectable `spawn`: real streams, scripted events.
 */
export class FakeChild extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly pid = 4242;
  readonly signals: Array<NodeJS.Signals | number | undefined> = [];

  kill(signal?: NodeJS.Signals | number): boolean {
    this.signals.push(signal);
    return true;
  }

  /** End the process the way a real one ends: output closes, then `exit`. */
  exit(code: number | null, signal: NodeJS.Signals | null = null): void {
    this.stdout.end();
    this.stderr.end();
    this.emit('exit', code, signal);
    this.emit('close', code, signal);
  }

  asChildProcess(): ChildProcess {
    return this as unknown as ChildProcess;
  }
}
