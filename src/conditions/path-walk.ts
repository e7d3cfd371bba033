/**
 * Testing the values a `$` path selects, without copying them out: a walk
 * that says whether the path selected nothing, selected values none of
 * which passed, or selected one that passed (and stops there). The steps
 * are first put in one shape ({@link WalkStep}) so the walk reads them
 * without asking which kind each is. No I/O.
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

const KEY = 0;
const INDEX = 1;
const ANY = 2;

/** A path step in the one shape the walk reads: `kind` 0 a key, 1 an index, 2 every child. */
export interface WalkStep {
  readonly kind: typeof KEY | typeof INDEX | typeof ANY;
  readonly key: string;
  readonly index: number;
}

/** `steps` in the shape the walk reads. */
export function walkSteps(steps: readonly PathStep[]): WalkStep[] {
  return steps.map((step) => ('key' in step ? { kind: KEY, key: step.key, index: -1 } : 'index' in step ? { kind: INDEX, key: '', index: step.index } : { kind: ANY, key: '', index: -1 }));
}

/** Test each value `steps` selects in `value` with `test`, stopping at the first that passes. */
export function walkPath(value: unknown, steps: readonly WalkStep[], test: (selected: unknown) => boolean, at = 0): Found {
  if (at === steps.length) return test(value) ? PASSED : SEEN;
  const step = steps[at] as WalkStep;
  if (step.kind === KEY) return isObject(value) && Object.hasOwn(value, step.key) ? walkPath(value[step.key], steps, test, at + 1) : NONE;
  if (step.kind === INDEX) return Array.isArray(value) && step.index < value.length ? walkPath(value[step.index], steps, test, at + 1) : NONE;
  let found: Found = NONE;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const one = walkPath(value[index], steps, test, at + 1);
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
export function selectAll(value: unknown, steps: readonly WalkStep[]): unknown[] {
  const values: unknown[] = [];
  walkPath(value, steps, (selected) => {
    values.push(selected);
    return false;
  });
  return values;
}
