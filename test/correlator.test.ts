// The correlator pairs each answer with the request it answers. Its table
// for small integer ids must behave exactly like a map keyed by id: checked
// against one, over random sessions with colliding, repeated and odd ids.
import { PassThrough } from 'node:stream';
import t from 'tap';
import { createRelay } from '../src/streams/create-relay.js';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { idForDisplay, idKey } from '../src/streams/exact-id.js';
import { newFrame, type Direction, type Frame, type JsonRpcId } from '../src/streams/frame.js';
import { prng } from './helpers/random.js';

const other = (d: Direction): Direction => (d === 'client-to-server' ? 'server-to-client' : 'client-to-server');

function request(direction: Direction, seq: number, id: JsonRpcId): Frame {
  const frame = newFrame(Buffer.from('{}\n'), direction, seq, true);
  frame.type = 'request';
  frame.id = id;
  return frame;
}

t.test('pairs exactly as a map keyed by direction and id would', async (t) => {
  const rand = prng(20261201);
  // Ids that share a slot (n and n + 1024·k), repeats, and ids that have no slot at all.
  const pick = (): JsonRpcId => {
    const r = rand();
    if (r < 0.5) return Math.floor(rand() * 40);
    if (r < 0.75) return Math.floor(rand() * 40) + 1024 * Math.floor(rand() * 4);
    const odd: JsonRpcId[] = [-1, 1.5, 2 ** 32 + 3, 2 ** 53, '7', 'seven', '', null, 0];
    return odd[Math.floor(rand() * odd.length)] as JsonRpcId;
  };
  let mismatches = 0;
  let answered = 0;
  for (let session = 0; session < 200; session++) {
    const correlator = new Correlator();
    const model = { 'client-to-server': new Map<JsonRpcId, Frame>(), 'server-to-client': new Map<JsonRpcId, Frame>() };
    const seq = { 'client-to-server': 0, 'server-to-client': 0 };
    for (let step = 0; step < 300; step++) {
      const direction: Direction = rand() < 0.8 ? 'client-to-server' : 'server-to-client';
      const id = pick();
      if (rand() < 0.55) {
        const frame = request(direction, ++seq[direction], id);
        correlator.track(frame);
        // A repeated id replaces the request, keeping the map's order by first arrival.
        model[direction].delete(id);
        model[direction].set(id, frame);
      } else {
        // An answer travels the other way.
        const got = correlator.take(other(direction), id);
        const want = model[direction].get(id);
        model[direction].delete(id);
        if (got !== want) mismatches++;
        if (want !== undefined) answered++;
      }
    }
    for (const direction of ['client-to-server', 'server-to-client'] as const) {
      const want = [...model[direction].values()].sort((a, b) => a.seq - b.seq);
      const got = correlator.outstanding(direction);
      if (got.length !== want.length || got.some((frame, i) => frame !== want[i])) mismatches++;
    }
  }
  t.equal(mismatches, 0, 'every answer finds the request a map finds, and the same requests are left waiting');
  t.ok(answered > 5000, `answers that found their request: ${answered}`);
});

t.test('ids beyond the table, and a thousand in flight', async (t) => {
  const correlator = new Correlator();
  const frames: Frame[] = [];
  for (let i = 1; i <= 5000; i++) {
    const frame = request('client-to-server', i, i);
    frames.push(frame);
    correlator.track(frame);
  }
  t.equal(correlator.outstanding('client-to-server').length, 5000, '5000 waiting, most of them sharing a slot with others');
  let paired = 0;
  for (let i = 5000; i >= 1; i--) if (correlator.take('server-to-client', i) === frames[i - 1]) paired++;
  t.equal(paired, 5000, 'each answer, in reverse order, finds its own request');
  t.equal(correlator.outstanding('client-to-server').length, 0, 'nothing left');
  t.equal(correlator.take('server-to-client', 1), undefined, 'an answer to nothing waiting finds nothing');
});

