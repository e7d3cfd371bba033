import t from 'tap';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import type { Direction, Frame } from '../src/streams/frame.js';

let seq = 0;
function make(direction: Direction, value: unknown): Frame {
  const raw = Buffer.from(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  return { raw, direction, seq: ++seq, terminated: true };
}

const C2S: Direction = 'client-to-server';
const S2C: Direction = 'server-to-client';

t.test('types, methods and ids', async (t) => {
  const c = new Correlator();
  const req = classify(make(C2S, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }), c);
  t.match(req, { type: 'request', method: 'tools/call', id: 1 });
  t.same(req.node, { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' });
  const note = classify(make(C2S, { jsonrpc: '2.0', method: 'notifications/initialized' }), c);
  t.match(note, { type: 'notification', method: 'notifications/initialized', id: undefined });
  t.equal(note.node?.nodeId, 'mcp:notifications/initialized');
  t.equal(note.node?.parent, 'mcp:protocol');
  const res = classify(make(S2C, { jsonrpc: '2.0', id: 1, result: { content: [] } }), c);
  t.match(res, { type: 'response', id: 1, method: 'tools/call' });
  t.equal(res.request, req, 'the response knows its request');
  t.equal(res.node?.nodeId, 'tool:echo');
  const err = classify(make(S2C, { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'nope' } }), c);
  t.match(err, { type: 'error', id: 9 });
  t.equal(err.request, undefined, 'an answer to an unknown id has no request');
});

t.test('the naming table, with direction', async (t) => {
  const c = new Correlator();
  const cases: Array<[Direction, string, unknown, string, string, string]> = [
    [C2S, 'tools/call', { name: 'search' }, 'tool:search', 'tool', 'mcp:session'],
    [C2S, 'resources/read', { uri: 'file:///a.txt' }, 'resource:file:///a.txt', 'resource', 'mcp:session'],
    [C2S, 'prompts/get', { name: 'greet' }, 'prompt:greet', 'prompt', 'mcp:session'],
    [C2S, 'completion/complete', {}, 'mcp:completion/complete', 'custom', 'mcp:session'],
    [S2C, 'sampling/createMessage', {}, 'llm:sampling', 'llm', 'mcp:session'],
    [S2C, 'elicitation/create', {}, 'mcp:elicitation/create', 'custom', 'mcp:session'],
    [C2S, 'initialize', {}, 'mcp:initialize', 'custom', 'mcp:protocol'],
    [C2S, 'server/discover', {}, 'mcp:server/discover', 'custom', 'mcp:protocol'],
    [C2S, 'tools/list', {}, 'mcp:tools/list', 'custom', 'mcp:protocol'],
    [C2S, 'ping', {}, 'mcp:ping', 'custom', 'mcp:protocol'],
    [C2S, 'x/unknown', {}, 'mcp:x/unknown', 'custom', 'mcp:protocol'],
    // A server sending tools/call to the client is protocol, not a tool call.
    [S2C, 'tools/call', { name: 'echo' }, 'mcp:tools/call', 'custom', 'mcp:protocol'],
    // A client sending sampling is not an llm call either.
    [C2S, 'sampling/createMessage', {}, 'mcp:sampling/createMessage', 'custom', 'mcp:protocol'],
  ];
  let id = 100;
  for (const [direction, method, params, nodeId, kind, parent] of cases) {
    const f = classify(make(direction, { jsonrpc: '2.0', id: id++, method, params }), c);
    t.same([f.node?.nodeId, f.node?.kind, f.node?.parent], [nodeId, kind, parent], `${direction} ${method}`);
  }
});

t.test('correlation is per direction', async (t) => {
  const c = new Correlator();
  const fromClient = classify(make(C2S, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } }), c);
  const fromServer = classify(make(S2C, { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage' }), c);
  const answerToServer = classify(make(C2S, { jsonrpc: '2.0', id: 1, result: {} }), c);
  const answerToClient = classify(make(S2C, { jsonrpc: '2.0', id: 1, result: {} }), c);
  t.equal(answerToServer.request, fromServer, 'the client answers the server request');
  t.equal(answerToClient.request, fromClient, 'the server answers the client request');
  t.equal(c.outstanding(C2S).length, 0);
  const strId = classify(make(C2S, { jsonrpc: '2.0', id: '1', method: 'ping' }), c);
  t.equal(classify(make(S2C, { jsonrpc: '2.0', id: 1, result: {} }), c).request, undefined, 'id 1 is not id "1"');
  t.equal(classify(make(S2C, { jsonrpc: '2.0', id: '1', result: {} }), c).request, strId);
});

t.test('noise', async (t) => {
  const c = new Correlator();
  for (const line of ['debug: loading config', '{"level":"info","msg":"x"}', '', '[1,2]', '{"jsonrpc":"1.0","id":1,"method":"x"}', '{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0"']) {
    const f = classify(make(S2C, line), c);
    t.equal(f.type, 'noise', JSON.stringify(line));
    t.equal(f.node?.nodeId, 'mcp:stdout-noise');
  }
  t.equal(classify(make(C2S, 'hello'), c).node, undefined, 'client noise is not server stdout noise');
  const batch = classify(make(C2S, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]), c);
  t.equal(batch.type, 'batch');
});
