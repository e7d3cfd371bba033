// Exports never hold the debugger's event loop for long (issue 29), even
// on their first run:
// - OpenTelemetry is loaded a file at a time before the first OTLP export
//   (warm-require.ts): once warmed, importing the OTLP export finds every
//   CommonJS file it needs loaded already (nothing left to load at once);
// - a run's calls are written a slice at a time (RunStreamer.work): with
//   the slice used up, a line writes nothing and the streamer says it is
//   behind; each later slice writes some, until all are.
import t from 'tap';
import { createRequire } from 'node:module';
import { RunStreamer } from '../src/export/run-streamer.js';
import { harFormat } from '../src/export/har-stream.js';
import { warmRequire } from '../src/export/warm-require.js';

const RUN = 'run_warm';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);

t.test('OpenTelemetry warmed a file at a time: the OTLP export then loads nothing at once', async (t) => {
  const require = createRequire(import.meta.url);
  const files = (): number => Object.keys(require.cache).length;
  const before = files();
  let maxLag = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    maxLag = Math.max(maxLag, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await warmRequire(['@opentelemetry/api', '@opentelemetry/core', '@opentelemetry/resources', '@opentelemetry/otlp-transformer'], new URL('../src/export/export-run.ts', import.meta.url).href);
  const warmMs = performance.now() - started;
  clearInterval(timer);
  const warmed = files();
  t.ok(warmed - before > 50, `warmed ${warmed - before} files`);
  await import('../src/export/otlp-json.js');
  t.equal(files(), warmed, 'importing the OTLP export loaded no CommonJS file the warm-up had not');
  t.comment(`warm-up: ${warmed - before} files in ${Math.round(warmMs)} ms, the event loop held ${Math.round(maxLag)} ms at most`);
});

t.test('calls are written a slice at a time', async (t) => {
  const streamer = new RunStreamer(RUN, harFormat('0.0.0'), { live: false });
  let seq = 0;
  const line = (fields: Record<string, unknown>): boolean => streamer.line(Buffer.from(JSON.stringify({ runId: RUN, seq: ++seq, t: T + seq, ...fields })));
  const tool = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' };
  // The slice is used up already.
  streamer.work(performance.now() - 1);
  line({ type: 'run.started', name: 'node server.js', source: 'mcp-proxy', meta: {} });
  line({ type: 'instance.started', instanceId: 'mcp_1', node: { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.js' } });
  const calls = 200;
  const text = 'x'.repeat(64 * 1024);
  for (let n = 2; n < calls + 2; n++) {
    line({ type: 'instance.started', instanceId: `mcp_${n}`, node: tool, input: { name: 'echo' }, requestId: n });
    line({ type: 'instance.finished', instanceId: `mcp_${n}`, output: { content: [{ type: 'text', text }] } });
  }
  // The first call that could be written was (each slice writes one at least), the rest wait.
  let out = streamer.take().join('');
  t.equal(JSON.parse(`${out}]}}`).log.entries.length, 1, 'the head and one call, written');
  t.equal(streamer.behind, true, 'behind: calls wait to be written');
  t.equal(streamer.finish()?.lastSeq, seq, 'the log is read');
  let slices = 0;
  for (let more = true; more && slices <= calls; slices++) {
    // Slices of no time at all: each writes one call.
    more = streamer.work(0);
    out += streamer.take().join('');
  }
  t.equal(slices, calls - 1, 'a call a slice, the last with the end');
  t.equal(streamer.behind, false, 'nothing left');
  const har = JSON.parse(out) as { log: { entries: unknown[] } };
  t.equal(har.log.entries.length, calls, 'every call, once');
});
