import { Readable } from 'node:stream';
import t from 'tap';
import type { Frame, FrameBatch } from '../src/streams/frame.js';
import { LineFramer } from '../src/streams/line-framer.js';

async function frame(chunks: Array<string | Buffer>, maxFrameBytes?: number): Promise<{ frames: Frame[]; degraded: number[] }> {
  const framer = new LineFramer({ direction: 'server-to-client', maxFrameBytes });
  const degraded: number[] = [];
  framer.on('degraded', (info: { bytes: number }) => degraded.push(info.bytes));
  const frames: Frame[] = [];
  framer.on('data', (batch: FrameBatch) => frames.push(...batch));
  const done = new Promise((resolve, reject) => framer.on('end', resolve).on('error', reject));
  for (const chunk of chunks) framer.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  framer.end();
  await done;
  return { frames, degraded };
}

const text = (frames: Frame[]) => frames.map((f) => f.raw.toString('utf8'));

t.test('chunk boundaries', async (t) => {
  const table: Array<[string, Array<string | Buffer>, string[]]> = [
    ['one line, one chunk', ['{"a":1}\n'], ['{"a":1}\n']],
    ['two lines, one chunk', ['a\nb\n'], ['a\n', 'b\n']],
    ['split mid-line', ['{"a"', ':1}\n'], ['{"a":1}\n']],
    ['split right before newline', ['abc', '\n'], ['abc\n']],
    ['split right after newline', ['abc\n', 'def\n'], ['abc\n', 'def\n']],
    ['line over three chunks', ['a', 'b', 'c\nd\n'], ['abc\n', 'd\n']],
    ['crlf kept', ['a\r\nb\r', '\n'], ['a\r\n', 'b\r\n']],
    ['empty lines are frames', ['\n\n'], ['\n', '\n']],
    ['unterminated tail flushed', ['a\nb'], ['a\n', 'b']],
    ['stray cr mid-line kept', ['a\rb\n'], ['a\rb\n']],
  ];
  for (const [name, chunks, expected] of table) {
    const { frames } = await frame(chunks);
    t.same(text(frames), expected, name);
    t.same(frames.map((f) => f.terminated), expected.map((e) => e.endsWith('\n')), `${name}: terminated flags`);
  }
});

t.test('UTF-8 split byte by byte keeps the exact bytes', async (t) => {
  const line = Buffer.from('{"t":"é😀ü"}\n');
  const chunks = [...line].map((b) => Buffer.from([b]));
  const { frames } = await frame(chunks);
  t.equal(frames.length, 1);
  t.ok(frames[0]?.raw.equals(line));
});

t.test('invalid UTF-8 is kept as is', async (t) => {
  const line = Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]);
  const { frames } = await frame([line.subarray(0, 2), line.subarray(2)]);
  t.ok(frames[0]?.raw.equals(line));
});

t.test('a line in a single chunk is a view, not a copy', async (t) => {
  const chunk = Buffer.from('a\nb\n');
  const { frames } = await frame([chunk]);
  t.equal(frames[0]?.raw.buffer, chunk.buffer, 'shares memory with the chunk');
  t.same(frames.map((f) => f.seq), [1, 2], 'frames are numbered in order');
});

t.test('a line longer than maxFrameBytes degrades the stream to raw chunks', async (t) => {
  const big = 'x'.repeat(50);
  const chunks = ['ok\n', big.slice(0, 20), big.slice(20), '\nafter\n', 'more\n'];
  const { frames, degraded } = await frame(chunks, 32);
  t.same(degraded.length, 1, 'degraded once');
  t.equal(Buffer.concat(frames.map((f) => f.raw)).toString(), chunks.join(''), 'every byte still flows, in order');
  t.equal(frames[0]?.type, undefined, 'frames before the overflow are normal');
  t.ok(frames.slice(1).every((f) => f.type === 'raw'), 'everything after is raw');
});

t.test('a complete line bigger than the ceiling inside one chunk also degrades', async (t) => {
  const input = `${'y'.repeat(40)}\nz\n`;
  const { frames, degraded } = await frame([input], 16);
  t.equal(degraded.length, 1);
  t.equal(Buffer.concat(frames.map((f) => f.raw)).toString(), input);
});

t.test('backpressure: the framer stops pulling when nobody reads', async (t) => {
  const lines = Array.from({ length: 50_000 }, (_, i) => `{"i":${i}}\n`).join('');
  let pulled = 0;
  const source = new Readable({
    read() {
      if (pulled >= lines.length) return this.push(null);
      this.push(lines.slice(pulled, pulled + 100));
      pulled += 100;
    },
  });
  const framer = new LineFramer({ direction: 'client-to-server' });
  source.pipe(framer);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const early = pulled;
  await new Promise((resolve) => setTimeout(resolve, 50));
  // Bounded by what the framer takes before it pushes back (256 KiB, so that
  // a whole 64 KiB pipe read never pauses its source), its 16 batches, and
  // the source's own buffer: nowhere near the 588,890 bytes on offer.
  t.ok(pulled < 320 * 1024, `pulled only ${pulled} of ${lines.length} bytes with no reader`);
  t.equal(pulled, early, 'and stopped there');
  let count = 0;
  framer.on('data', (batch: FrameBatch) => (count += batch.length));
  await new Promise((resolve) => framer.on('end', resolve));
  t.equal(count, 50_000, 'everything arrives once read');
});
