// graphmind export --where <expression> (issue 33): a real session recorded through a real
// graphmind mcp-proxy into a real graphmind serve (the logging fixture: echo, fail, boom, stats),
// exported by the real CLI in every format, from the debugger's API and from the data directory
// alone, with only the matching calls (and their session) in the output; the JSONL written is a
// run log graphmind import loads; a bad expression is one line, exit 2, nothing written.
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, PROXY_FIXTURES } from './helpers/cli.js';
import { freePort, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { record, runGraphmind } from './helpers/replay.js';
import { api } from './helpers/serve.js';

/** Run the CLI; its exit code and output. */
async function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runGraphmind([...args]);
}

type Event = { type: string; instanceId?: string; node?: { nodeId: string } };

/** The events of a JSONL export (a line may hold a group of calls: each item is counted). */
function eventsOf(jsonl: string): Event[] {
  return jsonl
    .split('\n')
    .filter((line) => line !== '')
    .flatMap((line) => [JSON.parse(line) as Event | { events: Event[] }].flatMap((item) => ('events' in item && Array.isArray(item.events) ? item.events : [item as Event])));
}

/** The nodes of the calls a JSONL export started (in order), and the ids of every instance its events touch. */
function jsonlCalls(jsonl: string): { nodes: string[]; touched: Set<string> } {
  const events = eventsOf(jsonl);
  // A run of calls to one node the recorder had answered together is one `instances.completed` event: a node per call.
  const nodes = events.flatMap((event) => {
    if (event.node === undefined) return [];
    if (event.type === 'instance.started' || event.type === 'instance.completed') return [event.node.nodeId];
    const calls = (event as { calls?: unknown[] }).calls;
    return event.type === 'instances.completed' && Array.isArray(calls) ? calls.map(() => event.node?.nodeId as string) : [];
  });
  return { nodes, touched: new Set(events.flatMap((event) => (event.instanceId === undefined ? [] : [event.instanceId]))) };
}

/** The calls (tool names or methods) each format wrote. */
function formatCalls(format: string, text: string): string[] {
  const data = JSON.parse(text) as Record<string, unknown>;
  if (format === 'har') return ((data.log as { entries: Array<{ request: { url: string } }> }).entries ?? []).map((entry) => decodeURIComponent(entry.request.url.split('/').pop() ?? ''));
  if (format === 'cassette') return (data.interactions as Array<{ request: { method: string; params?: { name?: string } } }>).map((item) => item.request.params?.name ?? item.request.method);
  const spans = (data.resourceSpans as Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }>).flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name)));
  return spans.filter((name) => name.startsWith('tools/call ')).map((name) => name.slice('tools/call '.length));
}

