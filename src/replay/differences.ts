/**
 * Where two JSON values differ, as a list of JSONPath-like places
 * (`$.params.arguments.text`) with the recorded and the received value:
 * key order ignored, `_meta` left out unless asked, a recorded
 * `[redacted]` matching anything. Used to explain a replay's miss, and by
 * verify to compare answers.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { REDACTED } from './canonical.js';

/** One place where the values differ. A side that has no value there has no field. */
export interface Difference {
  /** Where: `$` is the whole value compared (a request's `params`: `$.params`). */
  path: string;
  recorded?: unknown;
  received?: unknown;
}

/** Options for {@link differencesOf}. */
export interface DifferenceOptions {
  /** The path of the values compared. @default '$' */
  path?: string;
  /** Leave `_meta` out. @default true */
  dropMeta?: boolean;
  /** Stop after this many. @default 20 */
  max?: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `path` and one more key, as JSONPath writes it. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Where `recorded` and `received` differ (empty: they match). */
export function differencesOf(recorded: unknown, received: unknown, options: DifferenceOptions = {}): Difference[] {
  const out: Difference[] = [];
  walk(recorded, received, options.path ?? '$', options.dropMeta ?? true, out, options.max ?? 20);
  return out;
}

function walk(recorded: unknown, received: unknown, path: string, dropMeta: boolean, out: Difference[], max: number): void {
  if (out.length >= max || recorded === REDACTED) return;
  if (Array.isArray(recorded) && Array.isArray(received)) {
    const length = Math.max(recorded.length, received.length);
    for (let i = 0; i < length && out.length < max; i++) {
      if (i >= recorded.length) out.push({ path: childPath(path, i), received: received[i] });
      else if (i >= received.length) out.push({ path: childPath(path, i), recorded: recorded[i] });
      else walk(recorded[i], received[i], childPath(path, i), dropMeta, out, max);
    }
    return;
  }
  if (isObject(recorded) && isObject(received) && !Array.isArray(recorded) && !Array.isArray(received)) {
    const keys = new Set([...Object.keys(recorded), ...Object.keys(received)]);
    for (const key of [...keys].sort()) {
      if (out.length >= max) return;
      if (dropMeta && key === '_meta') continue;
      const left = recorded[key];
      const right = received[key];
      if (left === undefined && right === undefined) continue;
      if (left === undefined) out.push({ path: childPath(path, key), received: right });
      else if (right === undefined && left !== REDACTED) out.push({ path: childPath(path, key), recorded: left });
      else walk(left, right, childPath(path, key), dropMeta, out, max);
    }
    return;
  }
  if (recorded === received) return;
  const difference: Difference = { path };
  if (recorded !== undefined) difference.recorded = recorded;
  if (received !== undefined) difference.received = received;
  out.push(difference);
}
