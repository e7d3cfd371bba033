/**
 * Context cost: what a tool definition or a result costs a model, in bytes
 * (exact) and tokens (an estimate). See docs/context-cost.md.
 *
 * @module
 */
export { TOKENIZER, countTokens, tokenizerLoadMs, MAX_COUNTED_CHARS, MAX_RUN } from './tokenizer.js';
export { jsonCost, modelView, readByModel, resultCost, surfaceCost, toolDefinitionCost, type Cost, type SurfaceCost } from './cost.js';
export { callCost, hasCallCost, type CallCost } from './call-cost.js';
