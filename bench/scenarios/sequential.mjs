// Round-trip latency: one small tools/call at a time, so each sample is the
// full request -> server -> reply path through whatever sits in between.
import { performance } from 'node:perf_hooks';

export const name = 'sequential';

function check(reply) {
  if (reply.result?.content?.[0]?.text !== 'hi') throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
}

/** Resolves { samples } — one latency in milliseconds per call. */
export async function run(target, { calls, warmup, warmupMs = 0 }) {
  // Warm-up calls let every process settle before we time anything: at
  // least `warmup` calls, and for at least `warmupMs`. A fresh proxy's JIT
  // compiles its hot paths on V8's worker threads for most of a second, and
  // while it does the two CPUs are shared out anew; timing from the 300th
  // call caught C in the slow CPU placement in 3 of 8 rounds, from 1.5 s
  // in none (see bench/README.md, session 14).
  const start = performance.now();
  for (let i = 0; i < warmup || performance.now() - start < warmupMs; i++) check(await target.call());
  const samples = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const reply = await target.call();
    samples[i] = performance.now() - t0;
    check(reply);
  }
  return { samples };
}
