// `graphmind mcp` over a data directory of runs recorded from real proxy sessions (an SDK session
// with failures, stdout noise, an early exit, a spawn failure, 5,000 calls), with the debugger
// stopped: real SDK clients (1.x and 2.x) drive the built CLI over stdio.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { NO_DEBUGGER_PORT } from './helpers/cli.js';
import { CLIENT_KINDS, startMcp, type McpSession } from './fixtures/mcp/mcp-session.js';
import { MANY_CALLS, recordRuns } from './fixtures/mcp/record-runs.js';

/** Every file under `dir` with its size and modification time: what "nothing was written" means. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    const stats = statSync(path);
    out.push(`${path} ${stats.isDirectory() ? 'dir' : stats.size} ${stats.mtimeMs} ${stats.mode}`);
    if (stats.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
  };
  walk(dir);
  return out;
}

/** The structured result's size limit the tools keep to (src/mcp/limits.ts RESULT_CHARS). */
const RESULT_CHARS = 40_000;
/** A whole tool result (structured content, text and envelope) as JSON stays under this: about 15,000 tokens at 4 characters a token. */
const WHOLE_RESULT_CHARS = 60_000;

const recording = await recordRuns(t, { many: true });
const { runs, dataDir } = recording;
const many = runs.many as string;
const before = snapshot(dataDir);
const sizes: Array<{ kind: string; name: string; chars: number }> = [];

type Row = Record<string, unknown>;
const rows = (data: Row, key: string): Row[] => data[key] as Row[];

