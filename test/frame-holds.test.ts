// FrameHolds' rules as playbooks (src/relay/frame-holds.ts), driven by a
// fake reporter, recorder and wire: which frames hold, what a decision
// turns the held frame into (frames on, an answer to the sender, a resend),
// giving up, and the session's era. test/gates-* run the same rules through
// real proxies and SDK peers.
import { EventEmitter } from 'node:events';
import t from 'tap';
import { DebuggerGate, type HoldOpened, type HoldReleased, type HoldUpdated } from '../src/gates/debugger-gate.js';
import { ABORT_CODE, ABORT_MESSAGE } from '../src/gates/outcome.js';
import { FrameHolds, type GateRecorder, type HoldWire } from '../src/relay/frame-holds.js';
import type { Breakpoints, GatePoint } from '../src/protocol/control.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';
import { madeBytes } from '../src/streams/made-frame.js';

const C2S: Direction = 'client-to-server';
const S2C: Direction = 'server-to-client';
type Sent = HoldOpened | HoldReleased | HoldUpdated;

/** A session's worth of fakes around one FrameHolds. */
function harness(breakpoints: Breakpoints, options: { resend?: boolean; loopAllow?: string[] } = {}) {
  const sent: Sent[] = [];
  const reporter = Object.assign(new EventEmitter(), {
    attached: true,
    url: 'http://127.0.0.1:4747',
    send: (_runId: string, event: Sent) => void sent.push(event),
  });
  const decisions: string[] = [];
  const recorder: GateRecorder = {
    runId: 'run_1',
    instanceIdOf: (frame) => `mcp_${frame.seq}`,
    onDecision: (request, point, action, value) => void decisions.push(`${action} ${point} ${String(request.id)}${value === undefined ? '' : ` ${JSON.stringify(value)}`}`),
  };
  const wired: string[] = [];
  const wire: HoldWire = {
    answerSender: (request, answer) => void wired.push(`answer ${String(request.id)} ${line(answer)}`),
    resend: (request) => {
      wired.push(`resend ${String(request.id)}`);
      return options.resend ?? true;
    },
  };
  const core = new DebuggerGate({ reporter });
  const holds = new FrameHolds({ core, recorder, wire, loopAllow: options.loopAllow });
  reporter.emit('breakpoints', breakpoints);
  const correlator = new Correlator();
  const seqs = { [C2S]: 0, [S2C]: 0 };
  const frame = (direction: Direction, message: unknown): Frame => classify(newFrame(Buffer.from(`${JSON.stringify(message)}\n`), direction, ++seqs[direction], true), correlator);
  /** Decide the hold just opened, and what goes on in the held frame's place. */
  const decide = async (held: Promise<readonly Frame[]>, action: string, value?: unknown): Promise<string[]> => {
    const opened = sent.filter((e) => e.type === 'hold.opened').at(-1) as HoldOpened;
    reporter.emit('decision', { holdId: opened.holdId, action, value });
    return (await held).map(line);
  };
  return { sent, decisions, wired, holds, core, reporter, frame, decide };
}

/** A frame as a line: a frame read from the wire by its bytes, a made one by the bytes it will get. */
function line(frame: Frame): string {
  return frame.made === undefined ? frame.raw.toString('utf8').trim() : `made ${frame.direction} ${madeBytes(frame.made).toString('utf8').trim()}`;
}

const call = (id: number, name = 'echo', args: unknown = { text: 'hi' }) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const ok = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'hi' }] } });
const toolFailed = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'no' }], isError: true } });
const rpcFailed = (id: number) => ({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad' } });
const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };

const none: Breakpoints = { pauseOnError: false, nodes: {} };
const errors: Breakpoints = { pauseOnError: true, nodes: {} };
const before: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { before: true }, 'mcp:notifications/message': { before: true } } };
const after: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { after: true } } };

