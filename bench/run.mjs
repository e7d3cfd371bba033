// Orchestrates the bench: every scenario runs against A (direct), B (plain
// byte relay), C (graphmind mcp-proxy) and, where its goals are, D (C
// recording to graphmind serve), back to back, A B C D A B C D …, for several
// rounds, so a machine that drifts (thermal, noisy neighbour) hurts all alike.
// A side-by-side scenario (pipelined) gets A, B and C at once and alternates
// between them itself. Each run gets fresh processes so each VmHWM is its own.
//
//   BENCH_ROUNDS=n   interleaved rounds (default 5)
//   BENCH_QUICK=1    a fast smoke run: far fewer calls, every scenario still runs
//   BENCH_SEQ_WARMUP_MS, BENCH_PIPE_WARMUP_MS  the least warm-up of the sequential
//                    and pipelined scenarios, in ms (default 1500 each; 0: by count only)
//   BENCH_ONLY=proxy|adapter|restart  only the proxy's relay scenarios, the adapter's, or the
//                    restart figure (default all three)
//   BENCH_ONLY=http  only graphmind http-proxy against a direct connection (also run by default)
//   BENCH_ONLY=otlp  only D against a serve streaming to a dead or slow OTLP receiver (also run by default)
//   BENCH_ONLY=export  only a 1 GB run exported as HAR (bench/export.mjs; also run by default)
//   BENCH_ONLY=verify only graphmind verify of a 2,000-call run against the same calls through mcp-proxy
//                    (bench/verify.mjs; also run by default)
//   BENCH_ONLY=mcp   only graphmind mcp's first find_problems over 10,000 runs on disk (bench/mcp.mjs; also run by default)
//   BENCH_ONLY=start only the start figure: serve over 10,000 and 100,000 runs on disk (time to health, time
//                    to every run listed, RSS) and serve's CPU per adapter run (bench/start.mjs; also run by default)
//   BENCH_RULES=1    the proxy figures with a fifth configuration, E: D reporting to a serve of its
//                    own with five rules that never match (issue 33: E within 5% of D)
//   BENCH_OTLP_CONTROL=1  the otlp figure with a fourth debugger, a second serve that does not
//                    stream: what "no difference" measures as on this machine
//
// Exit status is non-zero only when something breaks (missing reply, wrong
// id, crash, hang); a missed goal is reported, never fatal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CONFIGS, NEVER_MATCHING_RULES, attachD, attachE, median, peakRss, percentile, putRules, startServe, startTarget } from './driver.mjs';
import * as sequential from './scenarios/sequential.mjs';
import * as pipelined from './scenarios/pipelined.mjs';
import * as large from './scenarios/large.mjs';
import * as hugeRss from './scenarios/huge-rss.mjs';
import * as adapterBench from './scenarios/adapter.mjs';
import * as httpBench from './scenarios/http.mjs';
import * as restartBench from './scenarios/restart.mjs';
import * as otlpBench from './scenarios/otlp.mjs';
import * as mcpBench from './mcp.mjs';
import { measureCpuPerRun, measureStart } from './start.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 5));
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('BENCH_ROUNDS must be a positive integer');
/** A warm-up length from the environment, in ms. */
function warmupMs(name) {
  const ms = Number(process.env[name] ?? 1500);
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`${name} must be a number of milliseconds, 0 or more`);
  return ms;
}
const SEQ_WARMUP_MS = warmupMs('BENCH_SEQ_WARMUP_MS');
const ONLY = process.env.BENCH_ONLY ?? '';
const BENCH_NAMES = ['proxy', 'adapter', 'restart', 'http', 'otlp', 'export', 'mcp', 'replay', 'verify', 'start'];
if (ONLY !== '' && !BENCH_NAMES.includes(ONLY)) throw new Error(`BENCH_ONLY must be one of ${BENCH_NAMES.join(', ')}`);
/** The adapter scenario: calls per run, warm-up per run (ms), and the SDK generations it runs. */
const ADAPTER = QUICK ? { calls: 500, warmupMs: 200 } : { calls: 10000, warmupMs: 1000 };
const ADAPTER_SDKS = ['1', '2'];
const PIPE_WARMUP_MS = warmupMs('BENCH_PIPE_WARMUP_MS');
const OTLP_CONTROL = process.env.BENCH_OTLP_CONTROL === '1';

