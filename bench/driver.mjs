// A raw JSON-RPC driver: it writes newline-delimited frames to a child's
// stdin and matches the lines on its stdout to requests by id. No MCP client
// library, so the figures are about the relay and not about a client stack.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
export const ECHO_SERVER = here('./echo-server.mjs');
const BYTE_RELAY = here('./byte-relay.mjs');
const GRAPHMIND = here('../dist/cli/graphmind.js');
const node = process.execPath;
const server = [node, ECHO_SERVER];

/** The three ways to reach the echo server. `relay` says whose RSS we sample. */
export const CONFIGS = {
  A: { label: 'A direct', argv: server, relay: false },
  B: { label: 'B byte relay', argv: [node, BYTE_RELAY, ...server], relay: true },
  C: { label: 'C graphmind mcp-proxy', argv: [node, GRAPHMIND, 'mcp-proxy', '--', ...server], relay: true, env: { GRAPHMIND_DISABLED: '' } },
  // D is C reporting to a running `graphmind serve` that records everything;
  // run.mjs starts that server and fills in its port and data directory.
  D: { label: 'D proxy + graphmind serve', argv: null, relay: true, env: null },
  // E (BENCH_RULES=1) is D reporting to a serve of its own that has five rules
  // that never match: what rules cost the relay (issue 33: within 5% of D).
  E: { label: 'E D + 5 rules', argv: null, relay: true, env: null },
};

/**
 * Five rules that never match the bench's calls (tools/call echo
 * {text:"hi"}), of the kinds people write: a tool, a method with a path, an
 * argument value of another tool, a duration, and one tool's failures at the
 * after gate (a logpoint). Each names its call first, as people write them,
 * so a call of another tool is not parsed. A rule whose JSONPath must be
 * read on every call (`tool:echo and $.params.arguments.text ~ "PAY-"`
 * here) parses each frame: BENCH_RULES_PARSE=1 puts that one in place of
 * the third, to measure it.
 */
export const NEVER_MATCHING_RULES = [
  { when: 'tool:never_called' },
  { when: 'method:resources/read and $.params.uri ~ "^file:///etc/"' },
  process.env.BENCH_RULES_PARSE === '1' ? { when: 'tool:echo and $.params.arguments.text ~ "PAY-"' } : { when: 'tool:search and $.params.arguments.q ~ "PAY-"' },
  { when: 'dur>60s', gate: 'after' },
  { when: 'tool:create_task and is:error', gate: 'after', action: 'log' },
];

/** Point configuration E at a running debugger (one with the rules). */
export function attachE(port, dataDir) {
  CONFIGS.E.argv = [node, GRAPHMIND, 'mcp-proxy', '--port', String(port), '--', ...server];
  CONFIGS.E.env = { GRAPHMIND_DATA_DIR: dataDir, GRAPHMIND_LOOP_ALLOW: 'echo' };
}

/** Set `rules` on the `graphmind serve` of `dataDir` (port `port`). */
export async function putRules(port, dataDir, rules) {
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const answer = await fetch(`http://127.0.0.1:${port}/api/breakpoints`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ pauseOnError: true, nodes: {}, rules }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!answer.ok) throw new Error(`graphmind serve: PUT /api/breakpoints answered ${answer.status}: ${await answer.text()}`);
}

/** Point configuration D at a running debugger. */
export function attachD(port, dataDir) {
  CONFIGS.D.argv = [node, GRAPHMIND, 'mcp-proxy', '--port', String(port), '--', ...server];
  // The bench calls one tool with the same arguments over and over: exactly
  // what the loop hold stops. It is polled on purpose here.
  CONFIGS.D.env = { GRAPHMIND_DATA_DIR: dataDir, GRAPHMIND_LOOP_ALLOW: 'echo' };
}

