// What the user has open in a run, as transitions of the page's state:
// select a node (its held call, else its latest, unfolds), open one call.
// No DOM and no requests, so the live reducer uses them as a click does.
import { Dirty, type Step, type ViewState } from './view-state.js';

/** Select a node (or none); selecting one expands its held call, else its latest. */
export function selectNode(state: ViewState, step: Step, nodeId: string | null): void {
  if (nodeId === state.selectedNodeId) return;
  state.selectedNodeId = nodeId;
  if (nodeId !== null && state.run !== null) {
    const entry = state.run.node(nodeId);
    const held = state.holdOn(nodeId);
    if (held !== undefined) state.expanded.add(held.instanceId);
    else {
      const last = entry?.instances[entry.instances.length - 1];
      if (last !== undefined) state.expanded.add(last.instanceId);
    }
  }
  step.dirty |= Dirty.Selection;
}

/**
 * Open one call: its node selected, the call expanded, scrolled into view
 * in the node's list, and marked as the one open in the timeline.
 */
export function openCall(state: ViewState, step: Step, nodeId: string, instanceId: string): void {
  selectNode(state, step, nodeId);
  state.expanded.add(instanceId);
  state.activeInstance = instanceId;
  state.reveal = instanceId;
  step.dirty |= Dirty.Selection | Dirty.Find;
}