const OPTIONS = QUICK
  ? { sequential: { calls: 300, warmup: 50 }, pipelined: { window: 2000, bursts: 2, warmup: 1 }, large: { count: 5, warmup: 1 }, huge: { count: 1 } }
  : { sequential: { calls: 3000, warmup: 300, warmupMs: SEQ_WARMUP_MS }, pipelined: { window: 2000, bursts: 20, warmup: 2, warmupMs: PIPE_WARMUP_MS }, large: { count: 50, warmup: 30 }, huge: { count: 2 } };

const RULES = process.env.BENCH_RULES === '1';
const KEYS = RULES ? ['A', 'B', 'C', 'D', 'E'] : ['A', 'B', 'C', 'D'];
/** The bursts of a process's life that the bench timed before session 15 (3rd to 12th): printed under the table. */
const FRESH_BURSTS = [2, 12];
const MiB = 1024 * 1024;
const SCENARIO_TIMEOUT_MS = 120_000;

/** Every configuration started at once, one side-by-side scenario, then each shut down cleanly. */
async function together(keys, scenario, options) {
  const targets = keys.map((key) => startTarget(key));
  let timer;
  try {
    const hang = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${scenario.name} hung for ${SCENARIO_TIMEOUT_MS / 1000}s`)), SCENARIO_TIMEOUT_MS);
    });
    const results = await Promise.race([scenario.run(targets, options), hang]);
    const out = [];
    for (const [i, target] of targets.entries()) {
      const { peakRss } = await target.close();
      out.push({ ...results[i], peakRss: target.isRelay ? peakRss : null });
    }
    return out;
  } catch (error) {
    for (const target of targets) target.kill();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The `graphmind serve` that D reports to: one for the whole bench, started by main. */
let serve;
/** With BENCH_RULES=1: the one E reports to, with the rules. */
let serveE;

/** One fresh process, one scenario, then a clean shutdown and its peak RSS. */
async function once(key, scenario, options) {
  if (key !== 'D' && key !== 'E') return onceStarted(key, scenario, options);
  const debuggerOf = key === 'E' ? serveE : serve;
  try {
    return await onceStarted(key, scenario, options);
  } finally {
    // The debugger stays up, as a real one does between sessions, but each
    // run of D starts on an empty record: what a round measures does not
    // depend on how many calls earlier rounds left in it (a pipelined run
    // of D records about 250,000; see README, session 15). A failure here
    // is reported, not thrown: it must not hide why the run itself failed.
    await debuggerOf.clearRuns().catch((error) => log(`could not delete ${key}'s recorded runs: ${error?.message ?? error}`));
  }
}

