import type { Breakpoints } from '../report/events.js';

const MAX_NODES = 10_000;
const MAX_NODE_ID = 1024;

/**
 * Check a `PUT /api/breakpoints` body. Returns the breakpoints, copied into
 * a clean object, or a short reason for a 400.
 */
export function parseBreakpoints(body: unknown): Breakpoints | string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body must be an object';
  const { pauseOnError, nodes, ...rest } = body as Record<string, unknown>;
  // The field's name is not echoed back: errors never reflect input.
  if (Object.keys(rest).length > 0) return 'only pauseOnError and nodes are allowed';
  if (typeof pauseOnError !== 'boolean') return 'pauseOnError must be true or false';
  if (nodes === null || typeof nodes !== 'object' || Array.isArray(nodes)) return 'nodes must be an object keyed by nodeId';
  const entries = Object.entries(nodes as Record<string, unknown>);
  if (entries.length > MAX_NODES) return `at most ${MAX_NODES} nodes`;
  const clean: Breakpoints['nodes'] = Object.create(null) as Breakpoints['nodes'];
  for (const [nodeId, value] of entries) {
    if (nodeId.length === 0 || nodeId.length > MAX_NODE_ID) return 'a nodeId must be 1 to 1024 characters';
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'each node takes { before?, after? }';
    const { before, after, ...others } = value as Record<string, unknown>;
    if (Object.keys(others).length > 0) return 'each node takes only before and after';
    if (before !== undefined && typeof before !== 'boolean') return 'before must be true or false';
    if (after !== undefined && typeof after !== 'boolean') return 'after must be true or false';
    const point: { before?: boolean; after?: boolean } = {};
    if (before !== undefined) point.before = before;
    if (after !== undefined) point.after = after;
    clean[nodeId] = point;
  }
  return { pauseOnError, nodes: { ...clean } };
}
