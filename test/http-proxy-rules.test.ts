// The HTTP proxy's rules as playbooks: a request's route and upstream
// target, which session it belongs to, when a session ends, how an answer
// is relayed, what bytes go on after a decision, and how the proxy answers a
// requester itself. Each table is "this comes in -> that comes out"; the
// shells (HttpProxy, SessionTable, HostExchange) only apply them.
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { hostAnswer, serverPostHeaders } from '../src/http-proxy/answer-here.js';
import { eventIsMessage, eventOutcomeBytes, jsonOf, outcomeBytes } from '../src/http-proxy/frame-bytes.js';
import type { McpHttpSession } from '../src/http-proxy/http-session.js';
import { answerKind, routeOf, upstreamTarget, type AnswerKind, type RequestRoute } from '../src/http-proxy/routing.js';
import { EndedIds, endsSession, isInitialize, sessionForConnection, sessionForId, type ConnectionChoice, type IdChoice, type SessionLook } from '../src/http-proxy/session-rules.js';
import { SessionTable } from '../src/http-proxy/session-table.js';
import { SseSplitter, type SseEvent } from '../src/http-proxy/sse.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Frame } from '../src/streams/frame.js';
import { madeFrame } from '../src/streams/lifter.js';

t.test('route: what the proxy does with a request', async (t) => {
  const playbook: Array<[string, string | undefined, string | undefined, boolean, RequestRoute]> = [
    ['a POST to the endpoint is a message', 'POST', '/mcp', true, 'message'],
    ['with a query too', 'POST', '/mcp?x=1', true, 'message'],
    ['a GET there opens a stream in a session', 'GET', '/mcp', true, 'session'],
    ['a DELETE there ends a session', 'DELETE', '/mcp', true, 'session'],
    ['other methods there are relayed', 'PUT', '/mcp', true, 'relay'],
    ['OPTIONS (CORS) is relayed', 'OPTIONS', '/mcp', true, 'relay'],
    ['another path is relayed', 'POST', '/other', true, 'relay'],
    ['a path that only starts like it is relayed', 'POST', '/mcp/x', true, 'relay'],
    ['no target: /, relayed', 'POST', undefined, true, 'relay'],
    ['reporting off: everything is relayed', 'POST', '/mcp', false, 'relay'],
    ['reporting off: a GET too', 'GET', '/mcp', false, 'relay'],
  ];
  for (const [name, method, url, reporting, expected] of playbook) t.equal(routeOf(method, url, '/mcp', reporting), expected, name);
});

t.test('upstream target: where a request goes', async (t) => {
  const plain = new URL('http://up.example:3000/mcp');
  const withQuery = new URL('https://up.example/mcp?key=k');
  const playbook: Array<[string, string | undefined, URL, string | undefined]> = [
    ['the endpoint, as given', '/mcp', plain, undefined],
    ['the endpoint with the host’s query', '/mcp?session=2', plain, 'http://up.example:3000/mcp?session=2'],
    ['the endpoint’s own query wins', '/mcp?session=2', withQuery, undefined],
    ['another path, on the upstream’s origin', '/.well-known/oauth-protected-resource', plain, 'http://up.example:3000/.well-known/oauth-protected-resource'],
    ['another path keeps its query', '/x?a=1', withQuery, 'https://up.example/x?a=1'],
    ['no target is /', undefined, plain, 'http://up.example:3000/'],
  ];
  for (const [name, url, upstream, expected] of playbook) t.equal(upstreamTarget(url, upstream, upstream.pathname)?.href, expected, name);
});

t.test('answer kind: how an upstream answer is relayed', async (t) => {
  const playbook: Array<[string, string | undefined, boolean, AnswerKind]> = [
    ['SSE, event by event', 'text/event-stream', true, 'sse'],
    ['SSE with parameters, any case', 'Text/Event-Stream; charset=utf-8', true, 'sse'],
    ['JSON, whole', 'application/json', true, 'json'],
    ['JSON with a charset', 'application/json; charset=utf-8', true, 'json'],
    ['anything else as it comes', 'text/plain', true, 'plain'],
    ['no type: as it comes', undefined, true, 'plain'],
    ['no session followed: as it comes', 'application/json', false, 'plain'],
    ['nor SSE', 'text/event-stream', false, 'plain'],
  ];
  for (const [name, type, followed, expected] of playbook) t.equal(answerKind(type, followed), expected, name);
});

