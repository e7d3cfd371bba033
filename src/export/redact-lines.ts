/**
 * A run log's lines redacted on their way to an export's consumer (see
 * redact.ts): a line whose events hold nothing to redact passes as it is;
 * one that does is passed as its events redacted, one per line (a group of
 * calls is expanded: `graphmind import` and the debugger read either).
 * Only an export with `--redact` reads through this: the others pay nothing.
 *
 * @module
 */
import type { ScopedPath } from '../json/json-path.js';
import type { LineConsumer } from './export-pump.js';
import { eventsOfLine } from './read-run-log.js';
import { EventRedactor } from './redact.js';

/** Lines in, redacted lines on to `inner` (see the module). */
export class RedactedLines implements LineConsumer {
  readonly #runId: string;
  readonly #inner: LineConsumer;
  readonly #redactor: EventRedactor;

  constructor(runId: string, paths: readonly ScopedPath[], inner: LineConsumer) {
    this.#runId = runId;
    this.#inner = inner;
    this.#redactor = new EventRedactor(paths);
  }

  /** Values replaced so far. */
  get count(): number {
    return this.#redactor.count;
  }

  line(line: Buffer): boolean {
    const events = line.length === 0 ? undefined : eventsOfLine(line, this.#runId);
    let changed = false;
    for (const event of events ?? []) if (this.#redactor.event(event)) changed = true;
    if (!changed || events === undefined) return this.#inner.line(line);
    let complete = false;
    for (const event of events) if (this.#inner.line(Buffer.from(JSON.stringify(event)))) complete = true;
    return complete;
  }

  take(): Array<string | Buffer> {
    return this.#inner.take();
  }

  wantsMore(): boolean {
    return this.#inner.wantsMore();
  }
}
