/**
 * The `sarif` reporter: SARIF 2.1.0 (what GitHub code scanning and other
 * CI dashboards take). Every finding code is a rule (its title, meaning
 * and fix from findings.ts); every finding a result at its severity, with
 * a logical location (the check and the call) and, where there is a file
 * it comes from (the lock for drift, the script for a step, else the
 * server's entry file), a physical one. No I/O.
 *
 * @module
 */
import { FINDINGS, FINDING_CODES, type Finding } from './findings.js';
import type { FormatOptions } from './report-format.js';
import { verdictOf } from './report-format.js';
import type { CheckReport } from './runner.js';

/** Where SARIF's schema is published. */
export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

const HELP_URI = 'https://github.com/graphmind-ai/graphmind-ai/blob/main/docs/ci.md';

function fileOf(found: Finding, files: FormatOptions['files']): string | undefined {
  if (found.code === 'drift') return files?.lock ?? files?.server;
  if (found.call?.step !== undefined) return files?.script ?? files?.server;
  return files?.server;
}

function resultOf(found: Finding, options: FormatOptions, failing: boolean): Record<string, unknown> {
  const logical = found.entry ?? (found.call === undefined ? found.check : `${found.call.method}${found.call.name === undefined ? '' : ` ${found.call.name}`}`);
  const file = fileOf(found, options.files);
  const location: Record<string, unknown> = { logicalLocations: [{ name: logical, fullyQualifiedName: `${found.check}/${logical}`, kind: 'member' }] };
  if (file !== undefined) location.physicalLocation = { artifactLocation: { uri: file.split('\\').join('/') } };
  const properties: Record<string, unknown> = { check: found.check, fails: failing };
  if (found.call !== undefined) properties.call = found.call;
  if (found.frame !== undefined) properties.frame = found.frame;
  if (found.class !== undefined) properties.class = found.class;
  if (found.kind !== undefined) properties.kind = found.kind;
  return {
    ruleId: found.code,
    ruleIndex: FINDING_CODES.indexOf(found.code),
    level: found.severity,
    message: { text: found.message },
    locations: [location],
    properties,
  };
}

/** The report as SARIF 2.1.0 JSON text. */
export function sarifReport(report: CheckReport, options: FormatOptions): string {
  const verdict = verdictOf(report, options.failOn);
  const rules = FINDING_CODES.map((code) => ({
    id: code,
    name: code.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toUpperCase()),
    shortDescription: { text: FINDINGS[code].title },
    fullDescription: { text: FINDINGS[code].meaning },
    help: { text: FINDINGS[code].fix },
    helpUri: `${HELP_URI}#${code}`,
    defaultConfiguration: { level: FINDINGS[code].severity },
  }));
  const sarif = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'graphmind check', semanticVersion: options.toolVersion, version: options.toolVersion, informationUri: HELP_URI, rules } },
        invocations: [{ executionSuccessful: true, properties: { target: report.target, ok: verdict.ok, durationMs: report.durationMs } }],
        results: report.findings.map((found) => resultOf(found, options, verdict.failing.has(found))),
        properties: { counts: report.counts, ...(report.surfaceCost === undefined ? {} : { surfaceCost: report.surfaceCost }) },
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}
