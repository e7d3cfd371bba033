/**
 * JSON compared as data: key order ignored, `_meta` (the SDKs' progress
 * tokens, trace context, the 2026 era's per-request protocol fields) left
 * out unless asked for. One key per value, so equal values have equal keys.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { setOwn } from '../json/set-own.js';
import { REDACTED } from '../export/redact.js';

/** What a recorded value holds where `graphmind export --redact` removed it: it matches anything. */
export { REDACTED };

/**
 * `value` as JSON text with every object's keys sorted; `_meta` keys are
 * dropped at every level when `dropMeta`. Undefined for undefined.
 */
export function canonicalJson(value: unknown, dropMeta: boolean): string | undefined {
  if (value === undefined) return undefined;
  // One native stringify of the value, with only its unsorted objects copied in order: the costly part of a request's match.
  return JSON.stringify(sortedView(value, dropMeta)) ?? 'null';
}

/** `value` itself when every object in it has its keys in order (and no `_meta` to drop), else a copy that has. */
function sortedView(value: unknown, dropMeta: boolean): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const view = item === null || typeof item !== 'object' ? item : sortedView(item, dropMeta);
      if (view !== item) (out ??= value.slice())[i] = view;
    }
    return out ?? value;
  }
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  let copy = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if ((i > 0 && key < (keys[i - 1] as string)) || (dropMeta && key === '_meta')) {
      copy = true;
      break;
    }
  }
  let out: Record<string, unknown> | undefined;
  if (copy) {
    keys.sort();
    out = {};
  }
  for (const key of keys) {
    if (dropMeta && key === '_meta') continue;
    const item = value[key];
    const view = item === null || typeof item !== 'object' ? item : sortedView(item, dropMeta);
    if (out === undefined && view !== item) {
      // A child changed: this object is copied too, in its (sorted) key order, from the start.
      out = {};
      for (const before of keys) {
        if (before === key) break;
        setOwn(out, before, value[before]);
      }
    }
    if (out !== undefined) setOwn(out, key, view);
  }
  return out ?? value;
}

/** Does a recorded value hold a redacted value anywhere (then it cannot be looked up by its key)? */
export function holdsRedacted(value: unknown): boolean {
  if (value === REDACTED) return true;
  if (Array.isArray(value)) return value.some(holdsRedacted);
  if (isObject(value)) return Object.values(value).some(holdsRedacted);
  return false;
}
