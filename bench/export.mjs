// A 1 GB run exported as HAR (issue 29): the run's log is written straight
// into a fresh data directory (calls answered with 100 KB of text), a
// `graphmind serve` loads it, and `GET /api/runs/:runId/export?format=har`
// is read to its end. Printed: the time, the bytes, serve's peak RSS (VmHWM)
// before and after, and the slowest /api/health answer asked every 20 ms
// during the export (from another process: the bench's own reading is not
// counted). Run alone: `BENCH_ONLY=export node bench/run.mjs`, or
// `node bench/export.mjs [MB] [format] [path/to/graphmind.js]`: another
// format (otlp-json, jsonl), or another build's CLI, to compare side by
// side (`node bench/export.mjs 200 har /work/baseline/dist/cli/graphmind.js`).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OWN_CLI = fileURLToPath(new URL('../dist/cli/graphmind.js', import.meta.url));
const RUN = 'run_bench_export';

/** Write a finished proxy run of about `bytes` into `dataDir`. */
function writeRun(dataDir, bytes, answerBytes = 100 * 1024) {
  mkdirSync(join(dataDir, 'runs'), { recursive: true, mode: 0o700 });
  const fd = openSync(join(dataDir, 'runs', `${RUN}.jsonl`), 'w', 0o600);
  let seq = 0;
  let t = Date.UTC(2026, 0, 2);
  let written = 0;
  const line = (fields) => (written += writeSync(fd, `${JSON.stringify({ runId: RUN, seq: ++seq, t: t++, ...fields })}\n`));
  const session = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.js' };
  const tool = { nodeId: 'tool:fetch', kind: 'tool', parent: 'mcp:session', label: 'fetch' };
  line({ type: 'run.started', name: 'node server.js', source: 'mcp-proxy', meta: {} });
  line({ type: 'instance.started', instanceId: 'mcp_1', node: session });
  line({ type: 'run.meta', meta: { serverInfo: { name: 'bench', version: '1.0.0' } } });
  const text = 'x'.repeat(answerBytes);
  let n = 1;
  while (written < bytes) {
    n++;
    line({ type: 'instance.started', instanceId: `mcp_${n}`, node: tool, input: { name: 'fetch', arguments: { n } }, requestId: n });
    line({ type: 'instance.finished', instanceId: `mcp_${n}`, output: { content: [{ type: 'text', text }] } });
  }
  line({ type: 'instance.finished', instanceId: 'mcp_1', output: { exitCode: 0 } });
  line({ type: 'run.finished', status: 'ok' });
  closeSync(fd);
  return { bytes: written, calls: n - 1 };
}

function vmHwmMb(pid) {
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
}

function get(port, token, path, onData) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
        onData?.(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Measure; returns the printed lines and the figures. */
export async function measure({ mb = 1024, format = 'har', cli = OWN_CLI } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-bench-export-'));
  const dataDir = join(root, 'data');
  try {
    const free = statfsSync(tmpdir());
    const freeMb = Math.floor((free.bavail * free.bsize) / 1048576);
    // The log, and room to spare.
    const size = Math.min(mb, Math.floor(freeMb / 2));
    const built = writeRun(dataDir, size * 1048576);
    const serve = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    serve.stdout.on('data', (chunk) => (out += chunk));
    const loadStarted = performance.now();
    while (!/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(out)) await new Promise((resolve) => setTimeout(resolve, 20));
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)[1]);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    // Loaded once health answers and the run is listed.
    for (;;) {
      const listed = await get(port, token, '/api/runs');
      if (listed.status === 200) break;
    }
    const loadMs = performance.now() - loadStarted;
    const before = vmHwmMb(serve.pid);
    const poller = spawn(process.execPath, ['--input-type=module', '-e', `
      import { request } from 'node:http';
      let max = 0, running = true;
      process.stdin.on('data', () => (running = false));
      while (running) {
        const s = performance.now();
        await new Promise((r) => { const q = request({ host: '127.0.0.1', port: ${port}, path: '/api/health', headers: { authorization: 'Bearer ${token}' } }, (res) => { res.resume(); res.on('end', r); }); q.on('error', r); q.end(); });
        max = Math.max(max, performance.now() - s);
        await new Promise((r) => setTimeout(r, 20));
      }
      process.stdout.write(String(Math.round(max)));`], { stdio: ['pipe', 'pipe', 'inherit'] });
    let polled = '';
    poller.stdout.on('data', (chunk) => (polled += chunk));
    const started = performance.now();
    const got = await get(port, token, `/api/runs/${RUN}/export?format=${format}`);
    const ms = performance.now() - started;
    const pollerExit = new Promise((resolve) => poller.on('exit', resolve));
    poller.stdin.end('stop');
    await pollerExit;
    const after = vmHwmMb(serve.pid);
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.on('exit', resolve));
    const figures = { runMb: Math.round(built.bytes / 1048576), calls: built.calls, loadMs: Math.round(loadMs), status: got.status, harMb: Math.round(got.bytes / 1048576), exportMs: Math.round(ms), mbPerS: Math.round(got.bytes / 1048576 / (ms / 1000)), peakRssBeforeMb: before, peakRssAfterMb: after, slowestHealthMs: Number(polled) };
    const lines = [
      `export: a ${figures.runMb} MB run (${figures.calls} calls, 100 KB answers)${size < mb ? ` (asked ${mb} MB; the disk has room for ${size})` : ''}, loaded by serve in ${figures.loadMs} ms`,
      `  ${format === 'har' ? 'HAR' : format}${cli === OWN_CLI ? '' : ` (${cli})`}: HTTP ${figures.status}, ${figures.harMb} MB in ${figures.exportMs} ms (${figures.mbPerS} MB/s)`,
      `  serve's peak RSS: ${figures.peakRssBeforeMb} MB loaded, ${figures.peakRssAfterMb} MB after the export`,
      `  slowest /api/health during the export: ${figures.slowestHealthMs} ms`,
    ];
    return { lines, figures };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { lines } = await measure({ mb: Number(process.argv[2] ?? 1024), format: process.argv[3] ?? 'har', cli: process.argv[4] ?? OWN_CLI });
  for (const line of lines) console.log(line);
}
