import t from 'tap';
import { memberRange, scanEnvelope, skipValue, valueAt } from '../src/streams/envelope.js';

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
