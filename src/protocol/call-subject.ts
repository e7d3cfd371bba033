/**
 * A recorded call as the condition language sees it: the request and the
 * answer rebuilt as JSON-RPC messages from the run model (so `$.params…`
 * and `$.result…` mean on a recorded call what they mean on a live frame),
 * with its method, node, side, status, server time and size. One rule for
 * every place that picks recorded calls with an expression (`graphmind
 * mcp`'s `where`, `graphmind export --where`, the viewer's find bar).
 *
 * @module
 */
import type { ConditionSubject } from '../conditions/index.js';
import { isObject } from '../json/is-object.js';
import { isNotification, methodOf, serverInitiated } from './call-method.js';
import { callTimes } from './call-times.js';
import type { GraphNode, Instance } from './run-model.js';

/** A recorded value as plain data (a live run keeps values as their JSON text, read through `toJSON`). */
function plain(value: unknown): unknown {
  if (!isObject(value) || typeof value.toJSON !== 'function') return value;
  try {
    return (value.toJSON as () => unknown)();
  } catch {
    return undefined;
  }
}

/** The node's method when the node itself is not known: read from its id as the nodes are named. */
function methodOfId(nodeId: string): string {
  const kind = nodeId.slice(0, nodeId.indexOf(':'));
  const known = kind === 'tool' || kind === 'resource' || kind === 'prompt' || kind === 'llm' ? kind : 'custom';
  return methodOf({ nodeId, kind: known, label: nodeId });
}

/**
 * The request's params: what was recorded. The adapter records a tool's
 * or a prompt's handler input (its arguments), not the request's params:
 * those are put back in their place (`{ name, arguments }`).
 */
function paramsOf(method: string, input: unknown, nodeId: string, source: string | undefined): unknown {
  if (source !== 'mcp-adapter' || (method !== 'tools/call' && method !== 'prompts/get')) return input;
  const name = nodeId.slice(nodeId.indexOf(':') + 1);
  return input === undefined ? { name } : { name, arguments: input };
}

/** The answer: a JSON-RPC error, or the result (a failed tool result is a result with `isError`). */
function answerOf(instance: Instance, output: unknown): Record<string, unknown> {
  const answer: Record<string, unknown> = { jsonrpc: '2.0' };
  const error = instance.error;
  const errorResult = isObject(output) && output.isError === true;
  if (output !== undefined) answer.result = output;
  if (error !== undefined && !errorResult) {
    answer.error = { ...(typeof error.code === 'number' ? { code: error.code } : {}), message: error.message, name: error.name };
  }
  return answer;
}

/** UTF-8 bytes of `text`, without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * `instance` as a {@link ConditionSubject}: `node` is its graph node
 * (undefined: read from its id), `source` the run's source (`mcp-proxy`,
 * `mcp-adapter`…). `bytes` is counted only when an expression asks for it.
 */
export function callSubject(instance: Instance, node: Pick<GraphNode, 'nodeId' | 'kind' | 'label'> | undefined, source?: string): ConditionSubject {
  const method = node === undefined ? methodOfId(instance.nodeId) : methodOf(node);
  const notification = isNotification(method);
  const input = plain(instance.input);
  const request: Record<string, unknown> = { jsonrpc: '2.0', method };
  const params = paramsOf(method, input, instance.nodeId, source);
  if (params !== undefined) request.params = params;
  const answered = !notification && instance.status !== 'open';
  const answer = answered ? answerOf(instance, plain(instance.output)) : undefined;
  const serverMs = answered ? callTimes(instance).serverMs : null;
  let bytes: number | undefined;
  return {
    method,
    nodeId: instance.nodeId,
    from: serverInitiated(method) ? 'server' : 'host',
    kind: notification ? 'notification' : answered ? 'answer' : 'request',
    request,
    answer,
    status: instance.status,
    durationMs: serverMs ?? undefined,
    // Counted on first use: most expressions never ask, and a result may be megabytes.
    get bytes(): number {
      bytes ??= utf8Length(JSON.stringify(request)) + (answer === undefined ? 0 : utf8Length(JSON.stringify(answer)));
      return bytes;
    },
  };
}
