// The stdio proxy session's lifecycle as a playbook: each row feeds the pure
// state machine (src/proxy/lifecycle.ts) a sequence of events — a signal,
// the host leaving, a server's exit, a restart's progress, a timer — and
// lists every effect it asks of the shell, in order. No process, stream or
// clock is involved: what the session does about its life is read top to
// bottom here.
import t from 'tap';
import {
  SPAWN_FAILURE_ATTACH_MS,
  initialState,
  noServer,
  spawnFailureAttachMs,
  step,
  type LifecycleConfig,
  type LifecycleEffect,
  type LifecycleEvent,
  type LifecycleState,
} from '../src/proxy/lifecycle.js';
import { WAIT_FOR_ATTACH_MS } from '../src/relay/frame-holds.js';

/** A plain session: reporting off, no --watch. */
const PLAIN: LifecycleConfig = { staysUp: false, restartable: false, waitForAttach: false, stdinCloseGraceMs: 5000, killGraceMs: 3000 };
/** Reporting on: the debugger can restart the server. */
const REPORTED: LifecycleConfig = { ...PLAIN, restartable: true };
/** --watch: a server that exits on its own leaves the session up. */
const WATCH: LifecycleConfig = { ...PLAIN, restartable: true, staysUp: true };
const WAIT: LifecycleConfig = { ...PLAIN, waitForAttach: true };

/** Feed `events` in order; every effect, in order, and the last state. */
function play(config: LifecycleConfig, events: readonly LifecycleEvent[]): { effects: LifecycleEffect[]; state: LifecycleState } {
  let state = initialState(config);
  const effects: LifecycleEffect[] = [];
  for (const event of events) {
    const next = step(state, event);
    state = next.state;
    effects.push(...next.effects);
  }
  return { effects, state };
}

const spawned: LifecycleEvent = { type: 'spawned' };
const exited = (server: number, code: number | null, signal: NodeJS.Signals | null = null, starting = false): LifecycleEvent => ({ type: 'server-exited', server, code, signal, starting });
const signal = (name: NodeJS.Signals): LifecycleEvent => ({ type: 'signal', signal: name });
const standing = (to: 'up' | 'restarting' | 'down'): LifecycleEvent => ({ type: 'standing', standing: to });
const tree = (server: number, name: NodeJS.Signals): LifecycleEffect => ({ type: 'signal-tree', server, signal: name });
const killTimer = (server: number): LifecycleEffect => ({ type: 'timer', ms: 3000, fire: { type: 'kill-grace-expired', server } });
const graceTimer: LifecycleEffect = { type: 'timer', ms: 5000, fire: { type: 'grace-expired' } };
const ended = (code: number | null, sig: NodeJS.Signals | null = null): LifecycleEffect => ({ type: 'end', exit: [code, sig] });

interface Row {
  name: string;
  config: LifecycleConfig;
  events: LifecycleEvent[];
  effects: LifecycleEffect[];
  /** Fields of the last state. */
  state?: Partial<LifecycleState>;
}

