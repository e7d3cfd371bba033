/**
 * A check's report written as `--reporter` says: `text`, `json`, `junit`
 * or `sarif` (each in its own file). No I/O.
 *
 * @module
 */
import type { CheckReporterName, FormatOptions } from './report-format.js';
import { jsonReport } from './report-json.js';
import { junitReport } from './report-junit.js';
import { sarifReport } from './report-sarif.js';
import { textReport } from './report-text.js';
import type { CheckReport } from './runner.js';

export { CHECK_REPORTERS, verdictOf, type CheckReporterName, type FormatOptions, type Verdict } from './report-format.js';

/** The report as `reporter` writes it. */
export function formatCheckReport(report: CheckReport, reporter: CheckReporterName, options: FormatOptions): string {
  switch (reporter) {
    case 'json':
      return jsonReport(report, options);
    case 'junit':
      return junitReport(report, options);
    case 'sarif':
      return sarifReport(report, options);
    default:
      return textReport(report, options);
  }
}
