// graphmind export --redact <path>: the rule as a playbook (which values of which events become
// "[redacted]", scoped as verify's --ignore), then a real session recorded through a real
// graphmind mcp-proxy into a real graphmind serve, exported by the real CLI in every format
// (from the debugger's API and from the data directory alone) with a secret nowhere in the
// output, and the redacted run log replayed: a redacted value in a recorded request matches
// anything.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '../src/protocol/ingest.js';
import { EventRedactor, parseRedactions, REDACTED } from '../src/export/redact.js';
import { CLI, PROXY_FIXTURES } from './helpers/cli.js';
import { freePort, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { callEvents, INITIALIZE, record, replayOnce, runGraphmind, runLog } from './helpers/replay.js';

const tool = { nodeId: 'tool:login', kind: 'tool', parent: 'mcp:session', label: 'login' } as const;
const base = { runId: 'run_r', seq: 1, t: 1 };

function redacted(paths: string[], events: RunEvent[]): RunEvent[] {
  const parsed = parseRedactions(paths);
  if (!parsed.ok) throw new Error(parsed.reason);
  const redactor = new EventRedactor(parsed.paths);
  const copies = structuredClone(events);
  for (const event of copies) redactor.event(event);
  return copies;
}

const started = (input: unknown, instanceId = 'mcp_1'): RunEvent => ({ ...base, type: 'instance.started', instanceId, node: tool, input }) as RunEvent;
const finished = (output: unknown, instanceId = 'mcp_1'): RunEvent => ({ ...base, type: 'instance.finished', instanceId, output }) as RunEvent;

t.test('the rule: which values become [redacted] (playbook)', async (t) => {
  const login = { name: 'login', arguments: { user: 'ada', password: 'hunter2' } };
  const rows: Array<{ name: string; paths: string[]; events: RunEvent[]; expected: unknown[] }> = [
    { name: 'a request value', paths: ['$.params.arguments.password'], events: [started(login)], expected: [{ name: 'login', arguments: { user: 'ada', password: REDACTED } }] },
    { name: 'scoped to the tool', paths: ['tools/call:login $.params.arguments.password'], events: [started(login)], expected: [{ name: 'login', arguments: { user: 'ada', password: REDACTED } }] },
    { name: 'scoped to another tool: untouched', paths: ['tools/call:search $.params.arguments.password'], events: [started(login)], expected: [login] },
    { name: 'scoped to another method: untouched', paths: ['prompts/get $.params.arguments.password'], events: [started(login)], expected: [login] },
    { name: 'a key that is not there: untouched', paths: ['$.params.arguments.token'], events: [started(login)], expected: [login] },
    { name: 'every argument', paths: ['$.params.arguments.*'], events: [started(login)], expected: [{ name: 'login', arguments: { user: REDACTED, password: REDACTED } }] },
    { name: 'an answer, scoped by the start', paths: ['tools/call:login $.result.content[0].text'], events: [started(login), finished({ content: [{ type: 'text', text: 'session=abc' }] })], expected: [login, { content: [{ type: 'text', text: REDACTED }] }] },
    { name: 'a request path leaves answers alone', paths: ['$.params.arguments.password'], events: [started(login), finished({ password: 'x' })], expected: [{ name: 'login', arguments: { user: 'ada', password: REDACTED } }, { password: 'x' }] },
  ];
  for (const row of rows) {
    const out = redacted(row.paths, row.events);
    t.same(out.map((event) => ('input' in event ? event.input : 'output' in event ? event.output : undefined)), row.expected, row.name);
  }
  // An error's data and a failed tool result (whose message is its text).
  const error = redacted(['$.error.data.key', '$.result.content[0].text'], [
    started(login),
    { ...base, type: 'instance.error', instanceId: 'mcp_1', error: { name: 'JsonRpcError', message: 'bad', code: -32000, data: { key: 'k1' } } } as RunEvent,
    started(login, 'mcp_2'),
    { ...base, type: 'instance.error', instanceId: 'mcp_2', error: { name: 'ToolError', message: 'hunter2 refused' }, output: { isError: true, content: [{ type: 'text', text: 'hunter2 refused' }] } } as RunEvent,
  ]);
  t.same((error[1] as { error: unknown }).error, { name: 'JsonRpcError', message: 'bad', code: -32000, data: { key: REDACTED } }, 'an error keeps its name, code and message; its data is redacted');
  t.same((error[3] as { error: unknown; output: unknown }).error, { name: 'ToolError', message: REDACTED }, "a failed tool result's message goes with its text");
  // A held frame is a whole message.
  const hold = redacted(['$.params.arguments.password'], [{ ...base, type: 'hold.opened', holdId: 'h1', nodeId: 'tool:login', instanceId: 'mcp_9', gate: 'before', method: 'tools/call', frame: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: login } } as RunEvent]);
  t.same((hold[0] as { frame: unknown }).frame, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'login', arguments: { user: 'ada', password: REDACTED } } }, 'a held frame');
  // Bad paths: one line each.
  const bad: Array<[string, RegExp]> = [
    ['params.x', /does not start with \$/],
    ['$', /\$ alone/],
    ['$.params[', /not closed/],
    [':x $.a', /scope must be/],
  ];
  for (const [path, reason] of bad) {
    const parsed = parseRedactions([path]);
    t.match(parsed.ok ? '' : parsed.reason, reason, `refused: ${path}`);
  }
});

