// Playbooks for Send again's pure rules: which recorded call can be sent
// (callToSend, hostRequestMethod), the request line the proxy writes
// (sentRequestLine), the server's `send` message as a reporter reads it,
// and Copy as command (callCommands): each line read back by a real POSIX
// shell gives the words meant, and the Inspector's CLI run from a line
// makes the call.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { callCommands, inspectorFlags } from '../src/protocol/call-command.js';
import { callToSend, hostRequestMethod, isRefusal, type SendQuestion } from '../src/protocol/send-call.js';
import { readServerMessage } from '../src/report/server-message.js';
import { SENT_ID_PREFIX, sentRequestLine, withoutProgressToken } from '../src/proxy/send-again.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The words a POSIX shell makes of `line` (each printed NUL-terminated by a function the line calls). */
async function shellWords(line: string): Promise<string[]> {
  const script = `npx() { for word in "$@"; do printf '%s\\0' "$word"; done; }; graphmind() { printf '%s\\0' graphmind "$@"; }; ${line}`;
  const { stdout } = await run('/bin/sh', ['-c', script]);
  return stdout.split('\0').slice(0, -1);
}

t.test('hostRequestMethod: the method of the host request a node records', async (t) => {
  const table: Array<[string, string, string | undefined]> = [
    ['tool:greet', 'tool', 'tools/call'],
    ['resource:file:///a.md', 'resource', 'resources/read'],
    ['prompt:review', 'prompt', 'prompts/get'],
    ['mcp:tools/list', 'custom', 'tools/list'],
    ['mcp:completion/complete', 'custom', 'completion/complete'],
    ['mcp:ping', 'custom', 'ping'],
    ['mcp:initialize', 'custom', 'initialize'],
    ['mcp:session', 'server', undefined],
    ['mcp:protocol', 'custom', undefined],
    ['mcp:stdout-noise', 'custom', undefined],
    ['mcp:notifications/initialized', 'custom', undefined],
    ['mcp:roots/list', 'custom', undefined],
    ['mcp:sampling/createMessage', 'custom', undefined],
    ['llm:sampling', 'llm', undefined],
    ['mcp:elicitation/create', 'custom', undefined],
    ['step:fetch', 'custom', undefined],
  ];
  for (const [nodeId, kind, method] of table) t.equal(hostRequestMethod({ nodeId, kind: kind as 'tool', label: nodeId.replace(/^\w+:/, '') }), method, nodeId);
});

t.test('callToSend: a live proxy run, a request of the host, its params', async (t) => {
  const live = { status: 'running', source: 'mcp-proxy' } as const;
  const tool = { nodeId: 'tool:greet', kind: 'tool', label: 'greet' } as const;
  const recorded = { input: { name: 'greet', arguments: { name: 'x' } } };
  const table: Array<[string, SendQuestion, string | { method: string; params: unknown }]> = [
    ['as recorded', { summary: live, instance: recorded, node: tool }, { method: 'tools/call', params: recorded.input }],
    ['edited', { summary: live, instance: recorded, node: tool, edited: { params: { name: 'greet', arguments: { name: 'y' } } } }, { method: 'tools/call', params: { name: 'greet', arguments: { name: 'y' } } }],
    ['edited to none', { summary: live, instance: recorded, node: { nodeId: 'mcp:tools/list', kind: 'custom', label: 'tools/list' }, edited: { params: undefined } }, { method: 'tools/list', params: undefined }],
    ['no params recorded', { summary: live, instance: {}, node: { nodeId: 'mcp:tools/list', kind: 'custom', label: 'tools/list' } }, { method: 'tools/list', params: undefined }],
    ['unknown call', { summary: live, instance: undefined, node: undefined }, 'unknown_call'],
    ['ended run', { summary: { status: 'ok', source: 'mcp-proxy' }, instance: recorded, node: tool }, 'run_not_live'],
    ['failed run', { summary: { status: 'error', source: 'mcp-proxy' }, instance: recorded, node: tool }, 'run_not_live'],
    ['proxy gone', { summary: live, instance: recorded, node: tool, connected: false }, 'run_not_live'],
    ['http-proxy', { summary: { status: 'running', source: 'mcp-http-proxy' }, instance: recorded, node: tool }, { method: 'tools/call', params: recorded.input }],
    ['http-proxy, ended', { summary: { status: 'ok', source: 'mcp-http-proxy' }, instance: recorded, node: tool }, 'run_not_live'],
    ['adapter', { summary: { status: 'running', source: 'mcp-adapter' }, instance: recorded, node: tool }, 'not_supported'],
    ['notification', { summary: live, instance: {}, node: { nodeId: 'mcp:notifications/initialized', kind: 'custom', label: 'notifications/initialized' } }, 'not_a_request'],
    ['session', { summary: live, instance: {}, node: { nodeId: 'mcp:session', kind: 'server', label: 'session' } }, 'not_a_request'],
    ['initialize', { summary: live, instance: {}, node: { nodeId: 'mcp:initialize', kind: 'custom', label: 'initialize' } }, 'handshake'],
    ['hidden input', { summary: live, instance: { input: '[hidden]' }, node: tool }, 'input_not_recorded'],
    ['too large', { summary: live, instance: { input: { '[graphmind]': 'not recorded: the frame is larger than 1 MiB', bytes: 2e6 } }, node: tool }, 'input_not_recorded'],
    ['hidden, edited', { summary: live, instance: { input: '[hidden]' }, node: tool, edited: { params: { name: 'greet' } } }, { method: 'tools/call', params: { name: 'greet' } }],
    ['edited to a string', { summary: live, instance: recorded, node: tool, edited: { params: 'x' } }, 'bad_params'],
    ['edited to null', { summary: live, instance: recorded, node: tool, edited: { params: null } }, 'bad_params'],
    ['edited to an array', { summary: live, instance: recorded, node: tool, edited: { params: [1] } }, { method: 'tools/call', params: [1] }],
  ];
  for (const [what, question, expected] of table) {
    const outcome = callToSend(question);
    if (typeof expected === 'string') {
      t.ok(isRefusal(outcome), `${what}: refused`);
      if (isRefusal(outcome)) {
        t.equal(outcome.code, expected, `${what}: ${expected}`);
        t.match(outcome.error, /^\S.*\S$/, `${what}: one line`);
      }
    } else t.strictSame(outcome, expected, what);
  }
});