t.test('which session: a request with an Mcp-Session-Id', async (t) => {
  const playbook: Array<[string, SessionLook, boolean, string, IdChoice]> = [
    ['a live session under the id', 'live', false, 'POST', 'known'],
    ['a GET in it', 'live', false, 'GET', 'known'],
    ['a DELETE of it', 'live', false, 'DELETE', 'known'],
    ['an id begun before the proxy started: followed from now on', 'none', false, 'POST', 'follow'],
    ['a GET with it too', 'none', false, 'GET', 'follow'],
    ['a DELETE of a session not followed: none', 'none', false, 'DELETE', 'none'],
    ['an id the server ended: none, no new run', 'none', true, 'POST', 'none'],
    ['the session under it finished, the id ended', 'finished', true, 'POST', 'none'],
    ['a finished session under an id the server did not end: followed again', 'finished', false, 'POST', 'follow'],
  ];
  for (const [name, known, ended, method, expected] of playbook) t.equal(sessionForId(known, ended, method), expected, name);
});

t.test('which session: a request without an id, by client connection', async (t) => {
  const playbook: Array<[string, SessionLook, boolean, boolean, boolean, ConnectionChoice]> = [
    ['the first POST on a connection: a new session', 'none', false, true, false, 'new'],
    ['an initialize on a fresh connection: new', 'none', false, true, true, 'new'],
    ['a GET finds none', 'none', false, false, false, 'none'],
    ['the connection’s live session goes on', 'live', false, true, false, 'current'],
    ['a GET in it', 'live', false, false, false, 'current'],
    ['a new initialize on a stateless session: it ends, a new one begins', 'live', false, true, true, 'replace'],
    ['a new initialize where the session got an id: a new one, the other goes on', 'live', true, true, true, 'new'],
    ['the connection’s session finished: a POST begins a new one', 'finished', false, true, false, 'replace'],
    ['a finished one with an id: new', 'finished', true, true, false, 'new'],
    ['the connection’s session finished: a GET finds none', 'finished', false, false, false, 'none'],
  ];
  for (const [name, current, hasId, post, initialize, expected] of playbook) t.equal(sessionForConnection(current, hasId, post, initialize), expected, name);
});

