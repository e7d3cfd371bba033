/**
 * The surface as a whole: `drift` against `--lock` (each change of
 * `diffSurfaces` a finding with its class) and the tool definitions'
 * `context-budget` (`--max-surface-tokens`, an estimate from src/cost/).
 *
 * @module
 */
import { resultCost, surfaceCost, type Cost } from '../cost/index.js';
import { diffSurfaces, surfaceOf, type Surface } from '../surface/index.js';
import type { ResultBudget } from './answer-checks.js';
import type { CheckContext } from './check-context.js';
import { driftSeverity, finding } from './findings.js';
import type { Listed } from './listing.js';

/** The surface of what was listed. */
export function listedSurface(listed: Listed): Surface {
  return surfaceOf({
    initialize: listed.handshake,
    tools: listed.pages['tools/list'] ?? [],
    resources: listed.pages['resources/list'] ?? [],
    resourceTemplates: listed.pages['resources/templates/list'] ?? [],
    prompts: listed.pages['prompts/list'] ?? [],
  });
}

/** Every change from the lock, as `drift` findings. */
export function checkDrift(context: CheckContext, lock: Surface, lockFile: string, surface: Surface): void {
  context.ran('lock', 'surface');
  for (const change of diffSurfaces(lock, surface)) {
    const severity = driftSeverity(change.class);
    context.add({ ...finding('drift', 'lock', `${change.class}: ${change.message} (against ${lockFile})`), severity, class: change.class, kind: change.kind, entry: change.entry });
  }
}

/** The tools' cost, and a `context-budget` finding when over `maxTokens`. */
export function checkSurfaceBudget(context: CheckContext, tools: readonly unknown[], maxTokens: number): Cost {
  const cost = surfaceCost(tools);
  context.ran('surface budget', 'surface');
  if (cost.tokens > maxTokens) {
    const top = [...cost.perTool].sort((a, b) => b.tokens - a.tokens).slice(0, 3).map((tool) => `${tool.name} ≈ ${tool.tokens}`).join(', ');
    context.report('context-budget', 'surface budget', `the tool surface costs ≈ ${cost.tokens} tokens on every turn (an estimate; ${cost.bytes} bytes), over --max-surface-tokens ${maxTokens}${top === '' ? '' : `; the largest: ${top}`}`);
  }
  return { bytes: cost.bytes, tokens: cost.tokens };
}

/** `--max-result-tokens` as the answer checks take it. */
export function resultBudget(maxTokens: number | undefined): ResultBudget | undefined {
  return maxTokens === undefined ? undefined : { maxTokens, cost: resultCost };
}
