/**
 * The `junit` reporter: JUnit XML, a testcase per check (the server, the
 * wire, the handshake, each list, each tool's schemas, the lock, the
 * budget, each step of the scenario). A check with a finding that fails it
 * under `--fail-on` has one `<failure>` (its findings' messages, one per
 * line); findings that do not fail it are in its `<system-out>`. No I/O.
 *
 * @module
 */
import type { Finding } from './findings.js';
import type { FormatOptions } from './report-format.js';
import { findingsByCheck, totalsLine, verdictOf } from './report-format.js';
import type { CheckReport } from './runner.js';

/** Text made safe for an XML attribute or element (characters XML 1.0 forbids dropped). */
export function xmlText(value: string): string {
  return value
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string)
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, '');
}

function lineOf(found: Finding): string {
  return `${found.severity} ${found.code}: ${found.message}`;
}

/** The report as JUnit XML. */
export function junitReport(report: CheckReport, options: FormatOptions): string {
  const verdict = verdictOf(report, options.failOn);
  const byCheck = findingsByCheck(report);
  const checks = [...report.checks];
  // A finding on a check that was not listed as run still gets its testcase.
  for (const name of byCheck.keys()) if (!checks.some((check) => check.name === name)) checks.push({ name, group: 'check', ms: 0 });
  const failed = checks.filter((check) => (byCheck.get(check.name) ?? []).some((found) => verdict.failing.has(found))).length;
  const time = (report.durationMs / 1000).toFixed(3);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="graphmind check" tests="${checks.length}" failures="${failed}" errors="0" time="${time}">`];
  out.push(`  <testsuite name="${xmlText(report.target)}" tests="${checks.length}" failures="${failed}" errors="0" skipped="0" time="${time}">`);
  for (const check of checks) {
    const head = `    <testcase classname="${xmlText(`graphmind check.${check.group}`)}" name="${xmlText(check.name)}" time="${(check.ms / 1000).toFixed(3)}"`;
    const found = byCheck.get(check.name) ?? [];
    if (found.length === 0) {
      out.push(`${head}/>`);
      continue;
    }
    out.push(`${head}>`);
    const failing = found.filter((one) => verdict.failing.has(one));
    const passing = found.filter((one) => !verdict.failing.has(one));
    if (failing.length > 0) {
      const first = failing[0] as Finding;
      out.push(`      <failure type="${xmlText(first.code)}" message="${xmlText(first.message.split('\n')[0] as string)}">${xmlText(failing.map(lineOf).join('\n'))}</failure>`);
    }
    if (passing.length > 0) out.push(`      <system-out>${xmlText(passing.map(lineOf).join('\n'))}</system-out>`);
    out.push('    </testcase>');
  }
  out.push(`    <system-out>${xmlText(totalsLine(report, verdict))}</system-out>`, '  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}
