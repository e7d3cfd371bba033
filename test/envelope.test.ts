import t from 'tap';
import { valueAt } from '../src/json/read-value.js';
import { memberRange, skipValue } from '../src/json/skip.js';
import { StringInterner } from '../src/json/string-interner.js';
import { Envelope, scanEnvelope } from '../src/streams/envelope.js';

const env = (text: string) => scanEnvelope(Buffer.from(text));

t.test('reads the members of a JSON-RPC envelope wherever they are', async (t) => {
  const buf = Buffer.from('{"result":{"isError":true,"content":[{"text":"a \\"}\\" b"}]},"id":"x-1","jsonrpc":"2.0"}\n');
  const e = scanEnvelope(buf);
  t.ok(e);
  if (!e) return;
  t.equal(valueAt(buf, e.id, e.idEnd), 'x-1');
  t.equal(buf.toString('utf8', e.jsonrpc, e.jsonrpcEnd), '"2.0"');
  t.equal(e.method, -1, 'no method');
  const isError = memberRange(buf, e.result, e.resultEnd, 'isError');
  t.same(isError && buf.toString('utf8', isError[0], isError[1]), 'true');
});

t.test('accepts what JSON.parse accepts, rejects what it rejects (for the shapes that matter)', async (t) => {
  const good = [
    '{}',
    ' { "a" : 1 } \r\n',
    '{"a":[1,2,{"b":[]}],"c":null,"d":true,"e":false,"f":-1.5e3}',
    '{"s":"\\\\"}',
    '{"s":"\\\\\\""}',
    '{"deep":' + '['.repeat(100) + ']'.repeat(100) + '}',
  ];
  for (const text of good) {
    t.doesNotThrow(() => JSON.parse(text), text);
    t.ok(env(text), `accepted: ${text.slice(0, 40)}`);
  }
  const bad = ['', 'x', '[1]', '{', '{"a":}', '{"a" 1}', '{"a":1,}', '{"a":"unterminated}', '{"a":1} x', '{"a":tru}', '{a:1}', '{"a":1}}'];
  for (const text of bad) t.equal(env(text), undefined, `rejected: ${JSON.stringify(text)}`);
});

t.test('values', async (t) => {
  const read = (text: string) => {
    const buf = Buffer.from(text);
    return valueAt(buf, 0, skipValue(buf, 0, buf.length));
  };
  t.equal(read('12345'), 12345);
  t.equal(read('-7'), -7);
  t.equal(read('1.5'), 1.5);
  t.equal(read('1e3'), 1000);
  t.equal(read('"plain"'), 'plain');
  t.equal(read('"é😀"'), 'é😀');
  t.equal(read('"esc\\u00e9\\n"'), 'escé\n');
  t.equal(read('null'), null);
  t.equal(read('12345678901234567890'), 12345678901234567890);
});

t.test('records params.name, params.uri and result.isError as memberRange finds them', async (t) => {
  const lines = [
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"name":"inner"}}}',
    '{"params":{"arguments":{"name":"inner","uri":"u"},"name":"echo"},"method":"tools/call","jsonrpc":"2.0","id":1}',
    '{"params":{ "uri" : "file:///a" , "name" : "n" },"method":"resources/read"}',
    '{"params":{"name":"first","name":"second"}}',
    '{"params":{"n\\u0061me":"escaped key","na\\"me":"quote in key"}}',
    '{"params":{"x":tru,"name":"after a bad literal"}}',
    '{"params":{"name":"before a bad literal","x":tru}}',
    '{"params":{"x":1 "name":"after a missing comma"}}',
    '{"params":{"x":1,}}',
    '{"params":{}}',
    '{"params":{"name":"dropped"},"params":{"other":1}}',
    '{"params":{"name":"dropped"},"params":["name"]}',
    '{"params":"name"}',
    '{"result":{"isError":true,"content":[]}}',
    '{"result":{"content":[{"isError":true}],"isError":false}}',
    '{"result":{"content":[{"isError":true}]}}',
    '{"result":{"structured":{"isError":true}}}',
    '{"result":{"isErr\\u006fr":true}}',
    '{"result":{"a":1 "isError":true}}',
    '{"result":{"isError":true},"result":{}}',
    '{"result":[{"isError":true}]}',
  ];
  for (const line of lines) {
    const buf = Buffer.from(line);
    const e = scanEnvelope(buf);
    t.ok(e, line);
    if (!e) continue;
    const text = (start: number, end: number) => (start === -1 ? undefined : buf.toString('utf8', start, end));
    const member = (key: string, start: number, end: number) => {
      const range = memberRange(buf, start, end, key);
      return range && buf.toString('utf8', range[0], range[1]);
    };
    t.equal(text(e.name, e.nameEnd), member('name', e.params, e.paramsEnd), `name in ${line}`);
    t.equal(text(e.uri, e.uriEnd), member('uri', e.params, e.paramsEnd), `uri in ${line}`);
    t.equal(text(e.isError, e.isErrorEnd), member('isError', e.result, e.resultEnd), `isError in ${line}`);
  }
  const e = scanEnvelope(Buffer.from('{"params":{"name":"a"},"result":{"isError":true}}'));
  t.ok(e && e.name > 0 && e.isError > 0);
});

