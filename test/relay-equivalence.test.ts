// The two ways the stdio pipeline runs give the same bytes and the same
// frames. A user composes the exported Transforms with stream.pipeline; the
// proxy (through createRelay) calls the same stages' cores from one 'data'
// handler per direction, for speed. This property test feeds both the same
// random conversation, cut into random chunks, and compares what comes out
// of each direction and what each one observed, frame by frame.
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import { Classifier } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { createRelay } from '../src/streams/create-relay.js';
import type { Direction, Frame, FrameBatch } from '../src/streams/frame.js';
import { FrameWriter } from '../src/streams/frame-writer.js';
import { GateTransform, type FrameGate } from '../src/streams/gate-transform.js';
import { Lifter } from '../src/streams/lifter.js';
import { LineFramer } from '../src/streams/line-framer.js';
import { prng, randomChunks, randomLine } from './helpers/random.js';

/** What both runs must agree on about one observed frame. */
function seen(frame: Frame): string {
  const parts = [frame.direction, frame.type ?? '-', frame.method ?? '-', frame.id === undefined ? '-' : JSON.stringify(frame.id), frame.node?.nodeId ?? '-', frame.isError === true ? 'error' : '', frame.raw.toString('base64')];
  return parts.join(' ');
}

/** A gate that replaces every request whose text mentions "swap" with a ping of the same id, and lets the rest pass. */
function swappingGate(): FrameGate {
  return {
    check(frame: Frame) {
      if (frame.type !== 'request' || !frame.raw.includes('swap')) return undefined;
      const made = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(frame.id)},"method":"ping"}\n`);
      return Promise.resolve([{ ...frame, raw: made, size: made.length }]);
    },
  };
}

/** One random conversation: the host's lines, and the server's answers to its requests (plus noise of its own). */
function conversation(seed: number): { toServer: Buffer; toClient: Buffer } {
  const rand = prng(seed);
  const hostLines: Buffer[] = [];
  const serverLines: Buffer[] = [];
  for (let id = 1; id <= 60; id++) {
    const line = rand() < 0.1 ? Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"swap","arguments":{}}}\n`) : randomLine(rand, id);
    hostLines.push(line);
    const roll = rand();
    if (roll < 0.6) serverLines.push(Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"answer ${id}"}]}}\n`));
    else if (roll < 0.75) serverLines.push(Buffer.from(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32602,"message":"bad ${id}"}}\r\n`));
    else if (roll < 0.85) serverLines.push(Buffer.from(`server log line ${id}\n`));
    else if (roll < 0.9) serverLines.push(Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"text":"${'x'.repeat(70_000)}"}}\n`));
  }
  // A last line without its terminator on both sides.
  hostLines.push(Buffer.from('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}'));
  serverLines.push(Buffer.from('tail without newline'));
  return { toServer: Buffer.concat(hostLines), toClient: Buffer.concat(serverLines) };
}

function collect(stream: PassThrough): () => Buffer {
  const parts: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => parts.push(chunk));
  return () => Buffer.concat(parts);
}

async function feed(source: PassThrough, data: Buffer, seed: number): Promise<void> {
  for (const chunk of randomChunks(data, prng(seed), 4096)) {
    if (!source.write(chunk)) await new Promise((resolve) => source.once('drain', resolve));
  }
  source.end();
}

/** The exported stages piped by hand, one pipeline per direction, one correlator between them. */
async function piped(input: { toServer: Buffer; toClient: Buffer }, seed: number, gate: FrameGate | undefined) {
  const correlator = new Correlator();
  const observed: string[] = [];
  const direction = (name: Direction, data: Buffer) => {
    const source = new PassThrough();
    const destination = new PassThrough();
    const received = collect(destination);
    const observer = new Transform({
      objectMode: true,
      transform(batch: FrameBatch, _encoding, callback) {
        for (const frame of batch) observed.push(seen(frame));
        callback(null, batch);
      },
    });
    const done = pipeline(source, new LineFramer({ direction: name }), new Classifier({ direction: name, correlator }), observer, new GateTransform({ gate }), new Lifter(), new FrameWriter({ destination }));
    return { source, received, done, data };
  };
  // The host speaks first and every request is classified before its answer comes, as on a real wire.
  const up = direction('client-to-server', input.toServer);
  await feed(up.source, up.data, seed);
  await up.done;
  const down = direction('server-to-client', input.toClient);
  await feed(down.source, down.data, seed + 1);
  await down.done;
  return { toServer: up.received(), toClient: down.received(), observed };
}

/** The same stages driven by createRelay, as the proxy drives them. */
async function direct(input: { toServer: Buffer; toClient: Buffer }, seed: number, gate: FrameGate | undefined) {
  const observed: string[] = [];
  const hostIn = new PassThrough();
  const hostOut = new PassThrough();
  const serverIn = new PassThrough();
  const serverOut = new PassThrough();
  const toClient = collect(hostOut);
  const toServer = collect(serverIn);
  const relay = createRelay({
    client: { readable: hostIn, writable: hostOut },
    server: { readable: serverOut, writable: serverIn },
    gate,
    onFrame: (frame) => observed.push(seen(frame)),
  });
  await feed(hostIn, input.toServer, seed);
  await relay.toServer.done;
  await feed(serverOut, input.toClient, seed + 1);
  await relay.toClient.done;
  return { toServer: toServer(), toClient: toClient(), observed };
}

for (const [name, makeGate] of [
  ['no gate', () => undefined],
  ['a gate that replaces some requests', swappingGate],
] as const) {
  t.test(`piped Transforms and createRelay agree, ${name}`, async (t) => {
    for (let seed = 1; seed <= 12; seed++) {
      const input = conversation(seed);
      const a = await piped(input, seed * 7, makeGate());
      const b = await direct(input, seed * 7, makeGate());
      t.ok(a.toServer.equals(b.toServer), `seed ${seed}: the same bytes reach the server`);
      t.ok(a.toClient.equals(b.toClient), `seed ${seed}: the same bytes reach the host`);
      t.same(b.observed, a.observed, `seed ${seed}: the same frames observed, in the same order`);
      t.ok(a.observed.length > 60, `seed ${seed}: both directions observed (${a.observed.length} frames)`);
      const swaps = input.toServer.includes('"name":"swap"');
      if (makeGate() === undefined || !swaps) {
        t.ok(a.toServer.equals(input.toServer) && a.toClient.equals(input.toClient), `seed ${seed}: byte for byte what came in`);
      } else {
        t.notOk(a.toServer.equals(input.toServer), `seed ${seed}: the gate's replacements went out in both`);
      }
    }
  });
}
