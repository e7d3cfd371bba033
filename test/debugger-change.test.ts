// What the debugger did to a call, in the run model (issue 30): the replay
// marks a call the debugger changed (Instance.changed: the action, the gate,
// who decided it from the server's `decisions` meta, and the server's own
// answer it replaced) and keeps held time apart (Instance.heldMs), and
// callTimes splits what the requester waited into the server's time and
// the debugger's. A playbook: events in, field and times out.
import t from 'tap';
import type { Instance, InstanceChange } from '../src/protocol/run-model.js';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import { RunReplay } from '../src/protocol/run-replay.js';
import { callTimes, changeText, type CallTimes } from '../src/protocol/call-times.js';

const RUN = 'run_did';
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 0);
const ECHO: NodeDeclaration = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' };
const iso = (at: number): string => new Date(T0 + at).toISOString();

type Step = [Record<string, unknown>, number];

const start: Step = [{ type: 'instance.started', instanceId: 'mcp_1', node: ECHO, input: { name: 'echo' } }, 0];
const answered = (at: number, output: unknown = { content: [{ type: 'text', text: 'server' }] }): Step => [{ type: 'instance.finished', instanceId: 'mcp_1', output }, at];
const opened = (holdId: string, gate: string, at: number): Step => [
  { type: 'hold.opened', holdId, nodeId: 'tool:echo', instanceId: 'mcp_1', gate, method: 'tools/call', frame: {} },
  at,
];
const released = (holdId: string, action: string, at: number): Step => [{ type: 'hold.released', holdId, action }, at];
// The server's own run.meta (sequence 0), sent the moment a decision comes through the API.
const decidedBy = (holdId: string, action: string, by: string, at: number): Step => [
  { type: 'run.meta', seq: 0, meta: { decisions: [{ holdId, action, by, at: iso(at) }] } },
  at,
];
const injected = (at: number): Step => [{ type: 'instance.finished', instanceId: 'mcp_1', output: { content: [{ type: 'text', text: 'made' }] } }, at];

function replayOf(steps: Step[]): Instance {
  const replay = new RunReplay({ runId: RUN, name: RUN, source: 'mcp-proxy', status: 'running', startedAt: iso(0), endedAt: null });
  let seq = 0;
  for (const [event, at] of steps) {
    const numbered = { seq: ++seq, ...event, runId: RUN, t: T0 + at } as unknown as RunEvent;
    replay.apply(numbered);
  }
  return replay.byId.get('mcp_1') as Instance;
}

interface Case {
  name: string;
  steps: Step[];
  changed: InstanceChange | undefined;
  heldMs: number | undefined;
  times: CallTimes;
  text?: string;
}

