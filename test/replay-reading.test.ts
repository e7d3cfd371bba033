// graphmind replay of a run log file on stdio answers while it still reads the run: a
// request whose recorded call is read already is answered at once, one whose call comes
// later waits for it (and the requests after it wait behind it, so the same call asked
// twice is answered in recorded order), a miss is said once the whole run is read, and a
// client that closes its input right away still gets every answer. A run whose recording
// lacks values is still refused before anything is answered.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers/graph.js';
import { callEvents, INITIALIZE, replayOnce, runLog, type LogEvent } from './helpers/replay.js';

const CALLS = 20_000;

function bigRun(file: string, last: LogEvent[] = []): void {
  const events: LogEvent[] = [...INITIALIZE];
  for (let i = 0; i < CALLS; i++) events.push(...callEvents(`mcp_${i + 3}`, 'tools/call', { name: 'echo', arguments: { text: `m${i % 10_000}` } }, { content: [{ type: 'text', text: `answer ${i}` }] }));
  events.push(...last);
  writeFileSync(file, runLog('run_reading', events));
}

const request = (id: number, text: string): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

t.test('answered while read: later calls wait, repeats in recorded order, a miss at the end', async (t) => {
  const file = join(tempDir('graphmind-reading-'), 'run.jsonl');
  bigRun(file);
  // m9999 is recorded twice (calls 9,999 and 19,999): asked twice, the answers come in recorded order.
  const input = [request(1, 'm9999'), request(2, 'm0'), request(3, 'm9999'), request(4, 'not recorded'), request(5, 'm1')].join('\n');
  const out = await replayOnce([file], `${input}\n`);
  t.equal(out.code, 0, `exit 0 (${out.stderr.trim()})`);
  const answers = out.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; result?: { content: Array<{ text: string }> }; error?: { code: number; message: string } });
  t.same(answers.map((answer) => answer.id), [1, 2, 3, 4, 5], 'every request answered, in the order asked (those after a waiting one wait behind it)');
  t.same(answers.slice(0, 3).map((answer) => answer.result?.content[0]?.text), ['answer 9999', 'answer 0', 'answer 19999'], 'the same call asked twice: its recorded answers in order');
  t.match(answers[3]?.error, { code: -32096, message: 'graphmind replay: no recorded answer for tools/call echo' }, 'a miss, said once the whole run is read');
  t.equal(answers[4]?.result?.content[0]?.text, 'answer 1');
  t.match(out.stderr, /graphmind replay: replaying \S+run\.jsonl \(20001 recorded requests\) on stdio/, 'the line says what is replayed, once it is read');
});

t.test('a run whose recording lacks values is refused before anything is answered', async (t) => {
  const file = join(tempDir('graphmind-reading-'), 'hidden.jsonl');
  bigRun(file, callEvents('mcp_last', 'tools/call', { name: 'echo', arguments: { text: 'x' } }, '[hidden]'));
  const out = await replayOnce([file], `${request(1, 'm0')}\n`);
  t.equal(out.code, 2);
  t.equal(out.stdout, '', 'nothing answered');
  t.match(out.stderr, /graphmind replay: cannot replay \S+hidden\.jsonl: the recording lacks the answer \(hidden by GRAPHMIND_HIDE_TOOL_RESULTS\) of 1 call/);
});