t.test('export --where keeps only the matching calls and their session, in every format', { timeout: 600_000 }, async (t) => {
  const serve: ServeOnPort = await serveOnPort(await freePort(), tempDir(), ['--pause-on-error', 'off']);
  t.teardown(() => serve.stop());
  const recorded = await record(serve, [process.execPath, `${PROXY_FIXTURES}logging-server.mjs`], async (client) => {
    await client.callTool({ name: 'echo', arguments: { text: 'PAY-1234 refund' } });
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    await client.callTool({ name: 'fail', arguments: {} });
    await client.callTool({ name: 'boom', arguments: { why: 'asked' } }).catch(() => undefined);
    await client.callTool({ name: 'stats', arguments: { label: 'x' } });
  });
  const { runId } = recorded;
  const everything = await cli(['export', runId, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  const all = jsonlCalls(everything.stdout);
  t.ok(all.nodes.filter((node) => node.startsWith('tool:')).length === 5, `without --where every call is there (${all.nodes.join(', ')})`);

  // Each case from where it is read (the debugger's API, the data directory) and in which formats:
  // a CLI process each, so the table is kept to what proves something on a loaded machine.
  const DEBUGGER = ['--port', String(serve.port)];
  const DATA_DIR = ['--port', '1'];
  const ALL = ['jsonl', 'har', 'cassette', 'otlp-json'];
  const cases: Array<[string, string[][], string[], string[]]> = [
    ['tool:echo and $.params.arguments.text ~ "pay-"', [DEBUGGER, DATA_DIR], ALL, ['tool:echo']],
    ['is:error', [DEBUGGER], ALL, ['tool:fail', 'tool:boom']],
    ['tool:stats and $.result.structuredContent.count == 1', [DATA_DIR], ['jsonl'], ['tool:stats']],
    ['tool:nothing', [DATA_DIR], ['jsonl', 'har'], []],
  ];
  for (const [where, sources, formats, expected] of cases) {
    for (const from of sources) {
      const source = from === DATA_DIR ? 'the data directory' : 'the debugger';
      for (const format of formats) {
        const out = await cli(['export', runId, ...from, '--data-dir', serve.dataDir, '--format', format, '--where', where]);
        t.equal(out.code, 0, `${format} ${where} from ${source}: exit 0 (${out.stderr.trim()})`);
        if (format !== 'jsonl') {
          t.same(formatCalls(format, out.stdout), expected.map((node) => node.slice('tool:'.length)), `${format} ${where} from ${source}: the matching calls`);
          continue;
        }
        const kept = jsonlCalls(out.stdout);
        t.same(kept.nodes.filter((node) => node.startsWith('tool:')), expected, `jsonl ${where} from ${source}: the matching calls`);
        t.ok(kept.nodes.includes('mcp:session'), 'the session is kept');
        t.notOk(kept.nodes.includes('mcp:initialize'), 'calls that do not match are left out (initialize too)');
        const types = new Set(eventsOf(out.stdout).map((event) => event.type));
        t.ok(types.has('run.started') && types.has('run.finished'), 'the run begins and ends');
      }
    }
  }

  // The JSONL with --where is a run log: graphmind import loads it, with the matching call only.
  const file = join(tempDir(), 'echo.jsonl');
  const written = await cli(['export', runId, '--port', String(serve.port), '--data-dir', serve.dataDir, '--where', 'tool:echo and $.params.arguments.text ~ "pay-"', '-o', file]);
  t.match(written.stderr, /only the calls where tool:echo and/, 'the line on stderr says which calls');
  const other = await serveOnPort(await freePort(), tempDir());
  t.teardown(() => other.stop());
  const imported = await cli(['import', file, '--port', String(other.port), '--data-dir', other.dataDir, '--new-id']);
  t.equal(imported.code, 0, `imported (${imported.stderr.trim()})`);
  const runs = (await api(other.port, other.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  const run = (await api(other.port, other.token, 'GET', `/api/runs/${runs[0]?.runId}`)).json as { instances: Array<{ nodeId: string; input?: { arguments?: unknown } }> };
  t.same(
    run.instances.filter((instance) => instance.nodeId.startsWith('tool:')).map((instance) => instance.input?.arguments),
    [{ text: 'PAY-1234 refund' }],
    'the imported run holds the one matching call',
  );

  // A bad expression: one line, exit 2, nothing written anywhere.
  const badFile = join(tempDir(), 'bad.jsonl');
  const bad: Array<[string, RegExp]> = [
    ['(tool:echo', /^graphmind export: --where "\(tool:echo": expected \) to close the \( at 0, found the end at position 10 /],
    ['', /the expression is empty at position 0/],
    ['x'.repeat(10_000), /at most 4096 are read at position 4096/],
    ['$.a ~ "(a"', /bad regular expression.* at position 6/],
    ['is:wrong', /is: takes request, answer, notification, error; not "wrong" at position 3/],
  ];
  for (const [where, line] of bad) {
    const refused = await cli(['export', runId, '--port', String(serve.port), '--data-dir', serve.dataDir, '--where', where, '-o', badFile]);
    t.equal(refused.code, 2, `${where.slice(0, 30)}: exit 2`);
    t.match(refused.stderr, line);
    t.equal(refused.stderr.trim().split('\n').length, 1, 'one line');
    t.equal(refused.stdout, '', 'nothing on stdout');
    t.notOk(existsSync(badFile), 'no file');
  }

  // The API: 400 with the position, as a rule's bad expression.
  const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export?where=${encodeURIComponent('tool:echo and (')}`);
  t.equal(answer.status, 400);
  t.same(answer.json, { error: 'where: expected a condition (an atom such as tool:search, a $ path, text ~ "…", dur>500ms…), found the end at position 15', position: 15 });
  const good = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export?format=har&where=${encodeURIComponent('tool:fail')}`);
  t.equal(good.status, 200);
  t.same(formatCalls('har', good.text), ['fail'], 'the API writes the matching calls');
});
