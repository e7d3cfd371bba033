import { PassThrough, Writable } from 'node:stream';
import t from 'tap';
import { newFrame, type Frame, type FrameBatch } from '../src/streams/frame.js';
import { FrameWriter } from '../src/streams/frame-writer.js';
import { GateTransform, type FrameGate } from '../src/streams/gate-transform.js';

let seq = 0;
const frame = (text: string): Frame => newFrame(Buffer.from(`${text}\n`), 'client-to-server', ++seq, true);

t.test('a held frame stops everything behind it, in order', async (t) => {
  let release: (frames: readonly Frame[]) => void = () => {};
  const gate: FrameGate = {
    check: (f) => (f.raw.toString() === 'hold\n' ? new Promise((resolve) => (release = resolve)) : undefined),
  };
  const stage = new GateTransform({ gate });
  const out: string[] = [];
  stage.on('data', (batch: FrameBatch) => out.push(...batch.map((f) => f.raw.toString().trim())));
  stage.write([frame('a'), frame('hold'), frame('b')]);
  stage.write([frame('c')]);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(out, ['a'], 'nothing passes the held frame');
  release([frame('replaced')]);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(out, ['a', 'replaced', 'b', 'c'], 'the decision takes its place, then the rest follows');
});

t.test('a gate that throws or rejects lets the frame through', async (t) => {
  const throwing = new GateTransform({ gate: { check: () => { throw new Error('boom'); } } });
  const rejecting = new GateTransform({ gate: { check: () => Promise.reject(new Error('boom')) } });
  for (const stage of [throwing, rejecting]) {
    const out: string[] = [];
    stage.on('data', (batch: FrameBatch) => out.push(...batch.map((f) => f.raw.toString())));
    stage.write([frame('x')]);
    await new Promise((resolve) => setImmediate(resolve));
    t.same(out, ['x\n']);
  }
});

t.test('the separate frames of one batch reach the destination in one vectored write', async (t) => {
  const writes: number[] = [];
  const dest = new Writable({
    write(chunk: Buffer, _e, cb) { writes.push(1); cb(); },
    writev(chunks, cb) { writes.push(chunks.length); cb(); },
  });
  const writer = new FrameWriter({ destination: dest });
  const batch: Frame[] = [];
  for (let i = 0; i < 50; i++) batch.push(frame(`f${i}`));
  writer.write(batch);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(writes, [50], 'one writev carrying all 50 frames');
  // A batch of one frame is one plain write, with nothing corked.
  writes.length = 0;
  writer.write([frame('single')]);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(writes, [1]);
});

t.test('a full destination pushes back on the writer', async (t) => {
  const dest = new PassThrough({ highWaterMark: 64 });
  const writer = new FrameWriter({ destination: dest, highWaterMark: 2 });
  let accepted = 0;
  for (let i = 0; i < 100; i++) if (writer.write([frame('x'.repeat(40))])) accepted++;
  await new Promise((resolve) => setImmediate(resolve));
  t.ok(writer.writableLength > 50, `frames wait in the writer (${writer.writableLength}) instead of piling up in the destination`);
  t.ok(dest.writableLength < 1024, `destination holds ${dest.writableLength} bytes`);
  const got: Buffer[] = [];
  dest.on('data', (c: Buffer) => got.push(c));
  writer.end();
  await new Promise((resolve) => dest.on('end', resolve));
  t.equal(Buffer.concat(got).length, 100 * 41, 'all bytes arrive once read');
  t.ok(accepted < 100, 'write() reported backpressure');
});

t.test('neighbouring lines of one chunk are written as one view of it', async (t) => {
  const chunk = Buffer.from('a\nb\nc\n');
  const writes: Buffer[] = [];
  const dest = new Writable({
    write(c: Buffer, _e, cb) { writes.push(c); cb(); },
    writev(cs, cb) { for (const c of cs) writes.push(c.chunk as Buffer); cb(); },
  });
  const writer = new FrameWriter({ destination: dest });
  const at = (start: number, end: number): Frame => newFrame(chunk.subarray(start, end), 'server-to-client', ++seq, true);
  writer.write([at(0, 2), at(2, 4), at(4, 6)]);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(writes.length, 1);
  t.equal(writes[0]?.toString(), 'a\nb\nc\n');
  t.equal(writes[0]?.buffer, chunk.buffer, 'no copy');
});

t.test('end: false leaves the destination open', async (t) => {
  const dest = new PassThrough();
  const writer = new FrameWriter({ destination: dest, end: false });
  writer.end([frame('a')]);
  await new Promise((resolve) => writer.on('finish', resolve));
  t.equal(dest.writableEnded, false);
  const owned = new PassThrough();
  const writer2 = new FrameWriter({ destination: owned });
  writer2.end([frame('a')]);
  await new Promise((resolve) => writer2.on('finish', resolve));
  t.equal(owned.writableEnded, true);
});

t.test('bytes of our own (writeBytes) never land inside a line in progress', async (t) => {
  const dest = new PassThrough();
  const chunks: Buffer[] = [];
  dest.on('data', (chunk: Buffer) => chunks.push(chunk));
  const writer = new FrameWriter({ destination: dest });
  const piece = (text: string): Frame => newFrame(Buffer.from(text), 'server-to-client', ++seq, false);
  const out = (): string => Buffer.concat(chunks).toString();

  writer.writeBytes(Buffer.from('{"ours":0}\n'));
  writer.writeBatch([piece('{"long":"ab')]);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(out(), '{"ours":0}\n{"long":"ab', 'between lines, ours go at once');
  writer.writeBytes(Buffer.from('{"ours":1}\n'));
  writer.writeBytes(Buffer.from('{"ours":2}\n'));
  writer.writeBatch([piece('cd')]);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(out(), '{"ours":0}\n{"long":"ab' + 'cd', 'inside a line, ours wait');
  writer.writeBatch([piece('ef"}\n{"next":'), piece('1}\n')]);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(out(), '{"ours":0}\n{"long":"abcdef"}\n{"ours":1}\n{"ours":2}\n{"next":1}\n', 'they go right after the line ends, in order, and the rest follows');
  writer.writeBatch([piece('{"cut":')]);
  writer.writeBytes(Buffer.from('{"ours":3}\n'));
  writer.end();
  await new Promise((resolve) => dest.once('end', resolve).resume());
  t.ok(out().endsWith('{"cut":{"ours":3}\n'), 'a line never finished: what waited still goes out at the end');
});
