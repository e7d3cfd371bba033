// How a waterfall bar is split: the server's time, and the time the
// debugger held the call, each in its place along the bar. Pure (no DOM),
// tested as a playbook. The total held and the server's time come from
// protocol/call-times (the one rule); where the held time sat is read from
// the run model: a Retry's holds sit between its attempts (from an answer's
// arrival, `attempts[i].endedAt`, to the request sent again, `retriedAt`);
// an answer held at the after (or error) gate was held at the end (from the
// answer's arrival to when it went on, or to the decision that replaced
// it); the rest of the held time was at the before gate, at the start.
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

/** Held at the end: a held answer that went on, or the server's answer until the decision that replaced it (ms). */
function heldAtEnd(instance: Instance, endedAt: string): number {
  if (instance.deliveredAt !== undefined) return ms(endedAt, instance.deliveredAt);
  const server = instance.changed?.server;
  return server !== undefined ? ms(server.endedAt, endedAt) : 0;
}

/** The parts of `instance`'s bar, in order along it; none for a call still waiting or never held. */
export function barParts(instance: Instance): BarPart[] {
  const { waitedMs, heldMs } = callTimes(instance);
  if (waitedMs === null || waitedMs <= 0 || heldMs <= 0 || instance.endedAt === null) return [];
  let left = Math.min(heldMs, waitedMs);
  // The held time is placed where it was, the end first, then between the attempts; what is left of it was at the start.
  const after = Math.min(heldAtEnd(instance, instance.endedAt), left);
  left -= after;
  const attempts = instance.attempts ?? [];
  const between = attempts.map((attempt) => {
    const held = Math.min(ms(attempt.endedAt, attempt.retriedAt), left);
    left -= held;
    return held;
  });
  const before = left;
  let server = waitedMs - Math.min(heldMs, waitedMs);
  const parts: BarPart[] = [{ kind: 'held', share: before / waitedMs }];
  // Each attempt's server time: from its request (the call's start, or the last retry) to its answer, less the held time before it.
  let from = instance.startedAt;
  let skip = before;
  attempts.forEach((attempt, i) => {
    const own = Math.min(Math.max(0, ms(from, attempt.endedAt) - skip), server);
    server -= own;
    parts.push({ kind: 'server', share: own / waitedMs }, { kind: 'held', share: (between[i] as number) / waitedMs });
    from = attempt.retriedAt;
    skip = 0;
  });
  parts.push({ kind: 'server', share: server / waitedMs }, { kind: 'held', share: after / waitedMs });
  return merged(parts.filter((part) => part.share > 0));
}

/** Neighbours of one kind as one part (a part of nothing between them was left out). */
function merged(parts: readonly BarPart[]): BarPart[] {
  const out: BarPart[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (last !== undefined && last.kind === part.kind) last.share += part.share;
    else out.push({ ...part });
  }
  return out;
}
