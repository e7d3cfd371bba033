// `graphmind mcp` over a long history (issue 29): the first find_problems of a fresh
// `graphmind mcp` with 10,000 small runs on disk, read from the data directory (no debugger)
// and asked of a running `graphmind serve` that has loaded them; and a second call, for what
// the summaries kept between calls save. Each round is a fresh `graphmind mcp` process under
// a real SDK client over stdio; medians over the rounds. The goal: the first call within 2 s.
//
//   node bench/mcp.mjs            on its own (after npm run build)
//   BENCH_ONLY=mcp node bench/run.mjs   from the bench
//   BENCH_MCP_RUNS=n              runs on disk (default 10000)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const GRAPHMIND = fileURLToPath(new URL('../dist/cli/graphmind.js', import.meta.url));
const RUNS = Number(process.env.BENCH_MCP_RUNS ?? 10_000);
const GOAL_MS = 2_000;
/** A port where no debugger listens: `graphmind mcp` reads the data directory. */
const NO_DEBUGGER_PORT = 1;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const log = (text) => process.stderr.write(`${text}\n`);

/** `count` small runs in `<dataDir>/runs`, a second apart, as the server writes them: a proxy session each, every tenth an adapter run on one line, a few failing. */
export function writeRuns(dataDir, count) {
  const dir = join(dataDir, 'runs');
  mkdirSync(dir, { recursive: true });
  const first = Date.parse('2026-04-01T00:00:00.000Z');
  const session = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.js' };
  const echo = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' };
  for (let i = 0; i < count; i++) {
    const runId = `run_${i.toString(36)}_bench`;
    let t = first + i * 1000;
    if (i % 10 === 3) {
      const error = i % 20 === 3 ? { error: { name: 'ToolError', message: 'echo failed' } } : {};
      const line = { type: 'run.completed', runId, seq: 1, t, endT: t + 3, name: 'tools/call:echo', source: 'mcp-adapter', meta: {}, root: { instanceId: 'mcp_1', node: session }, instanceId: 'mcp_2', node: echo, input: { name: 'echo' }, output: { content: [] }, ...error };
      writeFileSync(join(dir, `${runId}.jsonl`), `${JSON.stringify(line)}\n`);
      continue;
    }
    let seq = 0;
    const event = (fields) => JSON.stringify({ ...fields, runId, seq: ++seq, t: t++ });
    const lines = [
      event({ type: 'run.started', name: `node server.js ${i}`, source: 'mcp-proxy', meta: { command: 'node' } }),
      event({ type: 'instance.started', instanceId: 'mcp_1', node: session, input: { command: 'node' } }),
      event({ type: 'instance.completed', instanceId: 'mcp_2', node: echo, input: { name: 'echo', arguments: { text: 'hi' } }, output: { content: [{ type: 'text', text: 'hi' }] }, endT: t + 1 }),
      event({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'server: ready' }),
    ];
    if (i % 7 === 0) {
      lines.push(event({ type: 'instance.started', instanceId: 'mcp_3', node: { ...echo, nodeId: 'tool:fail', label: 'fail' }, input: { name: 'fail' } }));
      lines.push(event({ type: 'instance.error', instanceId: 'mcp_3', error: { name: 'JsonRpcError', message: 'bad params', code: -32602 } }));
    }
    lines.push(event({ type: 'instance.finished', instanceId: 'mcp_1' }), event({ type: 'run.finished', status: 'ok' }));
    writeFileSync(join(dir, `${runId}.jsonl`), `${lines.join('\n')}\n`);
  }
}

