/**
 * The cost of one recorded call, as the reading side shows it (serve's
 * cost route, `graphmind mcp`): which figure a method has, from the
 * call's recorded output. Never run on the relay's path.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { RawJson } from '../json/raw-json.js';
import { resultCost, surfaceCost, type Cost, type SurfaceCost } from './cost.js';

/** The methods whose answer a model reads (the result of the call it made, or the document it asked for). */
const READ_BY_MODEL = new Set(['tools/call', 'resources/read', 'prompts/get']);

/** What one call costs a model's context. */
export interface CallCost {
  /** The answer the model reads (`tools/call`, `resources/read`, `prompts/get`). */
  result?: Cost;
  /** A `tools/list` answer: what the tools of this page cost on every turn they are offered, each and in total. */
  surface?: SurfaceCost;
}

/**
 * The cost of a call on `method` that answered `output` (the recorded
 * result, possibly kept as raw JSON), or undefined when there is nothing a
 * model reads: another method, no answer, or a value the recorder did not
 * keep (hidden, or a note in its place such as a frame over 1 MiB).
 */
export function callCost(method: string, output: unknown): CallCost | undefined {
  if (!hasCallCost(method, output)) return undefined;
  const value = (output instanceof RawJson ? output.toJSON() : output) as Record<string, unknown>;
  if (method === 'tools/list') return Array.isArray(value.tools) ? { surface: surfaceCost(value.tools) } : undefined;
  return { result: resultCost(value) };
}

/** Would {@link callCost} find something to count (cheap: nothing is tokenized)? */
export function hasCallCost(method: string, output: unknown): boolean {
  if (method !== 'tools/list' && !READ_BY_MODEL.has(method)) return false;
  if (output instanceof RawJson) return true;
  return isObject(output) && !('[graphmind]' in output);
}
