// graphmind verify against the time the same calls take through graphmind mcp-proxy alone (issue 31:
// verify adds <= 10%). One recorded run of CALLS echo calls (bench/replay.mjs's run, its initialize
// answered as the bench's echo server answers it, so every call comes out the same), and two ways to
// send its calls to the same echo server (bench/echo-server.mjs):
//
//   V  graphmind verify <run> -- node echo-server.mjs: verify starts the server, plays the recorded
//      initialize and calls one after another (each answer awaited, as verify plays them), compares
//      every answer and prints its report (exit 0: all the same, checked);
//   P  the bench's driver (bench/driver.mjs) spawns graphmind mcp-proxy -- node echo-server.mjs and
//      sends the same initialize and calls, one after another, each answer awaited.
//
// Each figure is a whole process's life, from the spawn to its exit (the server's start and end, and
// for V the run read and the report written, included), as a person running either would wait.
// Neither has a debugger: both are pointed at port 1 (nothing listens there) and a fresh data
// directory, so a graphmind serve running on this machine records neither. V and P take turns,
// round after round; the medians, and the median of the per-round ratio V/P, are printed.
//
//   node bench/verify.mjs            (npm run build first; BENCH_ONLY=verify in bench/run.mjs)
//   BENCH_VERIFY_CALLS=n             calls in the run (default 2000)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIGS, ECHO_SERVER, median, startTarget } from './driver.mjs';
import { INITIALIZE_PARAMS, writeRun } from './replay.mjs';

// BENCH_GRAPHMIND: another build's dist/cli/graphmind.js, to compare two builds on the same bench.
const GRAPHMIND = process.env.BENCH_GRAPHMIND ?? fileURLToPath(new URL('../dist/cli/graphmind.js', import.meta.url));
const CALLS = Number(process.env.BENCH_VERIFY_CALLS ?? 2000);
if (!Number.isInteger(CALLS) || CALLS < 1) throw new Error('BENCH_VERIFY_CALLS must be a positive integer');
const ROUNDS = 5;
/** What the bench's echo server answers to `initialize` (bench/echo-server.mjs). */
const ECHO_INITIALIZE = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'bench-echo', version: '1.0.0' } };
/** The bound on verify's time over the proxy's. */
const BOUND = 1.1;

/** V: graphmind verify, spawn to exit, ms; its exit code and summary line are checked. */
function verifyOnce(file, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [GRAPHMIND, 'verify', file, '--', process.execPath, ECHO_SERVER], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      // Only the end is kept: the summary is the last line.
      stdout = (stdout + text).slice(-4000);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      stderr = (stderr + text).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const summary = `${CALLS + 1} calls: ${CALLS + 1} same, 0 different, 0 missing, 0 extra`;
      if (code !== 0 || !stdout.includes(summary)) reject(new Error(`graphmind verify exited with code ${code}, not "${summary}":\n${stdout.slice(-1000)}\n${stderr}`));
      else resolve(ms);
    });
  });
}

/** P: the same initialize and calls through graphmind mcp-proxy, one after another; spawn to exit, ms. */
async function proxyOnce() {
  const started = performance.now();
  const target = startTarget('P');
  const id = target.nextId();
  const init = target.expect(id);
  target.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: INITIALIZE_PARAMS })}\n`);
  await init;
  for (let i = 0; i < CALLS; i++) await target.call({ text: `m${i}` });
  await target.close();
  return performance.now() - started;
}

/** Measure and print (stderr, like the rest of the bench); returns the figures. */
export async function measureVerify(log = (text) => process.stderr.write(`${text}\n`)) {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-bench-verify-'));
  const file = join(dir, 'run.jsonl');
  // m0 … m(CALLS-1): CALLS calls after the initialize.
  writeRun(file, { calls: CALLS - 1, initialized: ECHO_INITIALIZE, last: false });
  // No debugger for either: port 1 has no listener, and the data directory has no token.
  const env = { ...process.env, GRAPHMIND_URL: 'ws://127.0.0.1:1/ingest', GRAPHMIND_DATA_DIR: dir, GRAPHMIND_DISABLED: '' };
  CONFIGS.P = { label: 'P graphmind mcp-proxy', argv: [process.execPath, GRAPHMIND, 'mcp-proxy', '--', process.execPath, ECHO_SERVER], relay: true, env };
  try {
    const verify = [];
    const proxy = [];
    const ratios = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Which goes first alternates, so neither always runs on the machine the other left.
      let v;
      let p;
      if (round % 2 === 0) {
        v = await verifyOnce(file, env);
        p = await proxyOnce();
      } else {
        p = await proxyOnce();
        v = await verifyOnce(file, env);
      }
      verify.push(v);
      proxy.push(p);
      ratios.push(v / p);
    }
    const figures = { calls: CALLS, verifyMs: median(verify), proxyMs: median(proxy), ratio: median(ratios) };
    log(`verify of a ${CALLS}-call run against the echo server, and the same calls through mcp-proxy (spawn to exit, median of ${ROUNDS}):`);
    log(`  graphmind verify: ${figures.verifyMs.toFixed(0)} ms (rounds: ${verify.map((ms) => ms.toFixed(0)).join(' ')})`);
    log(`  driver through graphmind mcp-proxy: ${figures.proxyMs.toFixed(0)} ms (rounds: ${proxy.map((ms) => ms.toFixed(0)).join(' ')})`);
    log(`  verify / proxy: ${figures.ratio.toFixed(2)}x, median of the rounds' ratios (bound ${BOUND.toFixed(2)}x) ${figures.ratio <= BOUND ? 'PASS' : 'MISS'}`);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await measureVerify();
