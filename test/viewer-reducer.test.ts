// The viewer's live reducer as a playbook, in Node without a browser: the
// page's state and one live-feed message in, the state after it and what
// the shell must redraw and fetch out. Then the answers to those fetches
// (a run loaded, a load failed, a starting run's meta), the same way.
import t, { type Test } from 'tap';
import type { RunSummary } from '../src/protocol/run-model.js';
import type { Hold } from '../src/protocol/control.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import type { LiveMessage } from '../src/protocol/live-feed.js';
import { receive } from '../src/viewer/live-reducer.js';
import { RunModel, type FetchedRun } from '../src/viewer/run-model.js';
import { metaFetched, runFailed, runLoaded } from '../src/viewer/run-loading.js';
import { Dirty, ViewState, type SourceFilter, type Step } from '../src/viewer/view-state.js';

const AT = '2024-05-01T10:00:00.000Z';
const T = Date.parse(AT);

function summary(runId: string, over: Partial<RunSummary> = {}): RunSummary {
  return { runId, name: runId, source: 'mcp-proxy', status: 'running', startedAt: AT, endedAt: null, ...over };
}

/** A run as the server returns it, with one finished call per [node, instance]. */
function fetched(runId: string, calls: Array<[string, string]> = []): FetchedRun {
  const nodeIds = [...new Set(calls.map(([nodeId]) => nodeId))];
  return {
    ...summary(runId),
    meta: {},
    nodes: nodeIds.map((nodeId) => ({ nodeId, kind: 'tool', parent: null, label: nodeId, status: 'ok' })),
    instances: calls.map(([nodeId, instanceId]) => ({ instanceId, nodeId, status: 'ok', startedAt: AT, endedAt: AT })),
    logs: [],
    droppedEvents: 0,
    lastSeq: 0,
  };
}

function hold(holdId: string, runId: string, nodeId: string, instanceId: string): Hold {
  return { holdId, runId, nodeId, instanceId, gate: 'before', method: 'tools/call', frame: {}, since: AT };
}

const started = (runId: string, instanceId: string, nodeId: string): RunEvent => ({
  type: 'instance.started',
  runId,
  seq: 1,
  t: T,
  instanceId,
  node: { nodeId, kind: 'tool', parent: null, label: nodeId },
});
const serverInfo = (runId: string, name: string): RunEvent => ({ type: 'run.meta', runId, seq: 2, t: T, meta: { serverInfo: { name, version: '1.0' } } });

/** The page before the message. */
interface Given {
  runs?: RunSummary[];
  holds?: Hold[];
  /** Following the newest run (default true). */
  follow?: boolean;
  /** The selected run. */
  selected?: string;
  /** The selected run, loaded. */
  run?: FetchedRun;
  /** The selected run is being fetched (load 1). */
  loading?: boolean;
  node?: string;
  source?: SourceFilter;
  deleting?: string[];
  openOnLoad?: boolean;
}

function page(given: Given): ViewState {
  const state = new ViewState();
  state.runs = given.runs ?? [];
  state.holds = given.holds ?? [];
  state.followNewest = given.follow ?? true;
  state.selectedRunId = given.selected ?? given.run?.runId ?? null;
  if (given.run !== undefined) state.run = new RunModel(given.run);
  if (given.loading === true) {
    state.runLoading = true;
    state.pending = [];
    state.loadToken = 1;
  }
  state.selectedNodeId = given.node ?? null;
  state.source = given.source ?? 'all';
  for (const runId of given.deleting ?? []) state.deleting.add(runId);
  state.openOnLoad = given.openOnLoad ?? false;
  return state;
}

/** What a row can expect of the page after the step. */
interface Seen {
  loaded: boolean;
  runs: string[];
  holds: string[];
  selected: string | null;
  follow: boolean;
  node: string | null;
  /** The run whose model is shown. */
  shown: string | null;
  loading: boolean;
  pending: number | null;
  expanded: string[];
  active: string | null;
  error: string | null;
  server: string | undefined;
  dirty: string[];
  effects: string[];
}

