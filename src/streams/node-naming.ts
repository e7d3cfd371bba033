import type { Direction, NodeRef } from './frame.js';

/** The session node: the server process and everything said with it. */
export const SESSION_NODE_ID = 'mcp:session';
/** The folded card that holds handshake, listings and other protocol chatter. */
export const PROTOCOL_NODE_ID = 'mcp:protocol';
/** Lines on the server's stdout that are not JSON-RPC. */
export const STDOUT_NOISE_NODE_ID = 'mcp:stdout-noise';

const cache = new Map<string, NodeRef>();

function cached(key: string, make: () => NodeRef): NodeRef {
  let ref = cache.get(key);
  if (ref === undefined) {
    ref = make();
    // The cache only saves allocations; keep it from growing without bound
    // on servers with endless distinct resource URIs.
    if (cache.size > 4096) cache.clear();
    cache.set(key, ref);
  }
  return ref;
}

function protocolNode(method: string): NodeRef {
  return cached(`p\0${method}`, () => ({
    nodeId: `mcp:${method}`,
    kind: 'custom',
    parent: PROTOCOL_NODE_ID,
    label: method,
  }));
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
      case 'tools/call': {
        const name = field;
        if (name !== undefined) {
          return cached(`t\0${name}`, () => ({ nodeId: `tool:${name}`, kind: 'tool', parent: SESSION_NODE_ID, label: name }));
        }
        break;
      }
      case 'resources/read': {
        const uri = field;
        if (uri !== undefined) {
          return cached(`r\0${uri}`, () => ({ nodeId: `resource:${uri}`, kind: 'resource', parent: SESSION_NODE_ID, label: uri }));
        }
        break;
      }
      case 'prompts/get': {
        const name = field;
        if (name !== undefined) {
          return cached(`g\0${name}`, () => ({ nodeId: `prompt:${name}`, kind: 'prompt', parent: SESSION_NODE_ID, label: name }));
        }
        break;
      }
      case 'completion/complete':
        return cached('c\0', () => ({ nodeId: 'mcp:completion/complete', kind: 'custom', parent: SESSION_NODE_ID, label: 'completion/complete' }));
    }
  } else if (method === 'sampling/createMessage') {
    return cached('s\0', () => ({ nodeId: 'llm:sampling', kind: 'llm', parent: SESSION_NODE_ID, label: 'sampling' }));
  } else if (method.startsWith('elicitation/')) {
    return cached(`e\0${method}`, () => ({ nodeId: `mcp:${method}`, kind: 'custom', parent: SESSION_NODE_ID, label: method }));
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
