/**
 * Whose line it was: a line the server printed outside the protocol (on
 * stderr, or stdout noise) is put on the call in flight when it came, if
 * that call was the only one. The rule is a guess a person would make too:
 * with one call in flight the server is most likely serving it; with none,
 * or two and more, nobody can tell, and the line stays on the session.
 *
 * @module
 */

import type { InstanceError } from '../protocol/run-model.js';
import type { Frame } from '../streams/frame.js';
import type { OpenCalls } from './open-calls.js';

const NONE: ReadonlySet<Frame> = new Set();

/** The call a line is put on: its node and its instance. */
export interface LineOwner {
  /** The call's node (`tool:greet`). */
  nodeId: string;
  /** The call's instance (`mcp_5`). */
  instanceId: string;
}

/**
 * The call a line that comes now belongs to: the one call in flight, when
 * there is exactly one the debugger knows (`unkept`: calls in flight only
 * counted while no debugger was attached, whose ids nobody sees). Not the
 * handshake (`initialize`, `server/discover`): what a server prints while
 * it starts (a banner, its config) belongs to the session, and a host
 * sends `initialize` before the server has even started. Nor a request
 * held at a before gate (`unsent`): its receiver has not got it. `known`
 * says whether the debugger knows an instance id.
 */
export function lineOwner(
  open: OpenCalls,
  unkept: number,
  known: (instanceId: string | undefined) => instanceId is string,
  unsent: ReadonlySet<Frame> = NONE,
): LineOwner | undefined {
  if (unkept !== 0) return undefined;
  // A request held at a before gate has not reached its receiver: it is not what the server is busy with.
  const call: Frame | undefined = unsent.size === 0 ? open.only() : open.onlyOutside(unsent);
  if (call === undefined || call.method === 'initialize' || call.method === 'server/discover') return undefined;
  const node = call.node;
  const instanceId = call.instanceId;
  if (node === undefined || !known(instanceId)) return undefined;
  return { nodeId: node.nodeId, instanceId };
}

/** The error of a stdout-noise record; `owner`, the call it came during, goes in its data (`{ during: { nodeId, instanceId } }`). */
export function noiseError(owner: LineOwner | undefined): InstanceError {
  const error: InstanceError = { name: 'StdoutNoise', message: 'the server wrote a line to stdout that is not JSON-RPC' };
  if (owner !== undefined) error.data = { during: { nodeId: owner.nodeId, instanceId: owner.instanceId } };
  return error;
}