const SERVER_ANSWER = { content: [{ type: 'text', text: 'server' }] };
const cases: Case[] = [
  {
    name: 'untouched: no change, no held time, all the server',
    steps: [start, answered(40)],
    changed: undefined,
    heldMs: undefined,
    times: { waitedMs: 40, heldMs: 0, serverMs: 40 },
  },
  {
    name: 'held before, continued: the hold is the debugger\'s time, not the server\'s',
    steps: [start, opened('h1', 'before', 1), released('h1', 'continue', 5001), answered(5031)],
    changed: undefined,
    heldMs: 5000,
    times: { waitedMs: 5031, heldMs: 5000, serverMs: 31 },
  },
  {
    name: 'answer held after, continued: the client waited until it went on',
    steps: [start, answered(20), opened('h1', 'after', 20), released('h1', 'continue', 3020)],
    changed: undefined,
    heldMs: 3000,
    times: { waitedMs: 3020, heldMs: 3000, serverMs: 20 },
  },
  {
    name: 'injected at the before gate by the viewer: the server never answered',
    steps: [start, opened('h1', 'before', 1), decidedBy('h1', 'inject', 'viewer', 900), injected(901), released('h1', 'inject', 901)],
    changed: { action: 'inject', gate: 'before', by: 'viewer', at: iso(901), holdId: 'h1' },
    heldMs: 900,
    times: { waitedMs: 901, heldMs: 900, serverMs: null },
    text: 'injected by viewer',
  },
  {
    name: 'replaced at the after gate through the API: the server\'s answer is kept beside it',
    steps: [start, answered(30), opened('h1', 'after', 30), decidedBy('h1', 'inject', 'api', 2030), injected(2030), released('h1', 'inject', 2030)],
    changed: { action: 'inject', gate: 'after', by: 'api', at: iso(2030), holdId: 'h1', server: { status: 'ok', endedAt: iso(30), output: SERVER_ANSWER } },
    heldMs: 2000,
    times: { waitedMs: 2030, heldMs: 2000, serverMs: 30 },
    text: "injected by api (replaced the server's answer)",
  },
  {
    name: 'the hold let go a moment after the injected answer went out: held never more than the client waited',
    steps: [start, answered(2), opened('h1', 'after', 2), decidedBy('h1', 'inject', 'viewer', 1000), injected(1000), released('h1', 'inject', 1006)],
    changed: { action: 'inject', gate: 'after', by: 'viewer', at: iso(1006), holdId: 'h1', server: { status: 'ok', endedAt: iso(2), output: SERVER_ANSWER } },
    heldMs: 1004,
    times: { waitedMs: 1000, heldMs: 1000, serverMs: 0 },
    text: "injected by viewer (replaced the server's answer)",
  },
  {
    name: 'an error answer aborted at the error gate by graphmind mcp',
    steps: [
      start,
      [{ type: 'instance.error', instanceId: 'mcp_1', error: { name: 'JsonRpcError', message: 'boom', code: -32000 } }, 50],
      opened('h1', 'error', 50),
      decidedBy('h1', 'abort', 'graphmind mcp', 150),
      [{ type: 'instance.error', instanceId: 'mcp_1', error: { name: 'Aborted', message: 'aborted', code: -32099 } }, 150],
      released('h1', 'abort', 150),
    ],
    changed: {
      action: 'abort',
      gate: 'error',
      by: 'graphmind mcp',
      at: iso(150),
      holdId: 'h1',
      server: { status: 'error', endedAt: iso(50), error: { name: 'JsonRpcError', message: 'boom', code: -32000 } },
    },
    heldMs: 100,
    times: { waitedMs: 150, heldMs: 100, serverMs: 50 },
    text: "aborted by graphmind mcp (replaced the server's answer)",
  },
  {
    name: 'retried after: the first answer is an attempt, the second the server\'s',
    steps: [
      start,
      answered(10, { first: true }),
      opened('h1', 'after', 10),
      decidedBy('h1', 'retry', 'viewer', 510),
      [{ type: 'instance.reopened', instanceId: 'mcp_1' }, 510],
      released('h1', 'retry', 510),
      answered(530, { second: true }),
    ],
    changed: { action: 'retry', gate: 'after', by: 'viewer', at: iso(510), holdId: 'h1' },
    heldMs: 500,
    times: { waitedMs: 530, heldMs: 500, serverMs: 30 },
    text: 'retried by viewer',
  },
  {
    name: 'a decision the server did not record (an old log): by is unknown',
    steps: [start, opened('h1', 'before', 0), [{ type: 'instance.error', instanceId: 'mcp_1', error: { name: 'Aborted', message: 'aborted', code: -32099 } }, 10], released('h1', 'abort', 10)],
    changed: { action: 'abort', gate: 'before', by: 'unknown', at: iso(10), holdId: 'h1' },
    heldMs: 10,
    times: { waitedMs: 10, heldMs: 10, serverMs: null },
    text: 'aborted by unknown',
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const instance = replayOf(c.steps);
    t.strictSame(instance.changed, c.changed, 'Instance.changed');
    t.equal(instance.heldMs, c.heldMs, 'Instance.heldMs');
    t.strictSame(callTimes(instance), c.times, 'callTimes');
    t.equal(changeText(instance), c.text, 'changeText');
  });
}

t.test('an open call counts up to now, less what was held', async (t) => {
  const instance = replayOf([start, opened('h1', 'before', 0), released('h1', 'continue', 700)]);
  t.strictSame(callTimes(instance, T0 + 1000), { waitedMs: 1000, heldMs: 700, serverMs: 300 });
  t.strictSame(callTimes(instance), { waitedMs: null, heldMs: 700, serverMs: null }, 'without now, an open call has no duration yet');
});

t.test('the record survives JSON (a run fetched through the API, or written to a log)', async (t) => {
  const instance = replayOf(cases[4]!.steps);
  const copy = JSON.parse(JSON.stringify(instance)) as Instance;
  t.strictSame(copy.changed, instance.changed);
  t.strictSame(callTimes(copy), callTimes(instance));
});
