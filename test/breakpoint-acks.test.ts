// The server's breakpoints and their acks as a playbook: reporters join,
// leave and ack, the breakpoints change, the clock moves (a fake one); out
// come what each reporter was sent, which PUTs have their answer, and what
// health says. No socket and no wall clock.
import t from 'tap';
import type { Breakpoints } from '../src/protocol/control.js';
import { breakpointsAck, BreakpointsState, type AckTimers, type BreakpointsPeer } from '../src/server/breakpoints.js';

/** Timers that fire only when the test moves the clock. */
class FakeTimers implements AckTimers {
  now = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;
  set(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.now + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, timer] of [...this.#timers]) {
      if (timer.at > this.now) continue;
      this.#timers.delete(id);
      timer.fn();
    }
  }
  get pending(): number {
    return this.#timers.size;
  }
}

/** A reporter's connection: the versions it was sent. */
class Peer implements BreakpointsPeer {
  sent: number[] = [];
  sendBreakpoints(_breakpoints: Breakpoints, version: number): void {
    this.sent.push(version);
  }
}

const ON: Breakpoints = { pauseOnError: true, nodes: {} };
const OFF: Breakpoints = { pauseOnError: false, nodes: {} };

/** One step: a reporter joins, leaves or acks; a PUT (named, so a later step can look at it); the clock moves. */
type Step =
  | ['join', string]
  | ['leave', string]
  | ['ack', string, number]
  | ['put', string]
  | ['advance', number];

interface Outcome {
  /** The PUTs that have their answer, in order of the steps that made them. */
  answered: string[];
  /** Versions each reporter was sent. */
  sent: Record<string, number[]>;
  /** GET /api/health's breakpoints. */
  health: { version: number; reporters: number; applied: number };
  /** Bounds still running (none leak once every PUT has its answer). */
  timers: number;
}

const playbook: Array<[string, Step[], Outcome]> = [
  [
    'no reporter: a PUT answers at once',
    [['put', 'p1']],
    { answered: ['p1'], sent: {}, health: { version: 2, reporters: 0, applied: 0 }, timers: 0 },
  ],
  [
    'a reporter is sent the breakpoints numbered as it joins, and health counts its ack',
    [['join', 'a'], ['ack', 'a', 1]],
    { answered: [], sent: { a: [1] }, health: { version: 1, reporters: 1, applied: 1 }, timers: 0 },
  ],
  [
    'a PUT waits for the one reporter: 1,999 ms on, no answer yet',
    [['join', 'a'], ['put', 'p1'], ['advance', 1999]],
    { answered: [], sent: { a: [1, 2] }, health: { version: 2, reporters: 1, applied: 0 }, timers: 1 },
  ],
  [
    'the ack answers it',
    [['join', 'a'], ['put', 'p1'], ['ack', 'a', 2]],
    { answered: ['p1'], sent: { a: [1, 2] }, health: { version: 2, reporters: 1, applied: 1 }, timers: 0 },
  ],
  [
    'two reporters: the PUT waits for both',
    [['join', 'a'], ['join', 'b'], ['put', 'p1'], ['ack', 'a', 2]],
    { answered: [], sent: { a: [1, 2], b: [1, 2] }, health: { version: 2, reporters: 2, applied: 1 }, timers: 1 },
  ],
  [
    'two reporters, both ack',
    [['join', 'a'], ['join', 'b'], ['put', 'p1'], ['ack', 'b', 2], ['ack', 'a', 2]],
    { answered: ['p1'], sent: { a: [1, 2], b: [1, 2] }, health: { version: 2, reporters: 2, applied: 2 }, timers: 0 },
  ],
  [
    'a reporter that never acks (an old one) is waited for up to the bound, 2 s',
    [['join', 'old'], ['put', 'p1'], ['advance', 2000]],
    { answered: ['p1'], sent: { old: [1, 2] }, health: { version: 2, reporters: 1, applied: 0 }, timers: 0 },
  ],
  [
    'a reporter that goes away does not hold the PUT up',
    [['join', 'a'], ['join', 'b'], ['put', 'p1'], ['ack', 'a', 2], ['leave', 'b']],
    { answered: ['p1'], sent: { a: [1, 2], b: [1, 2] }, health: { version: 2, reporters: 1, applied: 1 }, timers: 0 },
  ],
  [
    'a reporter that joins after the PUT is not waited for (it is sent the new ones on joining)',
    [['join', 'a'], ['put', 'p1'], ['join', 'late'], ['ack', 'a', 2]],
    { answered: ['p1'], sent: { a: [1, 2], late: [2] }, health: { version: 2, reporters: 2, applied: 1 }, timers: 0 },
  ],
  [
    'an ack of an older version does not answer a newer PUT',
    [['join', 'a'], ['put', 'p1'], ['put', 'p2'], ['ack', 'a', 2]],
    { answered: ['p1'], sent: { a: [1, 2, 3] }, health: { version: 3, reporters: 1, applied: 0 }, timers: 1 },
  ],
  [
    'an ack of the newest version answers every PUT before it too',
    [['join', 'a'], ['put', 'p1'], ['put', 'p2'], ['ack', 'a', 3]],
    { answered: ['p1', 'p2'], sent: { a: [1, 2, 3] }, health: { version: 3, reporters: 1, applied: 1 }, timers: 0 },
  ],
  [
    'an ack of a version never sent changes nothing',
    [['join', 'a'], ['put', 'p1'], ['ack', 'a', 99]],
    { answered: [], sent: { a: [1, 2] }, health: { version: 2, reporters: 1, applied: 0 }, timers: 1 },
  ],
  [
    'an ack from a reporter that left changes nothing',
    [['join', 'a'], ['leave', 'a'], ['ack', 'a', 1]],
    { answered: [], sent: { a: [1] }, health: { version: 1, reporters: 0, applied: 0 }, timers: 0 },
  ],
  [
    'the bound runs per PUT: the first times out, the second still waits',
    [['join', 'a'], ['put', 'p1'], ['advance', 1000], ['put', 'p2'], ['advance', 1000]],
    { answered: ['p1'], sent: { a: [1, 2, 3] }, health: { version: 3, reporters: 1, applied: 0 }, timers: 1 },
  ],
];

