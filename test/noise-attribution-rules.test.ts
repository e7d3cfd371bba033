// Whose line it was, as a playbook (src/relay/line-owner.ts through
// src/relay/frame-events.ts): frames of a session and lines the server
// printed outside the protocol, in the order they came; out, the call each
// line was put on. A line goes on the one call in flight (not the
// handshake); with none, or two and more, it stays on the session.
import t from 'tap';
import { FrameEvents, type FrameEventSink } from '../src/relay/frame-events.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';

const C2S: Direction = 'client-to-server';
const S2C: Direction = 'server-to-client';

/** A line from the client or the server; a stderr line; a stdout noise line; a call only counted while detached; an abort decided at the before gate. */
type Step = ['c' | 's', unknown] | ['stderr', string] | ['noise', string] | ['unkept', unknown] | ['abort', number] | ['hold' | 'release', number];

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', clientInfo: { name: 'host', version: '1' }, capabilities: {} } };
const initAnswer = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'srv', version: '2' }, capabilities: {} } };
const call = (id: number, name = 'greet') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [] } });
const sampling = { jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
const sampled = { jsonrpc: '2.0', id: 'srv-1', result: { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' } };

const playbook: Array<{ name: string; steps: Step[]; lines: string[] }> = [
  { name: 'nothing in flight: the session', steps: [['stderr', 'idle']], lines: ['idle on mcp:session'] },
  {
    name: 'the handshake in flight: the session (a server prints its banner while it starts)',
    steps: [['c', init], ['stderr', 'banner'], ['s', initAnswer], ['stderr', 'after']],
    lines: ['banner on mcp:session', 'after on mcp:session'],
  },
  {
    name: 'one call in flight: that call, until it is answered',
    steps: [['c', call(2)], ['stderr', 'greeting'], ['s', answer(2)], ['stderr', 'done']],
    lines: ['greeting on tool:greet mcp_1', 'done on mcp:session'],
  },
  {
    name: 'two calls in flight: the session; when one is answered, the other',
    steps: [['c', call(2)], ['c', call(3, 'other')], ['stderr', 'both'], ['s', answer(2)], ['stderr', 'one left']],
    lines: ['both on mcp:session', 'one left on tool:other mcp_2'],
  },
  {
    name: 'a call and the server\'s own request (sampling) in flight: the session',
    steps: [['c', call(2)], ['s', sampling], ['stderr', 'asking'], ['c', sampled], ['stderr', 'got it']],
    lines: ['asking on mcp:session', 'got it on tool:greet mcp_1'],
  },
  {
    name: 'stdout noise names the one call in flight in its error data, and none with two',
    steps: [['c', call(2)], ['noise', 'chatty'], ['c', call(3)], ['noise', 'chattier']],
    lines: ['chatty during tool:greet mcp_1', 'chattier during nobody'],
  },
  {
    name: 'a call only counted while detached is in flight too: nobody can tell, the session',
    steps: [['unkept', call(2)], ['c', call(3, 'other')], ['stderr', 'which']],
    lines: ['which on mcp:session'],
  },
  {
    name: 'a request held at the before gate has not reached the server: not its line; once let go, it is',
    steps: [['c', call(2)], ['hold', 2], ['stderr', 'heartbeat'], ['release', 2], ['stderr', 'greeting']],
    lines: ['heartbeat on mcp:session', 'greeting on tool:greet mcp_1'],
  },
  {
    name: 'a held request and one the server has: the line is the second\'s',
    steps: [['c', call(2)], ['hold', 2], ['c', call(3, 'other')], ['stderr', 'busy'], ['noise', 'busier']],
    lines: ['busy on tool:other mcp_2', 'busier during tool:other mcp_2'],
  },
  {
    name: 'a call aborted by the debugger is no longer in flight',
    steps: [['c', call(2)], ['abort', 2], ['stderr', 'later']],
    lines: ['later on mcp:session'],
  },
];

/** The lines as they were put: a log line on its node (and instance), a noise record during its call. */
function lineOf(event: RunEvent): string | undefined {
  if (event.type === 'log') return `${event.text} on ${event.nodeId}${event.instanceId === undefined ? '' : ` ${event.instanceId}`}`;
  if (event.type === 'instance.error' && event.error.name === 'StdoutNoise') {
    const during = (event.error.data as { during?: { nodeId: string; instanceId: string } } | undefined)?.during;
    return `${String(event.output ?? '')}during ${during === undefined ? 'nobody' : `${during.nodeId} ${during.instanceId}`}`;
  }
  return undefined;
}

for (const play of playbook) {
  t.test(play.name, async (t) => {
    const lines: string[] = [];
    const noiseTexts: string[] = [];
    const sink: FrameEventSink = {
      attached: true,
      nextSeq: (() => {
        let seq = 0;
        return () => ++seq;
      })(),
      sendComplete: (_runId, event) => {
        const text = lineOf(event);
        if (text === undefined) return;
        // A noise record's text is its start's input: put it in front.
        lines.push(event.type === 'instance.error' ? `${noiseTexts.shift() ?? ''} ${text}` : text);
      },
      countDropped: () => {},
    };
    const events = new FrameEvents(sink, 'run_1', { inputs: false, toolResults: false });
    const correlator = new Correlator();
    const seqs = { [C2S]: 0, [S2C]: 0 };
    const requests = new Map<number, Frame>();
    const frameOf = (direction: Direction, message: unknown): Frame => {
      const frame = classify(newFrame(Buffer.from(`${JSON.stringify(message)}\n`), direction, ++seqs[direction], true, 1_700_000_000_000), correlator);
      if (frame.type === 'request' && typeof frame.id === 'number') requests.set(frame.id, frame);
      return frame;
    };
    for (const step of play.steps) {
      switch (step[0]) {
        case 'c':
        case 's':
          events.record(frameOf(step[0] === 'c' ? C2S : S2C, step[1]));
          break;
        case 'stderr':
          events.stderr([step[1]]);
          break;
        case 'noise': {
          const frame = newFrame(Buffer.from(`${step[1]}\n`), S2C, ++seqs[S2C], true, 1_700_000_000_000);
          frame.type = 'noise';
          noiseTexts.push(step[1]);
          events.record(frame);
          break;
        }
        case 'unkept':
          t.ok(events.countUnkept(frameOf(C2S, step[1])), 'counted, not recorded');
          break;
        case 'abort':
          events.decided(requests.get(step[1]) as Frame, 'before', 'abort');
          break;
        case 'hold':
        case 'release':
          events.heldBefore(requests.get(step[1]) as Frame, step[0] === 'hold');
          break;
      }
    }
    t.strictSame(lines.map((line) => line.trim()), play.lines);
  });
}
