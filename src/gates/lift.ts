/**
 * Lifting: what a user injects is usually the answer, not the envelope. A
 * bare value is turned into the result shape its method must return, so
 * the client's SDK accepts it. One implementation, shared by the proxy and
 * the in-process adapter.
 *
 * @module
 */

import { isObject } from '../json/is-object.js';

/** The protocol revision whose results carry `resultType` (and, for reads, cache fields). */
export const ERA_2026 = '2026-07-28';

/** The `_meta` key under which 2026-era requests name their protocol version. */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/** Options for {@link liftResult}. */
export interface LiftOptions {
  /** The protocol version the peers negotiated, if known. */
  protocolVersion?: string;
  /** For `resources/read`: the URI that was asked for. */
  uri?: string;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/**
 * Nothing was injected: `null` (JSON, and so the control API and the
 * viewer, has no `undefined`: an empty inject arrives as `null`) or
 * `undefined` (an in-process decision without a value). It lifts to the
 * method's empty result, never to the text `"null"`.
 */
function isNothing(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** True if `value` is a whole JSON-RPC message (it has a `jsonrpc` key), to be relayed verbatim. */
export function isWholeFrame(value: unknown): value is Record<string, unknown> {
  return isObject(value) && 'jsonrpc' in value;
}

function liftTool(value: unknown): Record<string, unknown> {
  if (isObject(value) && ('content' in value || 'structuredContent' in value)) return value;
  if (isNothing(value)) return { content: [] };
  const text = { type: 'text', text: asText(value) };
  // structuredContent must be an object; a tool with an outputSchema then accepts it.
  return isObject(value) ? { content: [text], structuredContent: value } : { content: [text] };
}

function liftResource(value: unknown, uri: string): Record<string, unknown> {
  if (isObject(value) && 'contents' in value) return value;
  if (isNothing(value)) return { contents: [] };
  if (typeof value === 'string') return { contents: [{ uri, mimeType: 'text/plain', text: value }] };
  return { contents: [{ uri, mimeType: 'application/json', text: asText(value) }] };
}

function liftPrompt(value: unknown): Record<string, unknown> {
  if (isObject(value) && 'messages' in value) return value;
  if (isNothing(value)) return { messages: [] };
  return { messages: [{ role: 'user', content: { type: 'text', text: asText(value) } }] };
}

function liftSampling(value: unknown): Record<string, unknown> {
  if (isObject(value) && 'role' in value && 'content' in value) return value;
  return {
    role: 'assistant',
    content: { type: 'text', text: asText(value ?? '') },
    model: 'graphmind-inject',
    stopReason: 'endTurn',
  };
}

/**
 * The `result` a client receives for an injected `value` at a `method`'s
 * gate. A method we do not model gets the value as typed. On a 2026-07-28
 * session the lifted result is stamped with `resultType: "complete"` (and
 * `ttlMs: 0`, `cacheScope: "private"` for `resources/read`) unless it
 * already says otherwise.
 *
 * Whole frames are not results: check {@link isWholeFrame} first and relay
 * those verbatim.
 */
export function liftResult(method: string | undefined, value: unknown, options: LiftOptions = {}): unknown {
  let result: unknown;
  switch (method) {
    case 'tools/call':
      result = liftTool(value);
      break;
    case 'resources/read':
      result = liftResource(value, options.uri ?? '');
      break;
    case 'prompts/get':
      result = liftPrompt(value);
      break;
    case 'sampling/createMessage':
      result = liftSampling(value);
      break;
    default:
      return value;
  }
  if (options.protocolVersion === ERA_2026 && isObject(result)) {
    const stamped: Record<string, unknown> = { ...result };
    stamped.resultType ??= 'complete';
    if (method === 'resources/read') {
      stamped.ttlMs ??= 0;
      stamped.cacheScope ??= 'private';
    }
    return stamped;
  }
  return result;
}

/**
 * The protocol version a request's answer is stamped for: the one the
 * request pins in `params._meta` (2026-07-28 requests carry theirs), else
 * the one the session negotiated.
 */
export function eraOf(params: unknown, sessionEra: string | undefined): string | undefined {
  const meta = isObject(params) ? params._meta : undefined;
  const pinned = isObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  return typeof pinned === 'string' ? pinned : sessionEra;
}

/** The {@link LiftOptions} for answering a request with these `params`, in a session of `sessionEra`. */
export function liftOptionsFor(params: unknown, sessionEra: string | undefined): LiftOptions {
  const uri = isObject(params) && typeof params.uri === 'string' ? params.uri : undefined;
  return { protocolVersion: eraOf(params, sessionEra), uri };
}