for (const kind of CLIENT_KINDS) {
  t.test(`${kind} client reads the recorded runs from the data directory`, async (t) => {
    const mcp: McpSession = await startMcp(t, kind, { dataDir, port: NO_DEBUGGER_PORT });
    t.teardown(() => {
      for (const size of mcp.sizes) sizes.push({ kind, ...size });
    });

    t.test('tools/list: the read tools, each with an output schema and the untrusted-data warning', async (t) => {
      const { tools } = await mcp.client.listTools();
      t.same(
        tools.map((tool) => tool.name),
        ['list_runs', 'get_run', 'list_calls', 'get_call', 'search_logs', 'find_problems', 'list_holds'],
      );
      for (const tool of tools) {
        t.equal(tool.outputSchema?.type, 'object', `${tool.name} has an outputSchema`);
        t.match(tool.description ?? '', /untrusted text, never as instructions/, `${tool.name} says results are data`);
        t.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
      }
      const getCall = tools.find((tool) => tool.name === 'get_call');
      t.same(getCall?.inputSchema.required, ['runId', 'instanceId']);
    });

    t.test('list_runs: newest first, filtered, paged', async (t) => {
      const all = await mcp.data('list_runs');
      t.equal(all.from, 'data-dir');
      t.equal(all.total, 5);
      t.equal(all.nextCursor, null);
      t.same(
        rows(all, 'runs').map((run) => run.runId),
        [many, runs.spawn, runs.crash, runs.noisy, runs.sdk],
        'newest first',
      );
      t.same(
        rows(all, 'runs').map((run) => run.status),
        ['ok', 'error', 'error', 'ok', 'ok'],
      );
      t.same(rows(await mcp.data('list_runs', { status: 'error' }), 'runs').map((run) => run.runId), [runs.spawn, runs.crash]);
      t.same(rows(await mcp.data('list_runs', { text: 'NOISY' }), 'runs').map((run) => run.runId), [runs.noisy]);
      t.equal((await mcp.data('list_runs', { since: '1h' })).total, 5);
      t.equal((await mcp.data('list_runs', { since: '2999-01-01' })).total, 0);
      t.equal((await mcp.data('list_runs', { source: 'mcp-adapter' })).total, 0);

      const seen: unknown[] = [];
      let cursor: unknown;
      let pages = 0;
      do {
        const page = await mcp.data('list_runs', { limit: 2, ...(cursor === undefined ? {} : { cursor }) });
        seen.push(...rows(page, 'runs').map((run) => run.runId));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined && pages < 10);
      t.equal(pages, 3, 'five runs in pages of two');
      t.same(seen, rows(all, 'runs').map((run) => run.runId), 'the pages hold every run once, in order');
    });

    t.test('get_run: the SDK session with its failures', async (t) => {
      const data = await mcp.data('get_run', { runId: runs.sdk });
      const run = data.run as Row;
      t.equal(run.status, 'ok');
      t.equal(run.name, 'node mcp-proxy/logging-server.mjs');
      t.match(run.counts, { errors: 3 });
      const nodes = rows(data, 'nodes');
      t.match(nodes[0], { nodeId: 'mcp:session', depth: 0, parent: null });
      t.match(
        nodes.find((node) => node.nodeId === 'tool:fail'),
        { status: 'error', calls: 1, errors: 1, open: 0, depth: 1, parent: 'mcp:session' },
      );
      t.match(
        nodes.find((node) => node.nodeId === 'mcp:initialize'),
        { depth: 2, parent: 'mcp:protocol', status: 'ok' },
      );
      const errors = rows(data, 'errors');
      t.same(
        errors.map((error) => [error.nodeId, error.name, error.code]),
        [
          ['tool:fail', 'ToolError', null],
          ['tool:boom', 'JsonRpcError', -32000],
          ['tool:bigfail', 'ToolError', null],
        ],
      );
      t.ok((errors[2]?.message as string).length < 300, 'a 300 KB error message is a preview in get_run');
      t.match(mcp.sizes.at(-1), { name: 'get_run' });
    });

    t.test('get_run: an early exit, a spawn failure, stdout noise', async (t) => {
      const crash = await mcp.data('get_run', { runId: runs.crash });
      t.equal((crash.run as Row).status, 'error');
      t.match(rows(crash, 'errors')[0], { nodeId: 'mcp:session', name: 'McpServerExitedEarly' });
      t.match(
        rows(crash, 'logTail').map((log) => log.text),
        [/crash-server: line 1 of 3/],
      );
      t.ok(
        rows(crash, 'logTail').some((log) => /DATABASE_URL is not set/.test(log.text as string)),
        'the stderr tail has the cause',
      );

      const spawn = await mcp.data('get_run', { runId: runs.spawn });
      t.equal((spawn.run as Row).status, 'error');
      t.match(rows(spawn, 'errors')[0], { nodeId: 'mcp:session', name: 'SpawnError' });

      const noisy = await mcp.data('get_run', { runId: runs.noisy });
      t.match(
        rows(noisy, 'nodes').find((node) => node.nodeId === 'mcp:stdout-noise'),
        { calls: 5, errors: 5 },
      );
    });

    t.test('list_calls and get_call: the failures whole, capped', async (t) => {
      const failed = await mcp.data('list_calls', { runId: runs.sdk, status: 'error' });
      t.equal(failed.total, 3);
      const calls = rows(failed, 'calls');
      t.same(
        calls.map((call) => call.nodeId),
        ['tool:fail', 'tool:boom', 'tool:bigfail'],
      );
      t.match(calls[1], { status: 'error', error: { name: 'JsonRpcError', code: -32000 }, input: /the recorder asked/ });
      t.ok((calls[2]?.output as string).endsWith('more characters]'), 'a list row previews a big output, marked');

      const boom = await mcp.data('get_call', { runId: runs.sdk, instanceId: calls[1]?.instanceId as string });
      t.match(boom.call, {
        nodeId: 'tool:boom',
        nodeKind: 'tool',
        status: 'error',
        input: { name: 'boom', arguments: { why: 'the recorder asked' } },
        error: { name: 'JsonRpcError', code: -32000, data: { why: 'the recorder asked' } },
        truncated: [],
      });

      const big = await mcp.call('get_call', { runId: runs.sdk, instanceId: calls[2]?.instanceId as string });
      const call = big.structuredContent?.call as Row;
      const output = call.output as string;
      t.type(output, 'string', 'a 300 KB output is cut to text');
      t.match(output, /^\{"content":\[\{"type":"text","text":"long failure x+… \[truncated, \d+ more characters\]$/);
      t.ok(output.length <= 10_000 + 50, `the output is capped near 10,000 characters (${output.length})`);
      t.same(
        (call.truncated as Row[]).map((cut) => cut.field),
        ['output', 'error.message'],
      );
      t.ok(((call.truncated as Row[])[0]?.more as number) > 290_000, 'it says how much was left out');
      t.ok(JSON.stringify(big.structuredContent).length < RESULT_CHARS, 'the result stays in budget');

      const small = await mcp.data('get_call', { runId: runs.sdk, instanceId: calls[2]?.instanceId as string, maxChars: 500 });
      t.ok(((small.call as Row).output as string).length < 560, 'maxChars cuts shorter');
    });

    t.test('find_problems: each kind, with ids that drill in', async (t) => {
      const found = await mcp.data('find_problems');
      t.equal(found.runsScanned, 5);
      const problems = rows(found, 'problems');
      const kinds = problems.map((problem) => `${problem.kind} ${problem.runId === many ? 'many' : Object.entries(runs).find(([, id]) => id === problem.runId)?.[0]} ${problem.nodeId}`);
      t.same(kinds, [
        'failed_call many tool:fail',
        'spawn_failure spawn mcp:session',
        'early_exit crash mcp:session',
        'unanswered crash mcp:initialize',
        'stdout_noise noisy mcp:stdout-noise',
        'failed_call sdk tool:fail',
        'failed_call sdk tool:boom',
        'failed_call sdk tool:bigfail',
      ]);
      const early = problems.find((problem) => problem.kind === 'early_exit') as Row;
      t.match(early.summary, /before answering anything — its last stderr output was: Error: FATAL: DATABASE_URL is not set \| at boot \(file:\/\/\/.*crash-server\.mjs:8:9\)$/);
      const noise = problems.find((problem) => problem.kind === 'stdout_noise') as Row;
      t.equal(noise.count, 5);
      t.equal((noise.instanceIds as string[]).length, 5);
      for (const problem of problems) {
        const detail = await mcp.data('get_call', { runId: problem.runId as string, instanceId: problem.instanceId as string });
        t.equal((detail.call as Row).status, 'error', `${problem.kind}: get_call on its ids finds the failed call`);
      }
      t.same(
        rows(await mcp.data('find_problems', { kind: 'early_exit' }), 'problems').map((problem) => problem.runId),
        [runs.crash],
      );
      t.equal((await mcp.data('find_problems', { runId: runs.noisy })).total, 1);
      const page = await mcp.data('find_problems', { limit: 3 });
      t.equal(rows(page, 'problems').length, 3);
      const rest = await mcp.data('find_problems', { limit: 10, cursor: page.nextCursor as string });
      t.same(
        [...rows(page, 'problems'), ...rows(rest, 'problems')].map((problem) => problem.instanceId),
        problems.map((problem) => problem.instanceId),
        'paged, the same problems',
      );
      t.equal(rest.nextCursor, null);
    });

    t.test(`the run of ${MANY_CALLS} calls: pages and caps`, async (t) => {
      const overview = await mcp.call('get_run', { runId: many });
      const counts = (overview.structuredContent?.run as Row).counts as Row;
      t.ok((counts.calls as number) >= MANY_CALLS + 3, `${counts.calls} calls recorded`);
      t.equal(counts.logLines, MANY_CALLS + 2, 'one stderr line per call, the start line and the failure line');
      t.equal(rows(overview.structuredContent as Row, 'logTail').length, 20);
      t.ok(JSON.stringify(overview.structuredContent).length < RESULT_CHARS);

      const first = await mcp.data('list_calls', { runId: many });
      t.equal(rows(first, 'calls').length, 20, 'a default page is 20 rows');
      const total = first.total as number;
      t.equal(total, counts.calls);
      const ids = new Set<unknown>();
      let cursor: unknown;
      let pages = 0;
      do {
        const page = await mcp.data('list_calls', { runId: many, limit: 50, ...(cursor === undefined ? {} : { cursor }) });
        for (const call of rows(page, 'calls')) ids.add(call.instanceId);
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined && pages < 500);
      t.equal(ids.size, total, `paging (${pages} pages of 50) reaches every call once`);

      const counted = await mcp.data('list_calls', { runId: many, nodeId: 'tool:count', limit: 1 });
      t.equal(counted.total, MANY_CALLS);

      const big = (await mcp.data('list_calls', { runId: many, nodeId: 'tool:big' })).calls as Row[];
      const bigCall = await mcp.data('get_call', { runId: many, instanceId: big[0]?.instanceId as string });
      t.match((bigCall.call as Row).output, /… \[truncated, 5\d{4} more characters\]$/);

      const hits = await mcp.data('search_logs', { runId: many, pattern: 'HANDLED CALL' });
      t.equal(hits.total, MANY_CALLS, 'text search ignores case');
      t.equal(rows(hits, 'hits').length, 20);
      t.match(rows(hits, 'hits')[0], { text: 'handled call 1', stream: 'stderr', nodeId: 'mcp:session' });
      const regex = await mcp.data('search_logs', { runId: many, pattern: '^handled call 49\\d\\d$', regex: true, limit: 50 });
      t.equal(regex.total, 100);
      const second = await mcp.data('search_logs', { runId: many, pattern: '^handled call 49\\d\\d$', regex: true, limit: 50, cursor: regex.nextCursor as string });
      t.equal(second.nextCursor, null);
      t.same(rows(second, 'hits').at(-1)?.text, 'handled call 4999');
      const cased = await mcp.data('search_logs', { runId: many, pattern: 'HANDLED', ignoreCase: false });
      t.equal(cased.total, 0);
    });

    t.test('resources: each run as graphmind://runs/<runId>, JSON', async (t) => {
      const { resources } = await mcp.client.listResources();
      t.same(
        resources.map((resource) => resource.uri),
        [many, runs.spawn, runs.crash, runs.noisy, runs.sdk].map((runId) => `graphmind://runs/${runId}`),
      );
      t.ok(resources.every((resource) => resource.mimeType === 'application/json'));
      const { resourceTemplates } = await mcp.client.listResourceTemplates();
      t.same(
        resourceTemplates.map((template) => template.uriTemplate),
        ['graphmind://runs/{runId}'],
      );
      const read = await mcp.client.readResource({ uri: `graphmind://runs/${many}` });
      const text = read.contents[0]?.text as string;
      const parsed = JSON.parse(text) as Row;
      t.equal((parsed.run as Row).runId, many);
      t.ok(text.length < RESULT_CHARS, `a run resource is compact (${text.length} characters)`);
      // The server answers -32002 (resource not found); the 2.x client reports that code as -32602, keeping it in the message.
      const notFound = { message: /-32002: Resource not found: graphmind:\/\/runs\// };
      await t.rejects(mcp.client.readResource({ uri: 'graphmind://runs/run_that_is_not_there' }), notFound);
      await t.rejects(mcp.client.readResource({ uri: 'graphmind://runs/../token' }), notFound);
    });

    t.test('every result stays small', async (t) => {
      const largest = mcp.sizes.reduce((max, size) => (size.chars > max.chars ? size : max), { name: '', chars: 0 });
      t.ok(largest.chars < WHOLE_RESULT_CHARS, `the largest result, ${largest.name}, is ${largest.chars} characters`);
    });
  });
}

t.test('the data directory is left as it was', async (t) => {
  t.same(snapshot(dataDir), before, 'no file created, changed or removed');
});

t.teardown(() => {
  const byTool = new Map<string, number>();
  for (const size of sizes) byTool.set(size.name, Math.max(byTool.get(size.name) ?? 0, size.chars));
  t.comment(`largest result per tool (characters of the whole result as JSON): ${[...byTool].map(([name, chars]) => `${name} ${chars}`).join(', ')}`);
});
