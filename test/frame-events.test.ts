// Frames -> run events as a playbook (src/relay/frame-events.ts, with the
// waiting ring's pairing from src/relay/waiting-frames.ts): classified lines
// of a session in, the events the debugger gets out, one line each. No
// reporter, no timer: a fake sink keeps what is sent. test/report-wire pins
// the same events' bytes through the whole recorder and a real reporter.
import t from 'tap';
import { FrameEvents, MAX_NOISE_INSTANCES, type FrameEventSink } from '../src/relay/frame-events.js';
import { MAX_RECORDED_FRAME_BYTES } from '../src/relay/recorded-value.js';
import { WaitingFrames } from '../src/relay/waiting-frames.js';
import type { GatePoint } from '../src/protocol/control.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import type { HideSettings } from '../src/report/hide.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';

const C2S: Direction = 'client-to-server';
const S2C: Direction = 'server-to-client';
const T0 = 1_700_000_000_000;

/** One thing that happens in a session. JSON lines are written as objects (or text, for noise). */
type Step =
  | ['c' | 's', unknown] // a line from the client / the server, recorded at once
  | ['batch', ...Array<['c' | 's', unknown]>] // lines that waited together (requests paired with their answers)
  | ['dropped', 'c' | 's', unknown] // pushed out while detached, recorded the full way but counted
  | ['unkept', 'c' | 's', unknown] // pushed out while detached, only counted when it can be
  | ['decide', number, GatePoint, 'inject' | 'abort' | 'retry', unknown?] // a decision on the client's request with this id
  | ['proxy', number] // the proxy answered the client's request with this id itself
  | ['degrade', Direction, string]
  | ['raw', Direction]
  | ['close'];

