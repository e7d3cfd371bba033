// graphmind replay of a 10,000-call run, side by side with the bench's own echo server on the
// same driver (bench/driver.mjs): how soon the replay answers its first call after it is
// started (the run read and indexed), how many pipelined calls per second it answers against
// the echo server (A), and its peak RSS. Run alone with BENCH_ONLY=replay (npm run build first).
//
// The bounds: ready within 500 ms, >= 0.8x the echo server's calls/s, RSS <= 150 MiB.
// A replay on stdio answers while it still reads its run (a request whose call is not read yet
// waits for it), so "ready" is how soon it answers at all, and the pipelined figure is taken
// once it has read the run whole (its last recorded call answered), as a long test would see it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIGS, median, startTarget } from './driver.mjs';

// BENCH_GRAPHMIND: another build's dist/cli/graphmind.js, to compare two builds on the same bench.
const GRAPHMIND = process.env.BENCH_GRAPHMIND ?? fileURLToPath(new URL('../dist/cli/graphmind.js', import.meta.url));
const CALLS = 10_000;
const ROUNDS = 5;

/**
 * A run log of `calls` echo calls (`m0` … `m<calls>`) as graphmind mcp-proxy records them (started,
 * then finished), after an `initialize` answered with `initialized`, and with a last call `read whole`
 * when `last` is set.
 */
export function writeRun(file, { calls = CALLS, initialized = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1' } }, last = true } = {}) {
  const runId = 'run_bench_replay';
  let seq = 0;
  const t = Date.now();
  const line = (event) => JSON.stringify({ ...event, runId, seq: ++seq, t: t + seq });
  const lines = [line({ type: 'run.started', name: 'node echo-server.mjs', source: 'mcp-proxy', meta: {} })];
  const init = { nodeId: 'mcp:initialize', kind: 'custom', parent: 'mcp:protocol', label: 'initialize' };
  lines.push(line({ type: 'instance.started', instanceId: 'mcp_1', node: init, input: INITIALIZE_PARAMS }));
  lines.push(line({ type: 'instance.finished', instanceId: 'mcp_1', output: initialized }));
  const node = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' };
  for (let i = 0; i <= calls; i++) {
    const text = `m${i}`;
    lines.push(line({ type: 'instance.started', instanceId: `mcp_${i + 2}`, node, input: { name: 'echo', arguments: { text } } }));
    lines.push(line({ type: 'instance.finished', instanceId: `mcp_${i + 2}`, output: { content: [{ type: 'text', text }] } }));
  }
  if (last) {
    // The last call: once it is answered, the replay has read the whole run.
    lines.push(line({ type: 'instance.started', instanceId: 'mcp_last', node, input: { name: 'echo', arguments: { text: 'read whole' } } }));
    lines.push(line({ type: 'instance.finished', instanceId: 'mcp_last', output: { content: [{ type: 'text', text: 'read whole' }] } }));
  }
  lines.push(line({ type: 'run.finished', status: 'ok' }));
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** The recorded `initialize` params of {@link writeRun}'s run. */
export const INITIALIZE_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };

/** Once both answer (the replay has read its whole run), all CALLS calls written at once (in chunks of 1,000 frames); calls per second. */
async function pipelined(key) {
  const target = startTarget(key);
  await target.call({ text: 'm0' });
  await target.call({ text: 'read whole' });
  const replies = [];
  const started = performance.now();
  for (let i = 1; i <= CALLS; i += 1000) {
    let frames = '';
    for (let k = i; k < i + 1000 && k <= CALLS; k++) {
      const id = target.nextId();
      replies.push(target.expect(id));
      frames += `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"m${k}"}}}\n`;
    }
    target.write(frames);
  }
  await Promise.all(replies);
  const ms = performance.now() - started;
  const { peakRss } = await target.close();
  return { perSecond: (CALLS / ms) * 1000, peakRss };
}

/** From spawn to the first answer, ms. */
async function ready() {
  const started = performance.now();
  const target = startTarget('R');
  await target.call({ text: 'm1' });
  const ms = performance.now() - started;
  await target.close();
  return ms;
}

/** Measure and print (stderr, like the rest of the bench); returns the figures. */
export async function measureReplay(log = (text) => process.stderr.write(`${text}\n`)) {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-bench-replay-'));
  const file = join(dir, 'run.jsonl');
  writeRun(file);
  CONFIGS.R = { label: 'R graphmind replay', argv: [process.execPath, GRAPHMIND, 'replay', file], relay: true };
  try {
    const readyMs = [];
    const echo = [];
    const replay = [];
    let rss = 0;
    for (let round = 0; round < ROUNDS; round++) {
      readyMs.push(await ready());
      echo.push((await pipelined('A')).perSecond);
      const r = await pipelined('R');
      replay.push(r.perSecond);
      rss = Math.max(rss, r.peakRss);
    }
    const figures = { readyMs: median(readyMs), echoPerSecond: median(echo), replayPerSecond: median(replay), ratio: median(replay) / median(echo), rssMiB: rss / 1024 / 1024 };
    log(`replay of a ${CALLS}-call run (median of ${ROUNDS}):`);
    log(`  ready (spawn to first answer): ${figures.readyMs.toFixed(0)} ms (bound 500)`);
    log(`  pipelined: echo server ${figures.echoPerSecond.toFixed(0)} calls/s, replay ${figures.replayPerSecond.toFixed(0)} calls/s: ${figures.ratio.toFixed(2)}x (bound 0.8x)`);
    log(`  replay peak RSS: ${figures.rssMiB.toFixed(1)} MiB (bound 150)`);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await measureReplay();
