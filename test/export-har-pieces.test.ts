// The streamed HAR export writes each entry's two bodies (the request and
// the answer) as pieces of their own, around the rest of the entry made
// with stand-ins (har-stream.ts). A playbook of calls whose recorded
// values hold what could confuse that (the stand-ins' own text, quotes,
// newlines, NULs, deep values, no answer, errors), each run exported by
// the stream and compared, byte for byte, with the whole HAR text
// (`JSON.stringify(runHar(…), null, 2)`), and parsed back.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { exportRun } from '../src/export/export-run.js';
import { runHar, type Har } from '../src/export/har.js';
import { replayLogFile, traceRunOf } from '../src/export/log-replay.js';

const RUN = 'run_har_pieces';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);
const SESSION = { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.js' } as const;
const TOOL = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' } as const;
const POST_MARK = '\u0000graphmind:request-body';
const ANSWER_MARK = '\u0000graphmind:answer-body';

/** One call: its input, and how it ended (an output, an error, or not at all). */
interface Call {
  name: string;
  input?: unknown;
  output?: unknown;
  error?: Record<string, unknown>;
  open?: boolean;
}

const PLAYBOOK: Call[] = [
  { name: 'plain', input: { name: 'echo', arguments: { text: 'hi' } }, output: { content: [{ type: 'text', text: 'hi' }] } },
  { name: 'the request stand-in in the answer', input: { name: 'echo' }, output: { text: POST_MARK } },
  { name: 'the answer stand-in in the request', input: { name: 'echo', arguments: { text: ANSWER_MARK } }, output: { ok: true } },
  { name: 'both stand-ins, twice', input: { a: POST_MARK, b: ANSWER_MARK }, output: { a: ANSWER_MARK, b: POST_MARK } },
  { name: 'the stand-in in an error', input: { name: 'echo' }, error: { name: 'Error', message: ANSWER_MARK, code: -32000, data: POST_MARK } },
  { name: 'quotes, newlines, NULs, unicode', input: { text: 'a "b"\n\\c\u0000 é \u2028' }, output: { text: '"\n\n  }\r\t\u0001 😀' } },
  { name: 'deep', input: { deep: JSON.parse('['.repeat(300) + ']'.repeat(300)) as unknown }, output: { deep: JSON.parse('{"a":'.repeat(300) + '1' + '}'.repeat(300)) as unknown } },
  { name: 'no input, big answer', output: { content: [{ type: 'text', text: 'x'.repeat(300_000) }] } },
  { name: 'never answered', input: { name: 'echo' }, open: true },
];

/** The log of a run holding the playbook's calls (the open ones as the run ends). */
function logOf(calls: readonly Call[]): string {
  let seq = 0;
  const lines: string[] = [];
  const event = (fields: Record<string, unknown>): void => {
    seq++;
    lines.push(JSON.stringify({ runId: RUN, seq, t: T + seq, ...fields }));
  };
  event({ type: 'run.started', name: 'node server.js', source: 'mcp-proxy', meta: {} });
  event({ type: 'instance.started', instanceId: 'mcp_1', node: SESSION });
  calls.forEach((call, i) => {
    const instanceId = `mcp_${i + 2}`;
    event({ type: 'instance.started', instanceId, node: TOOL, requestId: i + 2, ...(call.input === undefined ? {} : { input: call.input }) });
    if (call.error !== undefined) event({ type: 'instance.failed', instanceId, error: call.error });
    else if (call.open !== true) event({ type: 'instance.finished', instanceId, ...(call.output === undefined ? {} : { output: call.output }) });
  });
  event({ type: 'instance.finished', instanceId: 'mcp_1' });
  event({ type: 'run.finished', status: 'ok' });
  return `${lines.join('\n')}\n`;
}

/** The run exported by the stream, as text. */
async function streamed(file: string): Promise<string> {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  const exported = await exportRun(file, RUN, 'har', { stream }, { version: '0.0.0' });
  if (!('contentType' in exported)) throw new Error(exported.reason);
  return Buffer.concat(chunks).toString('utf8');
}

/** The run as the whole HAR text. */
function whole(file: string): string {
  const read = replayLogFile(file, RUN);
  if (!read.ok) throw new Error(read.reason);
  const state = read.replay.finish();
  if (state === undefined) throw new Error('no run');
  return `${JSON.stringify(runHar(traceRunOf(state), read.replay.facts, { version: '0.0.0', now: state.lastT }), null, 2)}\n`;
}

const dir = mkdtempSync(join(tmpdir(), 'graphmind-har-pieces-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

for (const call of PLAYBOOK) {
  t.test(call.name, async (t) => {
    const file = join(dir, `${RUN}.jsonl`);
    writeFileSync(file, logOf([call]));
    const text = await streamed(file);
    t.equal(text, whole(file), 'the same text as the whole export');
    const har = JSON.parse(text) as Har;
    t.equal(har.log.entries.length, 1, 'one entry');
  });
}

t.test('every call of the playbook in one run', async (t) => {
  const file = join(dir, `${RUN}.jsonl`);
  writeFileSync(file, logOf(PLAYBOOK));
  const text = await streamed(file);
  t.equal(text, whole(file), 'the same text as the whole export');
  const har = JSON.parse(text) as Har;
  t.equal(har.log.entries.length, PLAYBOOK.length, 'an entry per call');
  t.same(
    har.log.entries.map((entry) => JSON.parse(entry.request.postData.text) as unknown),
    PLAYBOOK.map((call, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', ...(call.input === undefined ? {} : { params: call.input }) })),
    'each request as recorded',
  );
});
