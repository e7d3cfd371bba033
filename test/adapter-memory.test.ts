// Memory over a long life: 100,000 wrapped tool calls over the in-memory
// transport, with the debugger attached (no breakpoints), leave the server
// process's heap after GC within 10 MiB of where it was after a warm-up.
// Each SDK generation runs in its own `node --expose-gc` child
// (test/fixtures/adapter/memory-child.mjs), against this file's own
// `graphmind serve`; the figures are in the test's comments.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { adapterEnv, breakpoints, ingestUrl, setBreakpoints, startDebugger } from './helpers/adapter.js';

const CHILD = fileURLToPath(new URL('./fixtures/adapter/memory-child.mjs', import.meta.url));
const CALLS = 100_000;
const LIMIT = 10 * 1024 * 1024;

t.setTimeout(400_000);
const serve = await startDebugger(t);
await setBreakpoints(serve, breakpoints({}, true));

interface Figures {
  sdk: string;
  calls: number;
  heapBefore: number;
  heapAfter: number;
  grewBy: number;
  ms: number;
  attached: boolean;
  stats: { calls: number; runs: number; holds: number };
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

for (const sdk of ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server']) {
  t.test(`${sdk}: ${CALLS.toLocaleString('en')} calls attached`, async (t) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, sdk, String(CALLS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: adapterEnv(serve, { GRAPHMIND_URL: ingestUrl(serve) }),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const [code] = (await once(child, 'close')) as [number | null];
    t.equal(code, 0, `the child ran to the end${err === '' ? '' : `: ${err}`}`);
    const figures = JSON.parse(out.trim()) as Figures;
    t.comment(
      `${sdk}: heap after GC ${mib(figures.heapBefore)} after warm-up, ${mib(figures.heapAfter)} after ${figures.calls.toLocaleString('en')} calls (${figures.grewBy >= 0 ? '+' : ''}${mib(figures.grewBy)}), ${figures.ms} ms`,
    );
    t.equal(figures.attached, true, 'the adapter stayed attached');
    t.ok(figures.stats.calls >= CALLS, 'every call was gated');
    t.equal(figures.stats.holds, 0, 'nothing held');
    t.ok(figures.grewBy < LIMIT, `the heap grew by ${mib(figures.grewBy)}, under 10 MiB`);
  });
}
