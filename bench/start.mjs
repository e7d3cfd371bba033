// The start figure (issue 29): `graphmind serve` started over a data
// directory that already holds many small runs (one adapter call each, as
// the adapter records them), measured from outside:
//
// - time to health: from spawning `graphmind serve` to the first 200 from
//   GET /api/health (Node's own start-up included; the port is chosen
//   beforehand so that the first try can come before any line is printed);
// - time to all listed: from the spawn to the moment health no longer says
//   `loading` and GET /api/runs lists every run;
// - serve's RSS once every run is loaded (VmRSS), and its peak (VmHWM).
//
// Also serve's CPU per adapter run (issue 29, "a run costs the debugger
// little"): a real SDK client calling a wrapped SDK server through the
// adapter (bench/adapter-calls.mjs, attached), one run per call, and the
// serve's user + system CPU (/proc/<pid>/stat) over those calls, past its
// --max-runs so that every run also deletes the oldest.
//
// The spawn itself costs what Node and the CLI's imports cost before the
// port is bound (about 0.2 s on a quiet machine, over a second on a busy
// one): health is given from the spawn to the bind, and from the bind on.
//
//   node bench/start.mjs [runs…]   (default 10000 100000; BENCH_QUICK=1: 1000 10000)
//   node bench/start.mjs cpu       (only serve's CPU per adapter run)
//   GRAPHMIND_BENCH_CLI=/work/main/dist/cli/graphmind.js node bench/start.mjs cpu   (another build's serve, side by side)
//
// bench/run.mjs runs it with BENCH_ONLY=start (and in the full bench).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// GRAPHMIND_BENCH_CLI: another build's CLI to start as serve (the "before" of a side-by-side figure);
// GRAPHMIND_BENCH_NODE_FLAGS: node flags for serve (`--cpu-prof --cpu-prof-dir=…` to profile it).
const GRAPHMIND = process.env.GRAPHMIND_BENCH_CLI || fileURLToPath(new URL('../dist/cli/graphmind.js', import.meta.url));
const NODE_FLAGS = (process.env.GRAPHMIND_BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
const ADAPTER_CALLS = fileURLToPath(new URL('./adapter-calls.mjs', import.meta.url));
const REPO = fileURLToPath(new URL('..', import.meta.url));

/**
 * One small adapter run's log line, as the adapter sends it and the server
 * logs it: a `run.completed` standing for the run, its server and one call.
 */
export function smallRunLine(runId, t) {
  const meta = { app: 'bench', sdk: '@modelcontextprotocol/server', server: 'bench', serverSdk: '@modelcontextprotocol/sdk', connection: 'c1' };
  const server = { nodeId: 'server:bench', kind: 'server', parent: null, label: 'bench 1.0.0' };
  return `${JSON.stringify({
    type: 'run.completed', runId, seq: 1, t, endT: t + 2, name: 'tools/call:echo', source: 'mcp-adapter', meta,
    root: { instanceId: 'server', node: server, input: { sdk: '@modelcontextprotocol/sdk', name: 'bench', version: '1.0.0', app: 'bench' } },
    instanceId: 'c1:1', node: { nodeId: 'tool:echo', kind: 'tool', parent: 'server:bench', label: 'echo' },
    input: { text: 'call 0' }, output: { content: [{ type: 'text', text: 'call 0' }] },
  })}\n`;
}

/** Write `count` small runs' logs into `<dataDir>/runs`, one second apart, the newest now. */
export function writeSmallRuns(dataDir, count) {
  const runs = join(dataDir, 'runs');
  mkdirSync(runs, { recursive: true, mode: 0o700 });
  const t0 = Date.now() - count * 1000;
  for (let i = 0; i < count; i++) {
    const runId = `run_bench_${String(i).padStart(7, '0')}`;
    writeFileSync(join(runs, `${runId}.jsonl`), smallRunLine(runId, t0 + i * 1000));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The kB values of /proc/<pid>/status named. */
function procStatus(pid, names) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Object.fromEntries(names.map((name) => [name, Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN) * 1024]));
}

/** A process's user + system CPU so far, µs (/proc/<pid>/stat). */
function cpuUs(pid) {
  const { user, system } = cpuParts(pid);
  return user + system;
}

/** A process's user and system CPU so far, apart, µs. */
function cpuParts(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const hz = Number(execFileSync('getconf', ['CLK_TCK']).toString());
  return { user: (Number(fields[11]) / hz) * 1e6, system: (Number(fields[12]) / hz) * 1e6 };
}

/** GET `path` (node:http: fetch's first call costs its own start-up, which is not the server's). */
function get(port, token, path) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` }, timeout: 30_000 }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, json: res.statusCode === 200 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined }));
      res.on('error', () => resolve({ status: 0 }));
    });
    req.on('error', () => resolve({ status: 0 }));
    req.end();
  });
}

/** When `port` first accepts a connection (tried every 5 ms), as performance.now(). */
async function bound(port) {
  for (;;) {
    const ok = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Start a serve on `dataDir` (`flags` added); resolves once its port answers. */
async function startServe(dataDir, flags, token) {
  const port = await freePort();
  const spawned = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, GRAPHMIND, 'serve', '--port', String(port), '--data-dir', dataDir, ...flags], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, GRAPHMIND_TOKEN: token, GRAPHMIND_DATA_DIR: '' },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  return { port, child, spawned, stop };
}

/** Start a serve over `count` small runs: time to health, time to all listed, RSS. */
export async function measureStart(count) {
  const dataDir = mkdtempSync(join(tmpdir(), 'graphmind-start-'));
  const token = randomBytes(16).toString('hex');
  try {
    writeSmallRuns(dataDir, count);
    const serve = await startServe(dataDir, ['--max-runs', String(count * 2)], token);
    try {
      // Its port bound (Node's own start-up and the CLI's imports are before it), then its first health answer.
      const boundMs = (await bound(serve.port)) - serve.spawned;
      let health = await get(serve.port, token, '/api/health');
      while (health.status !== 200) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        health = await get(serve.port, token, '/api/health');
      }
      const healthMs = performance.now() - serve.spawned;
      const loadingAtHealth = health.json.loading;
      while (health.json?.loading !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        health = await get(serve.port, token, '/api/health');
      }
      const runs = await get(serve.port, token, '/api/runs');
      const listedMs = performance.now() - serve.spawned;
      if (runs.json?.length !== count) throw new Error(`listed ${runs.json?.length} runs of ${count}`);
      const { VmRSS, VmHWM } = procStatus(serve.child.pid, ['VmRSS', 'VmHWM']);
      return { runs: count, boundMs, healthMs, listedMs, rssMiB: VmRSS / 2 ** 20, peakRssMiB: VmHWM / 2 ** 20, loadingAtHealth };
    } finally {
      await serve.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** serve's CPU per adapter run: `calls` calls, one run each, past `--max-runs 200`. */
export async function measureCpuPerRun(calls) {
  const dataDir = mkdtempSync(join(tmpdir(), 'graphmind-cpu-'));
  const token = randomBytes(16).toString('hex');
  const serve = await startServe(dataDir, ['--max-runs', '200'], token);
  try {
    while ((await get(serve.port, token, '/api/health')).status !== 200) await new Promise((resolve) => setTimeout(resolve, 10));
    const env = { ...process.env, GRAPHMIND_URL: `ws://127.0.0.1:${serve.port}/ingest`, GRAPHMIND_TOKEN: token };
    const run = (n) => execFileSync(process.execPath, [ADAPTER_CALLS, '1', 'attached', String(n), '0'], { env, cwd: REPO });
    // Warm: past --max-runs already, the JIT settled.
    run(2000);
    await settle(serve.child.pid);
    const before = cpuParts(serve.child.pid);
    run(calls);
    await settle(serve.child.pid);
    const after = cpuParts(serve.child.pid);
    const userUs = (after.user - before.user) / calls;
    const systemUs = (after.system - before.system) / calls;
    return { calls, cpuUsPerRun: userUs + systemUs, userUs, systemUs };
  } finally {
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Wait until the process has used no CPU for 200 ms (its logs written, its runs trimmed). */
async function settle(pid) {
  let last = cpuUs(pid);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuUs(pid);
    if (now === last) return;
    last = now;
  }
}

