import t from 'tap';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';

let seq = 0;
function make(direction: Direction, value: unknown): Frame {
  const raw = Buffer.from(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  return newFrame(raw, direction, ++seq, true);
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

t.test('the naming member, wherever it is', async (t) => {
  const c = new Correlator();
  const node = (line: string) => classify(make(C2S, line), c).node?.nodeId;
  t.equal(node('{"params":{"name":"echo"},"method":"tools/call","jsonrpc":"2.0","id":1}'), 'tool:echo', 'params before method');
  t.equal(node('{"jsonrpc":"2.0","id":2,"params":{"arguments":{"name":"inner"},"name":"outer"},"method":"tools/call"}'), 'tool:outer', 'a nested name does not count');
  t.equal(node('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"name":"inner"}}}'), 'mcp:tools/call', 'only nested: no name');
  t.equal(node('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"first","name":"second"}}'), 'tool:first');
  t.equal(node('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"n\\u0061me":"escaped"}}'), 'mcp:tools/call', 'an escaped key is not matched');
  t.equal(node('{"jsonrpc":"2.0","id":6,"method":"tools\\/call","params":{"name":"echo"}}'), 'tool:echo', 'an escaped method still names');
  t.equal(node('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ech\\u006f"}}'), 'tool:echo', 'an escaped name is decoded');
  t.equal(node('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echp"}}'), 'tool:echp', 'same length as a cached name');
  t.equal(node('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":7}}'), 'mcp:tools/call', 'a name that is not a string');
  t.equal(node('{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"name":"n","uri":"file:///x"}}'), 'resource:file:///x');
  t.equal(node('{"params":{"uri":"file:///y"},"jsonrpc":"2.0","id":11,"method":"resources/read"}'), 'resource:file:///y');
  t.equal(node('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"x":tru,"name":"echo"}}'), 'mcp:tools/call', 'not read past a malformed member');
  t.equal(node('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"echo"},"params":{}}'), 'mcp:tools/call', 'the last params counts');
  const methods = ['tools/call', 'tools/list', 'tools/lisu', 'tools/call'];
  for (const method of methods) t.equal(classify(make(C2S, { jsonrpc: '2.0', method }), c).method, method, `interned ${method}`);
  t.equal(classify(make(C2S, { jsonrpc: '2.0', id: 14, method: 5 }), c).type, 'noise', 'a method that is not a string');
});

t.test('isError at the top of a tools/call result only', async (t) => {
  const cases: Array<[string, boolean | undefined]> = [
    ['{"isError":true,"content":[]}', true],
    ['{"content":[{"type":"text","text":"x"}],"isError":true}', true],
    ['{ "content" : [] , "isError" : true }', true],
    ['{"content":[],"isError":false}', undefined],
    ['{"content":[{"isError":true}]}', undefined],
    ['{"structuredContent":{"isError":true},"content":[]}', undefined],
    ['{"isErr\\u006fr":true}', undefined],
    ['{"isError":"true"}', undefined],
    ['{"isError":false,"isError":true}', undefined],
    ['{"a":1 "isError":true}', undefined],
  ];
  let id = 0;
  for (const [result, isError] of cases) {
    const c = new Correlator();
    id++;
    classify(make(C2S, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo' } }), c);
    const f = classify(make(S2C, `{"jsonrpc":"2.0","id":${id},"result":${result}}`), c);
    t.equal(f.type, 'response', result);
    t.equal(f.isError, isError, result);
  }
  const c = new Correlator();
  classify(make(C2S, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), c);
  t.equal(classify(make(S2C, '{"jsonrpc":"2.0","id":1,"result":{"isError":true}}'), c).isError, undefined, 'only for tools/call');
  t.equal(classify(make(S2C, '{"jsonrpc":"2.0","id":2,"result":{"isError":true}}'), c).isError, undefined, 'only when answered');
});

t.test('reads from the bytes given, not frame.raw', async (t) => {
  const c = new Correlator();
  const decoy = (direction: Direction) => make(direction, 'debug: not json');
  const req = classify(decoy(C2S), c, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'));
  t.match(req, { type: 'request', method: 'tools/call', id: 1 });
  t.equal(req.node?.nodeId, 'tool:echo');
  t.equal(req.raw.toString(), 'debug: not json\n', 'the frame is not touched');
  const res = classify(decoy(S2C), c, Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"isError":true}}'));
  t.match(res, { type: 'response', id: 1, isError: true });
  t.equal(res.request, req);
  const batch = classify(decoy(C2S), c, Buffer.from(' [{"jsonrpc":"2.0","id":1,"method":"ping"}]'));
  t.equal(batch.type, 'batch', 'the batch check reads the bytes');
  const noise = classify(make(S2C, { jsonrpc: '2.0', id: 1, method: 'ping' }), c, Buffer.from('[1,2]'));
  t.equal(noise.type, 'noise', 'the noise check reads the bytes');
  t.equal(noise.node?.nodeId, 'mcp:stdout-noise');
});
