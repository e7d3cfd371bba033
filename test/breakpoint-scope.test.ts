// Scoped breakpoints and holds nobody watches, piece by piece, as
// playbooks: the PUT body's check, the server name a proxy session learns
// from the initialize answer and the breakpoints that then hold it, the
// `viewers` message (the server tells reporters, the reporter's check),
// the live feed's count, and the once-per-hold notice of a hold with no
// viewer (the relay's and the adapter's). test/breakpoint-scope-e2e runs
// them through real proxies, servers and a debugger.
import { EventEmitter } from 'node:events';
import t from 'tap';
import type WebSocket from 'ws';
import { HoldWarning } from '../src/adapter/hold-warning.js';
import { DebuggerGate, type HoldOpened } from '../src/gates/debugger-gate.js';
import type { PendingHold } from '../src/gates/gate.js';
import type { Breakpoints } from '../src/protocol/control.js';
import { FrameHolds, type GateRecorder } from '../src/relay/frame-holds.js';
import { mergeBreakpoints } from '../src/mcp/tools/set-breakpoints.js';
import { noViewer } from '../src/relay/messages.js';
import { readServerMessage } from '../src/report/server-message.js';
import { BreakpointsState, parseBreakpoints, type BreakpointsPeer } from '../src/server/breakpoints.js';
import { LiveFeed } from '../src/server/live-feed.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';

const C2S: Direction = 'client-to-server';
const S2C: Direction = 'server-to-client';

t.test('PUT /api/breakpoints: the server field', async (t) => {
  const long = 'x'.repeat(257);
  // [name, nodes, what comes out: the clean nodes, or the 400's line]
  const playbook: Array<[string, unknown, unknown]> = [
    ['no server: every server (as before scopes)', { 'tool:a': { before: true } }, { 'tool:a': { before: true } }],
    ['a server name', { 'tool:a': { before: true, server: 'weather' } }, { 'tool:a': { before: true, server: 'weather' } }],
    ['256 characters', { 'tool:a': { after: true, server: 'x'.repeat(256) } }, { 'tool:a': { after: true, server: 'x'.repeat(256) } }],
    ['an empty name', { 'tool:a': { before: true, server: '' } }, 'server must be a server name (serverInfo.name, 1 to 256 characters), or absent for every server'],
    ['a name too long', { 'tool:a': { before: true, server: long } }, 'server must be a server name (serverInfo.name, 1 to 256 characters), or absent for every server'],
    ['a number', { 'tool:a': { before: true, server: 7 } }, 'server must be a server name (serverInfo.name, 1 to 256 characters), or absent for every server'],
    ['null', { 'tool:a': { before: true, server: null } }, 'server must be a server name (serverInfo.name, 1 to 256 characters), or absent for every server'],
    ['an array of names', { 'tool:a': { before: true, server: ['A'] } }, 'server must be a server name (serverInfo.name, 1 to 256 characters), or absent for every server'],
    ['another key', { 'tool:a': { before: true, servers: 'A' } }, 'each node takes only before, after and server'],
  ];
  for (const [name, nodes, expected] of playbook) {
    const parsed = parseBreakpoints({ pauseOnError: true, nodes });
    if (typeof expected === 'string') {
      t.equal(parsed, expected, `${name}: refused in one line`);
      t.notOk(String(parsed).includes('\n'), `${name}: one line`);
    } else t.same(typeof parsed === 'string' || 'error' in parsed ? parsed : parsed.nodes, expected, name);
  }
});

/** A FrameHolds over a fake reporter, with the notices it gives. */
function session(breakpoints: Breakpoints, watched = true) {
  const sent: HoldOpened[] = [];
  const notices: string[] = [];
  const lines: string[] = [];
  const reporter = Object.assign(new EventEmitter(), {
    attached: true,
    url: 'http://127.0.0.1:4747',
    watched,
    send: (_runId: string, event: { type: string }) => void (event.type === 'hold.opened' && sent.push(event as HoldOpened)),
  });
  const recorder: GateRecorder = { runId: 'run_1', instanceIdOf: (frame) => `mcp_${frame.seq}`, onDecision: () => {}, onNotice: (text) => void notices.push(text) };
  const core = new DebuggerGate({ reporter });
  const holds = new FrameHolds({ core, recorder, onUnwatched: (notice) => void lines.push(noViewer('mcp-proxy', notice)) });
  reporter.emit('breakpoints', breakpoints);
  const correlator = new Correlator();
  const seqs = { [C2S]: 0, [S2C]: 0 };
  const frame = (direction: Direction, message: unknown): Frame => classify(newFrame(Buffer.from(`${JSON.stringify(message)}\n`), direction, ++seqs[direction], true), correlator);
  const viewers = (watching: boolean): void => {
    reporter.watched = watching;
    reporter.emit('viewers', watching);
  };
  const decideLast = (): void => void reporter.emit('decision', { holdId: (sent.at(-1) as HoldOpened).holdId, action: 'continue' });
  return { holds, core, frame, sent, notices, lines, viewers, decideLast };
}

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
const initialized = (name: unknown) => ({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name, version: '1.0.0' } } });
const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [] } });

