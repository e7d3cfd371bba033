// Playbook of the run views (src/mcp/run-views.ts): the tree, the overview, a call whole.
import t from 'tap';
import type { GraphNode, Instance, LogLine, Run } from '../src/protocol/run-model.js';
import { callDetail, callRow, durationMs, nodeRows, runOverview } from '../src/mcp/run-views.js';

const at = (ms: number): string => new Date(Date.parse('2026-05-01T12:00:00.000Z') + ms).toISOString();
const node = (nodeId: string, parent: string | null, status: GraphNode['status'] = 'ok'): GraphNode => ({ nodeId, kind: nodeId.startsWith('tool:') ? 'tool' : 'custom', parent, label: nodeId, status });
const instance = (instanceId: string, nodeId: string, start: number, took: number | null, extra: Partial<Instance> = {}): Instance => ({
  instanceId,
  nodeId,
  status: took === null ? 'open' : 'ok',
  startedAt: at(start),
  endedAt: took === null ? null : at(start + took),
  ...extra,
});
const log = (ms: number, text: string): LogLine => ({ nodeId: 'mcp:session', stream: 'stderr', text, at: at(ms) });

function run(nodes: GraphNode[], instances: Instance[], logs: LogLine[] = [], meta: Record<string, unknown> = {}): Run {
  return { runId: 'run_1', name: 'node server.js', source: 'mcp-proxy', status: 'ok', startedAt: at(0), endedAt: at(1_000), meta, nodes, instances, logs, droppedEvents: 0, lastSeq: 9 };
}

t.test('durationMs', async (t) => {
  t.equal(durationMs(at(0), at(1_234)), 1_234);
  t.equal(durationMs(at(0), null), null);
  t.equal(durationMs('not a time', at(1)), null);
});

t.test('nodeRows: depth first, siblings in the order first seen, orphans and cycles as roots', async (t) => {
  const nodes = [
    node('mcp:session', null),
    node('tool:b', 'mcp:session'),
    node('mcp:protocol', 'mcp:session'),
    node('mcp:initialize', 'mcp:protocol'),
    node('tool:a', 'mcp:session', 'error'),
    node('orphan', 'nowhere'),
    node('loop:1', 'loop:2'),
    node('loop:2', 'loop:1'),
    node('self', 'self'),
  ];
  const instances = [
    instance('mcp_1', 'mcp:session', 0, 1_000),
    instance('mcp_2', 'tool:a', 10, 30, { status: 'error', error: { name: 'ToolError', message: 'no' } }),
    instance('mcp_3', 'tool:a', 50, 70),
    instance('mcp_4', 'tool:a', 200, null),
  ];
  t.same(
    nodeRows(run(nodes, instances)).map((row) => `${'-'.repeat(row.depth)}${row.nodeId} ${row.calls}/${row.errors}/${row.open} ${row.slowestMs}`),
    ['mcp:session 1/0/0 1000', '-tool:b 0/0/0 null', '-mcp:protocol 0/0/0 null', '--mcp:initialize 0/0/0 null', '-tool:a 3/1/1 70', 'orphan 0/0/0 null', 'self 0/0/0 null', 'loop:1 0/0/0 null', '-loop:2 0/0/0 null'],
  );
});

t.test('runOverview: counts, errors session first then calls then noise, the log tail, meta capped', async (t) => {
  const instances = [
    instance('mcp_1', 'mcp:session', 0, 1_000, { status: 'error', error: { name: 'McpServerExited', message: 'killed' } }),
    instance('mcp_2', 'mcp:stdout-noise', 1, 0, { status: 'error', error: { name: 'StdoutNoise', message: 'noise' } }),
    instance('mcp_3', 'tool:a', 2, 5, { status: 'error', error: { name: 'JsonRpcError', message: 'bad', code: -32602 } }),
    instance('mcp_4', 'tool:a', 9, null),
  ];
  const logs = Array.from({ length: 25 }, (_, i) => log(i, `line ${i} ${'z'.repeat(i === 24 ? 600 : 0)}`));
  const view = runOverview(run([node('mcp:session', null), node('mcp:stdout-noise', 'mcp:session'), node('tool:a', 'mcp:session')], instances, logs, { big: 'm'.repeat(3_000) }));
  t.same(view.run.counts, { nodes: 3, calls: 4, open: 1, errors: 3, logLines: 25 });
  t.same(
    view.errors.map((error) => `${error.instanceId} ${error.name} ${error.code}`),
    ['mcp_1 McpServerExited null', 'mcp_3 JsonRpcError -32602', 'mcp_2 StdoutNoise null'],
  );
  t.same(view.logTail.map((row) => row.index), Array.from({ length: 20 }, (_, i) => i + 5));
  t.match(view.logTail.at(-1)?.text, /^line 24 z+… \[truncated, \d+ more characters\]$/);
  t.type(view.run.meta, 'string');
  t.match(view.run.meta, /… \[truncated, 1010 more characters\]$/);
  t.same(view.truncated, ['run.meta']);
  t.equal(view.run.durationMs, 1_000);
});