for (const [name, steps, expected] of playbook) {
  t.test(name, async (t) => {
    const timers = new FakeTimers();
    const state = new BreakpointsState(ON, { timers });
    const peers = new Map<string, Peer>();
    const answered: string[] = [];
    const settled: Array<Promise<void>> = [];
    for (const step of steps) {
      if (step[0] === 'join') {
        const peer = new Peer();
        peers.set(step[1], peer);
        state.join(peer);
      } else if (step[0] === 'leave') state.leave(peers.get(step[1]) as Peer);
      else if (step[0] === 'ack') state.ack(peers.get(step[1]) as Peer, step[2]);
      else if (step[0] === 'advance') timers.advance(step[1]);
      else {
        const put = step[1];
        settled.push(state.set(OFF).then(() => void answered.push(put)));
      }
      // Let the promises of answered PUTs run before the next step.
      await Promise.resolve();
      await Promise.resolve();
    }
    t.same(answered, expected.answered, 'answered');
    t.same(Object.fromEntries([...peers].map(([key, peer]) => [key, peer.sent])), expected.sent, 'sent');
    t.same(state.health(), expected.health, 'health');
    t.equal(timers.pending, expected.timers, 'timers');
    t.same(state.current, steps.some((step) => step[0] === 'put') ? OFF : ON, 'the breakpoints in force');
  });
}

t.test('what counts as an ack', async (t) => {
  const table: Array<[unknown, number | undefined]> = [
    [{ type: 'breakpoints.ack', version: 3 }, 3],
    [{ type: 'breakpoints.ack', version: 3, more: true }, 3],
    [{ type: 'breakpoints.ack', version: 0 }, undefined],
    [{ type: 'breakpoints.ack', version: -1 }, undefined],
    [{ type: 'breakpoints.ack', version: 1.5 }, undefined],
    [{ type: 'breakpoints.ack', version: '3' }, undefined],
    [{ type: 'breakpoints.ack' }, undefined],
    [{ type: 'run.started', version: 3 }, undefined],
    [[{ type: 'breakpoints.ack', version: 3 }], undefined],
    [null, undefined],
    ['breakpoints.ack', undefined],
  ];
  for (const [message, version] of table) t.equal(breakpointsAck(message), version, JSON.stringify(message));
});
