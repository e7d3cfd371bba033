// The run summary's counts through a real `graphmind serve`: a reporter
// records a session with four failed calls in twelve; the summary says so
// in GET /api/runs, the live feed hears it as a `run.updated` while the run
// is still running (a few a second, not one per call), and the same run
// reloaded from its log after a restart, and imported into another
// debugger, has the very same summary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { RunEvent } from '../src/protocol/ingest.js';
import type { RunSummary } from '../src/protocol/run-model.js';
import { SUMMARY_NEWS_MS } from '../src/server/summary-news.js';
import { RunEvents, api, eventually, fakeReporter, liveClient, runId, startServe } from './helpers/serve.js';
import { NODES, restartableServe, serveOnPort } from './helpers/viewer.js';

/** A proxy session as its reporter records it: 8 ok and 4 failed tool calls, Claude Code as the client. */
function session(events: RunEvents): { head: RunEvent[]; calls: RunEvent[]; end: RunEvent[] } {
  const head = [
    events.started('node tracker/server.js', { command: 'node' }, 'mcp-proxy'),
    events.next({ type: 'instance.started', instanceId: 'mcp_1', node: NODES.session('node tracker/server.js') }),
    events.next({ type: 'instance.started', instanceId: 'mcp_2', node: NODES.protocol }),
    events.next({ type: 'run.meta', meta: { clientInfo: { name: 'claude-code', title: 'Claude Code', version: '2.1.332' } } }),
    events.next({ type: 'instance.started', instanceId: 'mcp_3', node: NODES.proto('server/discover') }),
    events.next({ type: 'instance.error', instanceId: 'mcp_3', error: { name: 'JsonRpcError', message: 'Method not found', code: -32601 } }),
    events.next({ type: 'instance.completed', instanceId: 'mcp_4', node: NODES.proto('initialize'), endT: events.t + 1 }),
    events.next({ type: 'run.meta', meta: { serverInfo: { name: 'tracker', version: '0.3.1' } } }),
  ];
  const calls: RunEvent[] = [];
  for (let i = 0; i < 8; i++) calls.push(events.next({ type: 'instance.completed', instanceId: `ok_${i}`, node: NODES.tool('list_tasks'), endT: events.t + 1 }));
  for (let i = 0; i < 4; i++) {
    calls.push(events.next({ type: 'instance.started', instanceId: `bad_${i}`, node: NODES.tool('add_task') }));
    calls.push(events.next({ type: 'instance.error', instanceId: `bad_${i}`, error: { name: 'ToolError', message: 'no such list' } }));
  }
  const end = [
    events.next({ type: 'instance.finished', instanceId: 'mcp_2', output: { calls: 14, errors: 5 } }),
    events.next({ type: 'instance.finished', instanceId: 'mcp_1', output: { exitCode: null, signal: 'SIGINT', endedBy: 'host' } }),
    events.next({ type: 'run.finished', status: 'ok' }),
  ];
  return { head, calls, end };
}

const EXPECTED = {
  status: 'ok',
  client: { name: 'claude-code', version: '2.1.332' },
  server: { name: 'tracker', version: '0.3.1' },
  calls: 14,
  failedCalls: 4,
  tools: ['list_tasks', 'add_task'],
};

t.test('live, reloaded and imported: the same counts, client and tools', async (t) => {
  const { server, dataDir, port } = await restartableServe(t);
  const live = await liveClient(port, server.token);
  t.teardown(() => live.close());
  const reporter = await fakeReporter(port, server.token);
  const id = runId('counts');
  const { head, calls, end } = session(new RunEvents(id));
  reporter.send(head);
  reporter.send(calls);

  // Still running: the list already says 14 calls, 4 failed (the live feed's run.updated).
  const news = await live.next((m) => m.type === 'run.updated' && (m.run as RunSummary).runId === id && (m.run as RunSummary).failedCalls === 4, 5000, 'the counts on the live feed');
  t.match(news.run, { status: 'running', calls: 14, failedCalls: 4, client: EXPECTED.client, server: EXPECTED.server, tools: EXPECTED.tools }, 'the running run’s summary, told live');
  const updates = live.messages.filter((m) => m.type === 'run.updated' && (m.run as RunSummary).runId === id).length;
  t.ok(updates <= 3, `a few run.updated for 28 events, not one per call (${updates}; sent at most every ${SUMMARY_NEWS_MS} ms)`);

  reporter.send(end);
  const listed = await eventually(async () => ((await api(port, server.token, 'GET', '/api/runs')).json as RunSummary[]).find((run) => run.runId === id && run.status !== 'running'));
  t.match(listed, EXPECTED, 'GET /api/runs: an ok run with 4 failed calls (the Method-not-found probe is not one)');
  const whole = (await api(port, server.token, 'GET', `/api/runs/${id}`)).json as RunSummary;
  t.match(whole, EXPECTED, 'GET /api/runs/:runId too');
  reporter.ws.terminate();
  live.close();

  // Reloaded from its log after a restart.
  await server.stop();
  const again = await serveOnPort(port, dataDir);
  t.teardown(() => again.stop());
  const reloaded = await eventually(async () => ((await api(port, again.token, 'GET', '/api/runs')).json as RunSummary[]).find((run) => run.runId === id));
  t.strictSame(reloaded, listed, 'reloaded: the very same summary');

  // Imported into another debugger.
  const other = await startServe();
  t.teardown(() => other.stop());
  const log = readFileSync(join(dataDir, 'runs', `${id}.jsonl`), 'utf8');
  const imported = await api(other.port, other.token, 'POST', '/api/runs/import', log);
  t.equal(imported.status, 201, JSON.stringify(imported.json));
  const importedSummary = ((await api(other.port, other.token, 'GET', '/api/runs')).json as RunSummary[]).find((run) => run.runId === id);
  t.strictSame(importedSummary, listed, 'imported: the very same summary');
});