t.test('which frames hold', async (t) => {
  // [name, breakpoints, the frames of the session (the last one is asked about), holds at]
  const playbook: Array<[string, Breakpoints, Array<[Direction, unknown]>, string | undefined]> = [
    ['nothing armed: a call passes', none, [[C2S, call(1)]], undefined],
    ['a before breakpoint holds the request', before, [[C2S, call(1)]], 'before/breakpoint'],
    ['a before breakpoint on another tool does not', before, [[C2S, call(1, 'other')]], undefined],
    ['a notification holds before', before, [[S2C, note]], 'before/breakpoint'],
    ['an after breakpoint holds the answer', after, [[C2S, call(1)], [S2C, ok(1)]], 'after/breakpoint'],
    ['an answer to nothing known passes', after, [[S2C, ok(9)]], undefined],
    ['pause on error: a good answer passes', errors, [[C2S, call(1)], [S2C, ok(1)]], undefined],
    ['pause on error: a failed tool result holds', errors, [[C2S, call(1)], [S2C, toolFailed(1)]], 'error/error'],
    ['pause on error: a JSON-RPC error holds', errors, [[C2S, call(1)], [S2C, rpcFailed(1)]], 'error/error'],
    ['the third identical call in a row holds as a loop', none, [[C2S, call(1)], [C2S, call(2)], [C2S, call(3)]], 'before/loop'],
    ['another tool between: no loop', none, [[C2S, call(1)], [C2S, call(2, 'other')], [C2S, call(3)]], undefined],
  ];
  for (const [name, breakpoints, frames, expected] of playbook) {
    const h = harness(breakpoints);
    let held: Promise<readonly Frame[]> | undefined;
    for (const [direction, message] of frames) held = h.holds.check(h.frame(direction, message));
    const opened = h.sent.find((e) => e.type === 'hold.opened') as HoldOpened | undefined;
    t.equal(opened === undefined ? undefined : `${opened.gate}/${opened.reason}`, expected, name);
    t.equal(held !== undefined, expected !== undefined, `${name}: the frame ${expected === undefined ? 'passes' : 'waits'}`);
    h.core.stop();
    await held;
  }
  const allowed = harness(none, { loopAllow: ['echo'] });
  for (let id = 1; id <= 3; id++) t.equal(allowed.holds.check(allowed.frame(C2S, call(id))), undefined, `an allowed tool polled: call ${id} passes`);
});

