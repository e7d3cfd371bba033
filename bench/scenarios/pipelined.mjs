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

/**
 * Resolves one { callsPerSec, burstMs, warmupBurstMs } per target, over
 * `bursts` bursts of `window` calls each.
 *
 * Warm-up: at least `warmup` bursts each, and bursts for at least
 * `warmupMs`, alternating as the measured ones do. A fresh Node relay keeps
 * getting faster for its first 20-40 bursts of 2,000 calls (V8 tiering up
 * the per-chunk code, which runs only a few times per burst), while the byte
 * relay has almost no code to warm up: timed after two bursts, the ratio
 * measured mostly how far the warm-up had got (see bench/README.md, session
 * 15). The warm-up bursts' times are returned too, so the fresh-process
 * figure stays visible.
 */
export async function run(targets, { window, bursts, warmup, warmupMs = 0 }) {
  const warmupBurstMs = targets.map(() => []);
  const start = performance.now();
  for (let i = 0; i < warmup || performance.now() - start < warmupMs; i++) {
    for (let j = 0; j < targets.length; j++) {
      const k = (i + j) % targets.length;
      const t0 = performance.now();
      await burst(targets[k], window);
      warmupBurstMs[k].push(performance.now() - t0);
    }
  }
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
  // burstMs: each measured burst's time, in order; warmupBurstMs: each warm-up burst's.
  return busy.map((ms, k) => ({ callsPerSec: (bursts * window) / (ms / 1000), burstMs: times[k], warmupBurstMs: warmupBurstMs[k] }));
}
