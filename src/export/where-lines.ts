/**
 * A run log's lines on their way to the JSONL export with `--where`: the
 * events of the calls the expression leaves out are dropped, everything
 * else (the run, its session, its log lines, the matching calls) goes on.
 * A line with nothing to drop passes as it is; one that holds some is
 * passed as its other events, one per line (as redact-lines.ts does).
 *
 * @module
 */
import type { RunEvent } from '../protocol/ingest.js';
import type { LineConsumer } from './export-pump.js';
import { eventsOfLine } from './read-run-log.js';

/** Lines in, the lines of the calls kept on to `inner` (see the module). */
export class WhereLines implements LineConsumer {
  readonly #runId: string;
  readonly #unmatched: ReadonlySet<string>;
  readonly #untilSeq: number | undefined;
  readonly #inner: LineConsumer;
  #lastSeq = 0;
  /** The snapshot's last event was read (perhaps in a line dropped whole, which `inner` never saw). */
  #complete = false;

  constructor(runId: string, unmatched: ReadonlySet<string>, untilSeq: number | undefined, inner: LineConsumer) {
    this.#runId = runId;
    this.#unmatched = unmatched;
    this.#untilSeq = untilSeq;
    this.#inner = inner;
  }

  #dropped(event: RunEvent): boolean {
    return 'instanceId' in event && typeof event.instanceId === 'string' && this.#unmatched.has(event.instanceId);
  }

  line(line: Buffer): boolean {
    const events = line.length === 0 ? undefined : eventsOfLine(line, this.#runId);
    if (events === undefined || events.length === 0) return this.#inner.line(line) || this.#complete;
    let drop = false;
    for (const event of events) {
      this.#lastSeq = Math.max(this.#lastSeq, event.seq);
      if (this.#dropped(event)) drop = true;
    }
    this.#complete = this.#untilSeq !== undefined && this.#lastSeq >= this.#untilSeq;
    if (!drop) return this.#inner.line(line) || this.#complete;
    let complete = this.#complete;
    for (const event of events) if (!this.#dropped(event) && this.#inner.line(Buffer.from(JSON.stringify(event)))) complete = true;
    return complete;
  }

  take(): Array<string | Buffer> {
    return this.#inner.take();
  }

  wantsMore(): boolean {
    return !this.#complete && this.#inner.wantsMore();
  }
}
