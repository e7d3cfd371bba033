/**
 * One run exported from its log file, in one of four formats: `jsonl`,
 * the log itself (what `graphmind import` loads back), `har` (HAR 1.2,
 * see har.ts), `otlp-json` (an OTLP/JSON trace request, see
 * trace-model.ts) and `cassette` (an mcp-recorder cassette, see
 * cassette-writer.ts); with `redact`, the values its paths select are
 * written as `[redacted]` in any of them (redact.ts); with `where`, only
 * the calls an expression of the condition language matches are written,
 * with their session (call-where.ts). The server's `GET /api/runs/:runId/export` and
 * `graphmind export` reading a data directory both come here.
 *
 * @module
 */
import type { CallFormat } from './run-streamer.js';
import type { Instance } from '../protocol/run-model.js';
import type { TraceRun } from './trace-model.js';
import { catchUp, ExportAborted, openLog, pumpLog, SinkWriter, type ExportSink, type LineConsumer } from './export-pump.js';
import { harFormat } from './har-stream.js';
import { eventsOfLine } from './read-run-log.js';
import { HOLD_BYTES, RunStreamer } from './run-streamer.js';
import { warmRequire } from './warm-require.js';

/** The CommonJS packages the OTLP export loads (otlp-json.ts, otel-spans.ts). */
const OTEL_PACKAGES = ['@opentelemetry/api', '@opentelemetry/core', '@opentelemetry/resources', '@opentelemetry/otlp-transformer'];
import type { ScopedPath } from '../json/json-path.js';
import type { Condition } from '../conditions/index.js';
import { RedactedLines } from './redact-lines.js';
import { callMatches, unmatchedCalls } from './call-where.js';
import { WhereLines } from './where-lines.js';

/** The export formats. */
export const EXPORT_FORMATS = ['jsonl', 'har', 'otlp-json', 'cassette'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Is `value` one of the {@link EXPORT_FORMATS}? */
export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** A run exported: its media type, the file name to save it under, and what was written. */
export interface ExportedRun {
  contentType: string;
  fileName: string;
  /** Bytes written. */
  bytes: number;
  /** The run's last sequence number in the output. */
  lastSeq: number;
  /** The run was live: the output is a snapshot, marked so (see docs/export.md). */
  live: boolean;
}

/** Why a run could not be exported. */
export type ExportProblem = {
  /** `not-found`: no such log, or no event of the run in it; `unreadable`: reading failed; `aborted`: the reader went away. */
  problem: 'not-found' | 'unreadable' | 'aborted';
  reason: string;
  /** Had the output begun (its headers sent) when it failed? */
  started: boolean;
};

const CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson',
  har: 'application/json',
  'otlp-json': 'application/json',
  cassette: 'application/json',
};

const EXTENSIONS: Record<ExportFormat, string> = { jsonl: 'jsonl', har: 'har', 'otlp-json': 'otlp.json', cassette: 'cassette.json' };

/** The file name an export is saved under: `<runId>.jsonl`, `<runId>.har`, `<runId>.otlp.json`, `<runId>.cassette.json`. */
export function exportFileName(runId: string, format: ExportFormat): string {
  return `${runId}.${EXTENSIONS[format]}`;
}

/** Options for {@link exportRun}. */
export interface ExportOptions {
  /** GraphMind's version (HAR's creator, the spans' instrumentation scope). */
  version: string;
  /**
   * The run is still being recorded: a log that does not end with the
   * run's end is exported as it is (a running run), marked live, not ended
   * in error as a log left by a stopped server is. @default false
   */
  live?: boolean;
  /**
   * The snapshot: read the log until the run's sequence number reaches
   * this (waiting for lines still being written), and no further.
   * @default the end of the log
   */
  untilSeq?: number;
  /** When the export was asked for (ms since the epoch). @default Date.now() */
  askedAt?: number;
  /** How long to wait for lines still being written up to `untilSeq`, ms. @default 5000 */
  waitMs?: number;
  /** Values to write as `[redacted]` (`--redact`, see redact.ts). @default none */
  redact?: readonly ScopedPath[];
  /** Write only the calls this expression matches, and their session (`--where`, see call-where.ts). @default every call */
  where?: Condition;
}

/**
 * Export the log `file` of run `runId` as `format` to `sink`, as it is
 * read (see run-streamer.ts and export-pump.ts): memory stays bounded by
 * the calls still open and the largest call, and the event loop is never
 * held for long. The JSONL export is the log's lines as they are; the
 * others are built from their replay. Nothing is written (the sink not
 * started) when the log cannot be read or holds no event of the run.
 */
