// graphmind replay's bad input rows, with hand-written run logs and a real process each: a file
// that is not a run, an unknown run id, a cassette of another version, hidden values, a torn
// last line, a request id sent twice at once, a client that leaves mid-call, --on-miss hang,
// --as-sent-by-server after an inject, --match sequence.
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, waitFor } from './helpers/cli.js';
import { tempDir } from './helpers/graph.js';
import { INITIALIZE, callEvents, cleanEnv, nodeOf, replayOnce, runLog } from './helpers/replay.js';

const dir = tempDir('graphmind-replay-');
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const lines = (text: string): Array<Record<string, unknown>> => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
const request = (id: number | string, method: string, params?: unknown): string => `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
const echo = (id: string, text: string, answer = text) => callEvents(id, 'tools/call', { name: 'echo', arguments: { text } }, { content: [{ type: 'text', text: answer }] });

t.test('one line and exit 2, nothing on stdout', async (t) => {
  const rows: Array<[string, string[], RegExp]> = [
    ['not a run log', [file('notes.jsonl', 'hello\nworld\n')], /^graphmind replay: cannot replay \S+notes\.jsonl: it is not a run log .*\n$/],
    ['no such file', [join(dir, 'missing.jsonl')], /^graphmind replay: cannot replay \S+: cannot open it \(ENOENT.*\n$/],
    ['a directory', [`${dir}/`], /^graphmind replay: cannot replay \S+: it is not a regular file\n$/],
    ['an unknown run id', ['run_nope', '--port', '1', '--data-dir', dir], /^graphmind replay: no run run_nope in \S+ \(.*so the data directory was read\)\n$/],
    [
      'a cassette of another version',
      [file('future.json', JSON.stringify({ version: '2.0', metadata: {}, interactions: [] }, null, 2))],
      /^graphmind replay: cannot replay \S+future\.json: it is an mcp-recorder cassette of version "2\.0"; graphmind replay reads version 1\.x\n$/,
    ],
    [
      'tool results hidden when recorded',
      [file('hidden.jsonl', runLog('run_hidden', [...INITIALIZE, ...callEvents('mcp_3', 'tools/call', { name: 'echo', arguments: { text: 'a' } }, '[hidden]')]))],
      /^graphmind replay: cannot replay \S+hidden\.jsonl: the recording lacks the answer \(hidden by GRAPHMIND_HIDE_TOOL_RESULTS\) of 1 call .*\n$/,
    ],
    [
      'params hidden when recorded',
      [file('hidden-in.jsonl', runLog('run_hidden2', [{ type: 'instance.started', instanceId: 'mcp_3', node: nodeOf('tools/call', 'echo'), input: '[hidden]' }]))],
      /^graphmind replay: cannot replay \S+: the recording lacks the params \(hidden by GRAPHMIND_HIDE_INPUTS\) of 1 call/,
    ],
    ['a bad flag value', [file('ok.jsonl', runLog('run_ok', INITIALIZE)), '--repeat', 'sometimes'], /^graphmind replay: Invalid values:/],
  ];
  for (const [what, args, line] of rows) {
    const result = await replayOnce(args);
    t.equal(result.code, 2, `${what}: exit 2`);
    t.match(result.stderr, line, `${what}: the line`);
    t.equal(result.stdout, '', `${what}: nothing on stdout`);
  }
});

t.test('a torn last line is skipped; the rest replays', async (t) => {
  const log = runLog('run_torn', [...INITIALIZE, ...echo('mcp_3', 'a')]);
  const path = file('torn.jsonl', `${log}{"type":"instance.started","instanceId":"mcp_9","no`);
  const result = await replayOnce([path], request(1, 'tools/call', { name: 'echo', arguments: { text: 'a' } }));
  t.equal(result.code, 0);
  t.same(lines(result.stdout), [{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a' }] } }]);
});

t.test('--as-sent-by-server answers with the server’s answer where the debugger injected one', async (t) => {
  const path = file(
    'injected.jsonl',
    runLog('run_inject', [
      ...INITIALIZE,
      ...echo('mcp_3', 'a', 'server said a'),
      { type: 'hold.opened', holdId: 'h1', instanceId: 'mcp_3', nodeId: 'tool:echo', gate: 'after', method: 'tools/call', frame: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'server said a' }] } } },
      { type: 'hold.released', holdId: 'h1', action: 'inject' },
      { type: 'instance.finished', instanceId: 'mcp_3', output: { content: [{ type: 'text', text: 'injected' }] } },
    ]),
  );
  const ask = request(7, 'tools/call', { name: 'echo', arguments: { text: 'a' } });
  t.match(lines((await replayOnce([path], ask)).stdout), [{ id: 7, result: { content: [{ text: 'injected' }] } }], 'what the host received');
  t.match(lines((await replayOnce([path, '--as-sent-by-server'], ask)).stdout), [{ id: 7, result: { content: [{ text: 'server said a' }] } }], 'what the server sent');
});

t.test('--on-miss hang, a request id used twice at once, --match sequence', async (t) => {
  const path = file('two.jsonl', runLog('run_two', [...INITIALIZE, ...echo('mcp_3', 'a'), ...echo('mcp_4', 'b')]));
  const hung = await replayOnce([path, '--on-miss', 'hang'], request(1, 'tools/call', { name: 'nope' }) + request(1, 'ping') + request(2, 'ping'));
  t.same(lines(hung.stdout), [
    { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'graphmind replay: request id 1 is already used by a request not answered yet' } },
    { jsonrpc: '2.0', id: 2, result: {} },
  ], 'the miss is left unanswered; its id cannot be used again while it waits');
  const outOfOrder = await replayOnce([path, '--match', 'sequence'], request(1, 'tools/call', { name: 'echo', arguments: { text: 'b' } }) + request(2, 'tools/call', { name: 'echo', arguments: { text: 'a' } }));
  t.match(lines(outOfOrder.stdout), [
    { id: 1, error: { code: -32096, data: { nearest: { params: { arguments: { text: 'a' } } }, differences: [{ path: '$.params.arguments.text', recorded: 'a', received: 'b' }] } } },
    { id: 2, result: { content: [{ text: 'a' }] } },
  ]);
});

t.test('a client that leaves while the replay waits for its answer to a sampling request: exit 0', async (t) => {
  const path = file(
    'sampling.jsonl',
    runLog('run_sampling', [
      ...INITIALIZE,
      { type: 'instance.started', instanceId: 'mcp_3', node: nodeOf('tools/call', 'ask'), input: { name: 'ask', arguments: {} } },
      ...callEvents('mcp_4', 'sampling/createMessage', { messages: [], maxTokens: 5 }, { role: 'assistant', content: { type: 'text', text: 'x' } }),
      { type: 'instance.finished', instanceId: 'mcp_3', output: { content: [] } },
    ]),
  );
  const child = spawn(process.execPath, [CLI, 'replay', path], { env: cleanEnv(), stdio: 'pipe' });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stdin.write(request(1, 'tools/call', { name: 'ask', arguments: {} }));
  await waitFor(() => stdout.includes('sampling/createMessage'), 10_000, 'the sampling request');
  child.stdin.end();
  const [code] = (await once(child, 'close')) as [number | null];
  t.equal(code, 0);
  t.notMatch(stdout, /"id":1,/, 'the call was not answered: its sampling request never was');
});
