/**
 * The MCP method of a recorded call, read back from its node, and which
 * side sends it: one rule for the exports, replay and Send again (the
 * viewer reads it here too).
 *
 * @module
 */
import type { NodeDeclaration } from './ingest.js';

/** Requests and notifications that the server sends to the client (the others go the other way). */
const SERVER_TO_CLIENT = new Set([
  'sampling/createMessage',
  'roots/list',
  'notifications/message',
  'notifications/progress',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
]);

/**
 * The MCP method of a call on `node`: the proxy's and the adapter's node
 * naming read backwards (`tool:x` is a `tools/call`, `mcp:ping` a `ping`).
 * A node of another kind (an adapter's custom node) is named by its label.
 */
export function methodOf(node: Pick<NodeDeclaration, 'nodeId' | 'kind' | 'label'>): string {
  switch (node.kind) {
    case 'tool':
      return 'tools/call';
    case 'resource':
      return 'resources/read';
    case 'prompt':
      return 'prompts/get';
    case 'llm':
      return 'sampling/createMessage';
    default:
      return node.nodeId.startsWith('mcp:') ? node.nodeId.slice(4) : node.label;
  }
}

/** Did the server send this (a sampling request, a log message…) rather than the client? */
export function serverInitiated(method: string): boolean {
  return SERVER_TO_CLIENT.has(method) || method.startsWith('elicitation/');
}

/** A notification expects no answer. */
export function isNotification(method: string): boolean {
  return method.startsWith('notifications/');
}
