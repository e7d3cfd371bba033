// The reporter's buffer as a playbook: events of runs go in (with a bound
// on their count and their bytes), a batch comes out. What is dropped, what
// is kept aside (a run's start, a graph's root), and what the runs are told
// of their losses, without a socket or a clock.
import t from 'tap';
import { COMPLETED_RUN } from '../src/report/completed-run.js';
import { EVENT_OVERHEAD_BYTES, EventBuffer, eventWeight } from '../src/report/event-buffer.js';
import type { RunEvent } from '../src/protocol/ingest.js';

const ROOT = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'session' } as const;
const TOOL = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' } as const;

/**
 * One step: `start r` (a run.started), `call r i` (an instance.started),
 * `root r` (the graph's root), `log r <n>` (a log of n characters), `end r`
 * (run.finished), `whole r` (a completed run of one call), `unsent` (the
 * next batch taken and never written), `take-unsent` and `fail` (batches
 * taken, then all found never written, in the order they were taken),
 * `take` (a batch taken and kept in the outcome).
 */
type Step = string;

interface Case {
  name: string;
  maxEvents: number;
  maxBytes?: number;
  steps: Step[];
  /** Each batch taken, its events as `type run [instance|count]`; then the starts reclaimed on attach. */
  batches: string[][];
  reclaims: string[];
}

const playbook: Case[] = [
  {
    name: 'within the bound: everything, in order',
    maxEvents: 10,
    steps: ['start a', 'call a i1', 'call a i2', 'take'],
    batches: [['run.started a', 'instance.started a i1', 'instance.started a i2']],
    reclaims: ['a'],
  },
  {
    name: 'over the count: the oldest go, the run is told how many (out of sequence), its start is reclaimed',
    maxEvents: 2,
    steps: ['start a', 'call a i1', 'call a i2', 'call a i3', 'call a i4', 'take'],
    batches: [['events.dropped a 2', 'instance.started a i3', 'instance.started a i4']],
    reclaims: ['a'],
  },
  {
    name: 'a graph root is never dropped: kept aside, it goes first',
    maxEvents: 2,
    steps: ['start a', 'root a', 'call a i1', 'call a i2', 'call a i3', 'take'],
    batches: [['instance.started a root', 'events.dropped a 1', 'instance.started a i2', 'instance.started a i3']],
    reclaims: ['a'],
  },
  {
    name: 'a live run whose start was dropped, finished later: its start goes first (it is not reclaimed any more)',
    maxEvents: 2,
    steps: ['start a', 'call a i1', 'call a i2', 'end a', 'take'],
    batches: [['run.started a', 'events.dropped a 1', 'instance.started a i2', 'run.finished a']],
    reclaims: [],
  },
  {
    name: 'a run wholly dropped after it ended: nothing of it is sent, nor told',
    maxEvents: 2,
    steps: ['start a', 'call a i1', 'end a', 'start b', 'call b i1', 'call b i2', 'take'],
    // (b's own start went too, while b is live: reclaimed on attach, not counted.)
    batches: [['instance.started b i1', 'instance.started b i2']],
    reclaims: ['b'],
  },
  {
    name: 'a completed run dropped whole is not counted',
    maxEvents: 1,
    steps: ['whole c', 'start a', 'take'],
    batches: [['run.started a']],
    reclaims: ['a'],
  },
  {
    name: 'the byte bound: log text counts, and the oldest go first',
    maxEvents: 100,
    maxBytes: 3 * EVENT_OVERHEAD_BYTES + 1000,
    steps: ['start a', 'log a 500', 'log a 400', 'log a 300', 'take'],
    batches: [['events.dropped a 1', 'log a 400', 'log a 300']],
    reclaims: ['a'],
  },
  {
    name: 'one event stays, however heavy',
    maxEvents: 100,
    maxBytes: 10,
    steps: ['start a', 'log a 5000', 'take'],
    batches: [['log a 5000']],
    reclaims: ['a'],
  },
  {
    name: 'a batch never written goes again first, before newer events',
    maxEvents: 10,
    steps: ['start a', 'call a i1', 'unsent', 'call a i2', 'take'],
    batches: [['run.started a', 'instance.started a i1', 'instance.started a i2']],
    reclaims: ['a'],
  },
  {
    name: 'batches never written, beyond the bound: the newest are kept, the oldest counted, order kept',
    maxEvents: 3,
    steps: ['start a', 'call a i1', 'call a i2', 'unsent', 'call a i3', 'unsent', 'call a i4', 'take'],
    batches: [['events.dropped a 1', 'instance.started a i2', 'instance.started a i3', 'instance.started a i4']],
    reclaims: ['a'],
  },
  {
    name: 'a batch never written behind one never written before it: both go, oldest first, before newer events',
    maxEvents: 10,
    steps: ['start a', 'call a i1', 'take-unsent', 'call a i2', 'take-unsent', 'call a i3', 'fail', 'take'],
    batches: [['run.started a', 'instance.started a i1', 'instance.started a i2', 'instance.started a i3']],
    reclaims: ['a'],
  },
  {
    name: 'a notice of drops never written is told again; a finished run comes back with its start, its drops counted',
    maxEvents: 2,
    steps: ['start a', 'call a i1', 'call a i2', 'call a i3', 'end a', 'unsent', 'call b i1', 'take'],
    batches: [['run.started a', 'events.dropped a 3', 'run.finished a', 'instance.started b i1']],
    reclaims: [],
  },
  {
    name: 'drops are told once: the next batch has no notice',
    maxEvents: 1,
    steps: ['start a', 'call a i1', 'call a i2', 'take', 'call a i3', 'take'],
    batches: [['events.dropped a 1', 'instance.started a i2'], ['instance.started a i3']],
    reclaims: ['a'],
  },
  {
    name: 'two runs: each is told its own drops, in the order they first lost one',
    maxEvents: 2,
    steps: ['start a', 'start b', 'call b i1', 'call a i1', 'call b i2', 'call a i2', 'take'],
    batches: [['events.dropped b 1', 'events.dropped a 1', 'instance.started b i2', 'instance.started a i2']],
    reclaims: ['a', 'b'],
  },
];