async function onceStarted(key, scenario, options) {
  const target = startTarget(key);
  let timer;
  try {
    const hang = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${target.label}: ${scenario.name} hung for ${SCENARIO_TIMEOUT_MS / 1000}s`)), SCENARIO_TIMEOUT_MS);
    });
    // A side-by-side scenario takes a list of targets and answers for each.
    const run = scenario.sideBySide ? scenario.run([target], options).then(([result]) => result) : scenario.run(target, options);
    const result = await Promise.race([run, hang]);
    const { peakRss } = await target.close();
    return { ...result, peakRss: target.isRelay ? peakRss : null };
  } catch (error) {
    target.kill();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The pipelined figure of a fresh process, as the bench measured it before
 * session 15: calls/s over the 3rd to 12th burst of each process's life
 * (median round), warm-up and measured bursts taken in order. Not a goal.
 */
function freshBursts(raw) {
  const window = OPTIONS.pipelined.window;
  const rate = (k) => (raw[k].freshCallsPerSec.length ? median(raw[k].freshCallsPerSec) : null);
  const b = rate('B');
  if (b === null) return `pipelined calls/s of a fresh process: fewer than ${FRESH_BURSTS[1]} bursts per process in this run`;
  const parts = ['A', 'B', 'C', 'D'].map((k) => {
    const r = rate(k);
    return r === null ? `${k} n/a` : `${k} ${Math.round(r).toLocaleString('en-US')}${k === 'B' ? '' : ` (${(r / b).toFixed(2)}x)`}`;
  });
  return `pipelined calls/s of a fresh process (bursts ${FRESH_BURSTS[0] + 1}-${FRESH_BURSTS[1]} of ${window}, the measure before session 15; not a goal): ${parts.join(' · ')}`;
}

function log(text) {
  process.stderr.write(`${text}\n`);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'graphmind-bench-'));
  serve = await startServe(dataDir);
  attachD(serve.port, dataDir);
  const dataDirE = RULES ? mkdtempSync(join(tmpdir(), 'graphmind-bench-rules-')) : undefined;
  if (dataDirE !== undefined) {
    serveE = await startServe(dataDirE);
    await putRules(serveE.port, dataDirE, NEVER_MATCHING_RULES);
    attachE(serveE.port, dataDirE);
  }
  try {
    if (ONLY === '' || ONLY === 'proxy') await measure();
    if (ONLY === '' || ONLY === 'adapter') await measureAdapter(dataDir);
    if (ONLY === '' || ONLY === 'restart') await measureRestart(dataDir);
    if (ONLY === '' || ONLY === 'http') await measureHttp(dataDir);
    if (ONLY === '' || ONLY === 'otlp') await measureOtlp(dataDir);
    if (ONLY === '' || ONLY === 'export') for (const line of (await (await import('./export.mjs')).measure({ mb: QUICK ? 100 : 1024 })).lines) console.log(line);
    if (ONLY === '' || ONLY === 'mcp') await mcpBench.measure({ rounds: QUICK ? 1 : 3 });
    if (ONLY === '' || ONLY === 'replay') await (await import('./replay.mjs')).measureReplay(log); // graphmind replay of a 10,000-call run
    if (ONLY === '' || ONLY === 'verify') await (await import('./verify.mjs')).measureVerify(log); // graphmind verify against the same calls through mcp-proxy
    if (ONLY === '' || ONLY === 'start') await measureStartFigures();
  } finally {
    log(`graphmind serve peak RSS during the bench: ${(peakRss(serve.pid) / 1024 / 1024).toFixed(1)} MiB`);
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (dataDirE !== undefined) {
      await serveE.stop();
      rmSync(dataDirE, { recursive: true, force: true });
    }
  }
}

/** The start figure (bench/start.mjs): serve over many runs on disk, and its CPU per adapter run. */
async function measureStartFigures() {
  const counts = QUICK ? [1000, 10000] : [10000, 100000];
  for (const count of counts) {
    log(`start      graphmind serve over ${count.toLocaleString('en-US')} runs on disk`);
    const r = await measureStart(count);
    log(
      `start with ${count.toLocaleString('en-US')} runs: port bound ${Math.round(r.boundMs)} ms after the spawn, health ${Math.round(r.healthMs - r.boundMs)} ms after the bind, ` +
        `every run listed ${(r.listedMs / 1000).toFixed(2)} s after the spawn, RSS ${r.rssMiB.toFixed(0)} MiB (peak ${r.peakRssMiB.toFixed(0)} MiB)`,
    );
  }
  const cpu = await measureCpuPerRun(QUICK ? 2000 : 10000);
  log(`serve's CPU per adapter run (one call, past --max-runs 200): ${cpu.cpuUsPerRun.toFixed(0)} µs over ${cpu.calls.toLocaleString('en-US')} runs`);
}

async function measure() {
  const raw = Object.fromEntries(KEYS.map((k) => [k, { latency: [], callsPerSec: [], mibPerSec: [], rssLarge: [], rssAny: [], rssHuge: [], hugeFrame: 0, hugeSeconds: [], roundP50: [], freshCallsPerSec: [] }]));
  const started = Date.now();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of [sequential, pipelined, large]) {
      // D (recording) is measured on the small-call scenarios its goals are about.
      const keys = scenario === large ? ['A', 'B', 'C'] : KEYS;
      // Side by side: A, B and C. D runs on its own: the debugger it reports
      // to goes on working through D's events after a burst's answers are
      // in, and next to the others that work would be charged to them.
      let side = new Map();
      if (scenario.sideBySide) {
        const paired = keys.filter((key) => key !== 'D' && key !== 'E');
        log(`round ${round}/${ROUNDS}  ${scenario.name.padEnd(10)} ${paired.join(' ')} side by side`);
        const results = await together(paired, scenario, OPTIONS[scenario.name]);
        side = new Map(paired.map((key, i) => [key, results[i]]));
      }
      for (const key of keys) {
        if (!side.has(key)) log(`round ${round}/${ROUNDS}  ${scenario.name.padEnd(10)} ${CONFIGS[key].label}`);
        const r = side.get(key) ?? (await once(key, scenario, OPTIONS[scenario.name]));
        const acc = raw[key];
        if (r.samples) {
          acc.latency.push(...r.samples);
          acc.roundP50.push(percentile(r.samples, 50) * 1000);
        }
        if (r.callsPerSec) acc.callsPerSec.push(r.callsPerSec);
        // A fresh process's figure: bursts 3-12 of its life, warm-up and measured ones in order.
        const life = [...(r.warmupBurstMs ?? []), ...(r.burstMs ?? [])];
        if (life.length >= FRESH_BURSTS[1]) {
          const ms = life.slice(...FRESH_BURSTS).reduce((sum, t) => sum + t, 0);
          acc.freshCallsPerSec.push(((FRESH_BURSTS[1] - FRESH_BURSTS[0]) * OPTIONS.pipelined.window) / (ms / 1000));
        }
        if (r.mibPerSec) acc.mibPerSec.push(r.mibPerSec);
        if (r.peakRss !== null) {
          acc.rssAny.push(r.peakRss);
          if (scenario === large) acc.rssLarge.push(r.peakRss);
        }
      }
    }
    // The huge-frame memory run only makes sense for a relay (A has none).
    for (const key of ['B', 'C']) {
      log(`round ${round}/${ROUNDS}  ${hugeRss.name.padEnd(10)} ${CONFIGS[key].label}`);
      const r = await once(key, hugeRss, OPTIONS.huge);
      raw[key].rssHuge.push(r.peakRss);
      raw[key].hugeFrame = r.frameBytes;
      raw[key].hugeSeconds.push(r.seconds);
    }
  }

  // Latency percentiles pool every sample of every round; rates take the
  // median round; RSS takes the worst round.
  const fig = {};
  for (const key of KEYS) {
    const a = raw[key];
    fig[key] = {
      p50us: percentile(a.latency, 50) * 1000,
      p99us: percentile(a.latency, 99) * 1000,
      callsPerSec: median(a.callsPerSec),
      mibPerSec: median(a.mibPerSec),
      rssLargeMiB: a.rssLarge.length ? Math.max(...a.rssLarge) / MiB : null,
      rssAnyMiB: a.rssAny.length ? Math.max(...a.rssAny) / MiB : null,
      rssHugeMiB: a.rssHuge.length ? Math.max(...a.rssHuge) / MiB : null,
      hugeFrameMiB: a.hugeFrame ? a.hugeFrame / MiB : null,
    };
  }
  const ratio = (key, field) => (fig[key][field] == null || !fig.B[field] ? null : fig[key][field] / fig.B[field]);
  const FIELDS = ['p50us', 'p99us', 'callsPerSec', 'mibPerSec', 'rssLargeMiB', 'rssHugeMiB'];
  const ratios = Object.fromEntries(['A', 'C', 'D'].map((k) => [k, Object.fromEntries(FIELDS.map((f) => [f, ratio(k, f)]))]));

  const C = fig.C;
  // Two decimals, or three where two would print a missed goal as its limit (0.4987 as "0.50x").
  const times = (value, limit, ok) => `${value.toFixed(!ok && value.toFixed(2) === limit.toFixed(2) ? 3 : 2)}x`;
  const atMost = (value, limit) => ({ value, ok: value <= limit, shown: times(value, limit, value <= limit) });
  const atLeast = (value, limit) => ({ value, ok: value >= limit, shown: times(value, limit, value >= limit) });
  const goals = [
    { goal: 'sequential p50 C/B <= 1.10x', ...atMost(ratios.C.p50us, 1.1) },
    { goal: 'pipelined calls/s C/B >= 0.85x', ...atLeast(ratios.C.callsPerSec, 0.85) },
    { goal: '1 MiB MiB/s C/B >= 0.75x', ...atLeast(ratios.C.mibPerSec, 0.75) },
    { goal: 'C peak RSS, 1 MiB frames <= 80 MiB', value: C.rssLargeMiB, ok: C.rssLargeMiB <= 80, shown: `${C.rssLargeMiB.toFixed(1)} MiB` },
    { goal: 'recording: sequential p50 D/B <= 1.5x', ...atMost(ratios.D.p50us, 1.5) },
    { goal: 'recording: pipelined calls/s D/B >= 0.5x', ...atLeast(ratios.D.callsPerSec, 0.5) },
    {
      goal: 'C peak RSS, 60 MiB frames <= 3x frame',
      value: C.rssHugeMiB / C.hugeFrameMiB,
      ok: C.rssHugeMiB <= 3 * C.hugeFrameMiB,
      shown: `${C.rssHugeMiB.toFixed(1)} MiB = ${(C.rssHugeMiB / C.hugeFrameMiB).toFixed(2)}x`,
    },
  ];

  if (RULES) {
    goals.push({ goal: 'rules: sequential p50 E/D <= 1.05x', ...atMost(fig.E.p50us / fig.D.p50us, 1.05) });
    goals.push({ goal: 'rules: pipelined calls/s E/D >= 0.95x', ...atLeast(fig.E.callsPerSec / fig.D.callsPerSec, 0.95) });
  }

  // The compact table.
  const f0 = (v) => (v == null ? 'n/a' : Math.round(v).toLocaleString('en-US'));
  const f1 = (v) => (v == null ? 'n/a' : v.toFixed(1));
  const fx = (v) => (v == null ? 'n/a' : `${v.toFixed(2)}x`);
  const head = ['config', 'p50 µs', 'p99 µs', 'calls/s', 'MiB/s', 'RSS 1MiB', 'RSS 60MiB'];
  const rows = KEYS.map((k) => {
    const v = fig[k];
    return [CONFIGS[k].label, f0(v.p50us), f0(v.p99us), f0(v.callsPerSec), f1(v.mibPerSec), f1(v.rssLargeMiB), f1(v.rssHugeMiB)];
  });
  for (const k of ['C', 'D', 'A']) rows.push([`${k}/B`, ...FIELDS.map((f) => fx(ratios[k][f]))]);
  // The rules' cost: E (five rules that never match) against D (none), the same work otherwise.
  if (RULES) rows.push(['E/D', ...FIELDS.map((f) => (fig.E[f] == null || !fig.D[f] ? 'n/a' : fx(fig.E[f] / fig.D[f])))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const seconds = (Date.now() - started) / 1000;
  const out = [
    '',
    `graphmind mcp-proxy bench — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${ROUNDS} round(s)${QUICK ? ', QUICK' : ''}, ${seconds.toFixed(0)} s`,
    `sequential: ${OPTIONS.sequential.calls} calls/run after ${OPTIONS.sequential.warmupMs ? `${OPTIONS.sequential.warmupMs / 1000} s and ` : ''}${OPTIONS.sequential.warmup} calls of warm-up · pipelined: ${OPTIONS.pipelined.bursts} bursts of ${OPTIONS.pipelined.window} in flight after ${OPTIONS.pipelined.warmupMs ? `${OPTIONS.pipelined.warmupMs / 1000} s and ` : ''}${OPTIONS.pipelined.warmup} bursts of warm-up · large: ${OPTIONS.large.count} × 1 MiB · huge: ${OPTIONS.huge.count} × ${f1(C.hugeFrameMiB)} MiB frame`,
    'RSS = VmHWM of the relay process (MiB); A has no relay. D = C reporting every frame to a running graphmind serve.',
    '',
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    // Each round's own median: on a two-core machine a run of the one-at-a-time
    // scenario settles into one of two CPU placements (see README), and this shows which.
    `sequential p50 of each round, µs: ${KEYS.map((k) => `${k} ${raw[k].roundP50.map((v) => Math.round(v)).join(' ')}`).join(' · ')}`,
    // Not a goal: the pipelined rate of a fresh process, still warming up.
    freshBursts(raw),
    '',
    ...goals.map((g) => `${g.ok ? 'PASS' : 'MISS'}  ${g.goal.padEnd(40)} ${g.shown}`),
    '',
  ];
  process.stdout.write(out.join('\n'));

  const file = fileURLToPath(new URL('./results.json', import.meta.url));
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: cpus().length, rounds: ROUNDS, quick: QUICK, options: OPTIONS, figures: fig, ratios, goals, perRound: Object.fromEntries(KEYS.map((k) => [k, { sequentialP50us: raw[k].roundP50, callsPerSec: raw[k].callsPerSec, mibPerSec: raw[k].mibPerSec, rssLargeMiB: raw[k].rssLarge.map((b) => b / MiB), rssHugeMiB: raw[k].rssHuge.map((b) => b / MiB), hugeSeconds: raw[k].hugeSeconds }])) }, null, 2) + '\n');
}