t.test('integer ids past 2^53 stay distinct calls: keyed by their digits, not by a rounded number', async (t) => {
  const correlator = new Correlator();
  const line = (text: string, direction: Direction, seq: number): Frame => classify(newFrame(Buffer.from(`${text}\n`), direction, seq, true), correlator);
  // Both parse to the same JavaScript number, 9007199254740992.
  const big = line('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}', 'client-to-server', 1);
  const bigger = line('{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"echo"}}', 'client-to-server', 2);
  const asString = line('{"jsonrpc":"2.0","id":"9007199254740993","method":"ping"}', 'client-to-server', 3);
  t.equal(big.id, bigger.id, 'as numbers the two ids are one');
  t.equal(correlator.outstanding('client-to-server').length, 3, 'yet all three requests wait');
  const first = line('{"jsonrpc":"2.0","id":9007199254740992,"result":{}}', 'server-to-client', 1);
  const second = line('{"jsonrpc":"2.0","result":{},"id":9007199254740993}', 'server-to-client', 2);
  const third = line('{"jsonrpc":"2.0","id":"9007199254740993","result":{}}', 'server-to-client', 3);
  t.equal(first.request, bigger, '…992 answers the tools/call');
  t.equal(second.request, big, '…993 answers the tools/list');
  t.equal(third.request, asString, 'and the string id is not mistaken for the number');
  t.equal(idKey(big), 9007199254740993n, 'the key is the exact integer');
  t.equal(idKey(line('{"jsonrpc":"2.0","id":12,"method":"ping"}', 'client-to-server', 4)), 12, 'a small id is its own key');
  t.equal(idForDisplay(big), '9007199254740993', 'and it is shown with its own digits');
  t.equal(idForDisplay(line('{"jsonrpc":"2.0","id":-9007199254740995,"method":"ping"}', 'client-to-server', 5)), '-9007199254740995', 'negative too');
  t.equal(correlator.outstanding('client-to-server').length, 2, 'the two pings wait; the answered are gone');
});

t.test('an id past 2^53 is the same key however its number is spelled', async (t) => {
  const correlator = new Correlator();
  const line = (text: string, direction: Direction, seq: number): Frame => classify(newFrame(Buffer.from(`${text}\n`), direction, seq, true), correlator);
  const exponent = line('{"jsonrpc":"2.0","id":1e20,"method":"ping"}', 'client-to-server', 1);
  const decimal = line('{"jsonrpc":"2.0","id":9.007199254740993e15,"method":"tools/list"}', 'client-to-server', 2);
  // A JavaScript peer echoes 1e20 as 100000000000000000000.
  t.equal(line('{"jsonrpc":"2.0","id":100000000000000000000,"result":{}}', 'server-to-client', 1).request, exponent, '1e20 and its digits are one id');
  t.equal(line('{"jsonrpc":"2.0","id":9007199254740993,"result":{}}', 'server-to-client', 2).request, decimal, 'so are 9.007199254740993e15 and 9007199254740993');
  t.equal(idKey(exponent), 10n ** 20n, 'the key is the exact integer');
  const fraction = line('{"jsonrpc":"2.0","id":9007199254740993.5,"method":"ping"}', 'client-to-server', 3);
  t.equal(idKey(fraction), fraction.id, 'a number that is not an integer is keyed as the number it parses to');
});

t.test('a long request relayed in pieces, with its id past 2^53 after the 1 MiB it keeps, still finds its answer', async (t) => {
  const hostIn = new PassThrough();
  const hostOut = new PassThrough();
  const serverIn = new PassThrough();
  const serverOut = new PassThrough();
  hostOut.resume();
  serverIn.resume();
  const answers: Frame[] = [];
  const relay = createRelay({
    client: { readable: hostIn, writable: hostOut },
    server: { readable: serverOut, writable: serverIn },
    onFrame: (frame) => {
      if (frame.direction === 'server-to-client') answers.push(frame);
    },
  });
  const big = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"${'x'.repeat(1536 * 1024)}"}},"id":9007199254740993}\n`;
  for (let at = 0; at < big.length; at += 64 * 1024) hostIn.write(big.slice(at, at + 64 * 1024));
  await new Promise((resolve) => setImmediate(resolve));
  const [request] = relay.correlator.outstanding('client-to-server');
  t.ok(request !== undefined && request.raw.length < request.size, 'the request went out in pieces and kept only its head');
  serverOut.write('{"jsonrpc":"2.0","id":9007199254740993,"result":{"content":[]}}\n');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(answers[0]?.request, request, 'the answer pairs with it');
  t.equal(answers[0]?.method, 'tools/call');
  t.same(relay.correlator.outstanding('client-to-server'), [], 'nothing is left waiting');
  hostIn.end();
  serverOut.end();
});
