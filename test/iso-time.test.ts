// isoTime is Date's toISOString with a memory of recent times: whatever the
// order times come in (a call's start and end alternating, bursts in one
// millisecond, seconds and milliseconds crossing, times before 1970,
// fractions), it must give exactly what Date gives.
import t from 'tap';
import { isoTime } from '../src/protocol/run-replay.js';
import { prng } from './helpers/random.js';

const iso = (time: number): string => new Date(time).toISOString();

t.test('the same text as Date, in any order', async (t) => {
  const random = prng(15);
  const base = Date.UTC(2026, 11, 1, 23, 59, 59, 990);
  const times: number[] = [];
  // Starts and ends of calls alternating, across a second and a day boundary.
  for (let i = 0; i < 400; i++) times.push(base + (i >> 4), base + (i >> 4) + 1 + Math.floor(random() * 3));
  // Anywhere in Date's range, before 1970 included, with fractions.
  for (let i = 0; i < 2000; i++) times.push((random() * 2 - 1) * 8.64e15);
  for (let i = 0; i < 200; i++) times.push(base + random() * 40, -1 - random() * 5000);
  // The same slot (a multiple of 16 ms apart), back and forth.
  for (let i = 0; i < 100; i++) times.push(base, base + 16, base + 32 * (i % 3));
  let wrong = 0;
  for (const time of times) if (isoTime(time) !== iso(time)) wrong++;
  t.equal(wrong, 0, `${times.length} times, each as Date writes it`);
});

t.test('a time it remembers is the same string', async (t) => {
  const a = Date.UTC(2030, 0, 1, 0, 0, 0, 5);
  const first = isoTime(a);
  isoTime(a + 1);
  t.equal(isoTime(a), first);
  t.equal(first, '2030-01-01T00:00:00.005Z');
});
