// graphmind http-proxy against a direct connection, side by side in one
// run: a real MCP SDK 1.x Streamable HTTP server (test/fixtures/http/
// sdk-server.mjs, stateful, JSON answers), reached directly (direct), through
// `graphmind http-proxy` with no debugger (proxy), and through it reporting
// every message to the bench's graphmind serve (recording). The client is a
// lean keep-alive node:http driver sending `tools/call echo` (its argument
// changing from call to call) after the MCP handshake, so what is timed is the HTTP hop, not an SDK client.
//
// sequential: one call at a time, the latency of each (p50, p99);
// concurrent: CONCURRENCY calls in flight, calls/s over the run.
// The configurations take turns, round after round, each with fresh
// processes, so a drifting machine hurts all alike.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

export const name = 'http';
const SERVER = fileURLToPath(new URL('../../test/fixtures/http/sdk-server.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../dist/cli/graphmind.js', import.meta.url));
/** The configurations, in the order each round runs them. */
export const MODES = ['direct', 'node-proxy', 'proxy', 'recording'];

/**
 * The floor: the least a reverse proxy written on node:http costs (keep-alive
 * upstream, bodies buffered, nothing read), what any Node proxy would add.
 */
const NODE_PROXY = `
import { Agent, createServer, request } from 'node:http';
const up = new URL(process.argv[1]);
const agent = new Agent({ keepAlive: true });
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = { ...req.headers, host: up.host, 'content-length': body.length };
    delete headers.connection;
    request({ hostname: up.hostname, port: up.port, path: up.pathname, method: req.method, headers, agent }, (u) => {
      const out = [];
      u.on('data', (c) => out.push(c));
      u.on('end', () => {
        const b = Buffer.concat(out);
        const h = { ...u.headers, 'content-length': b.length };
        delete h['transfer-encoding'];
        delete h.connection;
        delete h['keep-alive'];
        res.writeHead(u.statusCode, h).end(b);
      });
    }).end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.error('point your MCP host at http://127.0.0.1:' + server.address().port + '/mcp'));
`;
const CONCURRENCY = 16;

function startChild(args, env, pattern) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let text = '';
    const look = (chunk) => {
      text += chunk;
      const match = pattern.exec(text);
      if (match) resolve({ child, url: match[1] });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with code ${code}: ${text}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A keep-alive JSON-RPC driver for one MCP session. */
class Driver {
  constructor(url) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    this.session = undefined;
    this.id = 0;
  }

  post(body) {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) };
    if (this.session) {
      headers['mcp-session-id'] = this.session;
      headers['mcp-protocol-version'] = '2025-06-18';
    }
    return new Promise((resolve, reject) => {
      const req = request(this.url, { method: 'POST', headers, agent: this.agent }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, session: res.headers['mcp-session-id'], body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  async handshake() {
    const init = await this.post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }));
    if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status} ${init.body}`);
    this.session = init.session;
    await this.post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  }

  async call() {
    const id = ++this.id;
    // Arguments differ from call to call, as an agent's do (the same call three times in a row is a loop the debugger holds).
    const answer = await this.post(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi ${id}"}}}`);
    if (answer.status !== 200 || !answer.body.includes(`"id":${id}`) || !answer.body.includes(`echo hi ${id}`)) throw new Error(`call ${id}: HTTP ${answer.status} ${answer.body}`);
  }

  close() {
    this.agent.destroy();
  }
}

/** Sequential latencies (ms) of `calls` calls, after `warmup`. */
async function sequential(driver, calls, warmup) {
  for (let i = 0; i < warmup; i++) await driver.call();
  const latencies = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await driver.call();
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return latencies;
}

/** Calls/s with CONCURRENCY calls in flight, `calls` in all. */
async function concurrent(driver, calls) {
  let left = calls;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await driver.call();
    }),
  );
  return calls / (Number(process.hrtime.bigint() - start) / 1e9);
}

/**
 * One configuration, once: fresh processes, the handshake, the sequential
 * run, the concurrent run. `recordingEnv` points the proxy at the bench's
 * graphmind serve.
 */