interface Play {
  name: string;
  steps: Step[];
  events: string[];
  hide?: Partial<HideSettings>;
}

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', clientInfo: { name: 'host', version: '1' }, capabilities: {} } };
const initAnswer = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'srv', version: '2' }, capabilities: {} } };
const echo = (id: number, text = 'hi') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
const echoed = (id: number, text = 'hi', isError?: boolean) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], ...(isError ? { isError } : {}) } });
const failure = (id: number) => ({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad params' } });

const playbook: Play[] = [
  {
    name: 'the handshake: the protocol node, the call, and what it says of the peers',
    steps: [['c', init], ['s', initAnswer], ['c', { jsonrpc: '2.0', method: 'notifications/initialized' }]],
    events: [
      'started mcp_1 mcp:protocol',
      'started mcp_2 mcp:initialize {"protocolVersion":"2025-06-18","clientInfo":{"name":"host","version":"1"},"capabilities":{}}',
      'meta {"clientInfo":{"name":"host","version":"1"},"requestedProtocolVersion":"2025-06-18"}',
      'meta {"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"2"}}',
      'finished mcp_2 {"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"2"},"capabilities":{}}',
      'started mcp_3 mcp:notifications/initialized',
      'finished mcp_3',
    ],
  },
  {
    name: 'a tool call, started and answered apart',
    steps: [['c', echo(2)], ['s', echoed(2)]],
    events: ['started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}', 'finished mcp_1 {"content":[{"type":"text","text":"hi"}]}'],
  },
  {
    name: 'a call whose answer waited with it is one event',
    steps: [['batch', ['c', echo(2)], ['s', echoed(2)]]],
    events: ['completed mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}} -> {"content":[{"type":"text","text":"hi"}]}'],
  },
  {
    name: 'an error answer is never paired',
    steps: [['batch', ['c', echo(2)], ['s', failure(2)]]],
    events: ['started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}', 'error mcp_1 JsonRpcError: bad params'],
  },
  {
    name: 'a failed tool result is a ToolError with its text',
    steps: [['c', echo(2)], ['s', echoed(2, 'it broke', true)]],
    events: ['started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}', 'error mcp_1 ToolError: it broke'],
  },
  {
    name: 'an answer to nothing open records nothing',
    steps: [['s', echoed(7)]],
    events: [],
  },
  {
    name: 'hidden inputs and tool results',
    hide: { inputs: true, toolResults: true },
    steps: [['c', init], ['s', initAnswer], ['c', echo(2)], ['s', echoed(2, 'secret', true)]],
    events: [
      'started mcp_1 mcp:protocol',
      'started mcp_2 mcp:initialize "[hidden]"',
      'meta {"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"2"}}',
      'finished mcp_2 {"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"2"},"capabilities":{}}',
      'started mcp_3 tool:echo "[hidden]"',
      'error mcp_3 ToolError: the tool reported an error (content hidden)',
    ],
  },
  {
    name: 'stdout noise: under the protocol node, as a failed execution',
    steps: [['s', 'Listening on port 3000']],
    events: ['started mcp_1 mcp:protocol', 'started mcp_2 mcp:stdout-noise "Listening on port 3000"', 'error mcp_2 StdoutNoise: the server wrote a line to stdout that is not JSON-RPC'],
  },
  {
    name: 'a session ends with calls open: NoAnswer, and the protocol totals',
    steps: [['c', init], ['c', echo(2)], ['close']],
    events: [
      'started mcp_1 mcp:protocol',
      'started mcp_2 mcp:initialize {"protocolVersion":"2025-06-18","clientInfo":{"name":"host","version":"1"},"capabilities":{}}',
      'meta {"clientInfo":{"name":"host","version":"1"},"requestedProtocolVersion":"2025-06-18"}',
      'started mcp_3 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'error mcp_2 NoAnswer: the server exited without answering this request',
      'error mcp_3 NoAnswer: the server exited without answering this request',
      'finished mcp_1 {"calls":1,"errors":1,"stdoutNoise":0}',
    ],
  },
  {
    name: 'a degraded direction: its notice where its raw bytes stand, open calls not observed',
    steps: [['c', echo(2)], ['degrade', S2C, 'the server output became a raw pipe'], ['raw', S2C], ['raw', S2C], ['close']],
    events: [
      'started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'log graphmind the server output became a raw pipe',
      'finished mcp_1 {"[graphmind]":"answer not observed: the server\'s output had become a raw byte pipe (a line larger than --max-frame-bytes); an answer, if one came, was relayed unread"}',
    ],
  },
  {
    name: 'a notice whose raw bytes never came is logged at the end',
    steps: [['degrade', C2S, 'the host input became a raw pipe'], ['close']],
    events: ['log graphmind the host input became a raw pipe'],
  },
  {
    name: 'decisions: inject answers the call, abort fails it, retry reopens it',
    steps: [
      ['c', echo(2)],
      ['decide', 2, 'before', 'inject', 'made up'],
      ['c', echo(3)],
      ['decide', 3, 'before', 'abort'],
      ['c', echo(4)],
      ['s', echoed(4)],
      ['decide', 4, 'after', 'retry'],
      ['s', echoed(4, 'again')],
    ],
    events: [
      'started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'finished mcp_1 "made up"',
      'started mcp_2 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'error mcp_2 Aborted: aborted in the debugger at the before gate',
      'started mcp_3 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'finished mcp_3 {"content":[{"type":"text","text":"hi"}]}',
      'reopened mcp_3',
      'finished mcp_3 {"content":[{"type":"text","text":"again"}]}',
    ],
  },
  {
    // After a crash the record must be a prefix of what passed: had call 3 been paired, its answer would go
    // before call 2's, and a debugger killed between them would keep 3 answered and 2 open (reliability-kill).
    name: 'a call is not paired across an answer recorded where it stands: the answers go in the order they came',
    steps: [['c', echo(2)], ['batch', ['c', echo(3)], ['s', echoed(2)], ['s', echoed(3)], ['c', echo(4)], ['s', echoed(4)]]],
    events: [
      'started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'started mcp_2 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'finished mcp_1 {"content":[{"type":"text","text":"hi"}]}',
      'finished mcp_2 {"content":[{"type":"text","text":"hi"}]}',
      'completed mcp_3 tool:echo {"name":"echo","arguments":{"text":"hi"}} -> {"content":[{"type":"text","text":"hi"}]}',
    ],
  },
  {
    name: 'nor across an error answer (recorded where it stands, never paired)',
    steps: [['batch', ['c', echo(2)], ['c', echo(3)], ['s', failure(2)], ['s', echoed(3)]]],
    events: [
      'started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'started mcp_2 tool:echo {"name":"echo","arguments":{"text":"hi"}}',
      'error mcp_1 JsonRpcError: bad params',
      'finished mcp_2 {"content":[{"type":"text","text":"hi"}]}',
    ],
  },
  {
    name: 'a decided call is not answered twice, nor ends unanswered',
    steps: [['c', echo(2)], ['decide', 2, 'before', 'abort'], ['s', echoed(2)], ['close']],
    events: ['started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}', 'error mcp_1 Aborted: aborted in the debugger at the before gate'],
  },
  {
    name: 'a request the proxy answered itself',
    steps: [['c', echo(2)], ['proxy', 2], ['close']],
    events: ['started mcp_1 tool:echo {"name":"echo","arguments":{"text":"hi"}}', 'error mcp_1 McpServerRestarted: restarted under the call'],
  },
  {
    name: 'pushed out while detached: a tool call and its answer only counted, ids kept',
    steps: [['unkept', 'c', echo(2)], ['unkept', 's', echoed(2)], ['c', echo(3)]],
    events: ['started mcp_2 tool:echo {"name":"echo","arguments":{"text":"hi"}}', 'dropped 2'],
  },
  {
    name: 'pushed out while detached: an unkept call still open at the end is one more dropped event',
    steps: [['unkept', 'c', echo(2)], ['close']],
    events: ['dropped 2'],
  },
  {
    name: 'pushed out while detached: a protocol call is recorded the full way, its events counted',
    steps: [['unkept', 'c', init], ['s', initAnswer]],
    events: [
      'meta {"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"2"}}',
      'finished mcp_2 {"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"2"},"capabilities":{}}',
      'dropped 3',
    ],
  },
  {
    name: 'pushed out while detached: noise and notifications are counted, and still count',
    steps: [['dropped', 'c', { jsonrpc: '2.0', method: 'notifications/initialized' }], ['dropped', 's', 'hello'], ['close']],
    // The protocol node's start, the notification's start and end; the noise line's start and error.
    events: ['dropped 3', 'dropped 2', 'finished mcp_1 {"calls":1,"errors":0,"stdoutNoise":1}'],
  },
  {
    name: 'a frame too large to record is a note of its size',
    steps: [['c', echo(2, 'x'.repeat(MAX_RECORDED_FRAME_BYTES))]],
    events: [`started mcp_1 tool:echo {"[graphmind]":"not recorded: the frame is larger than 1 MiB","bytes":${JSON.stringify(echo(2, 'x'.repeat(MAX_RECORDED_FRAME_BYTES))).length + 1}}`],
  },
];

/** One event as a line: what it is, its instance, and its values as JSON. */
function line(event: RunEvent): string {
  const e = JSON.parse(JSON.stringify(event)) as Record<string, unknown> & { node?: { nodeId: string }; error?: { name: string; message: string } };
  const json = (value: unknown): string => (value === undefined ? '' : ` ${JSON.stringify(value)}`);
  switch (event.type) {
    case 'instance.started':
      return `started ${String(e.instanceId)} ${e.node?.nodeId}${json(e.input)}`;
    case 'instance.completed':
      return `completed ${String(e.instanceId)} ${e.node?.nodeId}${json(e.input)} ->${json(e.output)}`;
    case 'instance.finished':
      return `finished ${String(e.instanceId)}${json(e.output)}`;
    case 'instance.error':
      return `error ${String(e.instanceId)} ${e.error?.name}: ${e.error?.message}`;
    case 'instance.reopened':
      return `reopened ${String(e.instanceId)}`;
    case 'run.meta':
      return `meta${json(e.meta)}`;
    case 'log':
      return `log ${String(e.stream)} ${String(e.text)}`;
    default:
      return event.type;
  }
}

function fakeSink(): FrameEventSink & { lines: string[]; attached: boolean } {
  let seq = 0;
  const lines: string[] = [];
  return {
    attached: true,
    lines,
    nextSeq: () => ++seq,
    sendComplete: (_runId: string, event: RunEvent) => void lines.push(line(event)),
    countDropped: (_runId: string, count: number) => void lines.push(`dropped ${count}`),
  };
}

for (const play of playbook) {
  t.test(play.name, async (t) => {
    const sink = fakeSink();
    const events = new FrameEvents(sink, 'run_1', { inputs: false, toolResults: false, ...play.hide });
    const correlator = new Correlator();
    const seqs = { [C2S]: 0, [S2C]: 0 };
    const requests = new Map<number, Frame>();
    const frameOf = (from: 'c' | 's', message: unknown): Frame => {
      const direction = from === 'c' ? C2S : S2C;
      const raw = Buffer.from(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
      const frame = classify(newFrame(raw, direction, ++seqs[direction], true, T0 + seqs[C2S] + seqs[S2C]), correlator);
      if (frame.type === 'request' && direction === C2S) requests.set(frame.id as number, frame);
      return frame;
    };
    for (const step of play.steps) {
      switch (step[0]) {
        case 'c':
        case 's':
          events.record(frameOf(step[0], step[1]));
          break;
        case 'batch': {
          const waiting = new WaitingFrames(16);
          for (const [from, message] of step.slice(1) as Array<['c' | 's', unknown]>) waiting.push(frameOf(from, message));
          waiting.pairCalls();
          while (waiting.count > 0) events.record(waiting.take());
          break;
        }
        case 'dropped':
          events.recordDropped(frameOf(step[1], step[2]));
          events.reportDropped();
          break;
        case 'unkept': {
          const frame = frameOf(step[1], step[2]);
          if (!events.countUnkept(frame)) events.recordDropped(frame);
          break;
        }
        case 'decide': {
          const request = requests.get(step[1]) as Frame;
          // A retry sends the same bytes again: the answer pairs with the request again (as RelayGate's wire does).
          if (step[3] === 'retry') correlator.track(request);
          events.decided(request, step[2], step[3], step[4]);
          break;
        }
        case 'proxy':
          events.answeredByProxy(requests.get(step[1]) as Frame, { name: 'McpServerRestarted', message: 'restarted under the call' });
          break;
        case 'degrade':
          events.degraded(step[1], step[2]);
          break;
        case 'raw': {
          const raw = newFrame(Buffer.from('{"partial'), step[1], ++seqs[step[1]], false);
          raw.type = 'raw';
          events.record(raw);
          break;
        }
        case 'close':
          events.closeCalls();
          break;
      }
    }
    events.reportDropped();
    t.strictSame(sink.lines, play.events);
  });
}

t.test('events carry the time of their frame', async (t) => {
  const times: number[] = [];
  const sink: FrameEventSink = { attached: true, nextSeq: () => 1, sendComplete: (_r, event) => void times.push(event.t), countDropped: () => {} };
  const events = new FrameEvents(sink, 'run_1', { inputs: false, toolResults: false });
  const correlator = new Correlator();
  events.record(classify(newFrame(Buffer.from(`${JSON.stringify(echo(1))}\n`), C2S, 1, true, T0), correlator));
  events.record(classify(newFrame(Buffer.from(`${JSON.stringify(echoed(1))}\n`), S2C, 1, true, T0 + 5), correlator));
  t.strictSame(times, [T0, T0 + 5]);
});

t.test(`stdout noise beyond ${MAX_NOISE_INSTANCES} lines is only counted in the totals`, async (t) => {
  const sink = fakeSink();
  const events = new FrameEvents(sink, 'run_1', { inputs: false, toolResults: false });
  for (let i = 1; i <= MAX_NOISE_INSTANCES + 3; i++) {
    const frame = newFrame(Buffer.from(`noise ${i}\n`), S2C, i, true, T0);
    frame.type = 'noise';
    events.record(frame);
  }
  events.closeCalls();
  t.equal(sink.lines.filter((l) => l.startsWith('error ')).length, MAX_NOISE_INSTANCES, 'one execution per line, up to the cap');
  t.equal(sink.lines.at(-1), `finished mcp_1 {"calls":0,"errors":0,"stdoutNoise":${MAX_NOISE_INSTANCES + 3}}`);
});

t.test('starts carry the request id as the wire had it (the exports\' jsonrpc.request.id)', async (t) => {
  // [what happens, the lines (paired when they waited together), each start's [type, instanceId, requestId]]
  const sampling = { jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
  const table: Array<[string, boolean, Array<['c' | 's', unknown]>, Array<[string, string, unknown]>]> = [
    ['a numeric id', false, [['c', echo(7)], ['s', echoed(7)]], [['instance.started', 'mcp_1', 7]]],
    ['id 0', false, [['c', echo(0)]], [['instance.started', 'mcp_1', 0]]],
    ['a string id, escapes and all', false, [['c', { ...echo(1), id: 'req "7"\n' }]], [['instance.started', 'mcp_1', 'req "7"\n']]],
    ['answered in the same batch: the completed event has it', true, [['c', echo(3)], ['s', echoed(3)]], [['instance.completed', 'mcp_1', 3]]],
    ['a request from the server has its own id', false, [['s', sampling]], [['instance.started', 'mcp_1', 'srv-1']]],
    ['a notification has none (nor the protocol node it opens)', false, [['c', { jsonrpc: '2.0', method: 'notifications/initialized' }]], [['instance.started', 'mcp_1', undefined], ['instance.started', 'mcp_2', undefined]]],
    ['an id of null is none', false, [['c', { ...echo(1), id: null }]], [['instance.started', 'mcp_1', undefined]]],
  ];
  for (const [name, batch, lines, expected] of table) {
    const starts: Array<[string, string, unknown]> = [];
    const sink: FrameEventSink = {
      attached: true,
      nextSeq: () => 1,
      sendComplete: (_r, event) => {
        if (event.type === 'instance.started' || event.type === 'instance.completed') starts.push([event.type, event.instanceId, event.requestId]);
      },
      countDropped: () => {},
    };
    const events = new FrameEvents(sink, 'run_1', { inputs: false, toolResults: false });
    const correlator = new Correlator();
    const frames = lines.map(([from, message], i) => classify(newFrame(Buffer.from(`${JSON.stringify(message)}\n`), from === 'c' ? C2S : S2C, i + 1, true, T0), correlator));
    if (batch) {
      const waiting = new WaitingFrames(16);
      for (const frame of frames) waiting.push(frame);
      waiting.pairCalls();
      while (waiting.count > 0) events.record(waiting.take());
    } else {
      for (const frame of frames) events.record(frame);
    }
    t.strictSame(starts, expected, name);
  }
});