t.test('what a decision turns the held frame into', async (t) => {
  const request = JSON.stringify(call(1));
  const answer = JSON.stringify(ok(1));
  const aborted = `{"jsonrpc":"2.0","id":1,"error":{"code":${ABORT_CODE},"message":"${ABORT_MESSAGE}"}}`;
  // [name, breakpoints, held (the request / the answer / a notification), action, value, frames on, wire, recorder]
  const playbook: Array<[string, Breakpoints, 'request' | 'answer' | 'notification', string, unknown, string[], string[], string[]]> = [
    ['request, continue: forwarded', before, 'request', 'continue', undefined, [request], [], []],
    ['request, retry: as continue', before, 'request', 'retry', undefined, [request], [], []],
    ['request, inject: not forwarded, the sender gets the lifted value', before, 'request', 'inject', 'made up', [], ['answer 1 made server-to-client {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"made up"}]}}'], ['inject before 1 {"content":[{"type":"text","text":"made up"}]}']],
    ['request, inject a whole message: as written', before, 'request', 'inject', { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'typed' } }, [], ['answer 1 made server-to-client {"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"typed"}}'], ['inject before 1 {"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"typed"}}']],
    ['request, abort: not forwarded, the sender gets -32099', before, 'request', 'abort', undefined, [], [`answer 1 made server-to-client ${aborted}`], ['abort before 1']],
    ['answer, continue: forwarded', after, 'answer', 'continue', undefined, [answer], [], []],
    ['answer, inject: a rewritten answer', after, 'answer', 'inject', { n: 1 }, ['made server-to-client {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\\"n\\":1}"}],"structuredContent":{"n":1}}}'], [], ['inject after 1 {"content":[{"type":"text","text":"{\\"n\\":1}"}],"structuredContent":{"n":1}}']],
    ['answer, retry: dropped, the request sent again', after, 'answer', 'retry', undefined, [], ['resend 1'], ['retry after 1']],
    ['answer, abort: dropped, the requester gets -32099', after, 'answer', 'abort', undefined, [`made server-to-client ${aborted}`], [], ['abort after 1']],
    ['answer, an unknown action: forwarded (fail open)', after, 'answer', 'bogus', undefined, [answer], [], []],
    ['notification, abort: dropped', before, 'notification', 'abort', undefined, [], [], ['abort before undefined']],
    ['notification, inject: replaced', before, 'notification', 'inject', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'y' } }, ['made server-to-client {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"y"}}'], [], ['inject before undefined {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"y"}}']],
  ];
  for (const [name, breakpoints, held, action, value, frames, wired, decisions] of playbook) {
    const h = harness(breakpoints);
    let pending: Promise<readonly Frame[]> | undefined;
    if (held === 'notification') pending = h.holds.check(h.frame(S2C, note));
    else {
      pending = h.holds.check(h.frame(C2S, call(1)));
      if (held === 'answer') pending = h.holds.check(h.frame(S2C, ok(1)));
    }
    t.ok(pending, `${name}: held`);
    t.strictSame(await h.decide(pending!, action, value), frames, `${name}: frames on`);
    t.strictSame(h.wired, wired, `${name}: the wire`);
    t.strictSame(h.decisions, decisions, `${name}: the record`);
    t.strictSame(
      h.sent.filter((e) => e.type === 'hold.released').map((e) => (e as HoldReleased).action),
      [action],
      `${name}: released with the action`,
    );
  }
});

t.test('a retry that cannot be sent again lets the answer go on', async (t) => {
  const h = harness(after, { resend: false });
  h.holds.check(h.frame(C2S, call(1)));
  const held = h.holds.check(h.frame(S2C, ok(1)));
  t.strictSame(await h.decide(held!, 'retry'), [JSON.stringify(ok(1))]);
  t.strictSame(h.decisions, [], 'nothing recorded: the answer went on');
});

