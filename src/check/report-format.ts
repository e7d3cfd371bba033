/**
 * What every reporter is given besides the report, and the shared facts
 * they all print: which findings fail the check (`--fail-on`), counts by
 * severity. No I/O.
 *
 * @module
 */
import { failing, type FailOn } from './fail-on.js';
import type { Finding, Severity } from './findings.js';
import type { CheckReport } from './runner.js';

/** The output formats (`--reporter`). */
export type CheckReporterName = 'text' | 'json' | 'junit' | 'sarif';

/** The reporters, as `--reporter` takes them. */
export const CHECK_REPORTERS: readonly CheckReporterName[] = ['text', 'json', 'junit', 'sarif'];

/** What a reporter needs besides the report. */
export interface FormatOptions {
  failOn: FailOn;
  /** graphmind's version, for SARIF's driver. */
  toolVersion: string;
  /** Files findings point into, relative to where the check ran: the lock, the script, the server's entry file. */
  files?: { lock?: string; script?: string; server?: string };
}

/** The facts every reporter shows. */
export interface Verdict {
  ok: boolean;
  /** The findings that fail the check. */
  failing: Set<Finding>;
  bySeverity: Record<Severity, number>;
}

/** The verdict on `report` under `failOn`. */
export function verdictOf(report: CheckReport, failOn: FailOn): Verdict {
  const failed = new Set(failing(report.findings, failOn));
  const bySeverity: Record<Severity, number> = { error: 0, warning: 0, note: 0 };
  for (const found of report.findings) bySeverity[found.severity]++;
  return { ok: failed.size === 0, failing: failed, bySeverity };
}

/** `report`'s findings grouped by the check they came from. */
export function findingsByCheck(report: CheckReport): Map<string, Finding[]> {
  const out = new Map<string, Finding[]>();
  for (const found of report.findings) {
    const list = out.get(found.check);
    if (list === undefined) out.set(found.check, [found]);
    else list.push(found);
  }
  return out;
}

/** One line of totals: `14 checks, 2 findings (1 error, 1 warning, 0 notes)`. */
export function totalsLine(report: CheckReport, verdict: Verdict): string {
  const { error, warning, note } = verdict.bySeverity;
  const omitted = Object.values(report.omitted).reduce((sum, n) => sum + (n ?? 0), 0);
  return `${report.checks.length} checks, ${report.findings.length} findings (${error} error${error === 1 ? '' : 's'}, ${warning} warning${warning === 1 ? '' : 's'}, ${note} note${note === 1 ? '' : 's'})${omitted > 0 ? `, ${omitted} more like them not listed` : ''}`;
}
