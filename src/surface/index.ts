/**
 * The tool surface: the canonical snapshot of what a server offers a model
 * (`surfaceOf`, written by `graphmind surface`), reading a surface file
 * back (`parseSurfaceFile`), and every change between two, classed
 * (`diffSurfaces`, `diffListAnswers`). Pure: no I/O.
 *
 * @module
 */
export { canonicalText, canonicalValue, hashOf } from './canonical.js';
export { CHANGE_CLASSES, reaches, type SurfaceChange, type SurfaceChangeClass } from './change.js';
export { diffEntries, diffListAnswers, diffSurfaces } from './diff.js';
export { isSurface, parseSurfaceFile } from './parse.js';
export { diffSchemas, type SchemaSide } from './schema-diff.js';
export {
  entriesOfPages,
  LIST_FIELD,
  listOfMethod,
  resultOf,
  SURFACE_FORMAT,
  SURFACE_LISTS,
  SURFACE_VERSION,
  surfaceEntry,
  surfaceOf,
  surfaceText,
  type Surface,
  type SurfaceCost,
  type SurfaceEntry,
  type SurfaceInput,
  type SurfaceListName,
} from './snapshot.js';
