// The adapter's small pieces, each with only the narrow interface it
// declares (no runtime, no SDK, no socket): why a hold is given up, the
// calls running now, and the calls made while detached replayed as runs.
import t from 'tap';
import { newStats } from '../src/adapter/adapter-stats.js';
import type { RunReporter } from '../src/adapter/call-run.js';
import { detachedCall, DetachedCalls, MAX_DETACHED_CALLS, type DetachedCall, type DetachedHost } from '../src/adapter/detached-calls.js';
import { CLIENT_GAVE_UP, CLIENT_WENT_AWAY, givenUpWhy } from '../src/adapter/given-up.js';
import { LiveCalls, SHOW_RUNNING_AFTER_MS, type LiveCall } from '../src/adapter/live-calls.js';
import { ServerState, type ServerSettings } from '../src/adapter/server-state.js';
import type { CompletedRun } from '../src/report/completed-run.js';
import { HIDDEN, hideSettings } from '../src/report/hide.js';

t.test('givenUpWhy: the SDK abort reason in, why the hold is given up out', async (t) => {
  const playbook: Array<[string, unknown, string]> = [
    ["a cancel's reason (1.x and 2.x abort with it)", 'the user gave up', 'the client cancelled the request (notifications/cancelled: the user gave up)'],
    ['a cancel with an empty reason', '', 'the client cancelled the request (notifications/cancelled)'],
    ['a very long reason is cut', 'x'.repeat(500), `the client cancelled the request (notifications/cancelled: ${'x'.repeat(199)}…)`],
    ["2.x's closed connection", Object.assign(new Error('Connection closed'), { code: -32000 }), CLIENT_WENT_AWAY],
    ["1.x's abort without a reason (a DOMException)", new DOMException('This operation was aborted', 'AbortError'), CLIENT_GAVE_UP],
    ['no reason at all', undefined, CLIENT_GAVE_UP],
    ['another error', new Error('timeout'), CLIENT_GAVE_UP],
  ];
  for (const [name, reason, why] of playbook) t.equal(givenUpWhy(reason), why, name);
});

/** A call whose run records when it was opened. */
function liveCall(startedAt: number): LiveCall & { opened: number } {
  const call = { opened: 0, run: { startedAt, open: () => call.opened++ } };
  return call;
}

t.test('LiveCalls: which calls run, which one is the only one, which are shown as running', async (t) => {
  const live = new LiveCalls<LiveCall & { opened: number }>();
  const old = liveCall(1000);
  const young = liveCall(1000 + SHOW_RUNNING_AFTER_MS);
  t.equal(live.only(), undefined, 'none running: no only call');
  live.began(old);
  t.equal(live.only(), old, 'one running: it is the only one');
  live.began(young);
  t.equal(live.only(), undefined, 'two running: no guess');
  live.openLongCalls(1000 + SHOW_RUNNING_AFTER_MS);
  t.strictSame([old.opened, young.opened], [1, 0], 'the call running for long enough is opened, the younger one not yet');
  live.openLongCalls(1000 + 2 * SHOW_RUNNING_AFTER_MS);
  t.strictSame([old.opened, young.opened], [1, 1], 'each is opened once');
  const answered = liveCall(0);
  live.began(answered);
  live.answered(answered);
  live.openLongCalls(10_000);
  t.equal(answered.opened, 0, 'a call that has its answer goes out with it, not as running');
  live.ended(old);
  live.ended(answered);
  t.equal(live.only(), young, 'ended calls are not running');
});

/** A host that collects the runs sent whole. */
function fakeHost(env: NodeJS.ProcessEnv = {}): DetachedHost & { sent: CompletedRun[]; settings: ServerSettings } {
  const sent: CompletedRun[] = [];
  const reporter = {
    sendCompletedRun: (run: CompletedRun) => sent.push(run),
    startRun: () => 'unused',
    send: () => {},
    nextSeq: () => 1,
    sendComplete: () => {},
  } as unknown as RunReporter;
  let connections = 0;
  const settings: ServerSettings = { app: 'app', serverOverride: undefined, loopAllow: [], sdk: undefined, nextConnection: () => `c${++connections}` };
  const hide = hideSettings(env);
  return { sent, settings, reporter, stats: newStats(), hide, recordedInput: (input) => (hide.inputs ? HIDDEN : input) };
}