/**
 * The adapter's cost per tool call over the SDK's in-memory transport, for
 * each SDK generation: plain (unwrapped), detached (wrapped, no debugger)
 * and attached (wrapped, reporting to this bench's graphmind serve, no
 * breakpoints), each a fresh process, taking turns for ROUNDS rounds. The
 * goals compare medians of rounds.
 */
async function measureAdapter(dataDir) {
  const started = Date.now();
  const attachedEnv = { GRAPHMIND_URL: `ws://127.0.0.1:${serve.port}/ingest`, GRAPHMIND_DATA_DIR: dataDir };
  const lines = [];
  const goals = [];
  const perRound = {};
  const times = (value, limit, ok) => `${value.toFixed(!ok && value.toFixed(2) === limit.toFixed(2) ? 3 : 2)}x`;
  for (const sdk of ADAPTER_SDKS) {
    const raw = Object.fromEntries(adapterBench.MODES.map((mode) => [mode, { wall: [], cpu: [] }]));
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}  adapter    SDK ${sdk}.x: ${adapterBench.MODES.join(' ')}`);
      const result = await adapterBench.round(sdk, ADAPTER, attachedEnv, () => serve.clearRuns().catch((error) => log(`could not clear runs: ${error?.message ?? error}`)));
      for (const mode of adapterBench.MODES) {
        raw[mode].wall.push(result[mode].perCallUs);
        raw[mode].cpu.push(result[mode].cpuPerCallUs);
      }
    }
    perRound[sdk] = raw;
    const wall = (mode) => median(raw[mode].wall);
    const cpu = (mode) => median(raw[mode].cpu);
    const row = (mode) => `${mode.padEnd(9)} ${wall(mode).toFixed(1).padStart(7)} µs  ${(wall(mode) / wall('plain')).toFixed(2)}x   cpu ${cpu(mode).toFixed(1).padStart(6)} µs  ${(cpu(mode) / cpu('plain')).toFixed(2)}x   rounds ${raw[mode].wall.map((v) => v.toFixed(1)).join(' ')}`;
    lines.push(`SDK ${sdk}.x (${sdk === '1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server'}), ${ADAPTER.calls} calls a run:`, ...adapterBench.MODES.map(row));
    const detached = wall('detached') / wall('plain');
    const attached = wall('attached') / wall('plain');
    goals.push({ goal: `adapter ${sdk}.x: detached / plain <= 1.05x`, ok: detached <= 1.05, shown: times(detached, 1.05, detached <= 1.05), value: detached });
    goals.push({ goal: `adapter ${sdk}.x: attached / plain <= 1.25x`, ok: attached <= 1.25, shown: times(attached, 1.25, attached <= 1.25), value: attached });
  }
  const out = [
    '',
    `graphmind-ai/adapter bench — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${ROUNDS} round(s)${QUICK ? ', QUICK' : ''}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    'one tool call at a time over the SDK in-memory transport, client and server in one process; mean per call (median of rounds): wall time, and the process\'s CPU',
    '',
    ...lines,
    '',
    ...goals.map((g) => `${g.ok ? 'PASS' : 'MISS'}  ${g.goal.padEnd(40)} ${g.shown}`),
    '',
  ];
  process.stdout.write(out.join('\n'));
  const file = fileURLToPath(new URL('./adapter-results.json', import.meta.url));
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: cpus().length, rounds: ROUNDS, quick: QUICK, options: ADAPTER, perRound, goals }, null, 2) + '\n');
}