t.test('a proxy session learns its server from the initialize answer; scoped breakpoints hold from then on', async (t) => {
  const onA: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { before: true, after: true, server: 'A' } } };
  const onEvery: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { before: true } } };
  const initBefore: Breakpoints = { pauseOnError: false, nodes: { 'mcp:initialize': { after: true, server: 'A' } } };
  // [name, breakpoints, serverInfo.name answered (undefined: no answer yet), the frames after, does the last hold?]
  const playbook: Array<[string, Breakpoints, unknown, Array<[Direction, unknown]>, boolean]> = [
    ['scoped to A, server A: the call holds', onA, 'A', [[C2S, call(1)]], true],
    ['scoped to A, server A: the answer holds', onA, 'A', [[C2S, call(1)], [S2C, answer(1)]], true],
    ['scoped to A, server B: the call goes on', onA, 'B', [[C2S, call(1)]], false],
    ['scoped to A, server B: the answer goes on', onA, 'B', [[C2S, call(1)], [S2C, answer(1)]], false],
    ['scoped to A, no initialize answer yet: the call goes on', onA, undefined, [[C2S, call(1)]], false],
    ['scoped to A, a serverInfo without a name: the call goes on', onA, 42, [[C2S, call(1)]], false],
    ['every server, server B: the call holds', onEvery, 'B', [[C2S, call(1)]], true],
    ['every server, no initialize answer yet: the call holds', onEvery, undefined, [[C2S, call(1)]], true],
  ];
  for (const [name, breakpoints, server, frames, holds] of playbook) {
    const s = session(breakpoints);
    t.equal(s.holds.check(s.frame(C2S, initialize)), undefined, `${name}: initialize passes`);
    if (server !== undefined) t.equal(s.holds.check(s.frame(S2C, initialized(server))), undefined, `${name}: its answer passes`);
    t.equal(s.holds.server, typeof server === 'string' ? server : undefined, `${name}: the server name known`);
    let held: Promise<readonly Frame[]> | undefined;
    for (const [direction, message] of frames) held = s.holds.check(s.frame(direction, message));
    t.equal(held !== undefined, holds, name);
    s.core.stop();
    await held;
  }
  // The initialize answer itself is seen with the name it carries.
  const s = session(initBefore);
  s.holds.check(s.frame(C2S, initialize));
  const held = s.holds.check(s.frame(S2C, initialized('A')));
  t.ok(held, 'an after breakpoint on mcp:initialize scoped to A holds A’s answer');
  s.core.stop();
  await held;
});

t.test('a hold nobody watches is said once, on stderr and in the run', async (t) => {
  const bp: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { before: true } } };
  const expected = 'tools/call #1 is held at tool:echo (before gate) and no viewer is open: open http://127.0.0.1:4747 to decide it; until then its client waits, and may time out';

  await t.test('opened with no viewer: said at once', async (t) => {
    const s = session(bp, false);
    const held = s.holds.check(s.frame(C2S, call(1)));
    t.ok(held, 'held');
    t.same(s.notices, [expected], 'the run says so');
    t.same(s.lines, [`graphmind mcp-proxy: ${expected}`], 'stderr says so');
    s.viewers(true);
    s.viewers(false);
    t.equal(s.lines.length, 1, 'once per hold, whatever viewers come and go');
    s.decideLast();
    await held;
  });

  await t.test('opened with a viewer: nothing; the last viewer goes while it waits: said then', async (t) => {
    const s = session(bp, true);
    const held = s.holds.check(s.frame(C2S, call(1)));
    t.same(s.lines, [], 'watched: nothing said');
    s.viewers(false);
    t.same(s.notices, [expected], 'the last viewer went: the run says so');
    t.same(s.lines, [`graphmind mcp-proxy: ${expected}`], 'and stderr');
    s.decideLast();
    await held;
  });

  await t.test('decided before the last viewer goes: nothing', async (t) => {
    const s = session(bp, true);
    const held = s.holds.check(s.frame(C2S, call(1)));
    s.decideLast();
    await held;
    s.viewers(false);
    t.same(s.lines, [], 'a hold already decided is not said');
  });

  await t.test('a session stopped: nothing more', async (t) => {
    const s = session(bp, true);
    const held = s.holds.check(s.frame(C2S, call(1)));
    s.holds.stop();
    await held;
    s.viewers(false);
    t.same(s.lines, [], 'nothing said after the session');
  });
});

