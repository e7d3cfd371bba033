// Throughput with many requests in flight: write `window` small calls in one
// go, wait until every answer is in, and repeat. Whole bursts (rather than a
// sliding window topped up as answers trickle in) keep the batching the same
// for every config, so the figure is not shaped by feedback in the driver.
import { performance } from 'node:perf_hooks';
import { callFrame } from '../driver.mjs';

export const name = 'pipelined';

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

/** Resolves { callsPerSec } over `bursts` bursts of `window` calls. */
export async function run(target, { window, bursts, warmup }) {
  for (let i = 0; i < warmup; i++) await burst(target, window);
  const t0 = performance.now();
  for (let i = 0; i < bursts; i++) await burst(target, window);
  return { callsPerSec: (bursts * window) / ((performance.now() - t0) / 1000) };
}
