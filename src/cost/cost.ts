/**
 * What a tool definition or a result costs a model's context: its bytes,
 * exactly (the UTF-8 of its compact JSON), and an estimated token count
 * (see tokenizer.ts). Pure functions over parsed JSON; the tokenizer loads
 * on the first call.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { countTokens } from './tokenizer.js';

/** What something costs a model: bytes, exactly, and tokens, an estimate (say so wherever it is shown). */
export interface Cost {
  /** UTF-8 bytes of the compact JSON a host hands the model. */
  bytes: number;
  /** Estimated tokens of that JSON (see `TOKENIZER`): an estimate, never a bill. */
  tokens: number;
}

/** A tool list's cost: the total, and each tool's (in list order). */
export interface SurfaceCost extends Cost {
  /** Each tool's definition cost, in the order of the list. */
  perTool: Array<{ name: string } & Cost>;
}

/**
 * Binary payloads a host hands a model as an image or audio input, not as
 * text: their bytes count, their base64 is not tokenized (an image's token
 * cost depends on its pixels, which this does not read).
 */
function binaryAsEmpty(this: unknown, key: string, value: unknown): unknown {
  if (typeof value !== 'string' || value.length === 0) return value;
  if (key === 'blob') return '';
  if (key === 'data' && isObject(this) && (this.type === 'image' || this.type === 'audio')) return '';
  return value;
}

/** The cost of `value` as compact JSON; binary payloads left out of the token count when `binary` says so. */
export function jsonCost(value: unknown, binary = false): Cost {
  const json = JSON.stringify(value) ?? '';
  const bytes = Buffer.byteLength(json, 'utf8');
  const text = binary ? (JSON.stringify(value, binaryAsEmpty) ?? '') : json;
  return { bytes, tokens: countTokens(text) };
}

/**
 * A tool definition as a host hands it to the model: its name,
 * description, input schema and output schema (when it has them), in that
 * order. Title, icons, annotations and `_meta` are for the host and the
 * user, not the model.
 */
export function modelView(tool: unknown): Record<string, unknown> {
  if (!isObject(tool)) return {};
  const view: Record<string, unknown> = {};
  for (const key of ['name', 'description', 'inputSchema', 'outputSchema']) {
    if (tool[key] !== undefined) view[key] = tool[key];
  }
  return view;
}

/** What one tool definition (an entry of a `tools/list` answer) costs the model, on every turn it is offered. */
export function toolDefinitionCost(tool: unknown): Cost {
  return jsonCost(modelView(tool));
}

/**
 * What the model reads of an answer's `result`: a tool result's `content`
 * (and `structuredContent`, which some hosts forward too), a resource
 * read's `contents`, a prompt's `messages`; any other result whole.
 */
export function readByModel(result: unknown): unknown {
  if (!isObject(result)) return result;
  if (Array.isArray(result.content)) {
    return result.structuredContent === undefined ? { content: result.content } : { content: result.content, structuredContent: result.structuredContent };
  }
  if (Array.isArray(result.contents)) return { contents: result.contents };
  if (Array.isArray(result.messages)) return { messages: result.messages };
  return result;
}

/** What a result costs the model that reads it (see {@link readByModel}); images, audio and blobs count their bytes but no tokens. */
export function resultCost(result: unknown): Cost {
  return jsonCost(readByModel(result), true);
}

/** What a tool list costs on every turn it is offered: each tool's definition, and their sum. */
export function surfaceCost(tools: readonly unknown[]): SurfaceCost {
  const perTool = tools.map((tool) => ({ name: isObject(tool) && typeof tool.name === 'string' ? tool.name : '', ...toolDefinitionCost(tool) }));
  let bytes = 0;
  let tokens = 0;
  for (const tool of perTool) {
    bytes += tool.bytes;
    tokens += tool.tokens;
  }
  return { bytes, tokens, perTool };
}