t.test('the viewers message: what the server sends, what a reporter takes', async (t) => {
  const rows: Array<[string, string, unknown]> = [
    ['nobody watches', '{"type":"viewers","watching":false}', { type: 'viewers', watching: false }],
    ['somebody does', '{"type":"viewers","watching":true}', { type: 'viewers', watching: true }],
    ['not a boolean: ignored', '{"type":"viewers","watching":"no"}', undefined],
    ['missing: ignored', '{"type":"viewers"}', undefined],
  ];
  for (const [name, text, expected] of rows) t.same(readServerMessage(text), expected, name);

  const sent: string[] = [];
  const peer = (name: string): BreakpointsPeer => ({
    sendBreakpoints: (_bp, version) => void sent.push(`${name} breakpoints ${version}`),
    sendViewers: (watching) => void sent.push(`${name} viewers ${watching}`),
  });
  const state = new BreakpointsState({ pauseOnError: true, nodes: {} });
  state.join(peer('a'));
  t.same(sent.splice(0), ['a viewers false', 'a breakpoints 1'], 'a reporter joining hears whether anyone watches before its breakpoints');
  state.setWatching(true);
  state.setWatching(true);
  t.same(sent.splice(0), ['a viewers true'], 'told of a change, once');
  state.join(peer('b'));
  state.setWatching(false);
  t.same(sent.splice(0), ['b viewers true', 'b breakpoints 1', 'a viewers false', 'b viewers false'], 'every reporter is told');
  const old: BreakpointsPeer = { sendBreakpoints: () => void sent.push('old breakpoints') };
  state.join(old);
  state.setWatching(true);
  t.ok(sent.includes('old breakpoints'), 'a peer that cannot be told is still sent its breakpoints');
});

t.test('the live feed says when its first client comes and its last goes', async (t) => {
  const feed = new LiveFeed();
  const told: boolean[] = [];
  feed.onWatching = (watching) => void told.push(watching);
  const client = (): WebSocket => Object.assign(new EventEmitter(), { send: () => {}, terminate() {}, bufferedAmount: 0 }) as unknown as WebSocket;
  const a = client();
  const b = client();
  feed.add(a, { type: 'snapshot', runs: [], breakpoints: { pauseOnError: true, nodes: {} }, holds: [] });
  feed.add(b, { type: 'snapshot', runs: [], breakpoints: { pauseOnError: true, nodes: {} }, holds: [] });
  a.emit('close');
  t.same(told, [true], 'the first came; one is left');
  a.emit('close');
  b.emit('close');
  t.same(told, [true, false], 'the last went');
});

t.test('the adapter says at once when a hold opens with no viewer', async (t) => {
  const lines: string[] = [];
  const where = { url: 'http://127.0.0.1:4747', watched: false };
  const warning = new HoldWarning((line) => void lines.push(line), where);
  const hold: PendingHold = { holdId: 'hold_1', point: 'before', reason: 'breakpoint', runId: 'r', since: Date.now() };
  const end = warning.onHolding(hold, 'tools/call (tool:echo)');
  end();
  t.same(lines, ['graphmind adapter: tools/call (tool:echo) is held at the before gate and no viewer is open: open http://127.0.0.1:4747 to decide it; until then its client waits, and may time out'], 'said once for the hold');
  warning.onHolding({ ...hold, holdId: 'hold_2' }, 'tools/call (tool:echo)')();
  t.equal(lines.length, 2, 'and for every such hold');
  where.watched = true;
  warning.onHolding({ ...hold, holdId: 'hold_3' }, 'tools/call (tool:echo)')();
  t.equal(lines.length, 2, 'watched: nothing at once (the one-time warning waits its second)');
  warning.stop();
});

t.test("graphmind mcp's set_breakpoints keeps a node's scope when it changes its gates", async (t) => {
  const current: Breakpoints = { pauseOnError: true, nodes: { 'tool:a': { before: true, server: 'A' }, 'tool:b': { after: true } } };
  t.same(mergeBreakpoints(current, undefined, { 'tool:a': { after: true } }).nodes, { 'tool:a': { before: true, after: true, server: 'A' }, 'tool:b': { after: true } }, 'still on A');
  t.same(mergeBreakpoints(current, undefined, { 'tool:a': { before: false } }).nodes, { 'tool:b': { after: true } }, 'no gate left: gone, scope and all');
});