/** Restarts per proxy session in a round of the restart figure. */
const RESTARTS = QUICK ? 2 : 5;

/**
 * The restart figure: from saving the server's file to the first answer
 * from the new server, through `mcp-proxy --watch`, with no debugger (C)
 * and reporting to this bench's graphmind serve (D); the proxy's added time
 * is that, less the watcher's debounce and the server's own start-up (see
 * scenarios/restart.mjs). Medians over every restart of every round.
 */
async function measureRestart(dataDir) {
  const started = Date.now();
  const configs = {
    C: { label: 'C no debugger', flags: ['--port', '1'], env: { GRAPHMIND_DISABLED: '1' } },
    // The host calls `version` until the new code answers: polled on purpose, not a loop to hold.
    D: { label: 'D graphmind serve', flags: ['--port', String(serve.port)], env: { GRAPHMIND_DATA_DIR: dataDir, GRAPHMIND_LOOP_ALLOW: 'version' } },
  };
  const raw = { C: [], D: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const key of ['C', 'D']) {
      log(`round ${round}/${ROUNDS}  ${restartBench.name.padEnd(10)} ${configs[key].label}: ${RESTARTS} restarts`);
      raw[key].push(...(await restartBench.round({ restarts: RESTARTS, flags: configs[key].flags, env: configs[key].env })));
      if (key === 'D') await serve.clearRuns().catch((error) => log(`could not clear runs: ${error?.message ?? error}`));
    }
  }
  const ms = (v) => `${Math.round(v)} ms`;
  const figures = {};
  const lines = [];
  for (const key of ['C', 'D']) {
    const rows = raw[key];
    const ready = rows.map((r) => r.proxyReadyMs).filter((v) => v !== null);
    // The server's start-up as the goal means it (spawn → initialize answered, from outside): the new
    // server's own figure (its start → that answer) plus what a launch costs before a process starts
    // (exec, Node's early boot: outside − inside of the same file started alone, median).
    const launch = median(rows.map((r) => r.alone.outside - r.alone.inside));
    const added = rows.map((r) => r.total - restartBench.DEBOUNCE_MS - (r.startup + launch));
    figures[key] = {
      totalMs: median(rows.map((r) => r.total)),
      startupMs: median(rows.map((r) => r.startup)) + launch,
      launchMs: launch,
      aloneMs: median(rows.map((r) => r.alone.outside)),
      addedMs: median(added),
      addedP90Ms: percentile(added, 90),
      beforeMs: median(rows.map((r) => r.before)) - launch,
      afterMs: median(rows.map((r) => r.after)),
      proxyReadyMs: ready.length > 0 ? median(ready) : null,
      restarts: rows.length,
    };
    const f = figures[key];
    lines.push(
      `${configs[key].label.padEnd(18)} save → new answer ${ms(f.totalMs)} = debounce ${restartBench.DEBOUNCE_MS} ms + the new server's start-up ${ms(f.startupMs)} + added ${ms(f.addedMs)} (p90 ${ms(f.addedP90Ms)})`,
      `${''.padEnd(18)} added: ~${ms(f.beforeMs)} before the new server was spawned (the watcher's latency, stopping the old one), ~${ms(f.afterMs)} after it answered initialize (the rest of the replay, the first call's round trip)`,
      `${''.padEnd(18)} the same file started alone: ${ms(f.aloneMs)} spawn → initialize answered (of which ${ms(f.launchMs)} before its process started) · the proxy's "ready in" ${f.proxyReadyMs === null ? 'n/a' : ms(f.proxyReadyMs)}`,
      `${''.padEnd(18)} added per restart, ms: ${added.map((v) => Math.round(v)).join(' ')}`,
    );
  }
  const goal = { goal: "restart: proxy's added time < 50 ms", value: figures.C.addedMs, ok: figures.C.addedMs < 50, shown: ms(figures.C.addedMs) };
  const out = [
    '',
    `graphmind mcp-proxy restart bench — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${ROUNDS} round(s) × ${RESTARTS} restarts${QUICK ? ', QUICK' : ''}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    'an SDK 1.x McpServer behind mcp-proxy --watch; the host has initialized and listed the tools. Medians over every restart.',
    "added = (save → first answer from the new server) − the 200 ms debounce − the new server's start-up (spawn → initialize answered: its own figure, from its process start, plus a launch's cost before that, measured alone)",
    '',
    ...lines,
    '',
    `${goal.ok ? 'PASS' : 'MISS'}  ${goal.goal.padEnd(40)} ${goal.shown}`,
    '',
  ];
  process.stdout.write(out.join('\n'));
  const file = fileURLToPath(new URL('./restart-results.json', import.meta.url));
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: cpus().length, rounds: ROUNDS, restartsPerRound: RESTARTS, quick: QUICK, figures, raw, goal }, null, 2) + '\n');
}

/**
 * graphmind http-proxy against a direct connection to a real SDK
 * Streamable HTTP server (scenarios/http.mjs): sequential p50 and
 * concurrent calls/s, side by side, for ROUNDS rounds.
 */
async function measureHttp(dataDir) {
  const started = Date.now();
  const recordingEnv = { GRAPHMIND_URL: `ws://127.0.0.1:${serve.port}/ingest`, GRAPHMIND_DATA_DIR: dataDir };
  const clear = () => serve.clearRuns().catch((error) => log(`could not clear runs: ${error?.message ?? error}`));
  const { lines, goals, figures } = await httpBench.measure({ rounds: ROUNDS, quick: QUICK, log, recordingEnv, afterRecording: clear });
  const out = [
    '',
    `graphmind http-proxy bench — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${ROUNDS} round(s)${QUICK ? ', QUICK' : ''}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ...lines,
    '',
    ...goals.map((g) => `${g.ok ? 'PASS' : 'MISS'}  ${g.goal.padEnd(48)} ${g.shown}`),
    '',
  ];
  process.stdout.write(out.join('\n'));
  const file = fileURLToPath(new URL('./http-results.json', import.meta.url));
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: cpus().length, rounds: ROUNDS, quick: QUICK, figures, goals }, null, 2) + '\n');
}

/**
 * D (mcp-proxy recording) against three debuggers of its own
 * (scenarios/otlp.mjs): a serve that does not stream, one streaming to a
 * dead endpoint, one streaming to a slow receiver. The proxy's sequential
 * and pipelined scenarios with the rest of the bench's options, ROUNDS
 * rounds; the goals compare D with each streaming debugger to D with the
 * one that does not stream.
 */
async function measureOtlp(dataDir) {
  const started = Date.now();
  const { lines, goals, figures, ratios, perRound, receiver, deadEndpoint } = await otlpBench.measure({
    rounds: ROUNDS,
    log,
    options: { sequential: OPTIONS.sequential, pipelined: OPTIONS.pipelined },
    runD: (scenario, options) => onceStarted('D', scenario, options),
    // D goes back to the bench's own debugger, whatever ran after this.
    restore: () => attachD(serve.port, dataDir),
    control: OTLP_CONTROL,
  });
  const out = [
    '',
    `graphmind serve --otlp-endpoint bench — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${ROUNDS} round(s)${QUICK ? ', QUICK' : ''}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ...lines,
    '',
    ...goals.map((g) => `${g.ok ? 'PASS' : 'MISS'}  ${g.goal.padEnd(56)} ${g.shown}`),
    '',
  ];
  process.stdout.write(out.join('\n'));
  const file = fileURLToPath(new URL('./otlp-results.json', import.meta.url));
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: cpus().length, rounds: ROUNDS, quick: QUICK, control: OTLP_CONTROL, options: { sequential: OPTIONS.sequential, pipelined: OPTIONS.pipelined }, deadEndpoint, receiver, figures, ratios, goals, perRound }, null, 2) + '\n');
}

main().catch((error) => {
  log(`bench failed: ${error?.stack ?? error}`);
  process.exit(1);
});
