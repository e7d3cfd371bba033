/**
 * JSON in one fixed form, so a snapshot diffs well in git and equal
 * definitions hash alike: object keys sorted (a few named keys first, in
 * the order a reader wants them), `_meta` left out (the SDKs put per-build
 * and per-request values there), arrays kept in their order.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { isObject } from '../json/is-object.js';
import { setOwn } from '../json/set-own.js';

/** Keys written first, in this order, wherever they appear; the rest follow sorted. */
const FIRST_KEYS = ['name', 'uri', 'uriTemplate', 'hash', 'title', 'description', 'type'];

function keyRank(key: string): number {
  const rank = FIRST_KEYS.indexOf(key);
  return rank === -1 ? FIRST_KEYS.length : rank;
}

/** Order two keys: the {@link FIRST_KEYS} first, then by code unit (not locale: the same on every machine). */
function compareKeys(a: string, b: string): number {
  const byRank = keyRank(a) - keyRank(b);
  if (byRank !== 0) return byRank;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A copy of `value` with every object's keys in canonical order and every
 * `_meta` key dropped; primitives as they are, `undefined` members dropped.
 */
export function canonicalValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : canonicalValue(item)));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(compareKeys)) {
    if (key === '_meta' || value[key] === undefined) continue;
    setOwn(out, key, canonicalValue(value[key]));
  }
  return out;
}

/** `value` as canonical JSON text on one line (see the module). */
export function canonicalText(value: unknown): string {
  return JSON.stringify(canonicalValue(value)) ?? 'null';
}

/** The sha256 of `value`'s canonical JSON text, 64 hex digits. */
export function hashOf(value: unknown): string {
  return createHash('sha256').update(canonicalText(value)).digest('hex');
}