function seen(state: ViewState, step: Step): Seen {
  return {
    loaded: state.loaded,
    runs: state.runs.map((r) => r.runId),
    holds: state.holds.map((h) => (h.givenUp === undefined ? h.holdId : `${h.holdId} (given up)`)),
    selected: state.selectedRunId,
    follow: state.followNewest,
    node: state.selectedNodeId,
    shown: state.run?.summary.runId ?? null,
    loading: state.runLoading,
    pending: state.pending?.length ?? null,
    expanded: [...state.expanded],
    active: state.activeInstance,
    error: state.runError,
    server: state.runs.find((r) => r.server !== undefined)?.server?.name,
    dirty: Object.entries(Dirty)
      .filter(([, flag]) => (step.dirty & flag) !== 0)
      .map(([name]) => name),
    effects: step.effects.map((e) => `${e.type} ${e.runId}`),
  };
}

/** Every row says what is redrawn and fetched; the rest it names is checked too. */
type Expect = Partial<Seen> & Pick<Seen, 'dirty' | 'effects'>;

function check(t: Test, state: ViewState, step: Step, expected: Expect): void {
  const all = seen(state, step);
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(expected)) picked[key] = all[key as keyof Seen];
  t.same(picked, expected);
}

const a = summary('run_a');
const b = summary('run_b');
const c = summary('run_c');
const adapterRun = summary('run_adapter', { source: 'mcp-adapter' });
const hA = hold('h1', 'run_a', 'tool:echo', 'i1');
const hB = hold('h2', 'run_b', 'tool:add', 'i9');

