// The HTTP proxy's small pure parts: server-sent events cut at any chunk
// boundary (bytes kept exactly), the headers passed on, the listen address
// and loopback checks.
import t from 'tap';
import { droppedEventBytes, SseSplitter, sseEventBytes, type SseEvent } from '../src/http-proxy/sse.js';
import { isLoopback, loopbackHostCheck, passHeaders, rawHeader, safeUrl } from '../src/http-proxy/headers.js';
import { listenAddress } from '../src/http-proxy/start.js';

const STREAM =
  'id: s1_000001\nretry: 50\ndata: \n\n' +
  'event: message\r\nid: s1_000002\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"é 😀"}}\r\n\r\n' +
  ': a comment, kept\n\n' +
  'data: {"jsonrpc":"2.0",\rdata: "id":1,"result":{}}\r\r' +
  'event: message\ndata: {"jsonrpc":"2.0","id":2,"result":{"a":"x\\ny"}}\n\n';

function cut(bytes: Buffer, sizes: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length] as number);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

function split(chunks: Buffer[]): { events: SseEvent[]; rest: Buffer | undefined } {
  const splitter = new SseSplitter();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...splitter.push(chunk));
  return { events, rest: splitter.rest() };
}

t.test('events are cut the same at any chunk boundary, and their bytes are the stream', async (t) => {
  const bytes = Buffer.from(STREAM, 'utf8');
  const whole = split([bytes]);
  t.equal(whole.events.length, 5);
  t.equal(whole.rest, undefined);
  t.strictSame(
    whole.events.map((e) => e.data),
    [
      '',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"é 😀"}}',
      undefined,
      '{"jsonrpc":"2.0",\n"id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":2,"result":{"a":"x\\ny"}}',
    ],
    'data lines joined with \\n; a comment has none',
  );
  t.strictSame(whole.events.map((e) => e.id), ['s1_000001', 's1_000002', undefined, undefined, undefined]);
  t.equal(whole.events[1]?.head, 'event: message\r\nid: s1_000002\r\n', 'the lines other than data, as they came');
  t.equal(Buffer.concat(whole.events.map((e) => e.raw)).toString('utf8'), STREAM, 'the events are the stream, byte for byte');
  for (const sizes of [[1], [2], [3], [7], [1, 5, 2], [64]]) {
    const again = split(cut(bytes, sizes));
    t.strictSame(
      again.events.map((e) => [e.raw.toString('utf8'), e.data, e.id]),
      whole.events.map((e) => [e.raw.toString('utf8'), e.data, e.id]),
      `chunks of ${sizes.join(',')} bytes`,
    );
  }
});

t.test('an event left unfinished comes back at the end', async (t) => {
  const { events, rest } = split([Buffer.from('data: {"a":1}\n\ndata: {"b"')]);
  t.equal(events.length, 1);
  t.equal(rest?.toString(), 'data: {"b"');
});

t.test('made events keep the held event’s other lines', async (t) => {
  const [event] = split([Buffer.from('event: message\nid: 7\ndata: {"old":true}\n\n')]).events;
  t.equal(sseEventBytes('{"new":true}', event).toString(), 'event: message\nid: 7\ndata: {"new":true}\n\n');
  t.equal(sseEventBytes('{"new":true}').toString(), 'event: message\ndata: {"new":true}\n\n', 'a fresh event, as the SDKs write them');
  t.equal(droppedEventBytes(event as SseEvent)?.toString(), 'event: message\nid: 7\ndata: \n\n', 'a dropped event keeps its id, with no data');
  const [plain] = split([Buffer.from('data: {"x":1}\n\n')]).events;
  t.equal(droppedEventBytes(plain as SseEvent), undefined, 'one without an id leaves nothing');
});

t.test('headers: hop-by-hop and those Connection names go, the rest as spelled', async (t) => {
  const raw = ['Host', 'a', 'Connection', 'keep-alive, X-Private', 'Keep-Alive', 'timeout=5', 'X-Private', '1', 'Mcp-Session-Id', 'abc', 'Authorization', 'Bearer t', 'Content-Length', '12', 'Transfer-Encoding', 'chunked', 'Last-Event-ID', 'e1', 'MCP-Protocol-Version', '2025-06-18'];
  t.strictSame(passHeaders(raw), ['Mcp-Session-Id', 'abc', 'Authorization', 'Bearer t', 'Last-Event-ID', 'e1', 'MCP-Protocol-Version', '2025-06-18']);
  t.strictSame(passHeaders(['Content-Length', '12', 'Host', 'x']), [], 'content-length is set for what is sent');
  t.strictSame(passHeaders(['Content-Length', '12'], true), ['Content-Length', '12'], 'unless the body is relayed as it is');
  t.equal(rawHeader(raw, 'mcp-session-id'), 'abc', 'a header read from the raw list, any case');
  t.equal(rawHeader(['X-A', '1', 'x-a', '2'], 'x-a'), '1', 'the first of two');
  t.equal(rawHeader(raw, 'cookie'), undefined);
});

t.test('listen addresses and loopback', async (t) => {
  t.strictSame(listenAddress('127.0.0.1:4750', false), { host: '127.0.0.1', port: 4750 });
  t.strictSame(listenAddress('[::1]:0', false), { host: '::1', port: 0 });
  t.strictSame(listenAddress('localhost:9', false), { host: 'localhost', port: 9 });
  t.match(listenAddress('0.0.0.0:4750', false), /reachable from other hosts/);
  t.strictSame(listenAddress('0.0.0.0:4750', true), { host: '0.0.0.0', port: 4750 });
  t.match(listenAddress('4750', false), /must be host:port/);
  t.match(listenAddress('127.0.0.1:70000', false), /no such port/);
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST']) t.ok(isLoopback(host), host);
  for (const host of ['0.0.0.0', '10.0.0.1', 'example.com', '::']) t.notOk(isLoopback(host), host);
  const check = loopbackHostCheck(4750);
  t.ok(check('127.0.0.1:4750') && check('LocalHost:4750') && check('[::1]:4750'));
  t.notOk(check('evil.example:4750') || check('127.0.0.1:4751') || check(undefined) || check('127.0.0.1'));
  t.equal(safeUrl(new URL('https://user:pw@example.com:8443/mcp?key=secret#x')), 'https://example.com:8443/mcp', 'no credentials, query or fragment');
});
