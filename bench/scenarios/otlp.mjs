// A receiver that is down or slow costs the proxies nothing (issue 24): D
// (graphmind mcp-proxy reporting to a graphmind serve) measured against three
// debuggers, each a `graphmind serve` of its own, started the same way:
//
//   no OTLP        serve as the rest of the bench runs it;
//   dead endpoint  serve --otlp-endpoint at a closed port on 127.0.0.1 (every
//                  export is refused, retried with backoff, and fails);
//   slow receiver  serve --otlp-endpoint at a node:http server started here,
//                  which answers each export request after RECEIVER_DELAY_MS.
//
// Both streaming serves get --otlp-max-queue MAX_QUEUE, so what the receiver
// cannot take is dropped (and counted) within a run instead of after 8,192
// spans. D runs the bench's own sequential and pipelined scenarios, each a
// fresh proxy, the three debuggers taking turns round after round (the one
// that goes first moves on by one each round). After each run the debugger's
// runs are deleted and the bench waits until its OTLP counters have stopped
// moving (its spans are built on a timer, up to a second after a call ends),
// so that work is not charged to the next debugger's run; the counters from
// GET /api/health are logged then, to show spans dropped or failed rather
// than queued without bound.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attachD, median, peakRss, percentile } from '../driver.mjs';
import * as sequential from './sequential.mjs';
import * as pipelined from './pipelined.mjs';

export const name = 'otlp';
const GRAPHMIND = fileURLToPath(new URL('../../dist/cli/graphmind.js', import.meta.url));
/** How long the slow receiver takes to answer each export request. */
export const RECEIVER_DELAY_MS = 2000;
/** --otlp-max-queue of the streaming debuggers (the default is 8,192). */
export const MAX_QUEUE = 500;
/** The debuggers, in the order of the first round. */
export const DEBUGGERS = ['none', 'dead', 'slow'];
/** With `control`, a fourth: a second serve that does not stream, to see what "no difference" measures as. */
const CONTROL = 'none2';
const LABELS = { none: 'no OTLP', dead: 'dead endpoint', slow: 'slow receiver', [CONTROL]: 'no OTLP, again' };
/** The longest wait for a debugger's OTLP counters to stop moving after a run. */
const SETTLE_LIMIT_MS = 15_000;
/** The longest wait for D's run to end before it is deleted. */
const RUN_END_LIMIT_MS = 10_000;
/** Counters unchanged over this many polls, 200 ms apart (more than one 500 ms sweep of the stream). */
const SETTLE_POLLS = 3;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port on 127.0.0.1 that nothing listens on: one the system just gave out, closed again. */
function closedPort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * An OTLP/HTTP receiver that reads each request whole and answers it, 200
 * with an empty ExportTraceServiceResponse (zero bytes in protobuf), after
 * `delayMs`. It counts requests and bytes; it decodes nothing.
 */
function startSlowReceiver(delayMs) {
  const timers = new Set();
  const stats = { requests: 0, bytes: 0, answered: 0 };
  const server = createHttpServer((req, res) => {
    stats.requests++;
    req.on('data', (chunk) => {
      stats.bytes += chunk.length;
    });
    req.on('end', () => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        stats.answered++;
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }, delayMs);
      timers.add(timer);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        stats,
        close() {
          for (const timer of timers) clearTimeout(timer);
          server.closeAllConnections();
          return new Promise((done) => server.close(() => done()));
        },
      });
    });
  });
}

/**
 * `graphmind serve` with a data directory of its own and `args` added to
 * what the bench's other debugger gets. No OTEL_* variable of the bench's
 * environment reaches it: only the flags say whether and where it streams.
 * Its stderr (the stream's once-a-minute warnings) goes to `log`, a line at a time.
 */