export async function exportRun(file: string, runId: string, format: ExportFormat, sink: ExportSink, options: ExportOptions): Promise<ExportedRun | ExportProblem> {
  const where = options.where;
  const live = options.live === true;
  // The JSONL copy learns first which calls to leave out (a call's lines are written before its answer is known).
  const unmatched = where === undefined || format !== 'jsonl' ? undefined : await unmatchedCalls(file, runId, where, { live, untilSeq: options.untilSeq, askedAt: options.askedAt, waitMs: options.waitMs });
  if (typeof unmatched === 'string') return { problem: unmatched.startsWith('cannot open') ? 'not-found' : 'unreadable', reason: unmatched, started: false };
  const handle = await openLog(file);
  if (typeof handle === 'string') return { problem: handle.startsWith('cannot open') ? 'not-found' : 'unreadable', reason: handle, started: false };
  const writer = new SinkWriter(sink);
  try {
    const keep = where === undefined ? undefined : (run: TraceRun, instance: Instance): boolean => callMatches(where, run, instance);
    const consumer: LineConsumer & { finish(): { lastSeq: number } | undefined } =
      format === 'jsonl' ? new JsonlCopy(runId, options.untilSeq) : new RunStreamer(runId, await callFormat(format, options.version), { live, untilSeq: options.untilSeq, askedAt: options.askedAt, keep });
    const kept = unmatched === undefined ? consumer : new WhereLines(runId, unmatched, options.untilSeq, consumer);
    const reader = options.redact === undefined || options.redact.length === 0 ? kept : new RedactedLines(runId, options.redact, kept);
    await pumpLog(handle, reader, writer, options.waitMs === undefined ? {} : { waitMs: options.waitMs });
    const finished = consumer.finish();
    if (finished === undefined) return { problem: 'not-found', reason: 'the log holds no event of this run', started: writer.started };
    await writer.write(consumer.take());
    // The calls left and the end, a slice at a time.
    if (consumer.behind === true) await catchUp(consumer, writer);
    writer.begin();
    return { contentType: CONTENT_TYPES[format], fileName: exportFileName(runId, format), bytes: writer.written, lastSeq: finished.lastSeq, live };
  } catch (error) {
    if (error instanceof ExportAborted) return { problem: 'aborted', reason: error.message, started: writer.started };
    return { problem: 'unreadable', reason: `cannot read it (${error instanceof Error ? error.message : String(error)})`, started: writer.started };
  } finally {
    await handle.close();
  }
}

/** The media type of an export. */
export function exportContentType(format: ExportFormat): string {
  return CONTENT_TYPES[format];
}

/** The writer of a format other than JSONL; OTLP's loads OpenTelemetry, which is on no other path. */
async function callFormat(format: Exclude<ExportFormat, 'jsonl'>, version: string): Promise<CallFormat> {
  if (format === 'har') return harFormat(version);
  if (format === 'cassette') {
    const { cassetteFormat } = await import('./cassette-writer.js');
    return cassetteFormat();
  }
  // OpenTelemetry's files loaded a slice at a time first: imported at once, they held the event loop for 160-500 ms.
  await warmRequire(OTEL_PACKAGES, import.meta.url);
  const { otlpFormat } = await import('./otlp-json.js');
  return otlpFormat(version);
}

/**
 * The JSONL export: the log's lines as they are, up to the snapshot. Lines
 * before the run's first event are held back (at most {@link HOLD_BYTES})
 * until one shows the log is the run's: a log without one is not exported.
 */
const NEWLINE = Buffer.from('\n');

class JsonlCopy implements LineConsumer {
  readonly #runId: string;
  readonly #untilSeq: number | undefined;
  #found = false;
  #held: Buffer[] = [];
  #heldBytes = 0;
  #out: Buffer[] = [];
  #lastSeq = 0;
  #complete = false;

  constructor(runId: string, untilSeq: number | undefined) {
    this.#runId = runId;
    this.#untilSeq = untilSeq;
  }

  line(line: Buffer): boolean {
    const events = line.length === 0 ? undefined : eventsOfLine(line, this.#runId);
    for (const event of events ?? []) this.#lastSeq = Math.max(this.#lastSeq, event.seq);
    // The bytes as they are (a copy: the line's buffer is the reader's).
    const text = Buffer.concat([line, NEWLINE]);
    if (!this.#found && (events === undefined || events.length === 0)) {
      this.#heldBytes += text.length;
      if (this.#heldBytes > HOLD_BYTES) throw new Error(`no event of run ${this.#runId} in the first ${HOLD_BYTES} bytes of its log`);
      this.#held.push(text);
      return false;
    }
    if (!this.#found) {
      this.#found = true;
      this.#out.push(...this.#held);
      this.#held = [];
    }
    this.#out.push(text);
    this.#complete = this.#untilSeq !== undefined && this.#lastSeq >= this.#untilSeq;
    return this.#complete;
  }

  take(): Buffer[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }

  wantsMore(): boolean {
    return this.#untilSeq !== undefined && !this.#complete;
  }

  finish(): { lastSeq: number } | undefined {
    return this.#found ? { lastSeq: this.#lastSeq } : undefined;
  }
}