/** Start `graphmind serve` on a free port with a fresh data directory. */
export async function startServe(dataDir) {
  const child = spawn(node, [GRAPHMIND, 'serve', '--port', '0', '--data-dir', dataDir, '--max-runs', '1000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`graphmind serve exited with code ${code}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // Resolves once it has exited, so its data directory can go.
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  // Deletes every run it holds (REST API, with the token it wrote), so what one
  // run of D recorded does not weigh on the next; resolves with how many.
  const clearRuns = async () => {
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}` };
    // A debugger that hangs fails this within the bench's own patience.
    const signal = () => AbortSignal.timeout(10_000);
    const base = `http://127.0.0.1:${port}/api/runs`;
    const listed = await fetch(base, { headers, signal: signal() });
    if (!listed.ok) throw new Error(`graphmind serve: GET /api/runs answered ${listed.status}`);
    const runs = await listed.json();
    for (const run of runs) {
      const deleted = await fetch(`${base}/${encodeURIComponent(run.runId)}`, { method: 'DELETE', headers, signal: signal() });
      if (!deleted.ok) throw new Error(`graphmind serve: DELETE /api/runs/${run.runId} answered ${deleted.status}`);
    }
    return runs.length;
  };
  return { port, pid: child.pid, stop, clearRuns };
}

// Lines longer than this are not JSON-parsed by the driver: it reads the id
// from the head and checks the tail, so a 60 MiB answer costs the driver
// neither a 60 MiB concat nor a 60 MiB parse (it would mask the relay).
const PARSE_LIMIT = 64 * 1024;
const ID_AT_HEAD = /^\{"jsonrpc":"2\.0","id":(\d+),/;

/** Peak resident set (VmHWM) of a live process, in bytes. */
export function peakRss(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Nearest-rank percentile of an unsorted array. */
export function percentile(values, p) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values) {
  return percentile(values, 50);
}

/** A small `tools/call` frame, as a string with its newline. */
export function callFrame(id, args = { text: 'hi' }) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${JSON.stringify(args)}}}\n`;
}

/**
 * Start one configuration. The returned target has:
 *   expect(id) -> Promise of the reply (parsed message, or {id, bytes} for big lines)
 *   write(str) -> writes frames to the child's stdin
 *   call(args) -> expect + write with the next id
 *   nextId()   -> reserves an id
 *   close()    -> samples VmHWM, ends stdin, waits for a clean exit; resolves {peakRss}
 * Any crash, unknown id or unparseable line rejects every pending promise.
 */
export function startTarget(key) {
  const config = CONFIGS[key];
  const child = spawn(config.argv[0], config.argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...(config.env ?? {}) } });
  const pending = new Map();
  let id = 0;
  let failure = null;
  let stderr = '';
  let parts = [];
  let partBytes = 0;

  const fail = (error) => {
    if (failure) return;
    failure = new Error(`${config.label}: ${error.message}${stderr ? `\n--- stderr ---\n${stderr.slice(-2000)}` : ''}`);
    for (const { reject } of pending.values()) reject(failure);
    pending.clear();
  };
  const deliver = (replyId, value) => {
    const entry = pending.get(replyId);
    if (!entry) return fail(new Error(`reply with unexpected id ${replyId}`));
    pending.delete(replyId);
    entry.resolve(value);
  };
  const onLine = (line, bytes) => {
    if (bytes <= PARSE_LIMIT) {
      const msg = JSON.parse(line.toString('utf8'));
      if (msg.error) return fail(new Error(`error reply for id ${msg.id}: ${msg.error.message}`));
      return deliver(msg.id, msg);
    }
    const m = ID_AT_HEAD.exec(line.head);
    if (!m || !line.tailOk) return fail(new Error(`malformed ${bytes}-byte line`));
    deliver(Number(m[1]), { id: Number(m[1]), bytes });
  };

  child.stdout.on('data', (chunk) => {
    try {
      let start = 0;
      let nl = chunk.indexOf(10);
      while (nl !== -1) {
        const piece = chunk.subarray(start, nl);
        const bytes = partBytes + piece.length;
        if (partBytes === 0) {
          onLine(bytes <= PARSE_LIMIT ? piece : bigLine([piece]), bytes);
        } else {
          parts.push(piece);
          onLine(bytes <= PARSE_LIMIT ? Buffer.concat(parts) : bigLine(parts), bytes);
        }
        parts = [];
        partBytes = 0;
        start = nl + 1;
        nl = chunk.indexOf(10, start);
      }
      if (start < chunk.length) {
        // Keep the head and the last piece of a long line only; count the rest.
        const piece = chunk.subarray(start);
        if (partBytes < PARSE_LIMIT * 2 || parts.length < 2) parts.push(piece);
        else parts[parts.length - 1] = piece;
        partBytes += piece.length;
      }
    } catch (error) {
      fail(error);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    stderr = (stderr + text).slice(-8000);
  });
  child.stdin.on('error', (error) => fail(error));
  const exited = new Promise((resolve) => {
    child.on('error', (error) => fail(error));
    child.on('close', (code, signal) => {
      if (pending.size > 0) fail(new Error(`exited (code ${code}, signal ${signal}) with ${pending.size} replies missing`));
      resolve({ code, signal });
    });
  });

  const target = {
    key,
    label: config.label,
    pid: child.pid,
    isRelay: config.relay,
    nextId: () => ++id,
    expect(replyId) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => pending.set(replyId, { resolve, reject }));
    },
    write(frames) {
      if (failure) throw failure;
      child.stdin.write(frames);
    },
    call(args) {
      const n = ++id;
      const reply = target.expect(n);
      target.write(callFrame(n, args));
      return reply;
    },
    peakRss: () => peakRss(child.pid),
    kill: () => child.kill('SIGKILL'),
    async close() {
      if (failure) throw failure;
      const peak = peakRss(child.pid);
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const { code, signal } = await exited;
      clearTimeout(timer);
      if (failure) throw failure;
      if (code !== 0) throw new Error(`${config.label}: exited with code ${code}, signal ${signal}\n${stderr.slice(-2000)}`);
      return { peakRss: peak, stderr };
    },
  };
  return target;
}

/** What the driver keeps of a long line: its first bytes, whether it ends like a JSON object. */
function bigLine(parts) {
  let last = parts[parts.length - 1];
  if (last.length === 0 && parts.length > 1) last = parts[parts.length - 2];
  let head = '';
  for (const p of parts) {
    head += p.subarray(0, 256 - head.length).toString('latin1');
    if (head.length >= 256) break;
  }
  return { head, tailOk: last.length > 0 && last[last.length - 1] === 0x7d /* } */ };
}
