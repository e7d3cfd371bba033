/**
 * The tool surface a recorded run shows: the `initialize` answer the host
 * received, and for each list the last listing of the run (its first page,
 * asked without a cursor, and the pages asked with the cursors that
 * followed), so the surface is what the server offered at the end of the
 * session, after any `list_changed`.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { RecordedCall, RecordedRun } from '../replay/recorded-run.js';
import { listOfMethod, type SurfaceInput, type SurfaceListName } from '../surface/index.js';

function resultOfCall(call: RecordedCall): unknown {
  return call.received !== undefined && 'result' in call.received ? call.received.result : undefined;
}

function hasCursor(call: RecordedCall): boolean {
  return isObject(call.params) && typeof call.params.cursor === 'string';
}

/** The surface input of a recorded run, or one phrase saying why it has none. */
export function surfaceInputOfRun(run: RecordedRun): { ok: true; input: SurfaceInput } | { ok: false; reason: string } {
  const input: SurfaceInput = {};
  const listings: Partial<Record<SurfaceListName, unknown[]>> = {};
  for (const call of run.calls) {
    if (call.method === 'initialize' && resultOfCall(call) !== undefined) input.initialize = resultOfCall(call);
    const list = listOfMethod(call.method);
    const result = resultOfCall(call);
    if (list === undefined || result === undefined) continue;
    // A page asked without a cursor starts a listing anew; one with a cursor continues the listing under way.
    if (!hasCursor(call) || listings[list] === undefined) listings[list] = [result];
    else listings[list].push(result);
  }
  Object.assign(input, listings);
  if (input.initialize === undefined && Object.keys(listings).length === 0) {
    return { ok: false, reason: 'it has no answered initialize and no answered list (tools/list, resources/list, resources/templates/list, prompts/list)' };
  }
  return { ok: true, input };
}
