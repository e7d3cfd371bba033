/**
 * Reading a surface file back: the text `graphmind surface` wrote (or a
 * person edited), checked to be one, its entries made canonical again so a
 * hand-edited file compares by what it says, not by a stale hash.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { canonicalValue } from './canonical.js';
import { SURFACE_FORMAT, SURFACE_LISTS, SURFACE_VERSION, surfaceEntry, type Surface, type SurfaceCost } from './snapshot.js';

/** Why `value` is not a surface, in a few words, or undefined when it is one. */
function surfaceProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  if (value.format !== SURFACE_FORMAT) return `not a surface file (no "format": "${SURFACE_FORMAT}")`;
  if (value.version !== SURFACE_VERSION) return `surface version ${JSON.stringify(value.version)} is not one this graphmind reads (${SURFACE_VERSION})`;
  for (const list of SURFACE_LISTS) {
    const entries = value[list];
    if (entries !== undefined && !Array.isArray(entries)) return `"${list}" is not an array`;
    const bad = (entries as unknown[] | undefined)?.findIndex((entry) => !isObject(entry)) ?? -1;
    if (bad !== -1) return `${list}[${bad}] is not an object`;
  }
  if (value.serverInfo !== undefined && !isObject(value.serverInfo)) return '"serverInfo" is not an object';
  if (value.capabilities !== undefined && !isObject(value.capabilities)) return '"capabilities" is not an object';
  if (value.protocolVersion !== undefined && typeof value.protocolVersion !== 'string') return '"protocolVersion" is not a string';
  if (value.instructions !== undefined && typeof value.instructions !== 'string') return '"instructions" is not a string';
  return undefined;
}

/**
 * The surface in a surface file's text, or `{ error }`: one line saying
 * why the text is not one (not JSON, not a surface, a list that is not an
 * array of objects…).
 */
export function parseSurfaceFile(text: string): Surface | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    // JSON.parse quotes the text it failed on, newlines and all: one line it must be.
    return { error: `not JSON (${(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')})` };
  }
  const problem = surfaceProblem(value);
  if (problem !== undefined) return { error: problem };
  const file = value as Record<string, unknown>;
  const surface: Surface = { format: SURFACE_FORMAT, version: SURFACE_VERSION, tools: [], resources: [], resourceTemplates: [], prompts: [] };
  if (file.serverInfo !== undefined) surface.serverInfo = canonicalValue(file.serverInfo) as Record<string, unknown>;
  if (file.protocolVersion !== undefined) surface.protocolVersion = file.protocolVersion as string;
  if (file.capabilities !== undefined) surface.capabilities = canonicalValue(file.capabilities) as Record<string, unknown>;
  if (file.instructions !== undefined) surface.instructions = file.instructions as string;
  for (const list of SURFACE_LISTS) surface[list] = ((file[list] as unknown[] | undefined) ?? []).map(surfaceEntry);
  if (isObject(file.cost)) surface.cost = file.cost as unknown as SurfaceCost;
  return surface;
}

/** Is `value` a parsed surface rather than a parse error? */
export function isSurface(value: Surface | { error: string }): value is Surface {
  return !('error' in value);
}
