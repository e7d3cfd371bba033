import { createHash } from 'node:crypto';
import type { NodeDeclaration } from '../protocol/ingest.js';

/** The longest nodeId `graphmind serve` accepts; a longer one would get the whole batch rejected. */
export const MAX_NODE_ID_LENGTH = 1024;

/**
 * The node as declared to the debugger: a nodeId too long for it (a tool
 * name or resource URI of kilobytes) is shortened, stably, to a prefix and
 * a hash of the whole id, so one such call neither breaks the report nor
 * merges with another node.
 */
export function declared(node: NodeDeclaration): NodeDeclaration {
  if (node.nodeId.length <= MAX_NODE_ID_LENGTH) return node;
  const hash = createHash('sha256').update(node.nodeId).digest('hex').slice(0, 16);
  const label = node.label.length > 200 ? `${node.label.slice(0, 199)}…` : node.label;
  return { ...node, nodeId: `${node.nodeId.slice(0, 1000)}…#${hash}`, label };
}
