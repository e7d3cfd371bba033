// Flow control through the proxy: a server that reads slowly pushes back on
// the host instead of making the proxy buffer, and a host that never reads
// the proxy's stderr cannot stall the relay.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CLI, NO_DEBUGGER, PROXY_FIXTURES, startProxy, waitFor } from './helpers/cli.js';
import { initialize, killQuietly, messagesIn, stderrMatch, toolsCall } from './helpers/wire.js';

const node = process.execPath;
const MiB = 1024 * 1024;

/** Resident set size of a process, in bytes (Linux). */
function rss(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

t.test('a slow server: every byte arrives in order and the proxy’s memory stays bounded', async (t) => {
  // An idle proxy is ~50 MiB and a busy one levels off near 100-150 MiB
  // (V8 lets garbage from parsed frames pile up before collecting it); one
  // that buffered what the server had not read yet would hold most of TOTAL.
  const TOTAL = 256 * MiB;
  const FRAME = 16 * 1024;
  const RSS_LIMIT = 180 * MiB;

  const proxy = startProxy([], [node, join(PROXY_FIXTURES, 'slow-consumer-server.mjs'), '1500']);
  const pid = proxy.child.pid as number;
  t.teardown(() => killQuietly(pid));

  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss(pid) ?? 0);
  }, 25);
  t.teardown(() => clearInterval(sampler));

  let pushed = 0;
  let pushedWhenServerStartedReading: number | undefined;
  void stderrMatch(proxy, /slow-consumer: reading\n/, 30_000).then(
    () => (pushedWhenServerStartedReading = pushed),
    () => {},
  );

  const hash = createHash('sha256');
  const filler = 'p'.repeat(FRAME);
  let id = 0;
  const started = Date.now();
  while (pushed < TOTAL) {
    id += 1;
    const head = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"ingest","arguments":{"blob":"`;
    const line = Buffer.from(`${head}${filler.slice(head.length + 6)}"}}}\n`);
    hash.update(line);
    pushed += line.length;
    if (!proxy.child.stdin.write(line)) await once(proxy.child.stdin, 'drain');
  }
  proxy.child.stdin.end();
  const { code } = await proxy.exited;
  clearInterval(sampler);
  const seconds = (Date.now() - started) / 1000;

  t.equal(code, 0, 'the server finished and exited 0');
  const report = /slow-consumer: received (\d+) bytes sha256 ([0-9a-f]{64})/.exec(proxy.stderr());
  t.ok(report, 'the server reported what it received');
  t.equal(Number(report?.[1]), pushed, `every byte arrived (${pushed} bytes in ${seconds.toFixed(1)} s)`);
  t.equal(report?.[2], hash.digest('hex'), 'in order, unchanged');

  const answers = messagesIn(proxy.stdout());
  t.equal(answers.length, id, 'every request was answered');
  t.same(answers.map((answer) => answer.id), Array.from({ length: id }, (_, i) => i + 1), 'answers in request order');

  t.ok(pushedWhenServerStartedReading !== undefined, 'the server paused, then read');
  t.ok(
    (pushedWhenServerStartedReading ?? Infinity) < 16 * MiB,
    `while the server was not reading, the host could push only ${((pushedWhenServerStartedReading ?? 0) / MiB).toFixed(1)} MiB: backpressure reached it`,
  );
  t.ok(peak > 0, 'the proxy’s memory was sampled');
  t.ok(peak < RSS_LIMIT, `the proxy’s peak RSS was ${(peak / MiB).toFixed(0)} MiB for ${(TOTAL / MiB).toFixed(0)} MiB relayed`);
});

// Node hands a child a non-blocking socket pair; a host written in Python or
// Go typically hands it a plain, blocking pipe. Neither is ever read here.
for (const kind of ['a Node pipe', 'a blocking FIFO'] as const) {
  t.test(`a host that never reads our stderr (${kind}) cannot stall the relay`, async (t) => {
    let stderr: 'pipe' | number = 'pipe';
    if (kind === 'a blocking FIFO') {
      const dir = mkdtempSync(join(tmpdir(), 'graphmind-fifo-'));
      const fifo = join(dir, 'stderr');
      execFileSync('mkfifo', [fifo]);
      // Opened read-write, so there is always a reader that never reads.
      const fd = openSync(fifo, 'r+');
      t.teardown(() => {
        closeSync(fd);
        rmSync(dir, { recursive: true, force: true });
      });
      stderr = fd;
    }
    // Not startProxy: its helper reads stderr, and this test must never do that.
    const proxy = spawn(node, [CLI, 'mcp-proxy', ...NO_DEBUGGER, '--', node, join(PROXY_FIXTURES, 'stderr-flood-server.mjs')], {
      stdio: ['pipe', 'pipe', stderr],
    }) as ChildProcessWithoutNullStreams;
    t.teardown(() => killQuietly(proxy.pid));
    const exited = once(proxy, 'exit');
    const out: Buffer[] = [];
    proxy.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    const answerTo = async (id: number): Promise<Record<string, unknown>> => {
      let found: Record<string, unknown> | undefined;
      await waitFor(() => (found = messagesIn(Buffer.concat(out)).find((m) => m.id === id)) !== undefined, 10_000, `answer ${id}`);
      return found as Record<string, unknown>;
    };

    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(proxy.pid as number) ?? 0);
    }, 25);
    t.teardown(() => clearInterval(sampler));
    const stderrWritten = (answer: Record<string, unknown>): number =>
      Number((answer as { result: { content: Array<{ text: string }> } }).result.content[0]?.text);

    proxy.stdin.write(initialize(0));
    await answerTo(0);
    const started = Date.now();
    let slowest = 0;
    let written = 0;
    for (let id = 1; id <= 200; id++) {
      const sent = Date.now();
      proxy.stdin.write(toolsCall(id, 'echo', { n: id }));
      written = stderrWritten(await answerTo(id));
      slowest = Math.max(slowest, Date.now() - sent);
      out.length = 0;
    }
    const elapsed = Date.now() - started;
    t.ok(elapsed < 20_000, `200 round trips took ${elapsed} ms`);
    t.ok(slowest < 2000, `the slowest took ${slowest} ms`);
    // Keep the session up until the flood is far larger than anything the
    // proxy could sensibly queue for a stderr nobody reads.
    for (let id = 201; written < 256 * MiB; id++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      proxy.stdin.write(toolsCall(id, 'echo', { n: id }));
      written = stderrWritten(await answerTo(id));
      out.length = 0;
    }
    clearInterval(sampler);
    t.ok(written >= 256 * MiB, `the server wrote ${(written / MiB).toFixed(0)} MiB to stderr meanwhile`);
    t.ok(peak > 0 && peak < 160 * MiB, `the proxy did not queue it: its peak RSS was ${(peak / MiB).toFixed(0)} MiB`);

    proxy.stdin.end();
    const [code] = (await exited) as [number | null];
    t.equal(code, 0, 'and the session still ends normally');
  });
}
