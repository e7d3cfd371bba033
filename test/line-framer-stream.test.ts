import t from 'tap';
import type { Frame, FrameBatch } from '../src/streams/frame.js';
import { LineFramer, type LineFramerOptions } from '../src/streams/line-framer.js';

/** Feed chunks one at a time and note which frames each chunk released. */
async function run(chunks: Buffer[], options: Partial<LineFramerOptions>): Promise<{ perChunk: Frame[][]; all: Frame[]; degraded: number[] }> {
  const framer = new LineFramer({ direction: 'server-to-client', ...options });
  const degraded: number[] = [];
  framer.on('degraded', (info: { bytes: number }) => degraded.push(info.bytes));
  const all: Frame[] = [];
  let current: Frame[] = [];
  framer.on('data', (batch: FrameBatch) => {
    all.push(...batch);
    current.push(...batch);
  });
  const done = new Promise((resolve, reject) => framer.on('end', resolve).on('error', reject));
  const perChunk: Frame[][] = [];
  for (const chunk of chunks) {
    framer.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
    perChunk.push(current);
    current = [];
  }
  framer.end();
  await done;
  if (current.length > 0) perChunk.push(current);
  return { perChunk, all, degraded };
}

const written = (frames: Frame[]): Buffer => Buffer.concat(frames.filter((f) => !f.streamed).map((f) => f.raw));

t.test('a long line goes on in pieces while it arrives, then its whole frame follows', async (t) => {
  const line = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${'x'.repeat(300_000)}"}}\n`);
  const chunks = [line.subarray(0, 50_000), line.subarray(50_000, 100_000), line.subarray(100_000, 200_000), line.subarray(200_000)];
  const { perChunk, all } = await run(chunks, { canStream: () => true, streamLinesOver: 64 * 1024 });
  t.equal(perChunk[0]?.length, 0, 'under the threshold: still assembling');
  t.equal(perChunk[1]?.length, 2, 'past it: the first two chunks go on as pieces');
  t.ok(perChunk[1]?.every((f) => f.type === 'raw' && f.partOf !== undefined && !f.terminated), 'pieces are raw and point at their line');
  t.equal(perChunk[2]?.length, 1, 'the next chunk goes on at once');
  const last = perChunk[3] as Frame[];
  t.equal(last.length, 2, 'the last piece, then the line');
  const lineFrame = last[1] as Frame;
  t.equal(lineFrame.streamed, true);
  t.equal(lineFrame.terminated, true);
  t.equal(lineFrame.size, line.length);
  t.ok(lineFrame.raw.equals(line), 'a line under keepStreamedBytes keeps its bytes');
  t.ok(all.filter((f) => f.partOf !== undefined).every((f) => f.partOf === lineFrame), 'every piece belongs to the line');
  t.ok(written(all).equals(line), 'the pieces are the line, byte for byte');
});

t.test('a line past keepStreamedBytes keeps only its head and its size', async (t) => {
  const line = Buffer.from(`{"jsonrpc":"2.0","id":2,"result":"${'y'.repeat(200_000)}"}\r\n`);
  const chunks: Buffer[] = [];
  for (let at = 0; at < line.length; at += 65_536) chunks.push(line.subarray(at, at + 65_536));
  const { all } = await run([...chunks, Buffer.from('{"jsonrpc":"2.0","id":3,"result":1}\n')], {
    canStream: () => true,
    streamLinesOver: 1000,
    keepStreamedBytes: 100_000,
  });
  const lineFrame = all.find((f) => f.streamed) as Frame;
  t.equal(lineFrame.size, line.length);
  t.equal(lineFrame.raw.length, 4096);
  t.ok(lineFrame.raw.equals(line.subarray(0, 4096)), 'the head is the first bytes');
  t.ok(written(all).equals(Buffer.concat([line, Buffer.from('{"jsonrpc":"2.0","id":3,"result":1}\n')])), 'bytes exact, next line whole');
  const next = all[all.length - 1] as Frame;
  t.equal(next.streamed, false, 'the following short line is an ordinary frame');
  t.ok(next.seq > lineFrame.seq);
});

