// Throughput with many requests in flight: write `window` small calls in one
// go, wait until every answer is in, and repeat. Whole bursts (rather than a
// sliding window topped up as answers trickle in) keep the batching the same
// for every config, so the figure is not shaped by feedback in the driver.
//
// The configurations run side by side: all are started, and their bursts
// alternate (B C D A, then C D A B, …), each burst timed on its own. A
// machine whose speed drifts over seconds (a busy neighbour, the CPU's
// clock) then slows every configuration alike, instead of whichever one
// happened to run during the slow spell; the ratios are what is compared.
import { performance } from 'node:perf_hooks';
import { callFrame } from '../driver.mjs';

export const name = 'pipelined';
/** This scenario takes every target at once (see above). */
export const sideBySide = true;

async function burst(target, size) {
  const replies = [];
  let frames = '';
  for (let i = 0; i < size; i++) {
    const id = target.nextId();
    replies.push(target.expect(id));
    frames += callFrame(id);
  }
  target.write(frames);
  for (const reply of await Promise.all(replies)) {
    if (reply.result?.content?.[0]?.text !== 'hi') throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
  }
}

/** Resolves one { callsPerSec, burstMs } per target, over `bursts` bursts of `window` calls each. */
export async function run(targets, { window, bursts, warmup }) {
  for (const target of targets) for (let i = 0; i < warmup; i++) await burst(target, window);
  const busy = targets.map(() => 0);
  const times = targets.map(() => []);
  for (let i = 0; i < bursts; i++) {
    // A different one goes first each time: none always follows the same other.
    for (let j = 0; j < targets.length; j++) {
      const k = (i + j) % targets.length;
      const t0 = performance.now();
      await burst(targets[k], window);
      const ms = performance.now() - t0;
      busy[k] += ms;
      times[k].push(ms);
    }
  }
  // burstMs: each measured burst's time, in order (run.mjs reports the later ones on their own too).
  return busy.map((ms, k) => ({ callsPerSec: (bursts * window) / (ms / 1000), burstMs: times[k] }));
}
