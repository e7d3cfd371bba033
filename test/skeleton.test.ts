import t from 'tap';
import { Classifier, classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Frame, type FrameBatch } from '../src/streams/frame.js';
import { LineFramer } from '../src/streams/line-framer.js';
import { SkeletonReader } from '../src/streams/skeleton.js';
import { prng, randomChunks, randomLine } from './helpers/random.js';

const BIG = 'x'.repeat(70_000);
const SCALARS = ['"a"', '"é\\"q"', '1.5', '-2', 'true', 'false', 'null', '"\\\\"', '{}', '[]', `"${BIG}"`];

/** A random line with large members in random places: what the skeleton has to survive. */
function bigLine(rand: () => number, id: number): Buffer {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const roll = rand();
  const members: string[] = [];
  members.push(`"jsonrpc":${pick(['"2.0"', '"2.0"', '"2.0"', '"1.0"', '2'])}`);
  if (rand() < 0.9) members.push(`"id":${pick([String(id), `"s${id}"`, 'null', `"e\\u0031"`])}`);
  if (roll < 0.45) {
    members.push(`"method":${pick(['"tools/call"', '"tools/call"', '"resources/read"', '"prompts/get"', '"ping"', '"notifications/message"', '7'])}`);
    const inner = [`"arguments":{"t":${pick(SCALARS)},"l":[${pick(SCALARS)},${pick(SCALARS)}]}`, `"name":${pick(SCALARS)}`, `"uri":${pick(SCALARS)}`, `"_meta":{"name":"deep"}`];
    members.push(`"params":{${inner.sort(() => rand() - 0.5).join(',')}}`);
  } else if (roll < 0.9) {
    const inner = [`"content":[{"type":"text","text":${pick(SCALARS)}}]`, `"isError":${pick(['true', 'false', '"true"', 'true '])}`, `"nested":{"isError":true}`, `"big":${pick(SCALARS)}`];
    members.push(`"result":{${inner.sort(() => rand() - 0.5).join(',')}}`);
  } else {
    members.push(`"error":{"code":-1,"message":${pick(SCALARS)}}`);
  }
  if (rand() < 0.3) members.push(`"extra":[${pick(SCALARS)},{"a":${pick(SCALARS)}}]`);
  members.sort(() => rand() - 0.5);
  const sp = rand() < 0.3 ? ' ' : '';
  return Buffer.from(`${sp}{${sp}${members.join(`${sp},${sp}`)}${sp}}${sp}${rand() < 0.3 ? '\r\n' : '\n'}`);
}

/** Damage a line the ways a broken server does: cut it, drop or change a byte. */
function mutate(line: Buffer, rand: () => number): Buffer {
  const copy = Buffer.from(line);
  const at = Math.floor(rand() * (copy.length - 1));
  const roll = rand();
  if (roll < 0.3) return Buffer.concat([copy.subarray(0, at), Buffer.from('\n')]);
  if (roll < 0.6) return Buffer.concat([copy.subarray(0, at), copy.subarray(at + 1)]);
  copy[at] = '{}[]",: \\x1'.charCodeAt(Math.floor(rand() * 11));
  return copy;
}

interface Verdict {
  type: Frame['type'];
  method?: string;
  id?: unknown;
  node?: string;
  isError?: boolean;
}

function verdict(frame: Frame): Verdict {
  return { type: frame.type, method: frame.method, id: frame.id, node: frame.node?.nodeId, isError: frame.isError };
}

/**
 * Classify `line` whole, and again from the skeleton of its pieces, each
 * after the same request went by (so a response can find it).
 */
function both(line: Buffer, pieces: Buffer[], request?: Buffer): { whole: Verdict; streamed: Verdict; kind: string } {
  const whole = new Correlator();
  const streamed = new Correlator();
  if (request !== undefined) {
    classify(newFrame(request, 'client-to-server', 1, true), whole);
    classify(newFrame(request, 'client-to-server', 1, true), streamed);
  }
  const direction = line.includes('"method"') ? 'client-to-server' : 'server-to-client';
  const a = classify(newFrame(line, direction, 2, true), whole);
  const reader = new SkeletonReader();
  for (const piece of pieces) reader.push(piece);
  const skeleton = reader.finish();
  const b = newFrame(line, direction, 2, true);
  if (skeleton.kind === 'object') classify(b, streamed, skeleton.bytes);
  else b.type = skeleton.kind === 'array' ? 'batch' : 'noise';
  if (b.type === 'noise' && direction === 'server-to-client') b.node = a.type === 'noise' ? a.node : undefined;
  return { whole: verdict(a), streamed: verdict(b), kind: skeleton.kind };
}

