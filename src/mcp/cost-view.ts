/**
 * Context cost in `get_call` and `get_run`: what a call's answer, or the
 * run's tool list, costs the model that reads it. Bytes are exact; every
 * token figure is an estimate (docs/context-cost.md), and the text says so.
 *
 * @module
 */
import { callCost, hasCallCost, TOKENIZER, type Cost } from '../cost/index.js';
import { methodOf } from '../protocol/call-method.js';
import type { Instance, Run } from '../protocol/run-model.js';
import type { JsonSchema } from './args.js';
import { arrayOf, integer, object, string } from './schemas.js';

/** Calls of a run whose results `get_run` counts, the newest: counting is not free (about a millisecond a call). */
export const RUN_COST_CALLS = 500;
/** Tools `get_call` names in its text, the costliest first. */
const TEXT_TOOLS = 5;
/** Tools `get_call` lists in its structured answer, the costliest first. */
export const CALL_COST_TOOLS = 50;
/** Characters of a tool's name kept in `get_call`'s cost. */
const NAME_CHARS = 100;

const costSchema = object({ bytes: integer, tokens: integer });
const tokenizerSchema = object({ package: string, encoding: string, note: string });

/** `call.cost` in `get_call`: null when the call has nothing a model reads. */
export const callCostSchema: JsonSchema = {
  anyOf: [
    object(
      {
        estimate: { const: true },
        tokenizer: tokenizerSchema,
        result: costSchema,
        surface: object({ bytes: integer, tokens: integer, tools: integer, perTool: arrayOf(object({ name: string, bytes: integer, tokens: integer })), toolsLeftOut: integer }),
      },
      ['result', 'surface'],
    ),
    { type: 'null' },
  ],
};

/** `cost` in `get_run`. */
export const runCostSchema: JsonSchema = object(
  {
    estimate: { const: true },
    tokenizer: tokenizerSchema,
    surface: { anyOf: [object({ instanceId: string, tools: integer, bytes: integer, tokens: integer }), { type: 'null' }] },
    results: object({ calls: integer, bytes: integer, tokens: integer, callsLeftOut: integer }),
  },
);

/** What `get_call` says of a call's cost. */
export type CallCostView = {
  estimate: true;
  tokenizer: typeof TOKENIZER;
  result?: Cost;
  /** A tool list: the total, how many tools, the costliest of them, and how many more. */
  surface?: Cost & { tools: number; perTool: Array<{ name: string } & Cost>; toolsLeftOut: number };
} | null;

/** Each node's method, by node id. */
function methods(run: Run): Map<string, string> {
  return new Map(run.nodes.map((node) => [node.nodeId, methodOf(node)]));
}

/**
 * The cost of one call of `run`, or null when a model reads nothing of it.
 * A tool list's tools are given the costliest first, at most
 * {@link CALL_COST_TOOLS} of them (`toolsLeftOut` the rest, still in the
 * total), each name cut to {@link NAME_CHARS}: the answer must fit a
 * model's budget whatever the server lists.
 */
export function callCostView(run: Run, instance: Instance): CallCostView {
  const node = run.nodes.find((candidate) => candidate.nodeId === instance.nodeId);
  const cost = node === undefined ? undefined : callCost(methodOf(node), instance.output);
  if (cost === undefined) return null;
  if (cost.surface === undefined) return { estimate: true, tokenizer: TOKENIZER, ...(cost.result === undefined ? {} : { result: cost.result }) };
  const { perTool, bytes, tokens } = cost.surface;
  const costliest = [...perTool].sort((a, b) => b.tokens - a.tokens);
  const shown = costliest.slice(0, CALL_COST_TOOLS).map((tool) => ({ ...tool, name: tool.name.length > NAME_CHARS ? `${tool.name.slice(0, NAME_CHARS)}…` : tool.name }));
  return { estimate: true, tokenizer: TOKENIZER, surface: { bytes, tokens, tools: perTool.length, perTool: shown, toolsLeftOut: perTool.length - shown.length } };
}

/** `≈ 1,234 tokens (est.), 5,678 bytes`. */
export function costText(cost: Cost): string {
  return `≈ ${cost.tokens.toLocaleString('en-US')} tokens (est.), ${cost.bytes.toLocaleString('en-US')} bytes`;
}

/** The line `get_call` prints for a call's cost, or none. */
export function callCostLines(view: CallCostView): string[] {
  if (view === null) return [];
  const lines: string[] = [];
  if (view.result !== undefined) lines.push(`context cost of the result the model reads: ${costText(view.result)}`);
  if (view.surface !== undefined) {
    const costliest = view.surface.perTool.slice(0, TEXT_TOOLS);
    lines.push(`tool surface: ${view.surface.tools} tools cost ${costText(view.surface)} on every turn`);
    if (costliest.length > 0) lines.push(`costliest tools: ${costliest.map((tool) => `${tool.name} ≈ ${tool.tokens}`).join(', ')}`);
  }
  lines.push(`(token figures are estimates: ${TOKENIZER.package} ${TOKENIZER.encoding})`);
  return lines;
}

/** What `get_run` says of a run's cost. */
export interface RunCostView {
  estimate: true;
  tokenizer: typeof TOKENIZER;
  /** The last answered `tools/list` of the run: what its tools cost on every turn. */
  surface: ({ instanceId: string; tools: number } & Cost) | null;
  /** The results the model read, summed over the newest {@link RUN_COST_CALLS} calls that have one. */
  results: Cost & { calls: number; callsLeftOut: number };
}

/** The run's cost: its last answered tool list, and the results of its newest {@link RUN_COST_CALLS} calls. */
export function runCostView(run: Run): RunCostView {
  const methodOfNode = methods(run);
  let surface: RunCostView['surface'] = null;
  const results = { calls: 0, bytes: 0, tokens: 0, callsLeftOut: 0 };
  for (let i = run.instances.length - 1; i >= 0; i--) {
    const instance = run.instances[i] as Instance;
    const method = methodOfNode.get(instance.nodeId) ?? '';
    if (!hasCallCost(method, instance.output)) continue;
    if (method === 'tools/list') {
      const cost: Cost & { perTool: unknown[] } | undefined = surface === null ? callCost(method, instance.output)?.surface : undefined;
      if (cost !== undefined) surface = { instanceId: instance.instanceId, tools: cost.perTool.length, bytes: cost.bytes, tokens: cost.tokens };
    } else if (results.calls >= RUN_COST_CALLS) {
      results.callsLeftOut++;
    } else {
      const cost = callCost(method, instance.output)?.result as Cost;
      results.calls++;
      results.bytes += cost.bytes;
      results.tokens += cost.tokens;
    }
  }
  return { estimate: true, tokenizer: TOKENIZER, surface, results };
}

/** The lines `get_run` prints for the run's cost. */
export function runCostLines(view: RunCostView): string[] {
  const lines: string[] = [];
  if (view.surface !== null) lines.push(`the tool surface costs ${costText(view.surface)} on every turn (${view.surface.tools} tools, tools/list ${view.surface.instanceId})`);
  if (view.results.calls > 0) lines.push(`results the model read: ${view.results.calls} call(s), ${costText(view.results)}${view.results.callsLeftOut > 0 ? ` (the newest ${view.results.calls}; ${view.results.callsLeftOut} older left out)` : ''}`);
  return lines;
}
