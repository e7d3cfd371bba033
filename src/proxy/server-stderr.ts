import type { ChildProcess } from 'node:child_process';
import type { DebugSession } from '../relay/debug-session.js';
import type { SharedStderr } from './stderr-sink.js';
import { StderrLines } from './stderr-lines.js';
import { StderrTail } from './stderr-tail.js';

/**
 * Where the servers' stderr goes: to our stderr, unchanged; to the
 * session's tail (the last lines, for the early-exit diagnostic); to each
 * server's own tail (a restarted server's error line names why it did not
 * come back); and, line by line, to the graph.
 */
export class ServerStderr {
  /** The last lines of every server of the session, in order. */
  readonly tail = new StderrTail();
  readonly #sink: SharedStderr;
  readonly #report: DebugSession | undefined;
  readonly #recordLines = new StderrLines();
  readonly #own = new WeakMap<ChildProcess, StderrTail>();

  constructor(sink: SharedStderr, report: DebugSession | undefined) {
    this.#sink = sink;
    this.#report = report;
  }

  /** Take a server process on: its errors, and its stderr. */
  wire(server: ChildProcess): void {
    // After a successful spawn the child's own errors (a failed kill, say) are not ours to crash on.
    server.on('error', () => {});
    const own = new StderrTail({ maxLines: 50, maxBytes: 8192 });
    this.#own.set(server, own);
    if (server.stderr) {
      const { tail } = this;
      const sink = this.#sink;
      const report = this.#report;
      const recordLines = this.#recordLines;
      server.stderr.on('data', (chunk: Buffer) => {
        sink.server(chunk);
        tail.push(chunk);
        own.push(chunk);
        if (report !== undefined) {
          const lines = recordLines.push(chunk);
          if (lines.length > 0) report.onStderr(lines);
        }
      });
      server.stderr.on('error', () => {});
    }
  }

  /** The last stderr lines of one server. */
  linesOf(server: ChildProcess): string[] {
    return this.#own.get(server)?.lines() ?? [];
  }

  /** The session is over: a last line without its newline is still part of the log. */
  end(): void {
    const unterminated = this.#recordLines.end();
    if (unterminated.length > 0) this.#report?.onStderr(unterminated);
  }
}
