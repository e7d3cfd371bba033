/**
 * The `since` argument, pure: an ISO 8601 time, or an age such as `30m`.
 *
 * @module
 */
import { ToolError } from './tool-error.js';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const AGE = /^(\d+(?:\.\d+)?)\s*([smhdw])$/;
/** A date, optionally a time, with or without a zone: what `Date.parse` reads the same everywhere. */
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The time `since` names, in ms since the epoch: an age counts back from
 * `now` (`90s`, `15m`, `2h`, `7d`, `1w`), anything else must be an ISO
 * 8601 date or time (`2026-05-01`, `2026-05-01T12:00:00Z`). Throws a
 * `bad-argument` {@link ToolError} otherwise.
 */
export function parseSince(since: string, now: number): number {
  const text = since.trim();
  const age = AGE.exec(text);
  if (age !== null) return now - Number(age[1]) * (UNIT_MS[age[2] as string] as number);
  const t = ISO.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(t)) {
    throw new ToolError('bad-argument', `since "${since.slice(0, 60)}" is neither an age (90s, 15m, 2h, 7d, 1w) nor an ISO 8601 time (2026-05-01T12:00:00Z)`);
  }
  return t;
}
