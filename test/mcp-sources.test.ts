// `graphmind mcp` gives the same answers whether it reads a running `graphmind serve` or the data
// directory's logs; read straight from the logs, a torn last line is skipped as the server skips
// it, and nothing in the data directory is written.
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { NO_DEBUGGER_PORT } from './helpers/cli.js';
import { startServe } from './helpers/serve.js';
import { startMcp, type McpSession } from './fixtures/mcp/mcp-session.js';
import { recordRuns } from './fixtures/mcp/record-runs.js';

const { dataDir, runs } = await recordRuns(t);
const logOf = (runId: string): string => join(dataDir, 'runs', `${runId}.jsonl`);

function snapshot(): string[] {
  const dir = join(dataDir, 'runs');
  return [dataDir, dir, ...readdirSync(dir).map((name) => join(dir, name))].map((path) => {
    const stats = statSync(path);
    return `${path} ${stats.size} ${stats.mtimeMs}`;
  });
}

/** Drop the `from` field: the one thing that tells the two readers apart. */
function withoutFrom(value: Record<string, unknown>): Record<string, unknown> {
  const { from: _from, ...rest } = value;
  return rest;
}

/** What a session answers about every run, with `from` dropped, and where the answers came from. */
async function answers(mcp: McpSession): Promise<{ from: Set<unknown>; answers: Record<string, unknown> }> {
  const from = new Set<unknown>();
  const out: Record<string, unknown> = {};
  const ask = async (key: string, name: string, args: Record<string, unknown> = {}): Promise<void> => {
    const data = await mcp.data(name, args);
    from.add(data.from);
    out[key] = withoutFrom(data);
  };
  await ask('list_runs', 'list_runs');
  await ask('find_problems', 'find_problems');
  for (const [what, runId] of Object.entries(runs)) {
    await ask(`get_run ${what}`, 'get_run', { runId });
    await ask(`list_calls ${what}`, 'list_calls', { runId, limit: 50 });
    await ask(`search_logs ${what}`, 'search_logs', { runId, pattern: 'e' });
    await ask(`get_call ${what}`, 'get_call', { runId, instanceId: 'mcp_1' });
  }
  const { resources } = await mcp.client.listResources();
  out.resources = resources;
  const read = await mcp.client.readResource({ uri: `graphmind://runs/${runs.sdk}` });
  out.resource = withoutFrom(JSON.parse(read.contents[0]?.text as string) as Record<string, unknown>);
  return { from, answers: out };
}

const files = await startMcp(t, 'sdk1', { dataDir, port: NO_DEBUGGER_PORT });
const before = snapshot();
const fromFiles = await answers(files);

t.test('read from the logs', async (t) => {
  t.same([...fromFiles.from], ['data-dir']);
  t.equal((fromFiles.answers.list_runs as { total: number }).total, 4);
});

t.test('a torn last line is skipped, and left as it is', async (t) => {
  const log = logOf(runs.sdk);
  appendFileSync(log, `{"type":"log","runId":"${runs.sdk}","seq":9999,"t":17`);
  const torn = readFileSync(log);
  const again = await answers(files);
  t.same(again.answers, fromFiles.answers, 'the same answers as before the torn line');
  t.same(readFileSync(log), torn, 'the torn line is not ended or removed');
});

t.test('nothing in the data directory was written', async (t) => {
  const after = snapshot();
  const changed = after.filter((line, i) => line !== before[i]);
  t.same(changed, [after.find((line) => line.startsWith(logOf(runs.sdk)))], 'only the log the test itself appended to changed');
  t.equal(after.length, before.length, 'no file created or removed');
});

t.test('a running debugger on the same data directory gives the same answers', async (t) => {
  const serve = await startServe(['--pause-on-error', 'off'], {}, { dataDir });
  t.teardown(() => serve.stop());
  t.match(serve.stdout(), /skipped 1 unreadable line/, 'the server skipped the torn line too');
  const live = await startMcp(t, 'sdk2', { dataDir, port: serve.port });
  const fromLive = await answers(live);
  t.same([...fromLive.from], ['debugger']);
  t.same(fromLive.answers, fromFiles.answers);
});
