/**
 * The context cost a surface file carries: per tool and in total, bytes
 * exactly and tokens as an estimate. SEAM: `src/cost/` (helper `cost`,
 * issue 32) is not on this branch yet; until it is merged this gives no
 * cost and `graphmind surface` writes none. Once merged, this is the one
 * place that calls `surfaceCost` from `src/cost/`.
 *
 * @module
 */
import type { Surface, SurfaceCost } from '../surface/index.js';

/** The tool definitions as a host hands them to the model: the snapshot's entries without their hash. */
export function toolDefinitions(surface: Surface): Array<Record<string, unknown>> {
  return surface.tools.map(({ hash: _hash, ...definition }) => definition);
}

/** The cost of the surface's tools, or undefined while `src/cost/` is not there (see the module). */
export async function costOfSurface(surface: Surface): Promise<SurfaceCost | undefined> {
  void toolDefinitions(surface);
  return undefined;
}

/** One line for a person: what the tool surface costs on every turn (tokens labelled as an estimate). */
export function costLine(cost: SurfaceCost | undefined): string | undefined {
  if (cost === undefined) return undefined;
  return `the tool surface costs ≈ ${cost.tokens} tokens (an estimate${cost.tokenizer === undefined ? '' : `, ${cost.tokenizer}`}; ${cost.bytes} bytes) on every turn`;
}
