// The adapter's one gated execution (calls and sampling alike) as a
// playbook: breakpoints, decisions and what the gated thing does in; what
// its requester gets, what is recorded and which hold events go out. The
// real DebuggerGate with a fake reporter, a fake gated thing: no runtime,
// no SDK, no socket.
import { EventEmitter } from 'node:events';
import t from 'tap';
import { CLIENT_GAVE_UP } from '../src/adapter/given-up.js';
import { abortError, DebuggerAnswer } from '../src/adapter/debugger-answer.js';
import { execute, type ExecutionHost, type Gated } from '../src/adapter/gated-execution.js';
import { DebuggerGate } from '../src/gates/debugger-gate.js';
import { ABORT_CODE, abortedRecord } from '../src/gates/outcome.js';
import type { AnswerRecord } from '../src/report/answer-record.js';
import type { Breakpoints, GatePoint } from '../src/protocol/control.js';
import { hideSettings } from '../src/report/hide.js';

/** A decision the fake debugger takes when a hold opens (in order), or a function run then. */
type Step = { action: string; value?: unknown } | ((holdId: string) => void);

/** The reporter as DebuggerGate uses it: each event as a line, each hold decided by the next step. */
class FakeReporter extends EventEmitter {
  readonly attached = true;
  readonly url = 'http://127.0.0.1:1';
  readonly lines: string[] = [];
  steps: Step[] = [];

  send(_runId: string, event: { type: string; holdId?: string; gate?: string; action?: string; givenUp?: string }): void {
    if (event.type === 'hold.opened') this.lines.push(`opened ${event.gate}`);
    if (event.type === 'hold.updated') this.lines.push(`given up: ${event.givenUp}`);
    if (event.type === 'hold.released') this.lines.push(`released ${event.action}`);
    if (event.type !== 'hold.opened' || event.holdId === undefined) return;
    const step = this.steps.shift();
    if (step === undefined) return;
    queueMicrotask(() => (typeof step === 'function' ? step(event.holdId as string) : this.emit('decision', { holdId: event.holdId, ...step })));
  }
}

/** What the gated thing does on each attempt: answer `value`, or throw `throws`. */
type Attempt = { value: unknown } | { throws: unknown };

/** A gated thing that records what the execution tells it. */
class FakeGated implements Gated {
  readonly run = {
    runId: 'run_1',
    open: (): void => {},
    reopened: (): void => {
      this.reopened++;
    },
  };
  readonly nodeId = 'tool:echo';
  readonly instanceId = 'c1:1';
  readonly requestId = 1;
  readonly uri = undefined;
  abortedAt: GatePoint | undefined;
  giveUpSignal: AbortSignal | undefined;
  readonly records: AnswerRecord[] = [];
  readonly aborts: GatePoint[] = [];
  attempts = 0;
  reopened = 0;

  constructor(
    readonly method: string,
    readonly script: Attempt[],
    /** Something the attempt does meanwhile (a nested hold aborting the call). */
    readonly meanwhile?: (gated: FakeGated) => void,
  ) {}

  describe(): string {
    return 'the fake call';
  }
  loops(): boolean {
    return false;
  }
  requestParams(): unknown {
    return { name: 'echo' };
  }
  heldError(thrown: unknown): Record<string, unknown> {
    return { message: String(thrown) };
  }
  async attempt(): Promise<unknown> {
    const step = this.script[Math.min(this.attempts, this.script.length - 1)];
    this.attempts++;
    this.meanwhile?.(this);
    if ('throws' in step) throw step.throws;
    return step.value;
  }
  record(answer: AnswerRecord): void {
    this.records.push(answer);
  }
  abort(point: GatePoint): Error {
    this.aborts.push(point);
    return abortError();
  }
  throwAnswer(error: Error): never {
    throw error;
  }
}

function setUp(breakpoints: Breakpoints, steps: Step[]): { host: ExecutionHost; reporter: FakeReporter } {
  const reporter = new FakeReporter();
  const core = new DebuggerGate({ reporter });
  reporter.emit('breakpoints', breakpoints);
  reporter.steps = steps;
  return { reporter, host: { core, hide: hideSettings({}), onHolding: () => () => {} } };
}

/** How the execution ended: what it resolved with, or the code and message of what it threw. */
async function ending(pending: Promise<unknown>): Promise<unknown> {
  try {
    return { returned: await pending };
  } catch (error) {
    return error instanceof DebuggerAnswer ? { answered: { code: error.code, message: error.message } } : { rethrown: error };
  }
}

