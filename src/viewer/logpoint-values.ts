// What a logpoint's line carries, read defensively (a reporter may leave
// any of it out): its rule, and the values its expression looked at as
// short text. Pure: playbooks in test/viewer-rule-list.test.ts.
import type { LogLine } from '../protocol/run-model.js';
import { cut } from './format.js';

/** The stream of a logpoint's line. */
export const LOGPOINT_STREAM = 'logpoint';

/** A logpoint line's own fields, as they may come (anything). */
interface LogpointFields {
  ruleId?: unknown;
  values?: unknown;
}

/** Is this a logpoint's line? */
export function isLogpoint(log: LogLine): boolean {
  return log.stream === LOGPOINT_STREAM;
}

/** A value looked at, in short text: JSON, cut to `max` characters. */
export function valueText(value: unknown, max = 120): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return cut(text, max);
}

/** The values a logpoint line carries, as `at = value` pairs (those well formed; at most `limit`). */
export function logpointValues(log: LogLine, limit = 8): Array<{ at: string; value: string }> {
  const values = (log as LogLine & LogpointFields).values;
  if (!Array.isArray(values)) return [];
  const out: Array<{ at: string; value: string }> = [];
  for (const entry of values as unknown[]) {
    if (out.length >= limit) break;
    if (entry === null || typeof entry !== 'object') continue;
    const { at, value } = entry as { at?: unknown; value?: unknown };
    if (typeof at !== 'string') continue;
    out.push({ at: cut(at, 80), value: valueText(value) });
  }
  return out;
}

/** The rule a logpoint line names, if it names one. */
export function logpointRule(log: LogLine): string | undefined {
  const ruleId = (log as LogLine & LogpointFields).ruleId;
  return typeof ruleId === 'string' && ruleId !== '' ? ruleId : undefined;
}

