// Memory bound: a couple of responses just under the proxy's default
// --max-frame-bytes (64 MiB), so C frames and classifies them instead of
// degrading to a raw pipe. The figure that matters is the relay's VmHWM,
// compared with the size of one frame.
import { performance } from 'node:perf_hooks';

export const name = 'huge-rss';
export const SIZE = 60 * 1024 * 1024;

/** Resolves { frameBytes, seconds } (peak RSS is sampled by the caller at close). */
export async function run(target, { count }) {
  await target.call(); // make sure the path is up before the big one
  let frameBytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const reply = await target.call({ bytes: SIZE });
    if (!(reply.bytes > SIZE)) throw new Error(`short 60 MiB reply: ${reply.bytes} bytes`);
    frameBytes = reply.bytes + 1;
  }
  return { frameBytes, seconds: (performance.now() - t0) / 1000 };
}
