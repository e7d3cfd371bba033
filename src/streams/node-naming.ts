import type { Direction, NodeRef } from './frame.js';

/** The session node: the server process and everything said with it. */
export const SESSION_NODE_ID = 'mcp:session';
/** The folded card that holds handshake, listings and other protocol chatter. */
export const PROTOCOL_NODE_ID = 'mcp:protocol';
/** Lines on the server's stdout that are not JSON-RPC. */
export const STDOUT_NOISE_NODE_ID = 'mcp:stdout-noise';

// The caches only save allocations: the same call gets the same NodeRef
// object. One map per kind of node, keyed by the string that varies, so a
// lookup needs no key built per call.
/** Most entries a cache keeps: servers with endless distinct resource URIs must not grow it without bound. */
const MAX_CACHED = 4096;
const protocolNodes = new Map<string, NodeRef>();
const toolNodes = new Map<string, NodeRef>();
const resourceNodes = new Map<string, NodeRef>();
const promptNodes = new Map<string, NodeRef>();
const elicitationNodes = new Map<string, NodeRef>();
// Nodes are shared by every frame of their kind, and frozen: nothing may
// change one under the others (a reporter may also cache its JSON).
const COMPLETION_NODE: NodeRef = Object.freeze({ nodeId: 'mcp:completion/complete', kind: 'custom', parent: SESSION_NODE_ID, label: 'completion/complete' });
const SAMPLING_NODE: NodeRef = Object.freeze({ nodeId: 'llm:sampling', kind: 'llm', parent: SESSION_NODE_ID, label: 'sampling' });

function remember(cache: Map<string, NodeRef>, key: string, ref: NodeRef): NodeRef {
  if (cache.size >= MAX_CACHED) cache.clear();
  Object.freeze(ref);
  cache.set(key, ref);
  return ref;
}

function protocolNode(method: string): NodeRef {
  return (
    protocolNodes.get(method) ??
    remember(protocolNodes, method, { nodeId: `mcp:${method}`, kind: 'custom', parent: PROTOCOL_NODE_ID, label: method })
  );
}

/**
 * The one field of a request's params that names its node (`name` or
 * `uri`), or undefined when the method's node does not depend on params.
 */
export function namingParam(method: string, direction: Direction): 'name' | 'uri' | undefined {
  if (direction !== 'client-to-server') return undefined;
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  return undefined;
}

function stringParam(params: unknown, key: string): string | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  const value = (params as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The graph node a request or notification belongs to, by the proxy's
 * naming table. Work calls sit under the session; everything else is
 * protocol traffic. Direction matters: a `tools/call` sent by the server to
 * the client is protocol, not a tool call. `params` needs only the field
 * {@link namingParam} names.
 */
export function nodeForMethod(method: string, direction: Direction, params: unknown): NodeRef {
  const key = namingParam(method, direction);
  return nodeFor(method, direction, key === undefined ? undefined : stringParam(params, key));
}

/**
 * The node of a call, given the one params field that names it (see
 * {@link namingParam}) already read: the classifier's allocation-free path.
 */
export function nodeFor(method: string, direction: Direction, field: string | undefined): NodeRef {
  if (direction === 'client-to-server') {
    switch (method) {
      case 'tools/call':
        if (field !== undefined) {
          return toolNodes.get(field) ?? remember(toolNodes, field, { nodeId: `tool:${field}`, kind: 'tool', parent: SESSION_NODE_ID, label: field });
        }
        break;
      case 'resources/read':
        if (field !== undefined) {
          return (
            resourceNodes.get(field) ??
            remember(resourceNodes, field, { nodeId: `resource:${field}`, kind: 'resource', parent: SESSION_NODE_ID, label: field })
          );
        }
        break;
      case 'prompts/get':
        if (field !== undefined) {
          return promptNodes.get(field) ?? remember(promptNodes, field, { nodeId: `prompt:${field}`, kind: 'prompt', parent: SESSION_NODE_ID, label: field });
        }
        break;
      case 'completion/complete':
        return COMPLETION_NODE;
    }
  } else if (method === 'sampling/createMessage') {
    return SAMPLING_NODE;
  } else if (method.startsWith('elicitation/')) {
    return (
      elicitationNodes.get(method) ??
      remember(elicitationNodes, method, { nodeId: `mcp:${method}`, kind: 'custom', parent: SESSION_NODE_ID, label: method })
    );
  }
  return protocolNode(method);
}

/** The node of a non-JSON-RPC line the server wrote to stdout. */
export const STDOUT_NOISE_NODE: NodeRef = Object.freeze({
  nodeId: STDOUT_NOISE_NODE_ID,
  kind: 'custom',
  parent: PROTOCOL_NODE_ID,
  label: 'stdout noise',
});