async function runOnce(mode, options, recordingEnv) {
  const server = await startChild([SERVER, '--sdk', '1', '--mode', 'stateful', '--response', 'json'], {}, /^listening (\S+)$/m);
  let proxy;
  try {
    let url = server.url;
    if (mode === 'node-proxy') {
      proxy = await startChild(['--input-type=module', '-e', NODE_PROXY, server.url], {}, /point your MCP host at (\S+)/);
      url = proxy.url;
    } else if (mode !== 'direct') {
      const env = mode === 'recording' ? recordingEnv : { GRAPHMIND_URL: 'ws://127.0.0.1:1/ingest' };
      proxy = await startChild([CLI, 'http-proxy', '--upstream', server.url, '--listen', '127.0.0.1:0', ...(mode === 'recording' ? ['--wait-for-attach'] : [])], env, /point your MCP host at (\S+)/);
      url = proxy.url;
    }
    const driver = new Driver(url);
    try {
      await driver.handshake();
      const latencies = await sequential(driver, options.calls, options.warmup);
      await concurrent(driver, Math.min(options.concurrent, 2 * CONCURRENCY * 10));
      const callsPerSec = await concurrent(driver, options.concurrent);
      return { latencies, callsPerSec };
    } finally {
      driver.close();
    }
  } finally {
    if (proxy) await stop(proxy.child);
    await stop(server.child);
  }
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function median(values) {
  return percentile(values, 50);
}

/**
 * The whole figure: `rounds` rounds of every configuration, then the table
 * and the goals. `log` shows progress; `afterRecording` clears what the
 * recording runs recorded. Resolves with { lines, goals, figures }.
 */
export async function measure({ rounds, quick, log, recordingEnv, afterRecording }) {
  const options = quick ? { calls: 300, warmup: 100, concurrent: 1000 } : { calls: 3000, warmup: 500, concurrent: 10000 };
  const raw = Object.fromEntries(MODES.map((mode) => [mode, { latencies: [], callsPerSec: [] }]));
  for (let round = 1; round <= rounds; round++) {
    for (const mode of MODES) {
      log(`round ${round}/${rounds}  ${name.padEnd(10)} ${mode}`);
      const result = await runOnce(mode, options, recordingEnv);
      raw[mode].latencies.push(...result.latencies);
      raw[mode].callsPerSec.push(result.callsPerSec);
      if (mode === 'recording') await afterRecording();
    }
  }
  const fig = Object.fromEntries(
    MODES.map((mode) => [mode, { p50us: percentile(raw[mode].latencies, 50) * 1000, p99us: percentile(raw[mode].latencies, 99) * 1000, callsPerSec: median(raw[mode].callsPerSec) }]),
  );
  const added = (mode) => fig[mode].p50us - fig.direct.p50us;
  const ratio = (mode) => fig[mode].callsPerSec / fig.direct.callsPerSec;
  const goals = [
    { goal: 'http-proxy: sequential p50 added <= 300 µs', ok: added('proxy') <= 300, shown: `${Math.round(added('proxy'))} µs`, value: added('proxy') },
    { goal: 'http-proxy: concurrent calls/s >= 0.7x direct', ok: ratio('proxy') >= 0.7, shown: `${ratio('proxy').toFixed(2)}x`, value: ratio('proxy') },
  ];
  const f0 = (v) => Math.round(v).toLocaleString('en-US');
  const head = ['config', 'p50 µs', 'p99 µs', `calls/s (${CONCURRENCY} in flight)`, 'p50 added', 'calls/s vs direct'];
  const rows = MODES.map((mode) => [mode, f0(fig[mode].p50us), f0(fig[mode].p99us), f0(fig[mode].callsPerSec), mode === 'direct' ? '' : `+${f0(added(mode))} µs`, mode === 'direct' ? '' : `${ratio(mode).toFixed(2)}x`]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const lines = [
    `SDK 1.x Streamable HTTP server (stateful, JSON answers), tools/call echo over keep-alive HTTP/1.1: sequential ${options.calls} calls/run after ${options.warmup} of warm-up (latency percentiles pool every round); concurrent ${options.concurrent} calls/run (median round).`,
    'node-proxy = the least a node:http reverse proxy costs (bodies buffered, nothing read): the floor; proxy = graphmind http-proxy, no debugger; recording = it reporting to a running graphmind serve.',
    line(head),
    ...rows.map(line),
  ];
  return { lines, goals, figures: fig };
}
