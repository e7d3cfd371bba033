/**
 * One run exported from its log file, in one of three formats: `jsonl`,
 * the log itself (what `graphmind import` loads back), `har` (HAR 1.2,
 * see har.ts) and `otlp-json` (an OTLP/JSON trace request, see
 * trace-model.ts). The server's `GET /api/runs/:runId/export` and
 * `graphmind export` reading a data directory both come here.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { runHar } from './har.js';
import { replayLogFile } from './log-replay.js';
import { resourceOf } from './trace-model.js';
import { runSpans } from './run-spans.js';
import { traceRunOf } from './log-replay.js';

/** The export formats. */
export const EXPORT_FORMATS = ['jsonl', 'har', 'otlp-json'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Is `value` one of the {@link EXPORT_FORMATS}? */
export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** An exported run: its bytes, their media type and the file name to save them under. */
export interface ExportedRun {
  body: Buffer;
  contentType: string;
  fileName: string;
  /** The highest sequence number in the log, and whether the log ends with the run's end. */
  lastSeq: number;
  ended: boolean;
}

/** Why a run could not be exported. */
export type ExportProblem = { problem: 'not-found' | 'unreadable'; reason: string };

const CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson',
  har: 'application/json',
  'otlp-json': 'application/json',
};

const EXTENSIONS: Record<ExportFormat, string> = { jsonl: 'jsonl', har: 'har', 'otlp-json': 'otlp.json' };

/** The file name an export is saved under: `<runId>.jsonl`, `<runId>.har`, `<runId>.otlp.json`. */
export function exportFileName(runId: string, format: ExportFormat): string {
  return `${runId}.${EXTENSIONS[format]}`;
}

/** Options for {@link exportRunLog}. */
export interface ExportOptions {
  /** GraphMind's version (HAR's creator, the spans' instrumentation scope). */
  version: string;
  /**
   * The run is still being recorded: a log that does not end with the
   * run's end is exported as it is (a running run), not ended in error as
   * a log left by a stopped server is. @default false
   */
  live?: boolean;
}

/**
 * Export the log `file` of run `runId` as `format`. The JSONL export is
 * the file's bytes as they are; the others are built from its replay.
 */
export async function exportRunLog(file: string, runId: string, format: ExportFormat, options: ExportOptions): Promise<ExportedRun | ExportProblem> {
  let maxSeq = 0;
  const read = replayLogFile(file, runId);
  if (!read.ok) return { problem: read.reason.startsWith('cannot open it') ? 'not-found' : 'unreadable', reason: read.reason };
  const { replay } = read;
  const state = replay.finish(options.live === true);
  if (state === undefined) return { problem: 'not-found', reason: 'the log holds no event of this run' };
  maxSeq = state.lastSeq;
  const base = { contentType: CONTENT_TYPES[format], fileName: exportFileName(runId, format), lastSeq: maxSeq, ended: replay.endedLast };
  if (format === 'jsonl') {
    // The log as it is: read again, whole (it was checked above, and a log is appended to, never rewritten).
    return { ...base, body: readFileSync(file).subarray(0, read.bytes) };
  }
  const run = traceRunOf(state);
  const now = state.summary.endedAt === null ? Date.now() : state.lastT;
  if (format === 'har') {
    return { ...base, body: Buffer.from(`${JSON.stringify(runHar(run, replay.facts, { version: options.version, now }), null, 2)}\n`) };
  }
  // Loaded only now: the OpenTelemetry packages are on no other path.
  const { otlpJson } = await import('./otlp-json.js');
  return { ...base, body: otlpJson(runSpans(run, replay.facts, { now }), resourceOf(run), options.version) };
}
