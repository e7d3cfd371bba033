// The proxy asks V8 for a young-generation collection every so many bytes
// relayed, so that read buffers it has written on do not pile up. What is
// checked: the collections happen (forced scavenges, as V8 reports them),
// at the rate asked for, only when asked, and `gc` stays hidden.
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { MemoryRelease } from '../src/proxy/memory-release.js';
import { runProxy } from '../src/proxy/run-proxy.js';
import { PROXY_FIXTURES } from './helpers/cli.js';
import { collectingSink, initialize, toolsCall } from './helpers/wire.js';

/** Count the forced young-generation collections while `work` runs. */
async function forcedScavenges(work: () => Promise<void> | void): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as { detail?: { kind?: number; flags?: number } }).detail;
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR && ((detail.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0) count++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    await work();
    // Entries are delivered asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
  }
  return count;
}

t.test('one scavenge per `every` bytes counted, none before', async (t) => {
  const release = new MemoryRelease(1000);
  t.equal(await forcedScavenges(() => release.relayed(999)), 0, 'below the threshold: nothing');
  t.equal(await forcedScavenges(() => release.relayed(1)), 1, 'at the threshold: one');
  t.equal(
    await forcedScavenges(() => {
      for (let i = 0; i < 10; i++) release.relayed(600);
    }),
    5,
    'the count starts again after each one',
  );
});

t.test('gc is not left exposed', async (t) => {
  new MemoryRelease(1);
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'not on this context');
  t.equal(runInNewContext('typeof gc'), 'undefined', 'not on contexts created afterwards');
});

/** Relay `calls` answers of 1 MiB through runProxy; resolves once all have arrived. */
async function relayMegabytes(calls: number, releaseMemoryEvery: number): Promise<number> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let answers = 0;
  let bytes = 0;
  const allIn = new Promise<void>((resolve) => {
    stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 0x0a && ++answers === calls + 1) resolve();
    });
  });
  const session = runProxy({
    command: process.execPath,
    args: [join(PROXY_FIXTURES, 'huge-frame-server.mjs')],
    stdin,
    stdout,
    stderr: collectingSink(),
    handleSignals: false,
    report: false,
    releaseMemoryEvery,
  });
  stdin.write(initialize(1));
  for (let id = 2; id <= calls + 1; id++) stdin.write(toolsCall(id, 'big', { bytes: 1024 * 1024 }));
  await allIn;
  stdin.end();
  await session;
  return bytes;
}

t.test('runProxy scavenges as it relays, and not at all with 0', async (t) => {
  let relayed = 0;
  const on = await forcedScavenges(async () => {
    relayed = await relayMegabytes(8, 1024 * 1024);
  });
  t.ok(relayed > 8 * 1024 * 1024, 'eight answers of 1 MiB came through');
  t.ok(on >= 8, `at least one scavenge per MiB relayed (${on})`);
  t.equal(await forcedScavenges(() => relayMegabytes(2, 0).then(() => {})), 0, 'releaseMemoryEvery: 0 forces none');
});
