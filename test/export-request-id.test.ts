// OpenTelemetry's `jsonrpc.request.id` (and the HAR entry's request id) on
// every request that has one, not only on held ones: a playbook of runs
// (their log's events) and the id each call's span and HAR entry carry.
import t from 'tap';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { runHar } from '../src/export/har.js';
import { LogReplay, traceRunOf } from '../src/export/log-replay.js';
import { OtlpStream } from '../src/export/otlp-stream.js';
import { runSpans } from '../src/export/run-spans.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { RunState } from '../src/protocol/run-state.js';

const RUN = 'run_request_ids';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);
const SESSION = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.js' } as const;
const TOOL = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' } as const;
const NOTIFIED = { nodeId: 'mcp:notifications/initialized', kind: 'custom', parent: 'mcp:session', label: 'notifications/initialized' } as const;

/** A call's events, as a recorder sends them, after the run's start and session. */
type Call = Array<Record<string, unknown>>;

/** The span's and HAR entry's id of the one call (`mcp_2`) of a run made of `call`. */
function idsOf(call: Call): { span: unknown; har: unknown } {
  let seq = 0;
  const event = (fields: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify({ runId: RUN, seq: ++seq, t: T + seq, ...fields }));
  const replay = new LogReplay(RUN);
  replay.line(event({ type: 'run.started', name: 'node server.js', source: 'mcp-proxy', meta: {} }));
  replay.line(event({ type: 'instance.started', instanceId: 'mcp_1', node: SESSION }));
  for (const fields of call) replay.line(event(fields));
  replay.line(event({ type: 'instance.finished', instanceId: 'mcp_1' }));
  replay.line(event({ type: 'run.finished', status: 'ok' }));
  const state = replay.finish();
  if (state === undefined) throw new Error('no run');
  const run = traceRunOf(state);
  const span = runSpans(run, replay.facts, { now: T }).find((record) => record.attributes['graphmind.instance.id'] === 'mcp_2');
  const entry = runHar(run, replay.facts, { version: '0.0.0', now: T }).log.entries[0];
  const request = entry === undefined ? undefined : (JSON.parse(entry.request.postData?.text ?? '{}') as { id?: unknown });
  return { span: span?.attributes['jsonrpc.request.id'], har: request?.id };
}

const echo = { name: 'echo', arguments: { text: 'hi' } };
const answer = { content: [{ type: 'text', text: 'hi' }] };
const held = (id: unknown): Call => [
  { type: 'hold.opened', holdId: 'hold_1', nodeId: TOOL.nodeId, instanceId: 'mcp_2', gate: 'after', method: 'tools/call', frame: { jsonrpc: '2.0', id, result: answer } },
  { type: 'hold.released', holdId: 'hold_1', action: 'continue' },
];

const PLAYBOOK: Array<{ name: string; call: Call; span: string | undefined; har: string | number | undefined }> = [
  {
    name: 'a request never held, its start with a numeric id',
    call: [{ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo, requestId: 7 }, { type: 'instance.finished', instanceId: 'mcp_2', output: answer }],
    span: '7',
    har: 7,
  },
  {
    name: 'a request never held, its start with a string id',
    call: [{ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo, requestId: 'req-1' }, { type: 'instance.finished', instanceId: 'mcp_2', output: answer }],
    span: 'req-1',
    har: 'req-1',
  },
  {
    name: 'a request completed between two batches, with its id',
    call: [{ type: 'instance.completed', instanceId: 'mcp_2', node: TOOL, input: echo, output: answer, endT: T + 3, requestId: 0 }],
    span: '0',
    har: 0,
  },
  {
    name: 'a held request whose start had no id: the held frame shows it',
    call: [{ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo }, { type: 'instance.finished', instanceId: 'mcp_2', output: answer }, ...held(12)],
    span: '12',
    har: 12,
  },
  {
    name: 'a held request with an id at its start: the start says it',
    call: [{ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo, requestId: 'a' }, { type: 'instance.finished', instanceId: 'mcp_2', output: answer }, ...held('a')],
    span: 'a',
    har: 'a',
  },
  {
    name: 'a request with no id recorded anywhere',
    call: [{ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo }, { type: 'instance.finished', instanceId: 'mcp_2', output: answer }],
    span: undefined,
    har: undefined,
  },
  {
    name: 'an id that is not one (null): none',
    call: [{ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo, requestId: null }, { type: 'instance.finished', instanceId: 'mcp_2', output: answer }],
    span: undefined,
    har: undefined,
  },
  {
    name: 'an id that is not one (a boolean): none',
    call: [{ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo, requestId: true }, { type: 'instance.finished', instanceId: 'mcp_2', output: answer }],
    span: undefined,
    har: undefined,
  },
  {
    name: 'a notification: never an id, whatever its start says',
    call: [{ type: 'instance.completed', instanceId: 'mcp_2', node: NOTIFIED, endT: T + 3, requestId: 3 }],
    span: undefined,
    har: undefined,
  },
];

for (const play of PLAYBOOK) {
  t.test(play.name, async (t) => {
    const ids = idsOf(play.call);
    t.equal(ids.span, play.span, 'jsonrpc.request.id on the span');
    t.equal(ids.har, play.har, 'the id of the HAR entry\'s request');
  });
}

t.test('the live OTLP stream: a request never held has its id on its span', async (t) => {
  const exported: ReadableSpan[] = [];
  const exporter: SpanExporter = {
    export: (spans, done) => {
      exported.push(...spans);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const config = { url: 'http://127.0.0.1:1/v1/traces', protocol: 'http/json', headers: {}, timeoutMs: 1000, maxQueue: 100 } as const;
  const stream = await OtlpStream.start({ config, version: '0.0.0', exporter, intervalMs: 60_000 });
  let seq = 0;
  const events = [
    { type: 'run.started', name: 'node server.js', source: 'mcp-proxy', meta: {} },
    { type: 'instance.started', instanceId: 'mcp_1', node: SESSION },
    { type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: echo, requestId: 41 },
    { type: 'instance.finished', instanceId: 'mcp_2', output: answer },
    { type: 'instance.completed', instanceId: 'mcp_3', node: TOOL, input: echo, output: answer, endT: T + 9, requestId: 'req-42' },
  ].map((fields) => ({ runId: RUN, seq: ++seq, t: T + seq, ...fields }) as RunEvent);
  const state = new RunState(RUN, T);
  for (const event of events) {
    state.apply(event);
    stream.applied(state, event);
  }
  await stream.close();
  const idOf = (instanceId: string): unknown => exported.find((span) => span.attributes['graphmind.instance.id'] === instanceId)?.attributes['jsonrpc.request.id'];
  t.equal(idOf('mcp_2'), '41');
  t.equal(idOf('mcp_3'), 'req-42');
});