t.test('a reused envelope forgets the previous line', async (t) => {
  const into = new Envelope();
  const first = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"result":{"isError":true}}');
  t.equal(scanEnvelope(first, into), into);
  t.ok(into.name > 0 && into.isError > 0 && into.method > 0);
  const second = Buffer.from('{"jsonrpc":"2.0","id":2,"error":{}}');
  t.equal(scanEnvelope(second, into), into);
  t.same(
    [into.method, into.params, into.result, into.name, into.uri, into.isError],
    [-1, -1, -1, -1, -1, -1],
  );
  t.ok(into.error > 0 && into.id > 0);
  t.equal(scanEnvelope(Buffer.from('{"a":'), into), undefined);
});

t.test('valueAt reads only the value, whatever follows it', async (t) => {
  const buf = Buffer.from('{"a":"plain","b":"x\\ny"}');
  const e = scanEnvelope(buf);
  t.ok(e);
  t.equal(valueAt(buf, 5, 12), 'plain', 'a backslash later in the line does not matter');
  t.equal(valueAt(buf, 17, 23), 'x\ny', 'an escape inside the value is decoded');
  t.equal(valueAt(Buffer.from('"a\\\\"'), 0, 5), 'a\\', 'an escaped backslash before the closing quote');
});

t.test('the string interner', async (t) => {
  const strings = new StringInterner(3);
  const at = (text: string) => {
    const buf = Buffer.from(`{"v":${text}}`);
    return strings.stringAt(buf, 5, buf.length - 1);
  };
  t.equal(at('"tools/call"'), 'tools/call');
  t.equal(at('"tools/call"'), 'tools/call', 'again, from the cache');
  t.equal(at('"tools/list"'), 'tools/list', 'same length, different bytes');
  t.equal(at('"tools/lisu"'), 'tools/lisu', 'differs in the last byte only');
  t.equal(at('"tools\/list"'), 'tools/list', 'an escape decodes to the same string');
  t.equal(at('"tools\/list"'), 'tools/list');
  for (let round = 0; round < 3; round++) {
    for (const word of ['"aa"', '"ab"', '"ba"', '"bb"', '"é"', '"\u00e9"']) t.equal(at(word), JSON.parse(word), `evicted and back: ${word}`);
  }
  t.equal(at('12'), undefined, 'a number is not a string');
  t.equal(at('null'), undefined);
  t.equal(at('{"a":"b"}'), undefined);
  t.equal(at('"bad \\x escape"'), undefined, 'a bad escape is not a string');
  const long = `"${'x'.repeat(300)}"`;
  t.equal(at(long), 'x'.repeat(300), 'a long string is decoded, not kept');
  t.equal(at(long), 'x'.repeat(300));
  const buf = Buffer.from('"echo"');
  t.equal(strings.stringAt(buf, -1, -1), undefined, 'an absent value');
});