/** Run the CLI; its exit code and output. */
async function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runGraphmind([...args]);
}

t.test('a recorded session exported with --redact in every format, from the debugger and from the data directory', async (t) => {
  const serve: ServeOnPort = await serveOnPort(await freePort(), tempDir());
  t.teardown(() => serve.stop());
  const SECRET = 'sk-live-4f2b9c';
  const recorded = await record(serve, [process.execPath, `${PROXY_FIXTURES}sdk1-server.mjs`], async (client) => [
    await client.callTool({ name: 'echo', arguments: { text: SECRET } }),
    await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
  ]);
  const redact = ['--redact', '$.params.arguments.text', '--redact', 'tools/call:echo $.result.content[*].text'];
  for (const where of [['--port', String(serve.port)], ['--port', '1']]) {
    for (const format of ['jsonl', 'har', 'otlp-json', 'cassette']) {
      const exported = await cli(['export', recorded.runId, ...where, '--data-dir', serve.dataDir, '--format', format, ...redact]);
      const from = where[1] === '1' ? 'the data directory' : 'the debugger';
      t.equal(exported.code, 0, `${format} from ${from}: exit 0 (${exported.stderr.trim()})`);
      t.notOk(exported.stdout.includes(SECRET), `${format} from ${from}: the secret is nowhere in it`);
      // OTLP spans carry no params or results (only names, ids, outcomes): nothing of them to redact.
      if (format === 'otlp-json') continue;
      t.ok(exported.stdout.includes(REDACTED), `${format} from ${from}: [redacted] stands in its place`);
      t.ok(exported.stdout.includes('"a":2') || exported.stdout.includes('\\"a\\":2') || exported.stdout.includes('"a": 2'), `${format} from ${from}: the other calls are as recorded`);
    }
  }
  const plain = await cli(['export', recorded.runId, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.ok(plain.stdout.includes(SECRET), 'without --redact the value is there (the test can fail)');
  const refused = await cli(['export', recorded.runId, '--port', String(serve.port), '--data-dir', serve.dataDir, '--redact', 'params.x']);
  t.not(refused.code, 0, 'a bad path is refused');
  t.match(refused.stderr, /graphmind export: --redact "params\.x" does not start with \$/);
});

t.test('replay: a redacted value in a recorded request matches anything', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-redact-'));
  const file = join(dir, 'run.jsonl');
  writeFileSync(
    file,
    runLog('run_redacted', [
      ...INITIALIZE,
      ...callEvents('mcp_3', 'tools/call', { name: 'login', arguments: { user: 'ada', password: REDACTED } }, { content: [{ type: 'text', text: 'welcome ada' }] }),
    ]),
  );
  const line = (id: number, args: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'login', arguments: args } });
  const out = await replayOnce([file, '--repeat', 'last'], `${line(1, { user: 'ada', password: 'the real one' })}\n${line(2, { user: 'bob', password: 'x' })}\n`);
  const answers = out.stdout.trim().split('\n').map((text) => JSON.parse(text) as { id: number; result?: unknown; error?: { data: { differences: unknown } } });
  t.same(answers[0], { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'welcome ada' }] } }, 'any password matches the redacted one');
  t.same(answers[1]?.error?.data.differences, [{ path: '$.params.arguments.user', recorded: 'ada', received: 'bob' }], 'a value that was not redacted still has to match');
});
