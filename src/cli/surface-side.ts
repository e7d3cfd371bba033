/**
 * A side of `graphmind surface diff`, or the run `graphmind surface`
 * reads: a surface file, or a recorded run (a run id, a run log file, an
 * mcp-recorder cassette), read as the same loaders verify and replay use.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { defaultDataDir } from '../report/config.js';
import { debuggerPort } from './debugger-port.js';
import { isObject } from '../json/is-object.js';
import { isSurface, parseSurfaceFile, SURFACE_FORMAT, surfaceOf, type Surface, type SurfaceInput } from '../surface/index.js';

/** Where runs are looked for. */
export interface RunPlace {
  port?: number;
  'data-dir'?: string;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The surface input of a recorded run, or one line saying why not. */
export async function readRunSide(arg: string, place: RunPlace): Promise<{ ok: true; input: SurfaceInput } | { ok: false; line: string }> {
  const { loadRunArgument } = await import('./run-log-source.js');
  const port = debuggerPort('graphmind surface', place.port);
  const loaded = await loadRunArgument(arg, port, place['data-dir'] ?? defaultDataDir(), 'read');
  if (!loaded.ok) return loaded;
  const { surfaceInputOfRun } = await import('./surface-of-run.js');
  const input = surfaceInputOfRun(loaded.run);
  return input.ok ? input : { ok: false, line: `cannot read a surface from ${loaded.what}: ${input.reason}` };
}

/** Does this text look like a surface file (JSON naming the surface format), whether or not it is a good one? */
function claimsSurface(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) && value.format === SURFACE_FORMAT;
  } catch {
    return false;
  }
}

/** One side of a diff as a surface, or one line saying why it cannot be read. */
export async function readSide(arg: string, place: RunPlace): Promise<{ ok: true; surface: Surface } | { ok: false; line: string }> {
  if (existsSync(arg)) {
    let text: string;
    try {
      text = readFileSync(arg, 'utf8');
    } catch (error) {
      return { ok: false, line: `cannot read ${arg}: ${errorText(error)}` };
    }
    // A file that says it is a surface is read as one, and its problem named; any other file may be a run.
    const parsed = parseSurfaceFile(text);
    if (isSurface(parsed)) return { ok: true, surface: parsed };
    if (claimsSurface(text)) return { ok: false, line: `cannot read ${arg}: ${parsed.error}` };
    const run = await readRunSide(arg, place);
    if (run.ok) return { ok: true, surface: surfaceOf(run.input) };
    const notSurface = parsed.error.startsWith('not a surface file') ? parsed.error : `not a surface file: ${parsed.error}`;
    return { ok: false, line: `cannot read ${arg}: ${notSurface}, and not a run: ${run.line.replace(/^cannot read [^:]*: /, '')}` };
  }
  const { isRunPath } = await import('./run-log-source.js');
  if (isRunPath(arg)) return { ok: false, line: `cannot read ${arg}: no such file` };
  const run = await readRunSide(arg, place);
  return run.ok ? { ok: true, surface: surfaceOf(run.input) } : run;
}