t.test('without canStream (or when it says no) a long line is assembled whole', async (t) => {
  const line = Buffer.from(`{"a":"${'z'.repeat(150_000)}"}\n`);
  const chunks = [line.subarray(0, 70_000), line.subarray(70_000, 140_000), line.subarray(140_000)];
  for (const options of [{}, { canStream: () => false }]) {
    const { perChunk, all } = await run(chunks, options);
    t.same(perChunk.map((c) => c.length), [0, 0, 1]);
    t.equal(all.length, 1);
    t.equal(all[0]?.streamed, false);
    t.ok(all[0]?.raw.equals(line));
  }
  // A gate that stops being able to hold mid-line (the debugger went away):
  // the line streams from the next chunk on.
  let asked = 0;
  const { perChunk } = await run(chunks, { canStream: () => asked++ >= 1 });
  t.same(perChunk.map((c) => c.length), [0, 2, 2], 'asked again at each chunk');
  t.equal(asked, 2);
});

t.test('a streamed line that outgrows maxFrameBytes degrades the stream', async (t) => {
  const line = Buffer.from(`{"a":"${'q'.repeat(300_000)}"}\n{"b":1}\n`);
  const chunks: Buffer[] = [];
  for (let at = 0; at < line.length; at += 65_536) chunks.push(line.subarray(at, at + 65_536));
  const { all, degraded } = await run(chunks, { canStream: () => true, maxFrameBytes: 200_000 });
  t.equal(degraded.length, 1);
  t.ok(degraded[0] as number > 200_000);
  t.notOk(all.some((f) => f.streamed), 'the line never completes as a frame');
  t.ok(written(all).equals(line), 'and every byte still goes through');
  t.ok(all.slice(-1)[0]?.type === 'raw', 'the rest is raw');
});

t.test('a stream that ends inside a streamed line still delivers its frame, unterminated', async (t) => {
  const line = Buffer.from(`{"a":"${'r'.repeat(100_000)}"`);
  const { all } = await run([line.subarray(0, 70_000), line.subarray(70_000)], { canStream: () => true });
  const lineFrame = all[all.length - 1] as Frame;
  t.equal(lineFrame.streamed, true);
  t.equal(lineFrame.terminated, false);
  t.equal(lineFrame.size, line.length);
  t.ok(written(all).equals(line));
});

t.test('through a relay: a gate that may hold gets long lines whole; one that cannot, gets them streamed', async (t) => {
  const { PassThrough } = await import('node:stream');
  const { createRelay } = await import('../src/streams/create-relay.js');
  const { prng, randomChunks } = await import('./helpers/random.js');
  const request = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}\n');
  const answer = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'b'.repeat(400_000)}"}]}}\n`);
  for (const mayHold of [true, false]) {
    const hostIn = new PassThrough();
    const hostOut = new PassThrough();
    const serverIn = new PassThrough();
    const serverOut = new PassThrough();
    const checked: Frame[] = [];
    let release: () => void = () => {};
    const relay = createRelay({
      client: { readable: hostIn, writable: hostOut, end: false },
      server: { readable: serverOut, writable: serverIn },
      gate: {
        mayHold: () => mayHold,
        check(frame) {
          checked.push(frame);
          if (frame.type !== 'response') return undefined;
          return new Promise((resolve) => {
            release = () => resolve([frame]);
          });
        },
      },
    });
    const out: Buffer[] = [];
    hostOut.on('data', (c: Buffer) => out.push(c));
    serverIn.resume();
    hostIn.write(request);
    for (const chunk of randomChunks(answer, prng(7), 65_536)) serverOut.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const soFar = Buffer.concat(out).length;
    if (mayHold) {
      t.equal(soFar, 0, 'held whole: not one byte of the answer went out');
      t.equal(checked.filter((f) => f.type === 'response').length, 1, 'the gate saw the whole answer');
      release();
      // Released: the whole answer goes out (each chunk that arrives is a chance to have it all).
      await new Promise<void>((resolve) => {
        const check = (): void => (Buffer.concat(out).length >= answer.length ? resolve() : void hostOut.once('data', check));
        check();
      });
    } else {
      t.equal(soFar, answer.length, 'streamed: every byte went out at once');
      t.equal(checked.filter((f) => f.type === 'response').length, 0, 'the gate was not asked about a line already gone');
    }
    t.ok(Buffer.concat(out).equals(answer), 'bytes exact');
    hostIn.end();
    serverOut.end();
    await Promise.all([relay.toServer.done, relay.toClient.done]);
  }
});
