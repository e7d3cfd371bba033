/**
 * JSON compared as data: key order ignored, `_meta` (the SDKs' progress
 * tokens, trace context, the 2026 era's per-request protocol fields) left
 * out unless asked for. One key per value, so equal values have equal keys.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { REDACTED } from '../export/redact.js';

/** What a recorded value holds where `graphmind export --redact` removed it: it matches anything. */
export { REDACTED };

/**
 * `value` as JSON text with every object's keys sorted; `_meta` keys are
 * dropped at every level when `dropMeta`. Undefined for undefined.
 */
export function canonicalJson(value: unknown, dropMeta: boolean): string | undefined {
  if (value === undefined) return undefined;
  return write(value, dropMeta);
}

function write(value: unknown, dropMeta: boolean): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += item === undefined ? 'null' : write(item, dropMeta);
    }
    return `${out}]`;
  }
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    let out = '{';
    let first = true;
    for (const key of keys) {
      const item = value[key];
      if (item === undefined || (dropMeta && key === '_meta')) continue;
      if (!first) out += ',';
      first = false;
      out += `${JSON.stringify(key)}:${write(item, dropMeta)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Does a recorded value hold a redacted value anywhere (then it cannot be looked up by its key)? */
export function holdsRedacted(value: unknown): boolean {
  if (value === REDACTED) return true;
  if (Array.isArray(value)) return value.some(holdsRedacted);
  if (isObject(value)) return Object.values(value).some(holdsRedacted);
  return false;
}