t.test('a line read in pieces classifies exactly like the whole line', async (t) => {
  const rand = prng(20261130);
  let mismatches = 0;
  let checked = 0;
  const request = (id: number): Buffer => Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo"}}\n`);
  for (let i = 0; i < 600; i++) {
    let line = i % 3 === 0 ? randomLine(rand, i) : bigLine(rand, i);
    if (rand() < 0.3) line = mutate(line, rand);
    const chunking = randomChunks(line, rand, rand() < 0.2 ? 7 : 70_000);
    const { whole, streamed } = both(line, chunking, request(i));
    checked++;
    if (JSON.stringify(whole) !== JSON.stringify(streamed)) {
      mismatches++;
      const short = (v: Verdict) => ({ ...v, node: v.node?.slice(0, 80) });
      if (mismatches <= 5) t.fail(`line ${i} differs`, { whole: short(whole), streamed: short(streamed), line: line.toString('latin1').slice(0, 300) });
    }
  }
  t.equal(mismatches, 0, `${checked} lines, whole and in pieces, agree`);
});

t.test('one byte at a time, and the skeleton stays small', async (t) => {
  const line = Buffer.from(`{"result":{"content":[{"type":"text","text":"${'é'.repeat(40_000)}\\"}"}],"isError":true},"id":5,"jsonrpc":"2.0"}\n`);
  const reader = new SkeletonReader();
  for (let i = 0; i < line.length; i++) reader.push(line.subarray(i, i + 1));
  const skeleton = reader.finish();
  t.equal(skeleton.kind, 'object');
  if (skeleton.kind !== 'object') return;
  t.ok(skeleton.bytes.length < 200, `skeleton of a ${line.length}-byte line is ${skeleton.bytes.length} bytes: ${skeleton.bytes.toString()}`);
  t.same(JSON.parse(skeleton.bytes.toString()), { result: { isError: true }, id: 5, jsonrpc: '2.0' });
});

t.test('arrays: a batch of objects, anything else is noise', async (t) => {
  const read = (text: string) => {
    const reader = new SkeletonReader();
    reader.push(Buffer.from(text));
    return reader.finish().kind;
  };
  t.equal(read(`[{"jsonrpc":"2.0","id":1,"result":"${BIG}"},{"jsonrpc":"2.0","id":2,"result":[1,{"a":"]"}]}]\n`), 'array');
  t.equal(read('[]\n'), 'other');
  t.equal(read('[1,{"a":1}]\n'), 'other');
  t.equal(read('[{"a":1}] x\n'), 'other');
  t.equal(read('[{"a":1}\n'), 'other');
  t.equal(read(`"${BIG}"\n`), 'other');
});

t.test('the Classifier classifies a streamed line from its pieces and observes it once', async (t) => {
  const correlator = new Correlator();
  const seen: Frame[] = [];
  const framer = new LineFramer({ direction: 'server-to-client', canStream: () => true });
  const classifier = new Classifier({ direction: 'server-to-client', correlator, onFrame: (f) => seen.push(f) });
  classify(newFrame(Buffer.from('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"big"}}\n'), 'client-to-server', 1, true), correlator);
  const out: Frame[] = [];
  framer.pipe(classifier).on('data', (batch: FrameBatch) => out.push(...batch));
  const line = Buffer.from(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"${'z'.repeat(3_000_000)}"}],"isError":true}}\n`);
  for (let at = 0; at < line.length; at += 65_536) framer.write(line.subarray(at, at + 65_536));
  framer.end();
  await new Promise((resolve) => classifier.on('end', resolve).resume());
  const lineFrame = out.find((f) => f.streamed) as Frame;
  t.ok(lineFrame, 'the line arrived in pieces');
  t.equal(lineFrame.type, 'response');
  t.equal(lineFrame.id, 9);
  t.equal(lineFrame.node?.nodeId, 'tool:big');
  t.equal(lineFrame.isError, true);
  t.equal(lineFrame.size, line.length);
  t.same(seen, [lineFrame], 'observers see the line once, not its pieces');
  t.equal(out.filter((f) => f.partOf === lineFrame).reduce((n, f) => n + f.raw.length, 0), line.length);
});
