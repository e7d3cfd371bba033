/**
 * The context cost a surface file carries: per tool and in total, bytes
 * exactly and tokens as an estimate (src/cost/, docs/context-cost.md). It
 * is informative: no hash and no diff reads it.
 *
 * @module
 */
import type { Surface, SurfaceCost } from '../surface/index.js';

/** The tool definitions as a host hands them to the model: the snapshot's entries without their hash. */
export function toolDefinitions(surface: Surface): Array<Record<string, unknown>> {
  return surface.tools.map(({ hash: _hash, ...definition }) => definition);
}

/** The cost of the surface's tools (loaded on demand: the tokenizer's tables take a moment). */
export async function costOfSurface(surface: Surface): Promise<SurfaceCost> {
  const { surfaceCost, TOKENIZER } = await import('../cost/index.js');
  const cost = surfaceCost(toolDefinitions(surface));
  return { bytes: cost.bytes, tokens: cost.tokens, tokenizer: `${TOKENIZER.package} ${TOKENIZER.encoding}`, note: `tokens: ${TOKENIZER.note}`, perTool: cost.perTool };
}

/** One line for a person: what the tool surface costs on every turn (tokens labelled as an estimate). */
export function costLine(cost: SurfaceCost | undefined): string | undefined {
  if (cost === undefined) return undefined;
  return `the tool surface costs ≈ ${cost.tokens} tokens (an estimate${cost.tokenizer === undefined ? '' : `, ${cost.tokenizer}`}; ${cost.bytes} bytes) on every turn`;
}