t.test('sentRequestLine: its own id, the params as given, no progress token of the host', async (t) => {
  t.equal(sentRequestLine('graphmind-send-ab-1', 'tools/call', { name: 'x' }).toString(), '{"jsonrpc":"2.0","id":"graphmind-send-ab-1","method":"tools/call","params":{"name":"x"}}\n');
  t.equal(sentRequestLine('i', 'tools/list', undefined).toString(), '{"jsonrpc":"2.0","id":"i","method":"tools/list"}\n', 'no params');
  const table: Array<[unknown, unknown]> = [
    [{ name: 'x', _meta: { progressToken: 7 } }, { name: 'x' }],
    [{ name: 'x', _meta: { progressToken: 7, traceparent: 't' } }, { name: 'x', _meta: { traceparent: 't' } }],
    [{ name: 'x', _meta: { traceparent: 't' } }, { name: 'x', _meta: { traceparent: 't' } }],
    [[1, 2], [1, 2]],
    [undefined, undefined],
  ];
  for (const [params, expected] of table) t.strictSame(withoutProgressToken(params), expected, JSON.stringify(params));
  t.equal(SENT_ID_PREFIX, 'graphmind-send-');
});

t.test("the server's send message, as a reporter reads it", async (t) => {
  const good = { type: 'send', runId: 'run_1', instanceId: 'mcp_3', method: 'tools/call', params: { name: 'x' }, by: 'viewer' };
  t.strictSame(readServerMessage(JSON.stringify(good)), { type: 'send', send: { runId: 'run_1', instanceId: 'mcp_3', method: 'tools/call', params: { name: 'x' }, by: 'viewer' } });
  const { params: _params, ...none } = good;
  t.strictSame(readServerMessage(JSON.stringify(none)), { type: 'send', send: { runId: 'run_1', instanceId: 'mcp_3', method: 'tools/call', params: undefined, by: 'viewer' } }, 'no params');
  const bad: Array<[string, Record<string, unknown>]> = [
    ['no run', { ...good, runId: undefined }],
    ['an empty method', { ...good, method: '' }],
    ['a number for by', { ...good, by: 3 }],
    ['a by too long', { ...good, by: 'x'.repeat(65) }],
    ['string params', { ...good, params: 'x' }],
    ['null params', { ...good, params: null }],
  ];
  for (const [what, message] of bad) t.equal(readServerMessage(JSON.stringify(message)), undefined, what);
});

