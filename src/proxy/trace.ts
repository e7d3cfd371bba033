import { idForDisplay } from '../streams/exact-id.js';
import type { Frame } from '../streams/frame.js';

/** One `--trace` line for a relayed frame. */
export function traceLine(frame: Frame): string {
  const arrow = frame.direction === 'client-to-server' ? 'client → server' : 'server → client';
  const parts = [`graphmind mcp-proxy: trace ${arrow}`, frame.type ?? 'raw'];
  if (frame.method !== undefined) parts.push(frame.method);
  if (frame.id !== undefined) parts.push(`#${typeof frame.id === 'number' ? idForDisplay(frame) : JSON.stringify(frame.id)}`);
  if (frame.node !== undefined && frame.node.kind !== 'custom') parts.push(frame.node.nodeId);
  parts.push(`(${frame.size} bytes)`);
  return `${parts.join(' ')}\n`;
}