const playbook: Array<[string, Given, LiveMessage, Expect]> = [
  // snapshot
  [
    'first snapshot: the newest run is fetched',
    {},
    { type: 'snapshot', runs: [b, a], breakpoints: { pauseOnError: false, nodes: {} }, holds: [hA] },
    { loaded: true, runs: ['run_b', 'run_a'], holds: ['h1'], selected: 'run_b', follow: true, loading: true, pending: 0, dirty: ['Runs', 'Run', 'Breakpoints', 'Holds', 'Selection'], effects: ['load run_b'] },
  ],
  [
    'first snapshot with no run: nothing shown',
    {},
    { type: 'snapshot', runs: [], breakpoints: { pauseOnError: true, nodes: {} }, holds: [] },
    { loaded: true, selected: null, shown: null, loading: false, pending: null, dirty: ['Runs', 'Run', 'Breakpoints', 'Holds', 'Selection'], effects: [] },
  ],
  [
    'a run named by the address is in the snapshot: it is fetched, and stays chosen',
    { follow: false, selected: 'run_a' },
    { type: 'snapshot', runs: [b, a], breakpoints: { pauseOnError: true, nodes: {} }, holds: [] },
    { selected: 'run_a', follow: false, loading: true, dirty: ['Runs', 'Run', 'Breakpoints', 'Holds', 'Selection'], effects: ['load run_a'] },
  ],
  [
    'a run named by the address is not in the snapshot: the page follows the newest',
    { follow: false, selected: 'run_gone' },
    { type: 'snapshot', runs: [b, a], breakpoints: { pauseOnError: true, nodes: {} }, holds: [] },
    { selected: 'run_b', follow: true, dirty: ['Runs', 'Run', 'Breakpoints', 'Holds', 'Selection'], effects: ['load run_b'] },
  ],
  [
    'a reconnection on the run shown: fetched again, what was open kept',
    { runs: [a], run: fetched('run_a', [['tool:echo', 'i1']]), node: 'tool:echo' },
    { type: 'snapshot', runs: [a], breakpoints: { pauseOnError: true, nodes: {} }, holds: [] },
    { selected: 'run_a', shown: 'run_a', node: 'tool:echo', loading: true, pending: 0, dirty: ['Runs', 'Run', 'Breakpoints', 'Holds', 'Selection'], effects: ['load run_a'] },
  ],
  [
    'snapshot with a source filter: the newest run the list shows',
    { source: 'proxy' },
    { type: 'snapshot', runs: [adapterRun, a], breakpoints: { pauseOnError: true, nodes: {} }, holds: [] },
    { selected: 'run_a', dirty: ['Runs', 'Run', 'Breakpoints', 'Holds', 'Selection'], effects: ['load run_a'] },
  ],
  // run.started
  [
    'a run starts while following: drawn from the feed, only its meta fetched',
    { runs: [a], run: fetched('run_a') },
    { type: 'run.started', run: b },
    { runs: ['run_b', 'run_a'], selected: 'run_b', shown: 'run_b', loading: false, pending: null, dirty: ['Runs', 'Run', 'Selection'], effects: ['meta run_b'] },
  ],
  [
    'a run starts while the user has chosen one: only listed',
    { runs: [a], run: fetched('run_a'), follow: false },
    { type: 'run.started', run: b },
    { runs: ['run_b', 'run_a'], selected: 'run_a', shown: 'run_a', dirty: ['Runs'], effects: [] },
  ],
  [
    'a run the filters hide starts: not followed',
    { runs: [a], run: fetched('run_a'), source: 'proxy' },
    { type: 'run.started', run: adapterRun },
    { runs: ['run_adapter', 'run_a'], selected: 'run_a', dirty: ['Runs'], effects: [] },
  ],
  [
    'a run started again (a reclaim) moves to the top, listed once',
    { runs: [b, a], run: fetched('run_a'), follow: false },
    { type: 'run.started', run: a },
    { runs: ['run_a', 'run_b'], dirty: ['Runs'], effects: [] },
  ],
  // run.updated
  [
    'an update for a run not listed adds it',
    { runs: [a] },
    { type: 'run.updated', run: b },
    { runs: ['run_b', 'run_a'], dirty: ['Runs'], effects: [] },
  ],
  [
    'an update for the run shown changes its header too',
    { runs: [a], run: fetched('run_a') },
    { type: 'run.updated', run: summary('run_a', { status: 'error' }) },
    { runs: ['run_a'], shown: 'run_a', dirty: ['Runs', 'Run'], effects: [] },
  ],
  // run.event
  [
    'an event of another run: nothing to draw',
    { runs: [a, b], run: fetched('run_a') },
    { type: 'run.event', runId: 'run_b', event: started('run_b', 'i1', 'tool:echo') },
    { dirty: [], effects: [] },
  ],
  [
    'an event of the run being fetched waits for it',
    { runs: [a], selected: 'run_a', loading: true },
    { type: 'run.event', runId: 'run_a', event: started('run_a', 'i1', 'tool:echo') },
    { pending: 1, dirty: [], effects: [] },
  ],
  [
    'an event of the run shown is applied',
    { runs: [a], run: fetched('run_a') },
    { type: 'run.event', runId: 'run_a', event: started('run_a', 'i1', 'tool:echo') },
    { dirty: ['Run'], effects: [] },
  ],
  [
    "a run's server answers initialize: the list names it, shown or not",
    { runs: [a, b], run: fetched('run_a') },
    { type: 'run.event', runId: 'run_b', event: serverInfo('run_b', 'tasks') },
    { server: 'tasks', dirty: ['Runs', 'Run'], effects: [] },
  ],
  [
    'the same server name again changes nothing',
    { runs: [summary('run_b', { server: { name: 'tasks', version: '1.0' } })] },
    { type: 'run.event', runId: 'run_b', event: serverInfo('run_b', 'tasks') },
    { server: 'tasks', dirty: [], effects: [] },
  ],
  // run.deleted
  [
    'a run not shown is deleted: gone from the list with its holds',
    { runs: [b, a], run: fetched('run_b'), holds: [hA, hB], deleting: ['run_a'], follow: false },
    { type: 'run.deleted', runId: 'run_a' },
    { runs: ['run_b'], holds: ['h2'], selected: 'run_b', follow: false, dirty: ['Runs', 'Holds'], effects: [] },
  ],
  [
    'the run shown is deleted: the page follows the newest left',
    { runs: [b, a], run: fetched('run_b'), follow: false },
    { type: 'run.deleted', runId: 'run_b' },
    { runs: ['run_a'], selected: 'run_a', follow: true, loading: true, dirty: ['Runs', 'Run', 'Holds', 'Selection'], effects: ['load run_a'] },
  ],
  [
    'the last run is deleted: nothing shown',
    { runs: [a], run: fetched('run_a') },
    { type: 'run.deleted', runId: 'run_a' },
    { runs: [], selected: null, shown: null, dirty: ['Runs', 'Run', 'Holds', 'Selection'], effects: [] },
  ],
  // breakpoints
  [
    'new breakpoints',
    {},
    { type: 'breakpoints', breakpoints: { pauseOnError: false, nodes: { 'tool:echo': { before: true } } } },
    { dirty: ['Breakpoints'], effects: [] },
  ],
  // holds
  [
    'a hold on another run while following: its run is fetched (the call opens once it is there)',
    { runs: [b, a], run: fetched('run_b') },
    { type: 'hold.opened', hold: hA },
    { holds: ['h1'], selected: 'run_a', loading: true, node: null, active: null, dirty: ['Runs', 'Run', 'Holds', 'Selection'], effects: ['load run_a'] },
  ],
  [
    'a hold on the run shown: the held call opens',
    { runs: [a], run: fetched('run_a', [['tool:echo', 'i1']]) },
    { type: 'hold.opened', hold: hA },
    { holds: ['h1'], node: 'tool:echo', expanded: ['i1'], active: 'i1', dirty: ['Holds', 'Selection', 'Find'], effects: [] },
  ],
  [
    'a hold while the page is on another held call: that one is not taken away',
    { runs: [b], run: fetched('run_b', [['tool:add', 'i9'], ['tool:echo', 'i1']]), holds: [hB], node: 'tool:add' },
    { type: 'hold.opened', hold: hold('h3', 'run_b', 'tool:echo', 'i1') },
    { holds: ['h2', 'h3'], node: 'tool:add', active: null, dirty: ['Holds'], effects: [] },
  ],
  [
    'a hold on another run while the user has chosen one: only listed',
    { runs: [b, a], run: fetched('run_b'), follow: false },
    { type: 'hold.opened', hold: hA },
    { holds: ['h1'], selected: 'run_b', dirty: ['Holds'], effects: [] },
  ],
  [
    'a hold opened twice is listed once',
    { runs: [b, a], run: fetched('run_b'), follow: false, holds: [hA] },
    { type: 'hold.opened', hold: hA },
    { holds: ['h1'], dirty: ['Holds'], effects: [] },
  ],
  [
    'a hold given up is replaced',
    { holds: [hA, hB] },
    { type: 'hold.updated', hold: { ...hA, givenUp: 'cancelled' } },
    { holds: ['h1 (given up)', 'h2'], dirty: ['Holds'], effects: [] },
  ],
  [
    'an update of a hold not listed changes nothing',
    { holds: [hB] },
    { type: 'hold.updated', hold: hA },
    { holds: ['h2'], dirty: [], effects: [] },
  ],
  [
    'a hold decided leaves the list',
    { holds: [hA, hB] },
    { type: 'hold.decided', holdId: 'h1', action: 'continue' },
    { holds: ['h2'], dirty: ['Holds'], effects: [] },
  ],
  [
    'a hold released leaves the list',
    { holds: [hA] },
    { type: 'hold.released', holdId: 'h1', action: 'abort' },
    { holds: [], dirty: ['Holds'], effects: [] },
  ],
  [
    'a hold released twice changes nothing the second time',
    { holds: [hB] },
    { type: 'hold.released', holdId: 'h1', action: 'continue' },
    { holds: ['h2'], dirty: [], effects: [] },
  ],
];

