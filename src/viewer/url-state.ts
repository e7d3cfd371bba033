// The page's address names the run the user chose and the node selected in
// it (`#run=<runId>&node=<nodeId>`), so a reload, or a link pasted into
// another tab, opens the same place. While the page follows the newest run,
// the address names nothing: a reload follows the newest run again.

/** A place in the viewer, as the address names it. */
export interface Place {
  runId: string | null;
  nodeId: string | null;
}

/** The place named by an address's fragment (`location.hash`). */
export function readPlace(hash: string): Place {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const runId = params.get('run');
  const nodeId = params.get('node');
  const run = runId === null || runId === '' ? null : runId;
  // A node is named only within its run.
  return { runId: run, nodeId: run === null || nodeId === null || nodeId === '' ? null : nodeId };
}

/** The fragment that names `place` (empty when it names no run). */
export function placeHash(place: Place): string {
  if (place.runId === null) return '';
  const params = new URLSearchParams({ run: place.runId });
  if (place.nodeId !== null) params.set('node', place.nodeId);
  return `#${params.toString()}`;
}