async function main() {
  const quick = process.env.BENCH_QUICK === '1';
  // `node bench/start.mjs cpu`: only serve's CPU per adapter run.
  const cpuOnly = process.argv[2] === 'cpu';
  const counts = cpuOnly ? [] : process.argv.length > 2 ? process.argv.slice(2).map(Number) : quick ? [1000, 10000] : [10000, 100000];
  for (const count of counts) {
    const r = await measureStart(count);
    process.stdout.write(
      `start with ${r.runs.toLocaleString('en-US')} runs on disk: port bound ${Math.round(r.boundMs)} ms after the spawn, health ${Math.round(r.healthMs - r.boundMs)} ms after that` +
        ` (loading ${r.loadingAtHealth === undefined ? 'done' : `${r.loadingAtHealth.loaded}/${r.loadingAtHealth.total}`}),` +
        ` all listed in ${(r.listedMs / 1000).toFixed(2)} s, RSS ${r.rssMiB.toFixed(0)} MiB (peak ${r.peakRssMiB.toFixed(0)} MiB)\n`,
    );
  }
  const cpu = await measureCpuPerRun(quick ? 2000 : 10000);
  process.stdout.write(
    `serve's CPU per adapter run (one call, past --max-runs 200): ${cpu.cpuUsPerRun.toFixed(0)} µs (user ${cpu.userUs.toFixed(0)}, system ${cpu.systemUs.toFixed(0)}) over ${cpu.calls.toLocaleString('en-US')} runs\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
