// The drift line a run records on a list call (relay/drift-watch.ts writes
// it: a heading, then `<class>: <message>` per change), read back. No DOM:
// drift-changes.ts draws it.

/** The log stream drift lines are recorded on. */
export const DRIFT_STREAM = 'drift';

const CLASSES = new Set(['breaking', 'risky', 'benign']);

/** One change as the viewer shows it. */
export interface DriftChange {
  /** `breaking`, `risky` or `benign` (anything else reads as `risky`). */
  class: string;
  /** What changed, in words. */
  message: string;
}

/** A drift line read back: its heading and its changes. */
export function parseDriftText(text: string): { heading: string; changes: DriftChange[] } {
  const [heading = '', ...rest] = text.split('\n');
  const changes: DriftChange[] = [];
  for (const line of rest) {
    const colon = line.indexOf(': ');
    const klass = colon === -1 ? '' : line.slice(0, colon);
    if (CLASSES.has(klass)) changes.push({ class: klass, message: line.slice(colon + 2) });
    else if (line.trim() !== '') changes.push({ class: 'risky', message: line });
  }
  return { heading, changes };
}
