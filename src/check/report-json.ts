/**
 * The `json` reporter: one object whose `findings` array holds `{ code,
 * severity, message, check, call?, frame?, … }`, with `ok` (under
 * `--fail-on`), what was listed, the checks run and their times. No I/O.
 *
 * @module
 */
import type { FormatOptions } from './report-format.js';
import { verdictOf } from './report-format.js';
import type { CheckReport } from './runner.js';

/** The report as JSON text. */
export function jsonReport(report: CheckReport, options: FormatOptions): string {
  const verdict = verdictOf(report, options.failOn);
  const findings = report.findings.map((found) => ({ ...found, fails: verdict.failing.has(found) }));
  return `${JSON.stringify({ ok: verdict.ok, ...report, findings, severities: verdict.bySeverity })}\n`;
}