t.test('giving up', async (t) => {
  const givenUp = (h: ReturnType<typeof harness>) => h.sent.filter((e) => e.type === 'hold.updated').map((e) => (e as HoldUpdated).givenUp);
  // [name, what happens after the answer to the client's call 1 is held, reasons reported]
  const playbook: Array<[string, (h: ReturnType<typeof harness>, answer: Frame) => void, string[]]> = [
    ['the client cancels the call: given up, with its reason', (h) => h.holds.check(h.frame(C2S, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'stop' } })), ['the client cancelled the request (notifications/cancelled: stop)']],
    ['a cancel of another request: nothing', (h) => h.holds.check(h.frame(C2S, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } })), []],
    ['a cancel the other way: nothing (it cancels a request of the server)', (h) => h.holds.check(h.frame(S2C, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })), []],
    ['the same cancel twice: reported once', (h) => {
      for (let i = 0; i < 2; i++) h.holds.check(h.frame(C2S, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }));
    }, ['the client cancelled the request (notifications/cancelled)']],
    ['the client side goes away', (h) => h.holds.giveUpFrom(C2S, 'the host closed the session'), ['the host closed the session']],
    ['the server side goes away: not the requester of this call', (h) => h.holds.giveUpFrom(S2C, 'gone'), []],
    ['the call given up by its transport', (h, answer) => h.holds.giveUpCall(answer.request as Frame, 'the client closed its HTTP request'), ['the client closed its HTTP request']],
    ['the session stops: released, nothing reported after', (h, answer) => {
      h.holds.stop();
      h.holds.giveUpCall(answer.request as Frame, 'late');
    }, []],
  ];
  for (const [name, happen, reasons] of playbook) {
    const h = harness(after);
    h.holds.check(h.frame(C2S, call(1)));
    const answer = h.frame(S2C, ok(1));
    const held = h.holds.check(answer);
    happen(h, answer);
    t.strictSame(givenUp(h), reasons, name);
    if (h.core.gate.pending > 0) {
      t.equal(h.core.gate.pending, 1, `${name}: the hold stays open to be decided`);
      t.strictSame(await h.decide(held!, 'continue'), [JSON.stringify(ok(1))], `${name}: and is decided as any other`);
    } else t.strictSame((await held!).map(line), [JSON.stringify(ok(1))], `${name}: released, the answer goes on`);
  }

  // A held request stops its own direction: its requester's cancel waits behind it, and is looked at there.
  const cancel = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'timeout' } });
  const behindPlaybook: Array<[string, (h: ReturnType<typeof harness>) => Frame, string[]]> = [
    ['a classified cancel behind the held request', (h) => h.frame(C2S, JSON.parse(cancel(1))), ['the client cancelled the request (notifications/cancelled: timeout)']],
    ['a line behind it, bytes only', () => newFrame(Buffer.from(`${cancel(1)}\n`), C2S, 0, true), ['the client cancelled the request (notifications/cancelled: timeout)']],
    ['a line cancelling another request', () => newFrame(Buffer.from(`${cancel(7)}\n`), C2S, 0, true), []],
    ['a request named like the cancel (it has an id)', () => newFrame(Buffer.from('{"jsonrpc":"2.0","id":9,"method":"notifications/cancelled","params":{"requestId":1}}\n'), C2S, 0, true), []],
    ['half a line', () => newFrame(Buffer.from('{"jsonrpc":"2.0","method":"notifications/cancelled","par'), C2S, 0, true), []],
    ['another line', () => newFrame(Buffer.from('{"jsonrpc":"2.0","id":3,"method":"ping"}\n'), C2S, 0, true), []],
  ];
  for (const [name, behind, reasons] of behindPlaybook) {
    const h = harness(before);
    const held = h.holds.check(h.frame(C2S, call(1)));
    h.holds.behind(behind(h));
    t.strictSame(givenUp(h), reasons, `behind: ${name}`);
    t.strictSame(await h.decide(held!, 'continue'), [JSON.stringify(call(1))], `behind: ${name}: still decided, then forwarded`);
  }

  const later = harness(after);
  later.holds.giveUpFrom(C2S, 'the host closed the session');
  later.holds.check(later.frame(C2S, call(1)));
  const held = later.holds.check(later.frame(S2C, ok(1)));
  t.strictSame(givenUp(later), ['the host closed the session'], 'a hold that opens after its requester went is given up at once');
  t.equal(later.holds.mayHold(), true, 'holds still open while the session lives');
  later.holds.stop();
  t.equal(later.holds.mayHold(), false, 'nothing holds once stopped');
  await held;
});

t.test('the era: the initialize answer sets it, and injected answers are stamped for it', async (t) => {
  const h = harness({ pauseOnError: false, nodes: { 'resource:test://a': { before: true } } });
  const init = h.frame(C2S, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
  t.equal(h.holds.check(init), undefined);
  t.equal(h.holds.sessionEra, undefined, 'not before the answer');
  t.equal(h.holds.check(h.frame(S2C, { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2026-07-28', capabilities: {}, serverInfo: { name: 's', version: '1' } } })), undefined);
  t.equal(h.holds.sessionEra, '2026-07-28');
  const held = h.holds.check(h.frame(C2S, { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'test://a' } }));
  await h.decide(held!, 'inject', 'text');
  t.strictSame(h.wired, ['answer 2 made server-to-client {"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"test://a","mimeType":"text/plain","text":"text"}],"resultType":"complete","ttlMs":0,"cacheScope":"private"}}']);
});
