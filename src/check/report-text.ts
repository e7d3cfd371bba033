/**
 * The `text` reporter: the server, what it lists and what its tools cost,
 * each finding on a line (severity, code, check, message), the totals and
 * PASS or FAIL. No I/O.
 *
 * @module
 */
import type { FormatOptions } from './report-format.js';
import { totalsLine, verdictOf } from './report-format.js';
import type { CheckReport } from './runner.js';

/** The report as text. */
export function textReport(report: CheckReport, options: FormatOptions): string {
  const verdict = verdictOf(report, options.failOn);
  const info = report.serverInfo === undefined ? '' : ` (${String(report.serverInfo.name ?? '?')} ${String(report.serverInfo.version ?? '')}`.trimEnd() + `, protocol ${report.protocolVersion ?? '?'})`;
  const out = [`graphmind check: ${report.target}${info}`];
  const { tools, resources, resourceTemplates, prompts } = report.counts;
  const cost = report.surfaceCost === undefined ? '' : `; the tool surface costs ≈ ${report.surfaceCost.tokens} tokens on every turn (an estimate; ${report.surfaceCost.bytes} bytes)`;
  out.push(`  ${tools} tools, ${resources} resources, ${resourceTemplates} resource templates, ${prompts} prompts${cost}`);
  for (const found of report.findings) {
    const passes = verdict.failing.has(found) ? '' : ' [passes --fail-on]';
    out.push(`  ${found.severity.padEnd(8)} ${found.code.padEnd(22)} ${found.check}: ${found.message.split('\n').join('\n      ')}${passes}`);
  }
  out.push(`${totalsLine(report, verdict)}: ${verdict.ok ? 'PASS' : 'FAIL'} (${report.durationMs} ms)`);
  return `${out.join('\n')}\n`;
}