/** A fresh `graphmind mcp` under an SDK client: ms to connect, to the first find_problems and to a second. */
async function oneSession(dataDir, port) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [GRAPHMIND, 'mcp', '--port', String(port), '--data-dir', dataDir], stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '0' });
  let at = performance.now();
  await client.connect(transport);
  const connectMs = performance.now() - at;
  const call = async () => {
    at = performance.now();
    const result = await client.callTool({ name: 'find_problems', arguments: {} }, undefined, { timeout: 300_000 });
    if (result.isError) throw new Error(`find_problems failed: ${result.content?.[0]?.text}`);
    return { ms: performance.now() - at, from: result.structuredContent.from };
  };
  const firstCall = await call();
  const second = await call();
  await client.close();
  return { connectMs, firstMs: firstCall.ms, secondMs: second.ms, from: firstCall.from };
}

/** `graphmind serve` on `dataDir`, resolved once it lists every run. */
async function startServe(dataDir) {
  const child = spawn(process.execPath, [GRAPHMIND, 'serve', '--port', '0', '--data-dir', dataDir, '--max-runs', String(RUNS * 2), '--pause-on-error', 'off'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`graphmind serve exited with code ${code}`)));
  });
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const began = Date.now();
  for (;;) {
    const answer = await fetch(`http://127.0.0.1:${port}/api/runs`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(120_000) }).catch(() => undefined);
    if (answer?.ok && (await answer.json()).length === RUNS) break;
    if (Date.now() - began > 300_000) throw new Error(`graphmind serve did not list ${RUNS} runs within 300 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, loadMs: Date.now() - began, stop: () => (child.kill('SIGTERM'), exited) };
}

/** The figures, `rounds` fresh sessions per reader; printed, and written to bench/mcp-results.json. */
export async function measure({ rounds = 3 } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'graphmind-bench-mcp-'));
  const dataDir = join(root, 'data');
  try {
    let at = performance.now();
    writeRuns(dataDir, RUNS);
    log(`mcp bench: ${RUNS} runs written in ${Math.round(performance.now() - at)} ms`);
    const rows = { 'data-dir': [], debugger: [] };
    for (let round = 1; round <= rounds; round++) {
      rows['data-dir'].push(await oneSession(dataDir, NO_DEBUGGER_PORT));
      log(`round ${round}/${rounds}  data directory: first find_problems ${Math.round(rows['data-dir'].at(-1).firstMs)} ms`);
    }
    at = performance.now();
    const serve = await startServe(dataDir);
    log(`mcp bench: graphmind serve listed ${RUNS} runs ${serve.loadMs} ms after it listened`);
    try {
      for (let round = 1; round <= rounds; round++) {
        rows.debugger.push(await oneSession(dataDir, serve.port));
        log(`round ${round}/${rounds}  running debugger: first find_problems ${Math.round(rows.debugger.at(-1).firstMs)} ms`);
      }
    } finally {
      await serve.stop();
    }
    const figures = {};
    const out = [`graphmind mcp find_problems bench — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, ${RUNS} runs on disk, ${rounds} fresh session(s) per reader, medians`];
    for (const [reader, list] of Object.entries(rows)) {
      if (list.some((row) => row.from !== reader)) throw new Error(`a ${reader} session was answered from elsewhere`);
      const f = { connectMs: median(list.map((r) => r.connectMs)), firstMs: median(list.map((r) => r.firstMs)), secondMs: median(list.map((r) => r.secondMs)) };
      figures[reader] = f;
      const ok = f.firstMs < GOAL_MS;
      out.push(`${ok ? 'PASS' : 'MISS'}  ${(reader === 'data-dir' ? 'from the data directory' : 'from a running debugger').padEnd(24)} first find_problems ${Math.round(f.firstMs)} ms (goal < ${GOAL_MS} ms), second ${Math.round(f.secondMs)} ms, connect ${Math.round(f.connectMs)} ms`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
    const file = fileURLToPath(new URL('./mcp-results.json', import.meta.url));
    writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: cpus().length, runs: RUNS, rounds, goalMs: GOAL_MS, figures, perRound: rows }, null, 2)}\n`);
    return figures;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await measure({ rounds: Number(process.env.BENCH_ROUNDS ?? 3) });
}