t.test('DetachedCalls: calls made with no debugger are replayed as whole runs, the newest kept', async (t) => {
  const host = fakeHost();
  const state = new ServerState(host.settings, { _serverInfo: { name: 'fake', version: '1' } });
  const site = state.site('tools/call', 'echo');
  const ring = new DetachedCalls(host);
  const sink = { stats: host.stats, noteDetached: (call: DetachedCall) => ring.push(call) };
  const echo = (value: unknown): unknown => ({ content: [{ type: 'text', text: String(value) }] });
  t.strictSame(detachedCall(sink, state, site, echo, undefined, ['one']), echo('one'), 'the handler answers as unwrapped');
  t.throws(() => detachedCall(sink, state, site, () => {
    throw new Error('boom');
  }, undefined, ['two']), /boom/, 'and throws as unwrapped');
  t.strictSame(await detachedCall(sink, state, site, async (value: unknown) => echo(value), undefined, ['three']), echo('three'), 'an async handler: its own promise');
  t.equal(ring.size, 3, 'three calls wait for a debugger');
  t.equal(host.sent.length, 0, 'nothing sent while detached');
  ring.replay();
  t.equal(ring.size, 0);
  t.strictSame(host.sent.map((run) => [run.name, run.source, run.input, run.output, run.error?.name]), [
    ['tools/call:echo', 'mcp-adapter', 'one', echo('one'), undefined],
    ['tools/call:echo', 'mcp-adapter', 'two', undefined, 'HandlerError'],
    ['tools/call:echo', 'mcp-adapter', 'three', echo('three'), undefined],
  ], 'replayed in order, each as its run');
  t.strictSame([host.stats.calls, host.stats.runs, host.stats.errors], [3, 3, 1], 'counted');

  for (let i = 0; i < MAX_DETACHED_CALLS + 2; i++) detachedCall(sink, state, site, echo, undefined, [`call ${i}`]);
  t.equal(ring.size, MAX_DETACHED_CALLS, 'a bounded ring');
  t.equal(ring.lost, 2, 'the oldest are counted as lost');
  host.sent.length = 0;
  ring.replay();
  t.equal(host.sent[0].input, 'call 2', 'the newest are kept');
});

t.test('DetachedCalls: a replayed run hides what the hide switches say', async (t) => {
  const host = fakeHost({ GRAPHMIND_HIDE_INPUTS: '1' });
  const state = new ServerState(host.settings, {});
  const ring = new DetachedCalls(host);
  detachedCall({ stats: host.stats, noteDetached: (call) => ring.push(call) }, state, state.site('tools/call', 'secret'), () => ({ content: [] }), undefined, [{ password: 'x' }]);
  ring.replay();
  t.equal(host.sent[0].input, HIDDEN);
  t.equal(host.sent[0].name, 'tools/call:secret');
});

t.test('DetachedCalls: a replayed run carries the id of the request its call answered', async (t) => {
  const host = fakeHost();
  const state = new ServerState(host.settings, {});
  const ring = new DetachedCalls(host);
  const sink = { stats: host.stats, noteDetached: (call: DetachedCall) => ring.push(call) };
  // The SDK's per-request context, as 1.x gives it (`extra`) and as 2.x does (`ctx.mcpReq`), and none at all.
  const extra = (requestId: unknown): unknown => ({ signal: new AbortController().signal, requestId, sendRequest: async () => ({}) });
  const ctx = (id: unknown): unknown => ({ mcpReq: { id, method: 'tools/call', signal: new AbortController().signal } });
  const table: Array<[string, unknown[], unknown]> = [
    ['1.x, a numeric id', ['a', extra(7)], 7],
    ['1.x, a string id', ['b', extra('req-8')], 'req-8'],
    ['2.x, id 0', ['c', ctx(0)], 0],
    ['no context', ['d'], undefined],
  ];
  for (const [, args] of table) detachedCall(sink, state, state.site('tools/call', 'echo'), () => ({ content: [] }), undefined, args);
  ring.replay();
  t.strictSame(host.sent.map((run) => run.requestId), table.map(([, , id]) => id), table.map(([name]) => name).join(' · '));
});
