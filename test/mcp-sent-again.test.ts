// `graphmind mcp` says when a call was sent by the debugger (Send again:
// `Instance.sentBy`), so an assistant never takes it for the host's call
// (issue 30): list_calls and get_call carry `sentBy` and say it in their
// text, get_run's errors name it, and find_problems keeps such a call's
// failure on a row of its own whose summary says so first. The run is a
// log in a data directory read by the real reader (DataDirRuns, the
// replay every source uses), and every answer is checked against the
// tool's outputSchema as a client checks it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import t, { type Test } from 'tap';
import { DataDirRuns } from '../src/mcp/data-dir-runs.js';
import type { Tool, ToolContext } from '../src/mcp/tool.js';
import { findProblemsTool } from '../src/mcp/tools/find-problems.js';
import { getCallTool } from '../src/mcp/tools/get-call.js';
import { getRunTool } from '../src/mcp/tools/get-run.js';
import { listCallsTool } from '../src/mcp/tools/list-calls.js';
import { tempDir } from './helpers/graph.js';

const RUN = 'run_sent_again_1';
const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const hello = { nodeId: 'tool:hello', kind: 'tool', parent: 'mcp:session', label: 'hello' };
const failure = { name: 'JsonRpcError', message: 'MCP error -32000: not yet', code: -32000 };

/** The run's log: the host's call fails; the same request, sent again by the debugger for the viewer, fails alike. */
function log(): string {
  let seq = 0;
  const at = (ms: number, event: Record<string, unknown>) => ({ ...event, runId: RUN, seq: ++seq, t: T0 + ms });
  return [
    at(0, { type: 'run.started', name: 'node server.mjs', source: 'mcp-proxy', meta: {} }),
    at(0, { type: 'instance.started', instanceId: 'mcp_1', node: { nodeId: 'mcp:session', kind: 'server', parent: null, label: 'node server.mjs' } }),
    at(10, { type: 'instance.started', instanceId: 'mcp_2', node: hello, input: { name: 'hello', arguments: {} } }),
    at(20, { type: 'instance.error', instanceId: 'mcp_2', error: failure }),
    at(1_000, { type: 'instance.started', instanceId: 'mcp_3', node: hello, input: { name: 'hello', arguments: {} }, sentBy: 'viewer' }),
    at(1_010, { type: 'instance.error', instanceId: 'mcp_3', error: failure }),
    at(2_000, { type: 'instance.finished', instanceId: 'mcp_1' }),
    at(2_000, { type: 'run.finished', status: 'ok' }),
  ]
    .map((event) => `${JSON.stringify(event)}\n`)
    .join('');
}

const dataDir = tempDir('graphmind-mcp-sent-');
mkdirSync(join(dataDir, 'runs'));
writeFileSync(join(dataDir, 'runs', `${RUN}.jsonl`), log());
const context: ToolContext = {
  runs: new DataDirRuns({ dataDir }),
  control: {
    listHolds: () => Promise.reject(new Error('no debugger')),
    decideHold: () => Promise.reject(new Error('no debugger')),
    getBreakpoints: () => Promise.reject(new Error('no debugger')),
    putBreakpoints: () => Promise.reject(new Error('no debugger')),
  },
  now: () => T0 + 60_000,
};
const ajv = new Ajv({ strict: false, allErrors: true });

/** Call `tool` as a client would, its structured answer checked against its outputSchema. */
async function call(t: Test, tool: Tool, args: Record<string, unknown>): Promise<{ structured: Record<string, unknown>; text: string }> {
  const answer = await tool.call(args, context);
  const valid = ajv.validate(tool.outputSchema, answer.structured);
  t.ok(valid, `${tool.name}: the answer matches its outputSchema ${valid ? '' : ajv.errorsText()}`);
  return answer;
}

t.test('list_calls: sentBy on the call the debugger sent, null on the host\'s', async (t) => {
  const { structured, text } = await call(t, listCallsTool, { runId: RUN, nodeId: 'tool:hello' });
  const rows = structured.calls as Array<{ instanceId: string; sentBy: string | null }>;
  t.same(rows.map((row) => [row.instanceId, row.sentBy]), [['mcp_2', null], ['mcp_3', 'viewer']]);
  const lines = text.split('\n');
  t.match(lines.find((line) => line.startsWith('mcp_3 ')), /\[sent again by viewer: not the host's call\]/, 'its line says so');
  t.notMatch(lines.find((line) => line.startsWith('mcp_2 ')), /sent again/, 'the host\'s call\'s line does not');
});

t.test('get_call: sentBy, and the text says first that the host did not make it', async (t) => {
  const sent = await call(t, getCallTool, { runId: RUN, instanceId: 'mcp_3' });
  t.equal((sent.structured.call as { sentBy: string | null }).sentBy, 'viewer');
  t.match(
    sent.text.split('\n')[1],
    /^SENT BY THE DEBUGGER, NOT THE HOST: the debugger sent this request itself \(Send again, for viewer\): the host did not make this call and never got its answer$/,
    'the first line after the head',
  );
  const own = await call(t, getCallTool, { runId: RUN, instanceId: 'mcp_2' });
  t.equal((own.structured.call as { sentBy: string | null }).sentBy, null, 'the host\'s call: null');
  t.notMatch(own.text, /SENT BY THE DEBUGGER/);
});

t.test('get_run: its errors name the call the debugger sent', async (t) => {
  const { structured, text } = await call(t, getRunTool, { runId: RUN });
  const errors = structured.errors as Array<{ instanceId: string; sentBy?: string }>;
  t.same(errors.map((error) => [error.instanceId, error.sentBy]), [['mcp_2', undefined], ['mcp_3', 'viewer']]);
  t.match(text, /error mcp_3 on tool:hello \(sent again by viewer: not the host's call\): JsonRpcError/);
  t.match(text, /error mcp_2 on tool:hello: JsonRpcError/);
});

t.test('find_problems: the sent call\'s failure is a row of its own that says so', async (t) => {
  const { structured } = await call(t, findProblemsTool, { runId: RUN });
  const problems = structured.problems as Array<{ kind: string; instanceIds: string[]; count: number; sentBy: string | null; summary: string }>;
  t.same(
    problems.map((problem) => [problem.kind, problem.instanceIds, problem.sentBy, problem.summary]),
    [
      ['failed_call', ['mcp_2'], null, 'JsonRpcError -32000: MCP error -32000: not yet'],
      ['failed_call', ['mcp_3'], 'viewer', "sent again by viewer: not the host's call: JsonRpcError -32000: MCP error -32000: not yet"],
    ],
    'alike failures, but the host\'s and the debugger\'s are never one row',
  );
});