function describe(event: RunEvent): string {
  const parts: string[] = [event.type, event.runId];
  if ('instanceId' in event && event.type === 'instance.started') parts.push(event.instanceId);
  if (event.type === 'events.dropped') parts.push(String(event.count));
  if (event.type === 'log') parts.push(String(event.text.length));
  return parts.join(' ');
}

for (const { name, maxEvents, maxBytes, steps, batches, reclaims } of playbook) {
  t.test(name, async (t) => {
    const buffer = new EventBuffer(maxEvents, maxBytes ?? 1 << 30);
    const taken: string[][] = [];
    const inFlight: RunEvent[][] = [];
    for (const step of steps) {
      const [verb, runId = '', arg = ''] = step.split(' ');
      if (verb === 'take') {
        taken.push(buffer.takeBatch(1000, 0).map(describe));
        continue;
      }
      if (verb === 'unsent') {
        buffer.unsent(buffer.takeBatch(1000, 0));
        continue;
      }
      if (verb === 'take-unsent') {
        // A batch on its way; it fails only at the next `fail` (a connection dies with several unwritten).
        inFlight.push(buffer.takeBatch(1000, 0));
        continue;
      }
      if (verb === 'fail') {
        for (const batch of inFlight.splice(0)) buffer.unsent(batch);
        continue;
      }
      if (verb === 'start') {
        const event: RunEvent = { type: 'run.started', runId, seq: 1, t: 0, name: runId, source: 'test', meta: {} };
        buffer.start(event);
        buffer.push(event, null, eventWeight(event));
      } else if (verb === 'whole') {
        buffer.push({ type: COMPLETED_RUN, runId, seq: 1, t: 0 } as unknown as RunEvent, null, EVENT_OVERHEAD_BYTES);
      } else {
        const run = buffer.runOf(runId);
        const base = { runId, seq: ++run.seq, t: 0 };
        const event: RunEvent =
          verb === 'call'
            ? { ...base, type: 'instance.started', instanceId: arg, node: TOOL }
            : verb === 'root'
              ? { ...base, type: 'instance.started', instanceId: 'root', node: ROOT }
              : verb === 'log'
                ? { ...base, type: 'log', nodeId: 'tool:echo', stream: 'stderr', text: 'x'.repeat(Number(arg)) }
                : { ...base, type: 'run.finished', status: 'ok' };
        buffer.push(event, buffer.ownerOf(event, run), eventWeight(event));
      }
      buffer.trim();
    }
    t.same(taken, batches, 'the batches');
    t.same(buffer.reclaims().map((start) => start.runId).sort(), reclaims, 'the runs reclaimed on attach');
    t.equal(buffer.hasBacklog, false, 'nothing left behind');
  });
}