const rows: Row[] = [
  // Spawn.
  { name: 'a server that starts and exits on its own: its output ends, the session ends with its exit', config: PLAIN, events: [spawned, exited(1, 1)], effects: [{ type: 'end-output', server: 1 }, ended(1)], state: { phase: 'ended', stoppedByUs: false, lastExit: [1, null] } },
  { name: 'a signal during the spawn waits for the server, then stops it (SIGKILL after the grace)', config: PLAIN, events: [signal('SIGTERM'), spawned], effects: [tree(1, 'SIGTERM'), killTimer(1)], state: { stoppedByUs: true } },
  { name: 'two signals during the spawn: the last one is passed on', config: PLAIN, events: [signal('SIGINT'), signal('SIGHUP'), spawned], effects: [tree(1, 'SIGHUP'), killTimer(1)] },
  { name: 'a spawn failure: a second for a debugger to take the record', config: PLAIN, events: [{ type: 'spawn-failed', elapsedMs: 4 }], effects: [{ type: 'spawn-failed', attachWaitMs: SPAWN_FAILURE_ATTACH_MS }], state: { phase: 'ended' } },
  // The race this machine fixed: with --wait-for-attach a spawn failure got no attach wait at all, while a debugger was still connecting.
  { name: '--wait-for-attach, a spawn failure 40 ms in: the rest of the attach wait the first frame would have had', config: WAIT, events: [{ type: 'spawn-failed', elapsedMs: 40 }], effects: [{ type: 'spawn-failed', attachWaitMs: WAIT_FOR_ATTACH_MS - 40 }] },
  { name: '--wait-for-attach, a spawn failure after the attach wait is over: no more wait', config: WAIT, events: [{ type: 'spawn-failed', elapsedMs: WAIT_FOR_ATTACH_MS + 500 }], effects: [{ type: 'spawn-failed', attachWaitMs: 0 }] },
  // Signals to the proxy.
  { name: 'SIGINT to the proxy: passed on, and the server exits by it', config: PLAIN, events: [spawned, signal('SIGINT'), exited(1, null, 'SIGINT')], effects: [tree(1, 'SIGINT'), killTimer(1), { type: 'end-output', server: 1 }, ended(null, 'SIGINT')], state: { stoppedByUs: true, sentSignals: ['SIGINT'] } },
  { name: 'a server that ignores SIGTERM: SIGKILL once the kill grace is over', config: PLAIN, events: [spawned, signal('SIGTERM'), { type: 'kill-grace-expired', server: 1 }], effects: [tree(1, 'SIGTERM'), killTimer(1), tree(1, 'SIGKILL')], state: { sentSignals: ['SIGTERM', 'SIGKILL'] } },
  { name: 'the kill grace of a server that has exited: nothing', config: PLAIN, events: [spawned, signal('SIGTERM'), exited(1, 0), { type: 'kill-grace-expired', server: 1 }], effects: [tree(1, 'SIGTERM'), killTimer(1), { type: 'end-output', server: 1 }, ended(0)] },
  // The host.
  { name: 'the host closes stdin: the grace period, then SIGTERM, then SIGKILL', config: PLAIN, events: [spawned, { type: 'host-input-ended' }, { type: 'host-done' }, { type: 'grace-expired' }, { type: 'kill-grace-expired', server: 1 }], effects: [graceTimer, tree(1, 'SIGTERM'), killTimer(1), tree(1, 'SIGKILL')], state: { hostClosed: true, graceStarted: true, stoppedByUs: true, sentSignals: ['SIGTERM', 'SIGKILL'] } },
  { name: 'the host is done twice (stdin ended, and it is no longer our parent): one grace period', config: PLAIN, events: [spawned, { type: 'host-done' }, { type: 'host-done' }], effects: [graceTimer] },
  { name: 'the server exits within the grace period: the session ends, not told to stop', config: PLAIN, events: [spawned, { type: 'host-input-ended' }, { type: 'host-done' }, exited(1, 0)], effects: [graceTimer, { type: 'end-output', server: 1 }, ended(0)], state: { stoppedByUs: false, hostClosed: true, sentSignals: [] } },
  { name: 'our stdout breaks: nobody is left to answer, the server gets SIGTERM at once', config: PLAIN, events: [spawned, { type: 'host-output-broken' }], effects: [tree(1, 'SIGTERM'), killTimer(1)] },
  // --watch: a server that exits on its own.
  { name: '--watch: a server that exits on its own leaves the session up, down until a change', config: WATCH, events: [spawned, exited(1, 1)], effects: [{ type: 'server-down', server: 1, how: 'exited with code 1' }], state: { phase: 'running', lastExit: [1, null] } },
  { name: '--watch: killed by a signal of its own', config: WATCH, events: [spawned, exited(1, null, 'SIGSEGV')], effects: [{ type: 'server-down', server: 1, how: 'was killed by SIGSEGV' }] },
  { name: '--watch: the host leaves while no server runs: the session ends at once with the last exit', config: WATCH, events: [spawned, exited(1, 1), standing('down'), { type: 'host-done' }], effects: [{ type: 'server-down', server: 1, how: 'exited with code 1' }, ended(1)] },
  { name: '--watch: a signal while no server runs: the session ends at once', config: WATCH, events: [spawned, exited(1, 1), standing('down'), signal('SIGTERM')], effects: [{ type: 'server-down', server: 1, how: 'exited with code 1' }, ended(1)] },
  { name: '--watch: a server that exits after the host closed stdin ends the session', config: WATCH, events: [spawned, { type: 'host-input-ended' }, exited(1, 0)], effects: [{ type: 'end-output', server: 1 }, ended(0)] },
  { name: '--watch: a server stopped by a signal to the proxy ends the session', config: WATCH, events: [spawned, signal('SIGTERM'), exited(1, null, 'SIGTERM')], effects: [tree(1, 'SIGTERM'), killTimer(1), { type: 'end-output', server: 1 }, ended(null, 'SIGTERM')] },
  // Restarts.
  { name: 'a restart asked while reporting is off and there is no --watch: nothing', config: PLAIN, events: [spawned, { type: 'restart-asked', reason: 'the debugger' }], effects: [] },
  { name: 'a file change restarts the server', config: WATCH, events: [spawned, { type: 'restart-asked', reason: 'file change', file: '/src/a.ts' }], effects: [{ type: 'restart', reason: 'file change', file: '/src/a.ts' }], state: { restarting: true } },
  { name: 'no restart once the host has closed stdin', config: REPORTED, events: [spawned, { type: 'host-input-ended' }, { type: 'restart-asked', reason: 'the debugger' }], effects: [] },
  { name: 'no restart once the proxy was told to stop', config: REPORTED, events: [spawned, signal('SIGTERM'), { type: 'restart-asked', reason: 'the debugger' }], effects: [tree(1, 'SIGTERM'), killTimer(1)] },
  {
    name: 'a restart: the old server retires (its exit is not the end), the new one is the session\'s',
    config: REPORTED,
    events: [spawned, { type: 'restart-asked', reason: 'the debugger' }, standing('restarting'), { type: 'retiring', server: 1 }, exited(1, null, 'SIGTERM'), { type: 'adopted', server: 2 }, standing('up'), { type: 'restart-settled' }, exited(2, 0)],
    effects: [{ type: 'restart', reason: 'the debugger' }, { type: 'end-output', server: 2 }, ended(0)],
    state: { current: 2, restarting: false },
  },
  { name: 'a new server that dies while the restart brings it up is the restart\'s to handle', config: REPORTED, events: [spawned, { type: 'restart-asked', reason: 'the debugger' }, { type: 'retiring', server: 1 }, exited(1, 0), { type: 'adopted', server: 2 }, exited(2, 1, null, true)], effects: [{ type: 'restart', reason: 'the debugger' }], state: { phase: 'running', lastExit: [1, null] } },
  {
    name: 'a signal while the restart starts the new server: the new one is stopped as soon as it is adopted',
    config: REPORTED,
    events: [spawned, { type: 'restart-asked', reason: 'the debugger' }, standing('restarting'), { type: 'retiring', server: 1 }, exited(1, null, 'SIGTERM'), signal('SIGINT'), { type: 'adopted', server: 2 }],
    effects: [{ type: 'restart', reason: 'the debugger' }, tree(2, 'SIGINT'), killTimer(2)],
    state: { ending: 'SIGINT', stoppedByUs: true },
  },
  {
    name: 'a signal during a restart that then starts no server: the session ends when the restart settles',
    config: REPORTED,
    events: [spawned, { type: 'restart-asked', reason: 'the debugger' }, standing('restarting'), { type: 'retiring', server: 1 }, exited(1, null, 'SIGTERM'), signal('SIGTERM'), standing('down'), { type: 'restart-settled' }],
    effects: [{ type: 'restart', reason: 'the debugger' }, ended(null)],
  },
  {
    name: 'a restart that failed leaves the session down; the host leaving then ends it',
    config: REPORTED,
    events: [spawned, { type: 'restart-asked', reason: 'the debugger' }, standing('restarting'), { type: 'retiring', server: 1 }, exited(1, null, 'SIGTERM'), standing('down'), { type: 'restart-settled' }, { type: 'host-done' }],
    effects: [{ type: 'restart', reason: 'the debugger' }, ended(null)],
  },
  // The end comes once.
  { name: 'events after the end ask for no second end', config: WATCH, events: [spawned, exited(1, 1), standing('down'), signal('SIGTERM'), signal('SIGINT'), { type: 'host-done' }], effects: [{ type: 'server-down', server: 1, how: 'exited with code 1' }, ended(1)] },
];