const text = (value: string): unknown => ({ content: [{ type: 'text', text: value }] });
const none: Breakpoints = { pauseOnError: false, nodes: {} };
const before: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { before: true } } };
const after: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { after: true } } };
const onError: Breakpoints = { pauseOnError: true, nodes: {} };
const boom = new Error('boom');
const aborted = { answered: { code: ABORT_CODE, message: 'Aborted in the GraphMind debugger' } };

interface Row {
  name: string;
  method?: string;
  breakpoints: Breakpoints;
  steps: Step[];
  script: Attempt[];
  meanwhile?: (gated: FakeGated) => void;
  /** What the requester gets. */
  ends: unknown;
  /** What is recorded (once). */
  records: AnswerRecord[];
  /** Hold events, in order. */
  lines: string[];
  attempts: number;
  aborts?: GatePoint[];
}

const playbook: Row[] = [
  { name: 'no breakpoint: it runs, its result is recorded', breakpoints: none, steps: [], script: [{ value: text('hi') }], ends: { returned: text('hi') }, records: [{ failed: false, output: text('hi') }], lines: [], attempts: 1 },
  { name: 'no breakpoint: what it throws is rethrown and recorded', breakpoints: none, steps: [], script: [{ throws: boom }], ends: { rethrown: boom }, records: [{ failed: true, error: { name: 'HandlerError', message: 'boom', data: { errorName: 'Error', data: undefined, stack: boom.stack } } }], lines: [], attempts: 1 },
  { name: 'before, continue: it runs', breakpoints: before, steps: [{ action: 'continue' }], script: [{ value: text('hi') }], ends: { returned: text('hi') }, records: [{ failed: false, output: text('hi') }], lines: ['opened before', 'released continue'], attempts: 1 },
  { name: 'before, inject: the lifted value answers, it never runs', breakpoints: before, steps: [{ action: 'inject', value: 'instead' }], script: [{ value: text('hi') }], ends: { returned: text('instead') }, records: [{ failed: false, output: text('instead') }], lines: ['opened before', 'released inject'], attempts: 0 },
  {
    name: 'before, inject a whole frame with an error: a JSON-RPC error answers',
    breakpoints: before,
    steps: [{ action: 'inject', value: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'typed by hand' } } }],
    script: [{ value: text('hi') }],
    ends: { answered: { code: -32000, message: 'typed by hand' } },
    records: [{ failed: true, error: { name: 'JsonRpcError', message: 'typed by hand', code: -32000, data: undefined } }],
    lines: ['opened before', 'released inject'],
    attempts: 0,
  },
  { name: 'before, abort: -32099, recorded as aborted at the before gate', breakpoints: before, steps: [{ action: 'abort' }], script: [{ value: text('hi') }], ends: aborted, records: [{ failed: true, error: abortedRecord('before') }], lines: ['opened before', 'released abort'], attempts: 0, aborts: ['before'] },
  { name: 'after, continue: its result goes back', breakpoints: after, steps: [{ action: 'continue' }], script: [{ value: text('hi') }], ends: { returned: text('hi') }, records: [{ failed: false, output: text('hi') }], lines: ['opened after', 'released continue'], attempts: 1 },
  { name: 'after, inject: the lifted value replaces the result', breakpoints: after, steps: [{ action: 'inject', value: { price: 42 } }], script: [{ value: text('hi') }], ends: { returned: { content: [{ type: 'text', text: '{"price":42}' }], structuredContent: { price: 42 } } }, records: [{ failed: false, output: { content: [{ type: 'text', text: '{"price":42}' }], structuredContent: { price: 42 } } }], lines: ['opened after', 'released inject'], attempts: 1 },
  {
    name: 'after, retry then continue: it runs again, its run reopened',
    breakpoints: after,
    steps: [{ action: 'retry' }, { action: 'continue' }],
    script: [{ value: text('first') }, { value: text('second') }],
    ends: { returned: text('second') },
    records: [{ failed: false, output: text('second') }],
    lines: ['opened after', 'released retry', 'opened after', 'released continue'],
    attempts: 2,
  },
  { name: 'after, abort: -32099, recorded as aborted at the after gate', breakpoints: after, steps: [{ action: 'abort' }], script: [{ value: text('hi') }], ends: aborted, records: [{ failed: true, error: abortedRecord('after') }], lines: ['opened after', 'released abort'], attempts: 1, aborts: ['after'] },
  { name: 'pause-on-error: a throw holds at the error gate; abort records that gate', breakpoints: onError, steps: [{ action: 'abort' }], script: [{ throws: boom }], ends: aborted, records: [{ failed: true, error: abortedRecord('error') }], lines: ['opened error', 'released abort'], attempts: 1, aborts: ['error'] },
  {
    name: 'pause-on-error: a tool result with isError holds too',
    breakpoints: onError,
    steps: [{ action: 'continue' }],
    script: [{ value: { content: [{ type: 'text', text: 'bad' }], isError: true } }],
    ends: { returned: { content: [{ type: 'text', text: 'bad' }], isError: true } },
    records: [{ failed: true, output: { content: [{ type: 'text', text: 'bad' }], isError: true }, error: { name: 'ToolError', message: 'bad' } }],
    lines: ['opened error', 'released continue'],
    attempts: 1,
  },
  {
    name: 'aborted meanwhile by a nested hold: -32099 whatever it answered, recorded at that gate',
    breakpoints: none,
    steps: [],
    script: [{ value: text('hi') }],
    meanwhile: (gated) => {
      gated.abortedAt = 'before';
    },
    ends: aborted,
    records: [{ failed: true, error: abortedRecord('before') }],
    lines: [],
    attempts: 1,
  },
  {
    name: 'sampling, before, inject: a lifted CreateMessageResult',
    method: 'sampling/createMessage',
    breakpoints: { pauseOnError: false, nodes: { 'tool:echo': { before: true } } },
    steps: [{ action: 'inject', value: 'sampled' }],
    script: [{ value: 'unused' }],
    ends: { returned: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'graphmind-inject', stopReason: 'endTurn' } },
    records: [{ failed: false, output: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'graphmind-inject', stopReason: 'endTurn' } }],
    lines: ['opened before', 'released inject'],
    attempts: 0,
  },
];

