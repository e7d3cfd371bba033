import { PassThrough } from 'node:stream';
import t from 'tap';
import { createRelay } from '../src/streams/create-relay.js';
import { messageOf, type Frame } from '../src/streams/frame.js';
import { prng, randomChunks, randomLine } from './helpers/random.js';

function collect(stream: PassThrough): () => Buffer {
  const parts: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => parts.push(chunk));
  return () => Buffer.concat(parts);
}

async function relayOnce(toServer: Buffer[], toClient: Buffer[]): Promise<{ atServer: Buffer; atClient: Buffer; frames: Frame[] }> {
  const hostIn = new PassThrough();
  const hostOut = new PassThrough();
  const serverIn = new PassThrough();
  const serverOut = new PassThrough();
  const atClient = collect(hostOut);
  const atServer = collect(serverIn);
  const frames: Frame[] = [];
  const relay = createRelay({
    client: { readable: hostIn, writable: hostOut },
    server: { readable: serverOut, writable: serverIn },
    onFrame: (frame) => frames.push(frame),
  });
  // Interleave the two directions chunk by chunk, yielding between writes so
  // that chunk boundaries really reach the framer one at a time.
  const longest = Math.max(toServer.length, toClient.length);
  for (let i = 0; i < longest; i++) {
    if (i < toServer.length) hostIn.write(toServer[i]);
    if (i < toClient.length) serverOut.write(toClient[i]);
    if (i % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  hostIn.end();
  serverOut.end();
  await Promise.all([relay.toServer.done, relay.toClient.done]);
  return { atServer: atServer(), atClient: atClient(), frames };
}

t.test('any re-chunking of random frames comes out byte for byte, both directions', async (t) => {
  const seed = Number(process.env.GRAPHMIND_SEED ?? Date.now() % 1_000_000);
  t.comment(`seed ${seed} (set GRAPHMIND_SEED to replay)`);
  const rand = prng(seed);
  for (let round = 0; round < 20; round++) {
    const lines = Array.from({ length: 40 }, (_, i) => randomLine(rand, round * 100 + i));
    const input = Buffer.concat(lines);
    // The last line may lack its newline: it still has to arrive.
    const data = round % 5 === 4 ? input.subarray(0, input.length - 1) : input;
    const up = randomChunks(data, rand, 1 + Math.floor(rand() * 300));
    const down = randomChunks(data, rand, 1 + Math.floor(rand() * 300));
    const { atServer, atClient } = await relayOnce(up, down);
    t.ok(atServer.equals(data), `round ${round}: client → server exact (${data.length} bytes in ${up.length} chunks)`);
    t.ok(atClient.equals(data), `round ${round}: server → client exact (${data.length} bytes in ${down.length} chunks)`);
  }
});

t.test('one byte at a time, both directions', async (t) => {
  const rand = prng(7);
  const data = Buffer.concat(Array.from({ length: 25 }, (_, i) => randomLine(rand, i)));
  const bytes = randomChunks(data, () => 0, 1);
  t.equal(bytes.length, data.length);
  const { atServer, atClient, frames } = await relayOnce(bytes, bytes);
  t.ok(atServer.equals(data), 'client → server exact');
  t.ok(atClient.equals(data), 'server → client exact');
  const lines = data.toString('latin1').split('\n').length - 1;
  t.equal(frames.length, 2 * lines, 'one frame per line per direction');
  for (const frame of frames) t.equal(frame.raw.at(-1), 0x0a, 'every frame ends with its newline');
});

t.test('frames keep the bytes a re-serialiser would change', async (t) => {
  const line = Buffer.from('{ "params":{"n":1.0,"e":1e3,"s":"\\u00e9 é"}, "id":7,"method":"x","jsonrpc":"2.0" }\r\n');
  const { atServer, frames } = await relayOnce([line], []);
  t.ok(atServer.equals(line));
  t.equal(frames[0]?.type, 'request');
  t.same(frames[0] && messageOf(frames[0])?.params, { n: 1, e: 1000, s: 'é é' }, 'the parsed copy is still useful');
  t.ok(frames[0]?.raw.equals(line), 'the frame holds the exact bytes, \\r included');
});
