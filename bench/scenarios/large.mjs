// Bulk throughput: sequential calls whose results are ~1 MiB of text, so the
// relay has to move (and, for C, frame and classify) megabyte lines.
import { performance } from 'node:perf_hooks';

export const name = 'large';
const SIZE = 1024 * 1024;

/** Resolves { mibPerSec }. */
export async function run(target, { count, warmup }) {
  let bytes = 0;
  const one = async () => {
    const reply = await target.call({ bytes: SIZE });
    if (!(reply.bytes > SIZE)) throw new Error(`short 1 MiB reply: ${reply.bytes} bytes`);
    return reply.bytes + 1; // + its newline
  };
  for (let i = 0; i < warmup; i++) await one();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) bytes += await one();
  return { mibPerSec: bytes / (1024 * 1024) / ((performance.now() - t0) / 1000) };
}
