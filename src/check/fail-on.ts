/**
 * `--fail-on`: which findings make `graphmind check` exit 1. A comma list
 * of severities (`error` = errors; `warning` = warnings and errors; `note`
 * = everything) and finding codes (`stdout-noise,drift`): a finding fails
 * the check when its severity is at or above a severity named, or its code
 * is named. Default `error`. Pure.
 *
 * @module
 */
import { FINDING_CODES, isFindingCode, SEVERITIES, type Finding, type FindingCode, type Severity } from './findings.js';

/** What fails a check. */
export interface FailOn {
  /** The mildest severity that fails, if any was named. */
  severity?: Severity;
  /** Codes that fail whatever their severity. */
  codes: ReadonlySet<FindingCode>;
}

/** The default: every error. */
export const DEFAULT_FAIL_ON: FailOn = { severity: 'error', codes: new Set() };

/** Read `--fail-on`, or say in one line what is wrong with it. */
export function parseFailOn(text: string): { ok: true; failOn: FailOn } | { ok: false; reason: string } {
  const codes = new Set<FindingCode>();
  let severity: Severity | undefined;
  const items = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length === 0) return { ok: false, reason: '--fail-on needs a severity (error, warning, note) or finding codes' };
  for (const item of items) {
    if ((SEVERITIES as readonly string[]).includes(item)) {
      const named = item as Severity;
      if (severity === undefined || SEVERITIES.indexOf(named) > SEVERITIES.indexOf(severity)) severity = named;
    } else if (isFindingCode(item)) codes.add(item);
    else return { ok: false, reason: `--fail-on: ${JSON.stringify(item)} is neither a severity (error, warning, note) nor a finding code (${FINDING_CODES.join(', ')})` };
  }
  return { ok: true, failOn: severity === undefined ? { codes } : { severity, codes } };
}

/** Does `found` fail the check under `failOn`? */
export function fails(found: Finding, failOn: FailOn): boolean {
  if (failOn.codes.has(found.code)) return true;
  return failOn.severity !== undefined && SEVERITIES.indexOf(found.severity) <= SEVERITIES.indexOf(failOn.severity);
}

/**
 * The findings that fail the check. A check whose server never got through
 * the handshake checked nothing else, so `spawn-failure` and a handshake's
 * `early-exit` or `unanswered` fail it whatever `--fail-on` names.
 */
export function failing(findings: readonly Finding[], failOn: FailOn): Finding[] {
  return findings.filter((found) => fails(found, failOn) || found.check === 'handshake' || found.code === 'spawn-failure');
}