for (const row of rows) {
  t.test(row.name, async (t) => {
    const { effects, state } = play(row.config, row.events);
    t.same(effects, row.effects, 'effects');
    if (row.state !== undefined) t.match(state, row.state, 'state');
  });
}

t.test('noServer: the current server has exited and the restart gate is down', async (t) => {
  const table: Array<[LifecycleEvent[], boolean]> = [
    [[spawned], false],
    [[spawned, exited(1, 1)], false],
    [[spawned, standing('down')], false],
    [[spawned, exited(1, 1), standing('down')], true],
    [[spawned, exited(1, 1), standing('down'), { type: 'adopted', server: 2 }], false],
  ];
  for (const [events, expected] of table) t.equal(noServer(play(WATCH, events).state), expected, events.map((e) => e.type).join(', '));
});

t.test('spawnFailureAttachMs: one second without --wait-for-attach; with it, what is left of the attach wait', async (t) => {
  const table: Array<[boolean, number, number]> = [
    [false, 0, SPAWN_FAILURE_ATTACH_MS],
    [false, 5000, SPAWN_FAILURE_ATTACH_MS],
    [true, 0, WAIT_FOR_ATTACH_MS],
    [true, 1200, WAIT_FOR_ATTACH_MS - 1200],
    [true, WAIT_FOR_ATTACH_MS, 0],
    [true, WAIT_FOR_ATTACH_MS * 2, 0],
  ];
  for (const [wait, elapsed, expected] of table) t.equal(spawnFailureAttachMs(wait, elapsed), expected, `wait ${wait}, ${elapsed} ms in`);
});