t.test('initialize: read only for requests without an id', async (t) => {
  const playbook: Array<[string, string, boolean]> = [
    ['an initialize request', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', true],
    ['a call that mentions "initialize" in its arguments', '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"initialize"}}', false],
    ['a call', '{"jsonrpc":"2.0","id":2,"method":"tools/list"}', false],
    ['a batch with one (no method at the top)', '[{"jsonrpc":"2.0","id":1,"method":"initialize"}]', false],
    ['not JSON', '"initialize" {', false],
    ['null', 'null', false],
  ];
  for (const [name, body, expected] of playbook) t.equal(isInitialize(Buffer.from(body)), expected, name);
});

t.test('ends the session: what an upstream answer says of it', async (t) => {
  const withId = ['Mcp-Session-Id', 's1'];
  const playbook: Array<[string, string, readonly string[], number, boolean]> = [
    ['a DELETE answered 200', 'DELETE', withId, 200, true],
    ['a DELETE answered 204', 'DELETE', withId, 204, true],
    ['a DELETE refused (405)', 'DELETE', withId, 405, false],
    ['a 404 for a request with an id: the server forgot it', 'POST', withId, 404, true],
    ['a 404 for a GET with an id', 'GET', withId, 404, true],
    ['a 404 for a request without one: not a session’s end', 'POST', [], 404, false],
    ['a POST answered 200', 'POST', withId, 200, false],
    ['a 400', 'POST', withId, 400, false],
  ];
  for (const [name, method, headers, status, expected] of playbook) t.equal(endsSession(method, headers, status), expected, name);
});

t.test('ended ids: the newest are remembered, the oldest forgotten first', async (t) => {
  const ids = new EndedIds(3);
  const playbook: Array<[string, string, string[], string[]]> = [
    ['one', 'a', ['a'], ['b']],
    ['two', 'b', ['a', 'b'], []],
    ['again: kept once, its place unchanged', 'a', ['a', 'b'], []],
    ['three: at the limit', 'c', ['a', 'b', 'c'], []],
    ['four: the oldest goes', 'd', ['b', 'c', 'd'], ['a']],
    ['five', 'e', ['c', 'd', 'e'], ['a', 'b']],
  ];
  for (const [name, id, kept, forgotten] of playbook) {
    ids.add(id);
    t.strictSame(
      kept.map((k) => ids.has(k)),
      kept.map(() => true),
      `${name}: remembered`,
    );
    t.strictSame(
      forgotten.map((k) => ids.has(k)),
      forgotten.map(() => false),
      `${name}: forgotten`,
    );
    t.equal(ids.size, kept.length, `${name}: size`);
  }
});

/** A stand-in for a session: what the table reads and calls. */
interface FakeSession {
  name: string;
  sessionId: string | undefined;
  finished: boolean;
  finish(): void;
}

/** A stand-in for a host request on a connection. */
function request(method: string, socket: EventEmitter, sessionId?: string): IncomingMessage {
  return { method, socket, rawHeaders: sessionId === undefined ? [] : ['Mcp-Session-Id', sessionId] } as unknown as IncomingMessage;
}

t.test('the session table: requests in, sessions out', async (t) => {
  let made = 0;
  const table = new SessionTable((sessionId) => {
    const session: FakeSession = { name: `s${++made}`, sessionId, finished: false, finish: () => (session.finished = true) };
    return session as unknown as McpHttpSession;
  });
  const nameOf = (session: McpHttpSession | undefined): string | undefined => (session as unknown as FakeSession | undefined)?.name;
  const init = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize"}');
  const call = Buffer.from('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
  const a = new EventEmitter();
  const b = new EventEmitter();
  const live = (): string[] => table.live.map((s) => nameOf(s) as string);

  // [what happens, the request (or an action), its body, the session it gets, the live sessions after]
  const steps: Array<[string, () => McpHttpSession | undefined, string | undefined, string[]]> = [
    ['a GET on a fresh connection finds none', () => table.sessionOf(request('GET', a), undefined), undefined, []],
    ['an initialize on connection a: s1', () => table.sessionOf(request('POST', a), init), 's1', ['s1']],
    ['a call on a: still s1', () => table.sessionOf(request('POST', a), call), 's1', ['s1']],
    ['another connection: its own session, s2', () => table.sessionOf(request('POST', b), init), 's2', ['s1', 's2']],
    ['a new initialize on a (stateless): s1 ends, s3', () => table.sessionOf(request('POST', a), init), 's3', ['s2', 's3']],
    [
      'the server names s3 "abc"',
      () => {
        const s3 = table.live.find((s) => nameOf(s) === 's3') as McpHttpSession;
        table.learnId(s3, 'abc', a as never);
        return s3;
      },
      's3',
      ['s2', 's3'],
    ],
    ['a request with that id, on any connection: s3', () => table.sessionOf(request('POST', b, 'abc'), call), 's3', ['s2', 's3']],
    ['a is free again: a GET there finds none', () => table.sessionOf(request('GET', a), undefined), undefined, ['s2', 's3']],
    ['an id begun before the proxy: followed, s4', () => table.sessionOf(request('POST', a, 'old'), call), 's4', ['s2', 's3', 's4']],
    ['a DELETE of an id not followed: none', () => table.sessionOf(request('DELETE', a, 'gone'), undefined), undefined, ['s2', 's3', 's4']],
    [
      'the server ends "abc"',
      () => {
        const s3 = table.live.find((s) => nameOf(s) === 's3') as McpHttpSession;
        table.end(s3);
        return s3;
      },
      's3',
      ['s2', 's4'],
    ],
    ['its id again: relayed without a session, no new run', () => table.sessionOf(request('POST', a, 'abc'), call), undefined, ['s2', 's4']],
    [
      'connection b closes: its session without an id ends',
      () => {
        b.emit('close');
        return undefined;
      },
      undefined,
      ['s4'],
    ],
    [
      'the table closes: every session ends',
      () => {
        table.close();
        return undefined;
      },
      undefined,
      [],
    ],
    ['and no request belongs to one', () => table.sessionOf(request('POST', a), init), undefined, []],
  ];
  for (const [name, act, expected, after] of steps) {
    t.equal(nameOf(act()), expected, name);
    t.strictSame(live(), after, `${name}: live after`);
  }
});

t.test('the table keeps what the proxy needs to speak for a host', async (t) => {
  const table = new SessionTable(() => ({ sessionId: undefined, finished: false, finish() {} }) as unknown as McpHttpSession);
  const socket = new EventEmitter();
  const session = table.sessionOf(request('POST', socket), Buffer.from('{}')) as McpHttpSession;
  t.strictSame(table.hostHeaders(session), [], 'nothing before the first request is remembered');
  t.equal(table.answersWithSse(session), false);
  const req = { rawHeaders: ['Authorization', 'Bearer t'] } as unknown as IncomingMessage;
  table.remember(session, req);
  t.strictSame(table.hostHeaders(session), ['Authorization', 'Bearer t'], 'the latest request’s headers');
  table.noteAnswerType(session, true);
  t.equal(table.answersWithSse(session), true, 'the server answers with SSE');
  table.remember(session, { rawHeaders: ['Cookie', 'c'] } as unknown as IncomingMessage);
  t.strictSame(table.hostHeaders(session), ['Cookie', 'c'], 'a later request’s headers replace them');
  t.equal(table.answersWithSse(session), true, 'and the answer type stays until the next answer');
});

/** A classified frame of `json`. */
function frameOf(json: string, direction: 'client-to-server' | 'server-to-client' = 'client-to-server'): Frame {
  const frame = newFrame(Buffer.from(json), direction, 1, true);
  classify(frame, new Correlator());
  return frame;
}

/** One SSE event, parsed. */
function eventOf(text: string): SseEvent {
  return new SseSplitter().push(Buffer.from(text))[0] as SseEvent;
}

t.test('bytes after a decision: a held body', async (t) => {
  const held = frameOf('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}');
  const original = Buffer.from('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}} ');
  const abort = madeFrame({ outcome: { kind: 'fail', code: -32000, message: 'aborted' }, request: held, lift: {} }, 'server-to-client', 1);
  const abortJson = '{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"aborted"}}';
  t.equal(jsonOf(held), held.raw, 'a frame from the wire: its own bytes');
  t.equal(jsonOf(abort).toString(), abortJson, 'a made frame: one line of JSON, no newline');
  const playbook: Array<[string, readonly Frame[], string | undefined]> = [
    ['continue: the original bytes', [held], original.toString()],
    ['a made frame in its place: its JSON', [abort], abortJson],
    ['the first of several', [abort, held], abortJson],
    ['nothing (dropped, answered to its sender, re-sent)', [], undefined],
  ];
  for (const [name, frames, expected] of playbook) t.equal(outcomeBytes(frames, held, original)?.toString(), expected, name);
});

t.test('bytes after a decision: a held SSE event', async (t) => {
  const held = frameOf('{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}', 'server-to-client');
  const withId = eventOf('event: message\nid: 9\ndata: {"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}\n\n');
  const noId = eventOf('data: {"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}\n\n');
  const made = madeFrame({ outcome: { kind: 'answer', value: { x: 1 } }, request: held, lift: {} }, 'server-to-client', 1);
  const madeJson = jsonOf(made).toString();
  const playbook: Array<[string, readonly Frame[], SseEvent, string[]]> = [
    ['continue: the event as it came', [held], withId, [withId.raw.toString()]],
    ['a made frame: an event with the held one’s other lines', [made], withId, [`event: message\nid: 9\ndata: ${madeJson}\n\n`]],
    ['without other lines, the SDKs’ plain event', [made], noId, [`data: ${madeJson}\n\n`]],
    ['several: one event each', [made, held], withId, [`event: message\nid: 9\ndata: ${madeJson}\n\n`, withId.raw.toString()]],
    ['dropped, with an id: its id moves on, with no data', [], withId, ['event: message\nid: 9\ndata: \n\n']],
    ['dropped, without an id: nothing', [], noId, []],
  ];
  for (const [name, frames, event, expected] of playbook) {
    t.strictSame(
      eventOutcomeBytes(frames, held, event).map((b) => b.toString()),
      expected,
      name,
    );
  }
});

t.test('which SSE events carry a message to parse', async (t) => {
  const playbook: Array<[string, string, number, boolean]> = [
    ['a message', 'data: {"jsonrpc":"2.0","method":"x"}\n\n', 1000, true],
    ['a comment', ': keep-alive\n\n', 1000, false],
    ['a priming event: an id and empty data', 'id: 1\ndata: \n\n', 1000, false],
    ['a lone id', 'id: 1\n\n', 1000, false],
    ['larger than the limit: relayed unread', 'data: {"jsonrpc":"2.0","method":"x"}\n\n', 10, false],
    ['exactly at the limit: parsed', 'data: {}\n\n', 10, true],
  ];
  for (const [name, text, max, expected] of playbook) t.equal(eventIsMessage(eventOf(text), max), expected, name);
});

t.test('answering a requester here: the host’s answer', async (t) => {
  const json = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}');
  const playbook: Array<[string, string | undefined, boolean, Record<string, string>, string]> = [
    ['JSON, with the session’s id', 's1', false, { 'content-type': 'application/json', 'content-length': String(json.length), 'mcp-session-id': 's1' }, json.toString()],
    ['JSON, stateless: no id', undefined, false, { 'content-type': 'application/json', 'content-length': String(json.length) }, json.toString()],
    ['an SSE event, as the server answers', 's1', true, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': 's1' }, `event: message\ndata: ${json.toString()}\n\n`],
  ];
  for (const [name, sessionId, sse, headers, body] of playbook) {
    const answer = hostAnswer(json, sessionId, sse);
    t.strictSame(answer.headers, headers, `${name}: headers`);
    t.equal(answer.body.toString(), body, `${name}: body`);
  }
});

t.test('answering a requester here: the POST to the server, as the host would send it', async (t) => {
  const host = ['Host', 'proxy:4750', 'Connection', 'keep-alive', 'Content-Type', 'application/json', 'Accept', 'application/json', 'Authorization', 'Bearer t', 'Mcp-Session-Id', 'old', 'Last-Event-ID', 'e1', 'Content-Length', '99', 'MCP-Protocol-Version', '2025-06-18', 'Cookie', 'c=1'];
  const playbook: Array<[string, readonly string[], string | undefined, string[]]> = [
    [
      'the host’s credentials and version go on; type, accept, id and length are set here',
      host,
      's1',
      ['Authorization', 'Bearer t', 'MCP-Protocol-Version', '2025-06-18', 'Cookie', 'c=1', 'mcp-session-id', 's1', 'content-type', 'application/json', 'accept', 'application/json, text/event-stream', 'host', 'up:3000', 'content-length', '12'],
    ],
    ['no host request yet, stateless', [], undefined, ['content-type', 'application/json', 'accept', 'application/json, text/event-stream', 'host', 'up:3000', 'content-length', '12']],
  ];
  for (const [name, headers, sessionId, expected] of playbook) t.strictSame(serverPostHeaders(headers, sessionId, 'up:3000', 12), expected, name);
});