async function startServe(key, args, log) {
  const dataDir = mkdtempSync(join(tmpdir(), `graphmind-bench-otlp-${key}-`));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const child = spawn(process.execPath, [GRAPHMIND, 'serve', '--port', '0', '--data-dir', dataDir, '--max-runs', '1000', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let errText = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    errText += text;
    let nl;
    while ((nl = errText.indexOf('\n')) !== -1) {
      log(`  serve (${LABELS[key]}): ${errText.slice(0, nl)}`);
      errText = errText.slice(nl + 1);
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let port;
  try {
    port = await new Promise((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (chunk) => {
        text += chunk;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`graphmind serve (${LABELS[key]}) exited with code ${code}`)));
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  child.stdout.resume();
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const api = async (method, path) => {
    const answer = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
    if (!answer.ok) throw new Error(`graphmind serve (${LABELS[key]}): ${method} ${path} answered ${answer.status}`);
    return answer.status === 204 ? undefined : answer.json();
  };
  return {
    key,
    port,
    pid: child.pid,
    dataDir,
    /** GET /api/health's `otlp` (undefined when it does not stream). */
    otlp: async () => (await api('GET', '/api/health')).otlp,
    /**
     * Delete every run it holds, as run.mjs does for the bench's own
     * debugger, but once the runs have ended (up to RUN_END_LIMIT_MS): a run
     * deleted while its last events are still on their way never ends for the
     * stream, whose spans for it would then go missing. Resolves with how
     * many were still running when deleted.
     */
    async clearRuns() {
      const started = Date.now();
      let runs = await api('GET', '/api/runs');
      while (runs.some((run) => run.status === 'running') && Date.now() - started < RUN_END_LIMIT_MS) {
        await sleep(50);
        runs = await api('GET', '/api/runs');
      }
      for (const run of runs) await api('DELETE', `/api/runs/${encodeURIComponent(run.runId)}`);
      return runs.filter((run) => run.status === 'running').length;
    },
    /** SIGTERM (serve sends what it has, waiting up to 1.5 s), then its data directory goes. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every span the stream has built: sent, dropped, lost with a failed export, or waiting. */
const accounted = (otlp) => (otlp === undefined ? 0 : otlp.exported + otlp.dropped + otlp.failed + otlp.queued);

/**
 * Wait until the debugger's OTLP counters have not moved for SETTLE_POLLS
 * polls (the same wait, with nothing to watch, for the one that does not
 * stream); resolves with its last `otlp` and the ms waited.
 */
async function settle(serve) {
  const started = Date.now();
  let last = -1;
  let same = 0;
  let otlp;
  while (same < SETTLE_POLLS && Date.now() - started < SETTLE_LIMIT_MS) {
    await sleep(200);
    otlp = await serve.otlp();
    same = accounted(otlp) === last ? same + 1 : 0;
    last = accounted(otlp);
  }
  return { otlp, waitedMs: Date.now() - started };
}

const n0 = (v) => Math.round(v).toLocaleString('en-US');
const counters = (otlp) => (otlp === undefined ? 'no otlp in /api/health' : `exported ${n0(otlp.exported)} · dropped ${n0(otlp.dropped)} · failed ${n0(otlp.failed)} · queued ${n0(otlp.queued)}`);

/**
 * The whole figure. `runD(scenario, options)` runs one scenario against a
 * fresh D (run.mjs's own runner, with its hang timeout); `options` are the
 * sequential and pipelined scenarios' options of the rest of the bench;
 * `restore()` points D back at the bench's own debugger; `control` adds a
 * second debugger that does not stream. Resolves with { lines, goals,
 * figures, ratios, perRound, receiver, deadEndpoint }.
 */
export async function measure({ rounds, log, options, runD, restore, control = false }) {
  const debuggers = control ? [...DEBUGGERS, CONTROL] : DEBUGGERS;
  const receiver = await startSlowReceiver(RECEIVER_DELAY_MS);
  const deadUrl = `http://127.0.0.1:${await closedPort()}`;
  const flags = {
    none: [],
    [CONTROL]: [],
    dead: ['--otlp-endpoint', deadUrl, '--otlp-max-queue', String(MAX_QUEUE)],
    slow: ['--otlp-endpoint', receiver.url, '--otlp-max-queue', String(MAX_QUEUE)],
  };
  const serves = {};
  const raw = Object.fromEntries(debuggers.map((key) => [key, { samples: [], roundP50: [], callsPerSec: [], health: [], settleMs: [] }]));
  const maxQueued = Object.fromEntries(debuggers.map((key) => [key, 0]));
  const final = {};
  const rss = {};
  try {
    for (const key of debuggers) serves[key] = await startServe(key, flags[key], log);
    for (let round = 1; round <= rounds; round++) {
      for (const scenario of [sequential, pipelined]) {
        for (let j = 0; j < debuggers.length; j++) {
          const key = debuggers[(round - 1 + j) % debuggers.length];
          const serve = serves[key];
          attachD(serve.port, serve.dataDir);
          log(`round ${round}/${rounds}  ${name.padEnd(10)} ${scenario.name} D, debugger: ${LABELS[key]}`);
          const r = await runD(scenario, options[scenario.name]);
          const acc = raw[key];
          if (r.samples) {
            acc.samples.push(...r.samples);
            acc.roundP50.push(percentile(r.samples, 50) * 1000);
          }
          if (r.callsPerSec) acc.callsPerSec.push(r.callsPerSec);
          const running = await serve.clearRuns().catch((error) => log(`could not delete the recorded runs of ${LABELS[key]}: ${error?.message ?? error}`));
          if (running > 0) log(`  ${LABELS[key]}: ${running} run(s) still running after ${RUN_END_LIMIT_MS / 1000} s, deleted all the same`);
          const { otlp, waitedMs } = await settle(serve);
          acc.settleMs.push(waitedMs);
          if (otlp !== undefined) {
            acc.health.push({ round, scenario: scenario.name, ...otlp });
            maxQueued[key] = Math.max(maxQueued[key], otlp.queued);
            log(`  ${LABELS[key]}: otlp ${counters(otlp)} (settled in ${(waitedMs / 1000).toFixed(1)} s)`);
          }
        }
      }
    }
    for (const key of debuggers) {
      final[key] = await serves[key].otlp();
      rss[key] = peakRss(serves[key].pid);
    }
  } finally {
    restore();
    for (const serve of Object.values(serves)) await serve.stop();
    await receiver.close();
  }

  const fig = Object.fromEntries(
    debuggers.map((key) => [
      key,
      {
        p50us: percentile(raw[key].samples, 50) * 1000,
        p99us: percentile(raw[key].samples, 99) * 1000,
        callsPerSec: median(raw[key].callsPerSec),
        serveRssMiB: rss[key] / 1024 / 1024,
        otlp: final[key],
        maxQueued: final[key] === undefined ? null : maxQueued[key],
      },
    ]),
  );
  const ratios = Object.fromEntries(debuggers.map((key) => [key, { p50us: fig[key].p50us / fig.none.p50us, callsPerSec: fig[key].callsPerSec / fig.none.callsPerSec }]));
  // Two decimals, or three where two would print a missed goal as its limit (0.947 as "0.95x").
  const times = (value, limit, ok) => `${value.toFixed(!ok && value.toFixed(2) === limit.toFixed(2) ? 3 : 2)}x`;
  const goals = [];
  for (const key of ['dead', 'slow']) {
    const rate = ratios[key].callsPerSec;
    const p50 = ratios[key].p50us;
    goals.push({ goal: `otlp: ${LABELS[key]}, D pipelined calls/s >= 0.95x no-OTLP`, value: rate, ok: rate >= 0.95, shown: times(rate, 0.95, rate >= 0.95) });
    goals.push({ goal: `otlp: ${LABELS[key]}, D sequential p50 <= 1.05x no-OTLP`, value: p50, ok: p50 <= 1.05, shown: times(p50, 1.05, p50 <= 1.05) });
  }

  const f1 = (v) => v.toFixed(1);
  const head = ['debugger of D', 'p50 µs', 'p99 µs', 'calls/s', 'p50 vs none', 'calls/s vs none', 'exported', 'dropped', 'failed', 'queued (max)', 'serve RSS MiB'];
  const rows = debuggers.map((key) => {
    const v = fig[key];
    const o = v.otlp;
    return [
      LABELS[key],
      n0(v.p50us),
      n0(v.p99us),
      n0(v.callsPerSec),
      key === 'none' ? '' : `${ratios[key].p50us.toFixed(2)}x`,
      key === 'none' ? '' : `${ratios[key].callsPerSec.toFixed(2)}x`,
      o ? n0(o.exported) : '',
      o ? n0(o.dropped) : '',
      o ? n0(o.failed) : '',
      o ? `${n0(o.queued)} (${n0(v.maxQueued)})` : '',
      f1(v.serveRssMiB),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const seq = options.sequential;
  const pipe = options.pipelined;
  const lines = [
    `D = graphmind mcp-proxy reporting to a graphmind serve: one that does not stream (none), one streaming to ${deadUrl} where nothing listens (dead), one streaming to a node:http receiver that answers each export after ${RECEIVER_DELAY_MS / 1000} s (slow); both streaming with --otlp-max-queue ${MAX_QUEUE}.${control ? ` Control: ${CONTROL}, a second serve that does not stream (its ratios are what no difference measures as).` : ''}`,
    `sequential: ${seq.calls} calls/run after ${seq.warmupMs ? `${seq.warmupMs / 1000} s and ` : ''}${seq.warmup} calls of warm-up (percentiles pool every round) · pipelined: ${pipe.bursts} bursts of ${pipe.window} in flight after ${pipe.warmupMs ? `${pipe.warmupMs / 1000} s and ` : ''}${pipe.warmup} bursts of warm-up (median round). The debuggers take turns, a fresh proxy each run.`,
    'exported, dropped, failed, queued: GET /api/health at the end (after every run had settled); (max): the most queued seen after a run. serve RSS: its VmHWM.',
    '',
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    `sequential p50 of each round, µs: ${debuggers.map((k) => `${k} ${raw[k].roundP50.map((v) => Math.round(v)).join(' ')}`).join(' · ')}`,
    `pipelined calls/s of each round: ${debuggers.map((k) => `${k} ${raw[k].callsPerSec.map((v) => n0(v)).join(' ')}`).join(' · ')}`,
    `the dead endpoint's last error: ${fig.dead.otlp?.lastError ?? (fig.dead.otlp?.failed ? 'none' : 'none yet (no export to it had ended when health was read)')}`,
    `the slow receiver got ${n0(receiver.stats.requests)} export requests (${f1(receiver.stats.bytes / 1024 / 1024)} MiB) and answered ${n0(receiver.stats.answered)} of them before the bench stopped it`,
  ];
  const perRound = Object.fromEntries(debuggers.map((k) => [k, { sequentialP50us: raw[k].roundP50, callsPerSec: raw[k].callsPerSec, settleMs: raw[k].settleMs, health: raw[k].health }]));
  return { lines, goals, figures: fig, ratios, perRound, receiver: { ...receiver.stats, delayMs: RECEIVER_DELAY_MS }, deadEndpoint: deadUrl };
}