for (const [name, given, message, expected] of playbook) {
  t.test(name, async (t) => {
    const state = page(given);
    check(t, state, receive(state, message), expected);
  });
}

// The answers to the fetches a step asked for.
const loads: Array<[string, Given, (state: ViewState) => Step, Expect]> = [
  [
    'the run arrives: shown, with the events that came meanwhile on top',
    { runs: [a], selected: 'run_a', loading: true },
    (state) => {
      state.pending?.push(started('run_a', 'i2', 'tool:late'));
      return runLoaded(state, { runId: 'run_a', token: 1 }, fetched('run_a', [['tool:echo', 'i1']]));
    },
    { shown: 'run_a', loading: false, pending: null, node: null, dirty: ['Run', 'Selection'], effects: [] },
  ],
  [
    'an answer for an older load is dropped',
    { runs: [a], selected: 'run_a', loading: true },
    (state) => runLoaded(state, { runId: 'run_a', token: 0 }, fetched('run_a')),
    { shown: null, loading: true, pending: 0, dirty: [], effects: [] },
  ],
  [
    'a node named before the run loaded: its latest call opens',
    { runs: [a], selected: 'run_a', loading: true, node: 'tool:echo', openOnLoad: true },
    (state) => runLoaded(state, { runId: 'run_a', token: 1 }, fetched('run_a', [['tool:echo', 'i1'], ['tool:echo', 'i2']])),
    { node: 'tool:echo', expanded: ['i2'], active: null, dirty: ['Run', 'Selection'], effects: [] },
  ],
  [
    'a node the run does not have is let go',
    { runs: [a], selected: 'run_a', loading: true, node: 'tool:gone', openOnLoad: true },
    (state) => runLoaded(state, { runId: 'run_a', token: 1 }, fetched('run_a', [['tool:echo', 'i1']])),
    { node: null, expanded: [], dirty: ['Run', 'Selection'], effects: [] },
  ],
  [
    'a run with a held call: the held call opens',
    { runs: [a], selected: 'run_a', loading: true, holds: [hA] },
    (state) => runLoaded(state, { runId: 'run_a', token: 1 }, fetched('run_a', [['tool:echo', 'i1'], ['tool:other', 'i2']])),
    { node: 'tool:echo', expanded: ['i1'], active: 'i1', dirty: ['Run', 'Selection', 'Find'], effects: [] },
  ],
  [
    'the load fails: the page says why',
    { runs: [a], selected: 'run_a', loading: true },
    (state) => runFailed(state, 1, new Error('run not found')),
    { shown: null, loading: false, pending: null, error: 'run not found', dirty: ['Run', 'Selection'], effects: [] },
  ],
  [
    "a starting run's meta arrives while it is shown: merged",
    { runs: [a] },
    (state) => {
      const model = RunModel.starting(a);
      state.run = model;
      state.selectedRunId = 'run_a';
      state.loadToken = 3;
      return metaFetched(state, 3, model, { command: 'node' });
    },
    { shown: 'run_a', dirty: ['Run'], effects: [] },
  ],
  [
    "a starting run's meta arrives after the page moved on: dropped",
    { runs: [a], run: fetched('run_a') },
    (state) => metaFetched(state, 0, RunModel.starting(a), { command: 'node' }),
    { shown: 'run_a', dirty: [], effects: [] },
  ],
];

for (const [name, given, answer, expected] of loads) {
  t.test(name, async (t) => {
    const state = page(given);
    check(t, state, answer(state), expected);
  });
}

t.test('an event that waited for the fetch is in the run shown', async (t) => {
  const state = page({ runs: [a], selected: 'run_a', loading: true });
  receive(state, { type: 'run.event', runId: 'run_a', event: started('run_a', 'i2', 'tool:late') });
  runLoaded(state, { runId: 'run_a', token: 1 }, fetched('run_a', [['tool:echo', 'i1']]));
  t.same(
    state.run?.instances.map((i) => i.instanceId),
    ['i1', 'i2'],
  );
});
