/**
 * The server verify checks, started on stdio: its stdout read as
 * newline-delimited JSON-RPC (a line that is not is stdout noise, which
 * would break a real host), its last stderr lines kept for the line that
 * says why it could not start or why it ended, the same lines the stdio
 * proxy prints (proxy/messages.ts), under verify's own prefix.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { pathKind } from '../proxy/child-process.js';
import { describeExit, exitedEarly, spawnFailed, withoutPrefix } from '../proxy/messages.js';
import { StderrTail } from '../proxy/stderr-tail.js';

/** What the target tells its user. */
export interface StdioTargetEvents {
  /** A parsed JSON-RPC message from the server, and its text (the line as it came, for a recording). */
  message(message: unknown, text: string): void;
  /** The server ended (or could not start): `line` says how, without a prefix. */
  ended(line: string): void;
}

/** A line the prefixed proxy messages give, under verify's prefix. */
export function verifyLine(line: string): string {
  return `graphmind verify: ${withoutPrefix(line)}`;
}

/** A server process on stdio (see the module). */
export class StdioTarget {
  readonly #child: ChildProcess;
  readonly #tail = new StderrTail({ maxLines: 50, maxBytes: 8192 });
  /** Lines on stdout that were not JSON-RPC, as written (cut to 200 characters). */
  readonly noise: string[] = [];
  #answered = false;
  #gone = false;
  readonly exited: Promise<void>;

  constructor(command: readonly string[], events: StdioTargetEvents) {
    const [file, ...args] = command as [string, ...string[]];
    this.#child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const decoder = new StringDecoder('utf8');
    let rest = '';
    this.#child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (rest + decoder.write(chunk)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) this.#line(line, events);
    });
    this.#child.stderr?.on('data', (chunk: Buffer) => this.#tail.push(chunk));
    this.#child.stdin?.on('error', () => undefined); // a server gone: its exit says so
    this.exited = new Promise((resolve) => {
      this.#child.once('error', (error: NodeJS.ErrnoException) => {
        if (this.#child.pid !== undefined) return;
        this.#gone = true;
        events.ended(withoutPrefix(spawnFailed(file, { code: error.code, message: error.message, pathKind: pathKind(file) })));
        resolve();
      });
      this.#child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.#gone) return resolve();
        this.#gone = true;
        if (rest.trim() !== '') this.#line(rest, events);
        const line = this.#answered ? `the MCP server ${describeExit(code, signal)}` : withoutPrefix(exitedEarly(code, signal, this.#tail.lines()));
        events.ended(line);
        resolve();
      });
    });
  }

  #line(raw: string, events: StdioTargetEvents): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (message === null || typeof message !== 'object' || !('jsonrpc' in message)) {
      this.noise.push(line.length > 200 ? `${line.slice(0, 199)}…` : line);
      return;
    }
    if ('id' in message && !('method' in message)) this.#answered = true;
    events.message(message, line);
  }

  /** Send one message. */
  send(text: string): void {
    if (!this.#gone) this.#child.stdin?.write(`${text}\n`);
  }

  /** The server's last stderr lines. */
  stderrTail(): string[] {
    return this.#tail.lines();
  }

  /** End the session: stdin closed, then SIGTERM after a grace, then SIGKILL. */
  async stop(graceMs = 2000): Promise<void> {
    if (this.#gone) return;
    this.#child.stdin?.end();
    const term = setTimeout(() => this.#child.kill('SIGTERM'), graceMs);
    const kill = setTimeout(() => this.#child.kill('SIGKILL'), graceMs * 2);
    await this.exited;
    clearTimeout(term);
    clearTimeout(kill);
  }
}
