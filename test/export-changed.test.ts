// The exports read the one field (issue 30): HAR and OTLP say what the
// debugger changed from the run model's Instance.changed (and its held
// time from Instance.heldMs), as the viewer and graphmind mcp do, and keep
// held time apart from the server's (HAR: timings.blocked vs wait and
// _graphmind.serverMs; OTLP: graphmind.held_ms vs graphmind.server_ms).
// A playbook: a run's events in, the call's entry and span out.
import t from 'tap';
import type { NodeDeclaration, RunEvent } from '../src/protocol/ingest.js';
import { RunState } from '../src/protocol/run-state.js';
import { runHar, type HarEntry } from '../src/export/har.js';
import { traceRunOf } from '../src/export/log-replay.js';
import { RunFacts } from '../src/export/run-facts.js';
import { runSpans } from '../src/export/run-spans.js';
import type { Attributes } from '../src/export/trace-model.js';

const RUN = 'run_exp';
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 0);
const SESSION: NodeDeclaration = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.mjs' };
const ECHO: NodeDeclaration = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' };
const iso = (at: number): string => new Date(T0 + at).toISOString();

type Step = [Record<string, unknown>, number];
const begin: Step[] = [
  [{ type: 'run.started', name: RUN, source: 'mcp-proxy', meta: {} }, 0],
  [{ type: 'instance.started', instanceId: 'mcp_1', node: SESSION }, 0],
  [{ type: 'instance.started', instanceId: 'mcp_2', node: ECHO, input: { name: 'echo' }, requestId: 2 }, 0],
];
const opened = (holdId: string, gate: string, at: number): Step => [{ type: 'hold.opened', holdId, nodeId: 'tool:echo', instanceId: 'mcp_2', gate, method: 'tools/call', frame: {} }, at];
const released = (holdId: string, action: string, at: number): Step => [{ type: 'hold.released', holdId, action }, at];
const decided = (holdId: string, action: string, by: string, at: number): Step => [{ type: 'run.meta', seq: 0, meta: { decisions: [{ holdId, action, by, at: iso(at) }] } }, at];
const finished = (at: number, text: string): Step => [{ type: 'instance.finished', instanceId: 'mcp_2', output: { content: [{ type: 'text', text }] } }, at];

/** The echo call's HAR entry and span, after `steps`. */
function exported(steps: Step[]): { entry: HarEntry; span: Attributes } {
  const state = new RunState(RUN, T0);
  const facts = new RunFacts();
  let seq = 0;
  for (const [event, at] of [...begin, ...steps]) {
    const numbered = { seq: event.seq === 0 ? 0 : ++seq, ...event, runId: RUN, t: T0 + at } as unknown as RunEvent;
    state.apply(numbered);
    facts.apply(numbered, (id) => state.byId.get(id));
  }
  const run = traceRunOf(state);
  const now = T0 + 10_000;
  const entry = runHar(run, facts, { version: '0.0.0', now }).log.entries[0] as HarEntry;
  const span = runSpans(run, facts, { now }).find((record) => record.attributes['graphmind.instance.id'] === 'mcp_2');
  return { entry, span: span?.attributes ?? {} };
}

const cases: Array<{ name: string; steps: Step[]; har: Record<string, unknown>; otlp: Record<string, unknown>; absent?: string[] }> = [
  {
    name: 'untouched: all the server\'s time',
    steps: [finished(40, 'server')],
    har: { time: 40, timings: { blocked: 0, send: 0, wait: 40, receive: 0 }, _graphmind: { changedByDebugger: false, serverMs: 40 } },
    otlp: { 'graphmind.changed_by_debugger': false, 'graphmind.server_ms': 40 },
    absent: ['graphmind.held_ms', 'graphmind.change.action'],
  },
  {
    name: 'held at the before gate, continued: held time apart',
    steps: [opened('h1', 'before', 0), released('h1', 'continue', 3000), finished(3020, 'server')],
    har: { time: 3020, timings: { blocked: 3000, wait: 20 }, _graphmind: { changedByDebugger: false, heldMs: 3000, serverMs: 20 } },
    otlp: { 'graphmind.held_ms': 3000, 'graphmind.server_ms': 20, 'graphmind.hold.count': 1 },
  },
  {
    name: 'injected at the after gate by the viewer: the model\'s change, the server\'s time',
    steps: [finished(30, 'server'), opened('h1', 'after', 30), decided('h1', 'inject', 'viewer', 530), finished(530, 'made'), released('h1', 'inject', 530)],
    har: { time: 530, timings: { blocked: 500, wait: 30 }, _graphmind: { changedByDebugger: true, change: { action: 'inject', by: 'viewer' }, heldMs: 500, serverMs: 30 } },
    otlp: { 'graphmind.changed_by_debugger': true, 'graphmind.change.action': 'inject', 'graphmind.change.by': 'viewer', 'graphmind.held_ms': 500, 'graphmind.server_ms': 30 },
  },
  {
    name: 'aborted at the before gate: no server time',
    steps: [opened('h1', 'before', 0), decided('h1', 'abort', 'api', 900), [{ type: 'instance.error', instanceId: 'mcp_2', error: { name: 'Aborted', message: 'aborted', code: -32099 } }, 900], released('h1', 'abort', 900)],
    har: { time: 900, timings: { blocked: 900, wait: 0 }, _graphmind: { changedByDebugger: true, change: { action: 'abort', by: 'api' }, serverMs: null } },
    otlp: { 'graphmind.change.action': 'abort', 'graphmind.change.by': 'api', 'error.type': '-32099' },
    absent: ['graphmind.server_ms'],
  },
  {
    name: 'who decided, as the model kept it when the hold was let go, even once the meta\'s list moved on',
    steps: [
      finished(10, 'server'),
      opened('h1', 'after', 10),
      decided('h1', 'inject', 'nightly-check', 20),
      finished(20, 'made'),
      released('h1', 'inject', 20),
      // The server's list of decisions is bounded: a later one replaced it.
      decided('h9', 'continue', 'viewer', 30),
    ],
    har: { _graphmind: { change: { action: 'inject', by: 'nightly-check' } } },
    otlp: { 'graphmind.change.by': 'nightly-check' },
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const { entry, span } = exported(c.steps);
    t.match(entry, c.har, 'HAR');
    const timings = entry.timings;
    t.equal(entry.time, timings.blocked + timings.send + timings.wait + timings.receive, 'HAR: time is the sum of its timings');
    t.match(span, c.otlp, 'OTLP');
    for (const name of c.absent ?? []) t.notOk(name in span, `no ${name}`);
  });
}