t.test('runOverview: nodes and errors past their limits are counted', async (t) => {
  const nodes = [node('mcp:session', null), ...Array.from({ length: 99 }, (_, i) => node(`resource:file:///${i}`, 'mcp:session'))];
  const instances = Array.from({ length: 30 }, (_, i) => instance(`mcp_${i}`, `resource:file:///${i}`, i, 1, { status: 'error', error: { name: 'JsonRpcError', message: 'nope' } }));
  const view = runOverview(run(nodes, instances));
  t.equal(view.nodes.length, 60);
  t.equal(view.nodesLeftOut, 40);
  t.equal(view.errors.length, 20);
  t.equal(view.errorsLeftOut, 10);
});

t.test('callRow previews; callDetail caps each value and lists the cuts', async (t) => {
  const big = instance('mcp_7', 'tool:a', 100, 50, {
    status: 'error',
    input: { name: 'a', arguments: { q: 'short' } },
    output: { content: [{ type: 'text', text: 'o'.repeat(20_000) }], isError: true },
    error: { name: 'ToolError', message: 'e'.repeat(5_000), data: { trace: 'd'.repeat(300) } },
  });
  const row = callRow(big);
  t.equal(row.input, '{"name":"a","arguments":{"q":"short"}}');
  t.match(row.output, /^\{"content":\[\{"type":"text","text":"o+… \[truncated, \d+ more characters\]$/);
  t.equal(row.output?.length, 200 + '… [truncated, 19854 more characters]'.length);
  t.match(row.error, { name: 'ToolError', code: null, message: /^e{200}… \[truncated, 4800 more characters\]$/ });

  const logs = [log(99, 'before'), log(100, 'at the start'), log(120, 'during'), log(150, 'at the end'), log(151, 'after')];
  const r = run([node('tool:a', null, 'error')], [big], logs);
  const detail = callDetail(r, big, 10_000);
  t.same(detail.input, { name: 'a', arguments: { q: 'short' } }, 'a value that fits stays structured');
  t.match(detail.output, /… \[truncated, 10054 more characters\]$/);
  t.match(detail.error, { name: 'ToolError', code: null, message: /… \[truncated, 3000 more characters\]$/, data: { trace: 'd'.repeat(300) } });
  t.same(detail.truncated, [
    { field: 'output', more: 10_054 },
    { field: 'error.message', more: 3_000 },
  ]);
  t.same(
    detail.logsDuring.lines.map((line) => line.text),
    ['at the start', 'during', 'at the end'],
  );
  t.match(detail, { nodeKind: 'tool', nodeLabel: 'tool:a', durationMs: 50 });

  const small = callDetail(r, big, 100);
  t.same(
    small.truncated.map((cut) => cut.field),
    ['output', 'error.message', 'error.data'],
  );
  t.equal(row.sentBy, null, 'the host\'s call: sentBy null');
  t.equal(detail.sentBy, null);
  const sent = instance('mcp_9', 'tool:a', 200, 5, { sentBy: 'viewer', status: 'error', error: { name: 'ToolError', message: 'no' } });
  t.equal(callRow(sent).sentBy, 'viewer', 'a call the debugger sent (Send again): who had it sent, in the row');
  t.equal(callDetail(r, sent, 100).sentBy, 'viewer', 'and in the detail');
  t.same(runOverview(run([node('tool:a', null, 'error')], [big, sent])).errors.map((error) => [error.instanceId, error.sentBy]), [['mcp_7', undefined], ['mcp_9', 'viewer']], 'get_run\'s errors name it');
  const open = callDetail(r, instance('mcp_8', 'tool:gone', 140, null), 100);
  t.match(open, { nodeKind: null, nodeLabel: null, durationMs: null, error: null, truncated: [] });
  t.same(
    open.logsDuring.lines.map((line) => line.text),
    ['at the end', 'after'],
    'an open call: the lines since it began',
  );
});
