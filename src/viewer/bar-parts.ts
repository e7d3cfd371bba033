// How a waterfall bar is split: the server's time, and the time the
// debugger held the call, each in its place along the bar. Pure (no DOM),
// tested as a playbook. The total held and the server's time come from
// protocol/call-times (the one rule); where the held time sat is read from
// the run model: an answer held at the after (or error) gate was held at
// the end (from the answer's arrival to when it went on, or to the decision
// that replaced it), the rest of the held time at the before gate, at the
// start. (A Retry's holds sit between its attempts: drawn at the start,
// their length is still right.)
import type { Instance } from '../protocol/run-model.js';
import { callTimes } from '../protocol/call-times.js';

/** One part of a bar: whose time it is and its share of the bar (0–1). */
export interface BarPart {
  kind: 'held' | 'server';
  share: number;
}

function ms(from: string, to: string): number {
  const t = Date.parse(to) - Date.parse(from);
  return Number.isFinite(t) && t > 0 ? t : 0;
}

/** The parts of `instance`'s bar, in order along it; none for a call still waiting or never held. */
export function barParts(instance: Instance): BarPart[] {
  const { waitedMs, heldMs } = callTimes(instance);
  if (waitedMs === null || waitedMs <= 0 || heldMs <= 0 || instance.endedAt === null) return [];
  const held = Math.min(heldMs, waitedMs);
  const server = instance.changed?.server;
  // Held at the end: a held answer that went on, or the server's answer until the decision that replaced it.
  const atEnd = instance.deliveredAt !== undefined ? ms(instance.endedAt, instance.deliveredAt) : server !== undefined ? ms(server.endedAt, instance.endedAt) : 0;
  const after = Math.min(atEnd, held);
  const before = held - after;
  const parts: BarPart[] = [
    { kind: 'held', share: before / waitedMs },
    { kind: 'server', share: (waitedMs - held) / waitedMs },
    { kind: 'held', share: after / waitedMs },
  ];
  return parts.filter((part) => part.share > 0);
}
