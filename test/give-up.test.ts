// The give-up rule as a playbook (src/gates/give-up.ts): a hold whose
// requester gives up stays open and is reported as given up, once per
// distinct reason, while it waits; when the session ends it is released.
// Every integration reports through DebuggerGate.giveUp, so this is the rule
// for all three.
import { EventEmitter } from 'node:events';
import t from 'tap';
import { DebuggerGate, type HoldOpened, type HoldReleased, type HoldUpdated } from '../src/gates/debugger-gate.js';
import type { Decision, PendingHold } from '../src/gates/gate.js';
import { cancelledBy, isNewGiveUp } from '../src/gates/give-up.js';

type Sent = HoldOpened | HoldReleased | HoldUpdated;

/** A reporter that keeps what it is sent (and can be told to throw). */
function fakeReporter() {
  return Object.assign(new EventEmitter(), {
    attached: true,
    url: 'http://127.0.0.1:4747',
    sent: [] as Array<[string, Sent]>,
    broken: false,
    send(runId: string, event: Sent): void {
      if (this.broken) throw new Error('the reporter broke');
      this.sent.push([runId, event]);
    },
  });
}

/** One thing that happens to a hold of run `r1` opened at the start. */
type Step =
  | ['giveUp', string]
  | ['giveUpAs', string, string] // another run's id, and a reason
  | ['giveUpUnknown', string]
  | ['decide', string]
  | ['releaseRun', string]
  | ['detach']
  | ['break'];

interface Play {
  name: string;
  steps: Step[];
  /** The `givenUp` of every `hold.updated` sent, in order. */
  reported: string[];
  /** How the hold ended: its action and whether nobody decided (undefined: still open). */
  ended: { action: string; auto: boolean } | undefined;
}

const playbook: Play[] = [
  { name: 'a requester gives up: reported once, the hold stays open', steps: [['giveUp', 'the client cancelled']], reported: ['the client cancelled'], ended: undefined },
  { name: 'the same reason twice is reported once', steps: [['giveUp', 'gone'], ['giveUp', 'gone']], reported: ['gone'], ended: undefined },
  { name: 'each distinct reason is reported', steps: [['giveUp', 'cancelled'], ['giveUp', 'gone']], reported: ['cancelled', 'gone'], ended: undefined },
  { name: 'a reason again after another is news again (the debugger shows the latest)', steps: [['giveUp', 'a'], ['giveUp', 'b'], ['giveUp', 'a']], reported: ['a', 'b', 'a'], ended: undefined },
  { name: 'an empty reason says nothing', steps: [['giveUp', '']], reported: [], ended: undefined },
  { name: 'a given-up hold is still decided by the user', steps: [['giveUp', 'gone'], ['decide', 'abort']], reported: ['gone'], ended: { action: 'abort', auto: false } },
  { name: 'a decided hold is not reported', steps: [['decide', 'continue'], ['giveUp', 'gone']], reported: [], ended: { action: 'continue', auto: false } },
  { name: 'the session ends: the given-up hold is released', steps: [['giveUp', 'gone'], ['releaseRun', 'r1']], reported: ['gone'], ended: { action: 'continue', auto: true } },
  { name: 'a released hold is not reported', steps: [['releaseRun', 'r1'], ['giveUp', 'gone']], reported: [], ended: { action: 'continue', auto: true } },
  { name: 'another run ending leaves it open', steps: [['releaseRun', 'r2'], ['giveUp', 'gone']], reported: ['gone'], ended: undefined },
  { name: 'the debugger goes away: released, nothing more reported', steps: [['detach'], ['giveUp', 'gone']], reported: [], ended: { action: 'continue', auto: true } },
  { name: 'a hold named with another run is not touched', steps: [['giveUpAs', 'r2', 'gone']], reported: [], ended: undefined },
  { name: 'an unknown hold is not reported', steps: [['giveUpUnknown', 'gone']], reported: [], ended: undefined },
  { name: 'a reporter that throws does not reach the caller, and the reason counts as given', steps: [['break'], ['giveUp', 'gone'], ['giveUp', 'gone']], reported: [], ended: undefined },
];

for (const play of playbook) {
  t.test(play.name, async (t) => {
    const reporter = fakeReporter();
    const core = new DebuggerGate({ reporter });
    reporter.emit('breakpoints', { pauseOnError: true, nodes: {} });
    let hold: PendingHold | undefined;
    let ended: Decision | undefined;
    const held = core.withHold(
      { runId: 'r1', nodeId: 'tool:echo', instanceId: 'i1', method: 'tools/call', frame: {} },
      { point: 'before', reason: 'breakpoint' },
      (decision) => (ended = decision),
      (opened) => (hold = opened),
    );
    t.ok(hold, 'the hold opened');
    const holdId = hold!.holdId;
    for (const step of play.steps) {
      if (step[0] === 'giveUp') core.giveUp('r1', holdId, step[1]);
      else if (step[0] === 'giveUpAs') core.giveUp(step[1], holdId, step[2]);
      else if (step[0] === 'giveUpUnknown') core.giveUp('r1', 'hold_unknown', step[1]);
      else if (step[0] === 'decide') reporter.emit('decision', { holdId, action: step[1] });
      else if (step[0] === 'releaseRun') core.releaseRun(step[1]);
      else if (step[0] === 'detach') reporter.emit('detached');
      else reporter.broken = true;
      // Let a decision reach withHold's `apply`.
      await Promise.resolve();
      await Promise.resolve();
    }
    const updates = reporter.sent.filter(([, event]) => event.type === 'hold.updated');
    t.strictSame(
      updates.map(([, event]) => (event as HoldUpdated).givenUp),
      play.reported,
      'hold.updated reported',
    );
    for (const [runId, event] of updates) t.strictSame([runId, (event as HoldUpdated).holdId], ['r1', holdId], 'on the hold and its run');
    t.strictSame(ended === undefined ? undefined : { action: ended.action, auto: ended.auto === true }, play.ended, 'how the hold ended');
    reporter.broken = false;
    if (ended === undefined) {
      t.equal(core.gate.pending, 1, 'still open to be decided');
      core.releaseRun('r1');
    }
    await held;
  });
}

t.test('isNewGiveUp: a reason is news unless empty or the last one given', async (t) => {
  const table: Array<[string | undefined, string, boolean]> = [
    [undefined, 'gone', true],
    ['gone', 'gone', false],
    ['cancelled', 'gone', true],
    [undefined, '', false],
    ['gone', '', false],
  ];
  for (const [reported, why, news] of table) t.equal(isNewGiveUp(reported, why), news, `${String(reported)} then ${JSON.stringify(why)}`);
});

t.test('cancelledBy: who cancelled, and the cancellation’s reason, cut', async (t) => {
  const table: Array<['client-to-server' | 'server-to-client', unknown, string]> = [
    ['client-to-server', undefined, 'the client cancelled the request (notifications/cancelled)'],
    ['client-to-server', 'user pressed stop', 'the client cancelled the request (notifications/cancelled: user pressed stop)'],
    ['server-to-client', '', 'the server cancelled its request (notifications/cancelled)'],
    ['server-to-client', 42, 'the server cancelled its request (notifications/cancelled)'],
    ['client-to-server', 'x'.repeat(300), `the client cancelled the request (notifications/cancelled: ${'x'.repeat(199)}…)`],
  ];
  for (const [direction, reason, why] of table) t.equal(cancelledBy(direction, reason), why, `${direction}, ${JSON.stringify(reason)}`);
});
