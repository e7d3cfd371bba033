/**
 * Testing the values a `$` path selects, without copying them out: a walk
 * that says whether the path selected nothing, selected values none of
 * which passed, or selected one that passed (and stops there). No I/O.
 *
 * @module
 */
import type { PathStep } from '../json/json-path.js';
import { isObject } from '../json/is-object.js';

/** The path selected nothing. */
export const NONE = 0;
/** The path selected values; none passed. */
export const SEEN = 1;
/** The path selected a value that passed. */
export const PASSED = 2;

/** What {@link walkPath} found. */
export type Found = typeof NONE | typeof SEEN | typeof PASSED;

/** Test each value `steps` selects in `value` with `test`, stopping at the first that passes. */
export function walkPath(value: unknown, steps: readonly PathStep[], test: (selected: unknown) => boolean, at = 0): Found {
  if (at === steps.length) return test(value) ? PASSED : SEEN;
  const step = steps[at] as PathStep;
  if ('key' in step) {
    return isObject(value) && Object.hasOwn(value, step.key) ? walkPath(value[step.key], steps, test, at + 1) : NONE;
  }
  if ('index' in step) {
    return Array.isArray(value) && step.index < value.length ? walkPath(value[step.index], steps, test, at + 1) : NONE;
  }
  let found: Found = NONE;
  if (Array.isArray(value)) {
    for (const item of value) {
      const one = walkPath(item, steps, test, at + 1);
      if (one === PASSED) return PASSED;
      if (one === SEEN) found = SEEN;
    }
  } else if (isObject(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const one = walkPath(value[key], steps, test, at + 1);
      if (one === PASSED) return PASSED;
      if (one === SEEN) found = SEEN;
    }
  }
  return found;
}

/** The values `steps` selects in `value` (for showing them; allocates). */
export function selectAll(value: unknown, steps: readonly PathStep[]): unknown[] {
  const values: unknown[] = [];
  walkPath(value, steps, (selected) => {
    values.push(selected);
    return false;
  });
  return values;
}
