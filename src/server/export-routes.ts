/**
 * The control API's export and import routes:
 *
 * - `GET /api/runs/:runId/export?format=jsonl|har|otlp-json|cassette[&redact=<path>…][&where=<expression>]`
 *   answers the run as a file to save (`Content-Disposition: attachment`),
 *   with the values each `redact` path selects written as `[redacted]`,
 *   and only the calls `where` matches (with their session) when given;
 * - `POST /api/runs/import[?newId=1]` takes a run log (the JSONL export)
 *   as its body and loads it as a run of this server.
 *
 * `rest-api.ts` routes here; the server does the work ({@link RunTransfer}).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RunSummary } from '../protocol/run-model.js';
import { exportContentType, exportFileName, isExportFormat, type ExportedRun, type ExportFormat, type ExportProblem } from '../export/export-run.js';
import type { ExportSink } from '../export/export-pump.js';
import type { ScopedPath } from '../json/json-path.js';
import { parseRedactions } from '../export/redact.js';
import { compileCondition, type Condition } from '../conditions/index.js';
import { readImport, renamed, newImportId, type ImportedLog } from '../export/import-run.js';
import { BodyError, readBody, sendError, sendJson, sendMethodNotAllowed } from './http-util.js';
import { API_CSP, COMMON_HEADERS } from './security.js';

/** What the server does for these routes. */
export interface RunTransfer {
  /** Is there such a run? */
  knows(runId: string): boolean;
  /**
   * Write the run as a file to `sink` as it is read (started only once
   * there is something to write), or say `unknown` when there is no such run.
   */
  exportRun(runId: string, format: ExportFormat, sink: ExportSink, options?: { redact?: readonly ScopedPath[]; where?: Condition }): Promise<ExportedRun | ExportProblem | 'unknown'>;
  /**
   * Load a run log as a run: its summary, or why not (`exists`: a run of
   * that id is here; `deleted`: one was deleted in this server's life and
   * stays so; `trimmed`: `--max-runs` deleted it at once, being the oldest).
   */
  importRun(log: ImportedLog): Promise<RunSummary | 'exists' | 'deleted' | 'trimmed'>;
}

/**
 * `GET /api/runs/:runId/export`. `runId` matches the run id pattern. The
 * body streams (chunked) as the run's log is read; an error after the
 * headers went ends the connection without the body's end, so a partial
 * file never looks whole.
 */
export async function handleRunExport(req: IncomingMessage, res: ServerResponse, runId: string, transfer: RunTransfer): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(res, 'GET, HEAD');
  const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
  const format = query.get('format') ?? 'jsonl';
  if (!isExportFormat(format)) return sendError(res, 400, 'format must be jsonl, har, otlp-json or cassette');
  const redact = parseRedactions(query.getAll('redact'));
  if (!redact.ok) return sendError(res, 400, redact.reason);
  const whereText = query.get('where');
  const where = whereText === null ? undefined : compileCondition(whereText);
  // As a rule's bad expression: what is wrong and where, for the viewer to point at.
  if (where !== undefined && !where.ok) return sendJson(res, 400, { error: `where: ${where.error} at position ${where.position}`, position: where.position });
  const headers = {
    ...COMMON_HEADERS,
    'content-security-policy': API_CSP,
    'content-type': `${exportContentType(format)}; charset=utf-8`,
    'content-disposition': `attachment; filename="${exportFileName(runId, format)}"`,
  };
  if (req.method === 'HEAD') {
    if (!transfer.knows(runId)) return sendError(res, 404, 'not found');
    res.writeHead(200, headers);
    res.end();
    return;
  }
  const exported = await transfer.exportRun(runId, format, { stream: res, start: () => res.writeHead(200, headers) }, { redact: redact.paths, where: where?.condition });
  if (exported === 'unknown') return sendError(res, 404, 'not found');
  if (!('problem' in exported)) {
    res.end();
    return;
  }
  if (exported.problem === 'aborted') return;
  if (exported.started) {
    res.destroy();
    return;
  }
  sendError(res, exported.problem === 'not-found' ? 404 : 500, 'the run log cannot be read');
}

/** `POST /api/runs/import[?newId=1]`: 201 `{ runId, run, skippedLines }`. */
export async function handleRunImport(req: IncomingMessage, res: ServerResponse, transfer: RunTransfer, maxBody: number): Promise<void> {
  if (req.method !== 'POST') return sendMethodNotAllowed(res, 'POST');
  let body: Buffer;
  try {
    body = await readBody(req, maxBody);
  } catch (error) {
    const status = error instanceof BodyError ? error.status : 400;
    sendError(res, status, error instanceof BodyError ? error.message : 'could not read the request body');
    if (status === 413) res.once('finish', () => req.destroy());
    return;
  }
  const read = readImport(body);
  if (typeof read === 'string') return sendError(res, 400, read);
  const newId = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('newId');
  const log = newId === '1' || newId === 'true' ? renamed(read, newImportId()) : read;
  const imported = await transfer.importRun(log);
  if (imported === 'exists') return sendError(res, 409, 'a run with this id is here already (import it with ?newId=1 to keep both)');
  if (imported === 'deleted') return sendError(res, 409, 'a run with this id was deleted in this server\'s life (import it with ?newId=1)');
  if (imported === 'trimmed') return sendError(res, 409, 'the run was imported but is older than every run kept, and --max-runs was reached: it was deleted at once (delete runs, or start the server with a larger --max-runs)');
  return sendJson(res, 201, { runId: imported.runId, run: imported, skippedLines: log.skippedLines });
}
