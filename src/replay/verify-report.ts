/**
 * A verify session's results written for a person or a tool: `text` (each
 * call and a readable diff: the tool and the JSON path, recorded against
 * received), `json`, `junit` (XML for CI), `tap` (version 14). Stdout noise
 * from the server counts as a difference. No I/O.
 *
 * @module
 */
import type { Difference } from './differences.js';
import type { Verdict } from './verdict.js';
import type { CallResult } from './verify-session.js';

/** The output formats (`--reporter`). */
export type ReporterName = 'text' | 'json' | 'junit' | 'tap';

/** The reporters, as `--reporter` takes them. */
export const REPORTERS: readonly ReporterName[] = ['text', 'json', 'junit', 'tap'];

/** What a verify found. */
export interface VerifyReport {
  /** The run, as named on the command line. */
  run: string;
  /** Every request's result, in recorded order (answers to no request last). */
  calls: CallResult[];
  /** Lines the server wrote to stdout that were not JSON-RPC. */
  noise: string[];
}

/** How many calls got each verdict. */
export function countsOf(report: VerifyReport): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { same: 0, different: 0, missing: 0, extra: 0 };
  for (const call of report.calls) counts[call.verdict]++;
  return counts;
}

/** All the same and no noise. */
export function reportOk(report: VerifyReport): boolean {
  return report.noise.length === 0 && report.calls.every((call) => call.verdict === 'same');
}

/** What a call is called in a line: `tools/call search`. */
export function callTitle(call: CallResult): string {
  return call.name === undefined ? call.method : `${call.method} ${call.name}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** One difference as a line: `$.result.content[0].text: recorded "a", received "b"`. */
export function differenceLine(difference: Difference): string {
  const recorded = 'recorded' in difference ? `recorded ${shown(difference.recorded)}` : 'not recorded';
  const received = 'received' in difference ? `received ${shown(difference.received)}` : 'not received';
  return `${difference.path}: ${recorded}, ${received}`;
}

/** Why a call is not the same, as lines. */
export function problemLines(call: CallResult): string[] {
  const lines = call.differences.map(differenceLine);
  if (call.reason !== undefined && call.verdict !== 'same') lines.push(call.reason);
  if (call.verdict === 'extra' && call.received !== undefined) lines.push(`received ${shown(call.received)}`);
  return lines;
}

function noiseLine(noise: readonly string[]): string {
  return `the server wrote ${noise.length} line(s) to stdout that are not JSON-RPC (stdout is the MCP wire: a real host would break), first: ${JSON.stringify(noise[0])}`;
}

function summary(report: VerifyReport): string {
  const counts = countsOf(report);
  const noise = report.noise.length > 0 ? `, ${report.noise.length} stdout noise line(s)` : '';
  return `${report.calls.length} calls: ${counts.same} same, ${counts.different} different, ${counts.missing} missing, ${counts.extra} extra${noise}`;
}

function text(report: VerifyReport): string {
  const out = [`graphmind verify: ${report.run}`];
  for (const call of report.calls) {
    out.push(`  ${call.verdict.padEnd(9)} #${call.index} ${callTitle(call)}`);
    for (const line of problemLines(call)) out.push(`      ${line}`);
  }
  if (report.noise.length > 0) out.push(`  different stdout noise`, `      ${noiseLine(report.noise)}`);
  out.push(summary(report));
  return `${out.join('\n')}\n`;
}

function xml(value: string): string {
  return value.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] as string).replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, '');
}

function junit(report: VerifyReport): string {
  const counts = countsOf(report);
  const failures = counts.different + counts.missing + counts.extra + (report.noise.length > 0 ? 1 : 0);
  const tests = report.calls.length + (report.noise.length > 0 ? 1 : 0);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="graphmind verify" tests="${tests}" failures="${failures}">`];
  out.push(`  <testsuite name="${xml(report.run)}" tests="${tests}" failures="${failures}" errors="0">`);
  for (const call of report.calls) {
    const time = (call.ms / 1000).toFixed(3);
    const head = `    <testcase classname="${xml(call.method)}" name="${xml(`#${call.index} ${callTitle(call)}`)}" time="${time}"`;
    if (call.verdict === 'same') {
      out.push(`${head}/>`);
      continue;
    }
    const lines = problemLines(call);
    out.push(`${head}>`, `      <failure type="${call.verdict}" message="${xml(`${call.verdict}: ${lines[0] ?? callTitle(call)}`)}">${xml(lines.join('\n'))}</failure>`, '    </testcase>');
  }
  if (report.noise.length > 0) {
    out.push(`    <testcase classname="stdout" name="stdout noise">`, `      <failure type="different" message="${xml(noiseLine(report.noise))}">${xml(report.noise.join('\n'))}</failure>`, '    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}

function yamlString(value: string): string {
  return JSON.stringify(value);
}

function tap(report: VerifyReport): string {
  const out = ['TAP version 14', `1..${report.calls.length + (report.noise.length > 0 ? 1 : 0)}`];
  let n = 0;
  for (const call of report.calls) {
    n++;
    const title = `${call.verdict} ${callTitle(call)} (call ${call.index})`.replace(/#/g, "\\#");
    if (call.verdict === 'same') {
      out.push(`ok ${n} - ${title}`);
      continue;
    }
    out.push(`not ok ${n} - ${title}`, '  ---', `  verdict: ${call.verdict}`, '  problems:');
    for (const line of problemLines(call)) out.push(`    - ${yamlString(line)}`);
    out.push('  ...');
  }
  if (report.noise.length > 0) out.push(`not ok ${n + 1} - stdout noise`, '  ---', `  message: ${yamlString(noiseLine(report.noise))}`, '  ...');
  out.push(`# ${summary(report)}`);
  return `${out.join('\n')}\n`;
}

/** The report written as `reporter` says. */
export function formatReport(report: VerifyReport, reporter: ReporterName): string {
  switch (reporter) {
    case 'json':
      return `${JSON.stringify({ run: report.run, ok: reportOk(report), counts: countsOf(report), calls: report.calls, noise: report.noise })}\n`;
    case 'junit':
      return junit(report);
    case 'tap':
      return tap(report);
    default:
      return text(report);
  }
}
