/**
 * What verify leaves out or rewrites before it compares two answers:
 * ignores (`--ignore`, a JSONPath, optionally scoped to a method and a
 * name: `tools/call:search $.result.content[0].text`) and normalisers
 * (`uuid`, `date-time`: every UUID or ISO 8601 date-time inside a string
 * compared as the same placeholder). `--rules <file>` holds both, as JSON:
 * `{ "ignore": [ … ], "normalise": ["uuid", "date-time"] }`. No I/O.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { parseScopedPath, scopeApplies, type ScopedPath } from '../json/json-path.js';

/** One ignored path, for every call or for one method (and name). */
export type IgnoreRule = ScopedPath;

/** A normaliser's name. */
export type Normaliser = 'uuid' | 'date-time';

/** The normalisers a rules file may name. */
export const NORMALISERS: readonly Normaliser[] = ['uuid', 'date-time'];

/** What verify ignores and normalises. */
export interface VerifyRules {
  ignore: IgnoreRule[];
  normalise: Normaliser[];
}

/** No ignores, no normalisers. */
export const NO_RULES: VerifyRules = { ignore: [], normalise: [] };

/** One `--ignore` value parsed, or why it cannot be (the scoped paths `--redact` takes too). */
export function parseIgnore(text: string): { ok: true; rule: IgnoreRule } | { ok: false; reason: string } {
  return parseScopedPath(text);
}

/** Does `rule` apply to a call of `method` naming `name`? */
export function ruleApplies(rule: IgnoreRule, method: string, name: string | undefined): boolean {
  return scopeApplies(rule, method, name);
}

/** A rules file's text parsed, with the `--ignore` values added, or why it cannot be. */
export function parseRules(text: string | undefined, ignores: readonly string[]): { ok: true; rules: VerifyRules } | { ok: false; reason: string } {
  const rules: VerifyRules = { ignore: [], normalise: [] };
  const paths = [...ignores];
  if (text !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'it is not JSON' };
    }
    if (!isObject(value)) return { ok: false, reason: 'it is not a JSON object ({ "ignore": […], "normalise": […] })' };
    for (const key of Object.keys(value)) {
      if (key !== 'ignore' && key !== 'normalise' && key !== 'normalize') return { ok: false, reason: `unknown key ${JSON.stringify(key)} (it takes "ignore" and "normalise")` };
    }
    const ignore = value.ignore ?? [];
    if (!Array.isArray(ignore) || !ignore.every((item) => typeof item === 'string')) return { ok: false, reason: '"ignore" must be a list of paths' };
    paths.unshift(...(ignore as string[]));
    const normalise = value.normalise ?? value.normalize ?? [];
    if (!Array.isArray(normalise)) return { ok: false, reason: '"normalise" must be a list of names (uuid, date-time)' };
    for (const name of normalise) {
      if (!NORMALISERS.includes(name as Normaliser)) return { ok: false, reason: `unknown normaliser ${JSON.stringify(name)} (uuid, date-time)` };
      rules.normalise.push(name as Normaliser);
    }
  }
  for (const path of paths) {
    const parsed = parseIgnore(path);
    if (!parsed.ok) return parsed;
    rules.ignore.push(parsed.rule);
  }
  return { ok: true, rules };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const DATE_TIME = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;

/** `text` with every UUID or date-time the normalisers name replaced by `<uuid>` / `<date-time>`. */
export function normaliseText(text: string, normalise: readonly Normaliser[]): string {
  let out = text;
  if (normalise.includes('uuid')) out = out.replace(UUID, '<uuid>');
  if (normalise.includes('date-time')) out = out.replace(DATE_TIME, '<date-time>');
  return out;
}

/** `value` with every string normalised (see {@link normaliseText}); a new value. */
export function normaliseValue(value: unknown, normalise: readonly Normaliser[]): unknown {
  if (normalise.length === 0) return value;
  if (typeof value === 'string') return normaliseText(value, normalise);
  if (Array.isArray(value)) return value.map((item) => normaliseValue(item, normalise));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = normaliseValue(item, normalise);
    return out;
  }
  return value;
}
