/**
 * One change between two surfaces, and its class: what it does to a host
 * or a model that relied on the earlier surface.
 *
 * @module
 */

/** How much a change matters: breaking (a caller fails), risky (the model reads something new), benign. */
export type SurfaceChangeClass = 'breaking' | 'risky' | 'benign';

/** The classes from the least to the most severe (for `--fail-on`). */
export const CHANGE_CLASSES: readonly SurfaceChangeClass[] = ['benign', 'risky', 'breaking'];

/** One change between two surfaces. */
export interface SurfaceChange {
  /** How much it matters. */
  class: SurfaceChangeClass;
  /** What changed, a stable code such as `tool-removed` or `parameter-made-required` (docs/surface.md lists them). */
  kind: string;
  /** The entry it concerns as a graph node id: `tool:search`, `prompt:p`, `resource:file:///x`, `resource-template:file:///{id}`, or `server`. */
  entry: string;
  /** One line for a person. */
  message: string;
  /** Where inside the entry, when it is a parameter or a field: `limit`, `filter.kind`, `items[]`, `annotations.readOnlyHint`. */
  path?: string;
  /** The earlier value, where one value changed. */
  from?: unknown;
  /** The later value, where one value changed. */
  to?: unknown;
}

/** Does a change of class `changed` reach `threshold` (breaking ≥ risky ≥ benign)? */
export function reaches(changed: SurfaceChangeClass, threshold: SurfaceChangeClass): boolean {
  return CHANGE_CLASSES.indexOf(changed) >= CHANGE_CLASSES.indexOf(threshold);
}