t.test('inspectorFlags: what the Inspector CLI can say exactly', async (t) => {
  const table: Array<[string, unknown, string[] | undefined]> = [
    ['tools/call', { name: 'greet', arguments: { name: 'x' } }, ['--method', 'tools/call', '--tool-name', 'greet', '--tool-arg', 'name=x']],
    ['tools/call', { name: 'greet' }, ['--method', 'tools/call', '--tool-name', 'greet']],
    ['tools/call', { name: 'greet', arguments: {}, _meta: { progressToken: 1 } }, ['--method', 'tools/call', '--tool-name', 'greet']],
    // A value the Inspector would read as JSON (42 as a number), an empty one, a key with '=': the exact JSON form.
    ['tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, ['--method', 'tools/call', '--tool-name', 'add', '--tool-args-json', '{"a":1,"b":2}']],
    ['tools/call', { name: 'n', arguments: { id: '42' } }, ['--method', 'tools/call', '--tool-name', 'n', '--tool-args-json', '{"id":"42"}']],
    ['tools/call', { name: 'n', arguments: { q: '' } }, ['--method', 'tools/call', '--tool-name', 'n', '--tool-args-json', '{"q":""}']],
    ['tools/call', { name: 'n', arguments: { 'a=b': 'c' } }, ['--method', 'tools/call', '--tool-name', 'n', '--tool-args-json', '{"a=b":"c"}']],
    ['tools/call', { name: 'n', arguments: { q: 'a=b' } }, ['--method', 'tools/call', '--tool-name', 'n', '--tool-arg', 'q=a=b']],
    ['tools/call', { name: 'n', task: {} }, undefined],
    ['tools/call', { arguments: {} }, undefined],
    ['resources/read', { uri: 'file:///a b.md' }, ['--method', 'resources/read', '--uri', 'file:///a b.md']],
    ['prompts/get', { name: 'review', arguments: { code: 'x()' } }, ['--method', 'prompts/get', '--prompt-name', 'review', '--prompt-args', 'code=x()']],
    ['prompts/get', { name: 'review', arguments: { n: '3' } }, undefined],
    ['tools/list', undefined, ['--method', 'tools/list']],
    ['tools/list', { cursor: 'c' }, undefined],
    ['logging/setLevel', { level: 'debug' }, ['--method', 'logging/setLevel', '--log-level', 'debug']],
    ['ping', undefined, undefined],
    ['completion/complete', { ref: {}, argument: {} }, undefined],
  ];
  for (const [method, params, expected] of table) t.strictSame(inspectorFlags(method, params), expected, `${method} ${JSON.stringify(params)}`);
});

t.test('callCommands: lines a POSIX shell reads back as the words meant', async (t) => {
  const server = { command: 'node', args: ['/srv/my server/index.js', "it's", '$HOME', '`x`', 'a\nb'], cwd: '/work/a b' };
  const lines = callCommands({ runId: 'run_1', method: 'tools/call', params: { name: 'greet', arguments: { name: "O'Brien $(rm -rf /) `x` \"q\"" } }, server });
  const flags = ['--method', 'tools/call', '--tool-name', 'greet', '--tool-arg', "name=O'Brien $(rm -rf /) `x` \"q\""];
  t.strictSame(await shellWords(lines.inspector as string), ['@modelcontextprotocol/inspector', '--cli', 'node', ...server.args, ...flags, '--cwd', '/work/a b'], 'the Inspector line against the server');
  t.strictSame(await shellWords(lines.replayCall as string), ['@modelcontextprotocol/inspector', '--cli', 'graphmind', 'replay', 'run_1', ...flags], 'the Inspector line against the replay');
  t.strictSame(await shellWords(lines.replay), ['graphmind', 'replay', 'run_1']);
  t.equal(lines.why, undefined);
  t.equal(callCommands({ runId: 'run_1', method: 'tools/call', params: { name: 'greet', arguments: { name: 'x' } }, server: { command: 'node', args: ['s.js'] } }).inspector, 'npx @modelcontextprotocol/inspector --cli node s.js --method tools/call --tool-name greet --tool-arg name=x', 'plain words stay plain');

  const noServer = callCommands({ runId: 'run_1', method: 'tools/list', params: undefined });
  t.equal(noServer.inspector, undefined, 'no command line recorded: no line against the server');
  t.equal(noServer.replayCall, 'npx @modelcontextprotocol/inspector --cli graphmind replay run_1 --method tools/list');
  t.match(noServer.why, /command line/);
  const unsaid = callCommands({ runId: 'run_1', method: 'ping', params: undefined, server });
  t.equal(unsaid.inspector, undefined);
  t.equal(unsaid.replayCall, undefined);
  t.equal(unsaid.replay, 'graphmind replay run_1');
  t.match(unsaid.why, /ping/);
});

t.test("the Inspector's CLI, run from a line, makes the call", async (t) => {
  const lines = callCommands({
    runId: 'run_1',
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: "it's $HOME `x`" } },
    server: { command: process.execPath, args: ['test/fixtures/mcp-proxy/sdk1-server.mjs'], cwd: ROOT },
  });
  const { stdout } = await run('/bin/sh', ['-c', lines.inspector as string], { cwd: ROOT, timeout: 60_000 });
  t.strictSame(JSON.parse(stdout), { content: [{ type: 'text', text: "it's $HOME `x`" }] }, 'the echo tool got the argument exactly');
});