for (const row of playbook) {
  t.test(row.name, async (t) => {
    const { host, reporter } = setUp(row.breakpoints, row.steps);
    const gated = new FakeGated(row.method ?? 'tools/call', row.script, row.meanwhile);
    t.strictSame(await ending(execute(host, gated)), row.ends, 'the requester gets');
    t.strictSame(gated.records, row.records, 'recorded');
    t.strictSame(reporter.lines, row.lines, 'hold events');
    t.equal(gated.attempts, row.attempts, 'attempts');
    t.equal(gated.reopened, Math.max(0, row.attempts - 1), 'reopened once per retry');
    t.strictSame(gated.aborts, row.aborts ?? [], 'aborted at');
  });
}

t.test('the give-up rule: a client that gives up while held leaves the hold open, reported given up once; the decision still counts', async (t) => {
  const controller = new AbortController();
  let held!: (holdId: string) => void;
  const givenUp = new Promise<string>((resolve) => (held = resolve));
  const { host, reporter } = setUp(before, [
    (holdId) => {
      controller.abort('the user gave up');
      // A signal fires once: aborting it again reports nothing more.
      controller.abort('again');
      held(holdId);
    },
  ]);
  const gated = new FakeGated('tools/call', [{ value: text('ran') }]);
  gated.giveUpSignal = controller.signal;
  const pending = ending(execute(host, gated));
  const holdId = await givenUp;
  t.strictSame(reporter.lines, ['opened before', 'given up: the client cancelled the request (notifications/cancelled: the user gave up)'], "still held, reported given up with the client's reason");
  t.equal(gated.attempts, 0, 'nothing ran meanwhile');
  reporter.emit('decision', { holdId, action: 'continue' });
  t.strictSame(await pending, { returned: text('ran') }, 'decided: it runs');
  t.strictSame(reporter.lines.slice(2), ['released continue']);
});

t.test('the give-up rule: a hold that opens for a request already given up is reported given up at once', async (t) => {
  const controller = new AbortController();
  controller.abort();
  const { host, reporter } = setUp(before, [{ action: 'inject', value: 'anyway' }]);
  const gated = new FakeGated('tools/call', [{ value: text('ran') }]);
  gated.giveUpSignal = controller.signal;
  t.strictSame(await ending(execute(host, gated)), { returned: text('anyway') }, 'held, and decided');
  t.strictSame(reporter.lines, ['opened before', `given up: ${CLIENT_GAVE_UP}`, 'released inject']);
});

t.test('the give-up rule: a client giving up after its hold was decided is not reported', async (t) => {
  const controller = new AbortController();
  const { host, reporter } = setUp(before, [{ action: 'continue' }]);
  const gated = new FakeGated('tools/call', [{ value: text('ran') }], () => controller.abort('too late'));
  gated.giveUpSignal = controller.signal;
  t.strictSame(await ending(execute(host, gated)), { returned: text('ran') });
  t.strictSame(reporter.lines, ['opened before', 'released continue'], 'no given up: nothing was held any more');
});
