// Round-trip latency: one small tools/call at a time, so each sample is the
// full request -> server -> reply path through whatever sits in between.
import { performance } from 'node:perf_hooks';

export const name = 'sequential';

function check(reply) {
  if (reply.result?.content?.[0]?.text !== 'hi') throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
}

/** Resolves { samples } — one latency in milliseconds per call. */
export async function run(target, { calls, warmup }) {
  // Warm-up calls let the JIT settle in every process before we time anything.
  for (let i = 0; i < warmup; i++) check(await target.call());
  const samples = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const reply = await target.call();
    samples[i] = performance.now() - t0;
    check(reply);
  }
  return { samples };
}
