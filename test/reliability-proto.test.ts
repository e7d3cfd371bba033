// `__proto__`, `constructor` and `prototype` keys in everything a reporter,
// a run log or an import hands the debugger (issue 29: "no prototype from
// input").
//
// JSON.parse makes such keys plain own properties; the danger is code that
// copies them with `obj[key] = value`, where `__proto__` is the setter of
// the object's prototype. Every case here sends the keys through a real
// `graphmind serve` and reads the result back through the API:
//
// - ingest (a raw reporter on /ingest): run.started meta, run.meta, node
//   ids and labels, instance ids, inputs, outputs and errors, log lines,
//   a hold (its id and frame);
// - PUT /api/breakpoints with those keys as node ids;
// - the run log loaded at start (serve restarted on the same data dir);
// - `graphmind import` of that log into another serve.
//
// What "comes back as plain data" means here: the key is an own property of
// what GET returns, with the value that was sent, and nothing else changes:
// a `__proto__` carrying `serverInfo` must not make the run's summary show
// a server (RunSummary.server is read from meta.serverInfo), and a run
// reported after it must not inherit anything.
//
// Found by this test and fixed (src/protocol/run-replay.ts, `case
// 'run.meta'`): the merge did `this.meta[key] = value`, so a `__proto__` key
// in a run.meta event replaced the meta object's prototype: the key went
// missing from GET and its `serverInfo` leaked into the summary. It now
// stores every key as the meta's own data (json/set-own.ts).
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { CLI } from './helpers/cli.js';
import { api, fakeReporter, freshDataDir, runId as freshRunId, startServe, type ServeProcess } from './helpers/serve.js';
import { serveOnPort } from './helpers/graph.js';

const run = promisify(execFile);

/** The value sent wherever an object goes: the three keys, as JSON.parse makes them. */
const EVIL_TEXT = '{"__proto__":{"polluted":"yes","serverInfo":{"name":"evil","version":"6.6.6"}},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"},"plain":1}';
const EVIL = JSON.parse(EVIL_TEXT) as Record<string, unknown>;
const KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Problems with `value` as a copy of EVIL: each key own, each value as sent, the prototype Object's. */
function evilProblems(value: unknown, where: string): string[] {
  if (value === null || typeof value !== 'object') return [`${where}: not an object (${JSON.stringify(value)})`];
  const problems: string[] = [];
  if (Object.getPrototypeOf(value) !== Object.prototype) problems.push(`${where}: its prototype is not Object.prototype`);
  for (const key of [...KEYS, 'plain']) {
    const own = Object.getOwnPropertyDescriptor(value, key);
    if (own === undefined) problems.push(`${where}: "${key}" is not an own key`);
    else if (JSON.stringify(own.value) !== JSON.stringify(Object.getOwnPropertyDescriptor(EVIL, key)?.value)) problems.push(`${where}: "${key}" is ${JSON.stringify(own.value)}`);
  }
  return problems;
}

/** GET /api/runs/:id, parsed (JSON.parse keeps `__proto__` as an own key). */
async function getRun(serve: { port: number; token: string }, id: string): Promise<Record<string, unknown>> {
  const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${id}`);
  if (answer.status !== 200) throw new Error(`GET /api/runs/${id}: ${answer.status}`);
  return answer.json as Record<string, unknown>;
}

/** The ingest events of the hostile run, as text (so the keys stay own keys). */
function hostileEvents(id: string, t0: number): string[] {
  const node = (nodeId: string): string => `{"nodeId":${JSON.stringify(nodeId)},"kind":"tool","parent":null,"label":${JSON.stringify(nodeId)}}`;
  const events: string[] = [];
  let seq = 0;
  const add = (body: string): void => {
    seq++;
    events.push(`{${body},"runId":"${id}","seq":${seq},"t":${t0 + seq}}`);
  };
  // The start's meta has none of the keys: the merge of run.meta is what adds them.
  add(`"type":"run.started","name":"hostile","source":"test","meta":{"started":true}`);
  add(`"type":"run.meta","meta":${EVIL_TEXT}`);
  for (const key of KEYS) {
    add(`"type":"instance.started","instanceId":${JSON.stringify(key)},"node":${node(key)},"input":${EVIL_TEXT}`);
    add(`"type":"instance.finished","instanceId":${JSON.stringify(key)},"output":${EVIL_TEXT}`);
  }
  add(`"type":"instance.started","instanceId":"failing","node":${node('tool:failing')},"input":${EVIL_TEXT}`);
  add(`"type":"instance.error","instanceId":"failing","error":{"name":"E","message":"m","data":${EVIL_TEXT}}`);
  add(`"type":"log","nodeId":"__proto__","stream":"__proto__","text":"constructor"`);
  add(`"type":"hold.opened","holdId":"__proto__","nodeId":"__proto__","instanceId":"__proto__","gate":"after","method":"tools/call","frame":{"jsonrpc":"2.0","id":1,"result":${EVIL_TEXT}}`);
  return events;
}

/** Every check on a run read back, as a list of problems (empty: all well). */
function runProblems(runView: Record<string, unknown>, withMeta: { started: boolean; merged: boolean }): string[] {
  const problems: string[] = [];
  if (withMeta.started || withMeta.merged) problems.push(...evilProblems(runView.meta, 'meta'));
  const nodes = runView.nodes as Array<{ nodeId: string; label: string }>;
  for (const key of KEYS) {
    const node = nodes.find((n) => n.nodeId === key);
    if (node === undefined) problems.push(`node ${key}: missing`);
    else if (node.label !== key) problems.push(`node ${key}: label ${node.label}`);
  }
  const instances = runView.instances as Array<{ instanceId: string; status: string; input?: unknown; output?: unknown; error?: { data?: unknown } }>;
  for (const key of KEYS) {
    const instance = instances.find((i) => i.instanceId === key);
    if (instance === undefined) {
      problems.push(`instance ${key}: missing`);
      continue;
    }
    problems.push(...evilProblems(instance.input, `instance ${key} input`), ...evilProblems(instance.output, `instance ${key} output`));
  }
  const failing = instances.find((i) => i.instanceId === 'failing');
  problems.push(...evilProblems(failing?.error?.data, 'instance failing error.data'));
  const logs = runView.logs as Array<{ nodeId: string; stream: string; text: string }>;
  if (!logs.some((l) => l.nodeId === '__proto__' && l.stream === '__proto__' && l.text === 'constructor')) problems.push('log line: missing or changed');
  if (runView.server !== undefined) problems.push(`summary: server ${JSON.stringify(runView.server)} (taken from an inherited serverInfo)`);
  return problems;
}

/** The run summary in GET /api/runs. */
async function summaryOf(serve: { port: number; token: string }, id: string): Promise<Record<string, unknown> | undefined> {
  const list = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as Array<Record<string, unknown>>;
  return list.find((s) => s.runId === id);
}

let first: ServeProcess;
let dataDir: string;
const hostile = freshRunId('hostile');

t.before(async () => {
  const fresh = freshDataDir();
  dataDir = fresh.dataDir;
  first = await startServe(['--pause-on-error', 'off'], {}, { dataDir });
});
t.teardown(() => first.stop('SIGKILL'));

t.test('ingest: the keys in every object a reporter sends come back as plain data', async (t) => {
  const reporter = await fakeReporter(first.port, first.token);
  t.teardown(() => reporter.close());
  reporter.sendRaw(`[${hostileEvents(hostile, Date.now()).join(',')}]`);
  // The hold is the last event: once it is listed, everything before it was applied.
  const holds = await (async () => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const answer = await api(first.port, first.token, 'GET', '/api/holds');
      const list = answer.json as Array<Record<string, unknown>>;
      if (list.length > 0) return list;
      if (reporter.ws.readyState !== reporter.ws.OPEN) throw new Error('the server closed the reporter: it refused an event');
    }
    throw new Error('the hold never showed');
  })();
  const hold = holds[0] as { holdId: string; frame: { result: unknown } };
  t.equal(hold.holdId, '__proto__', 'a hold whose id is __proto__ is listed');
  t.same(evilProblems(hold.frame.result, 'hold frame result'), [], "the held frame's result comes back as sent");
  const decided = await api(first.port, first.token, 'POST', '/api/holds/__proto__', { action: 'continue' });
  t.equal(decided.status, 200, 'and it can be decided');
  const decision = await reporter.next((m) => m.type === 'decision', 5000, 'the decision');
  t.equal(decision.holdId, '__proto__', "and the decision reaches its reporter");

  // A run.started whose meta holds the keys (copied by a spread: safe).
  const started = freshRunId('started');
  reporter.sendRaw(`[{"type":"run.started","name":"started","source":"test","meta":${EVIL_TEXT},"runId":"${started}","seq":1,"t":${Date.now()}}]`);
  let startedView: Record<string, unknown> | undefined;
  for (const deadline = Date.now() + 5000; startedView === undefined && Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const answer = await api(first.port, first.token, 'GET', `/api/runs/${started}`);
    if (answer.status === 200) startedView = answer.json as Record<string, unknown>;
  }
  t.same(evilProblems(startedView?.meta, 'run.started meta'), [], "run.started's meta: the keys come back as plain data");
  t.equal((await summaryOf(first, started))?.server, undefined, 'and its summary shows no server');

  const view = await getRun(first, hostile);
  const problems = runProblems(view, { started: true, merged: true });
  t.same(problems.filter((p) => !p.startsWith('meta') && !p.startsWith('summary')), [], 'node ids and labels, instance ids, inputs, outputs, error data, log lines: plain data');
  // Fixed in issue 29: run.meta merged with `this.meta[key] = value`.
  t.same(problems.filter((p) => p.startsWith('meta') || p.startsWith('summary')), [], 'run.meta keeps __proto__ as a key and the summary shows no server');
  t.equal((await summaryOf(first, hostile))?.server, undefined, 'GET /api/runs shows no server taken from meta.__proto__.serverInfo');

  // A run reported afterwards inherits nothing (no global prototype changed).
  const clean = freshRunId('clean');
  reporter.sendRaw(`[{"type":"run.started","name":"clean","source":"test","meta":{},"runId":"${clean}","seq":1,"t":${Date.now()}},{"type":"run.meta","meta":{"a":1},"runId":"${clean}","seq":2,"t":${Date.now()}}]`);
  let cleanView: Record<string, unknown> | undefined;
  for (const deadline = Date.now() + 5000; cleanView === undefined && Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const answer = await api(first.port, first.token, 'GET', `/api/runs/${clean}`);
    if (answer.status === 200 && (answer.json as { meta: { a?: number } }).meta.a === 1) cleanView = answer.json as Record<string, unknown>;
  }
  t.same(cleanView?.meta, { a: 1 }, 'a clean run afterwards has exactly its own meta');
  t.equal((await summaryOf(first, clean))?.server, undefined, 'and no server from anywhere');
  t.comment(`ingest problems: ${problems.length === 0 ? 'none' : problems.join('; ')}`);
});

t.test('PUT /api/breakpoints: the keys as node ids are node ids', async (t) => {
  const body = '{"pauseOnError":false,"nodes":{"__proto__":{"before":true},"constructor":{"after":true},"prototype":{}}}';
  const reporter = await fakeReporter(first.port, first.token);
  t.teardown(() => reporter.close());
  const put = await api(first.port, first.token, 'PUT', '/api/breakpoints', body);
  t.equal(put.status, 200, 'accepted');
  const got = (await api(first.port, first.token, 'GET', '/api/breakpoints')).json as { nodes: Record<string, unknown> };
  t.equal(Object.getPrototypeOf(got.nodes), Object.prototype, 'nodes is a plain object');
  t.same(Object.keys(got.nodes).sort(), ['__proto__', 'constructor', 'prototype'], 'with the three node ids as own keys');
  t.same(Object.getOwnPropertyDescriptor(got.nodes, '__proto__')?.value, { before: true }, '__proto__: before');
  t.same(Object.getOwnPropertyDescriptor(got.nodes, 'constructor')?.value, { after: true }, 'constructor: after');
  const pushed = await reporter.next((m) => m.type === 'breakpoints' && Object.keys((m.breakpoints as { nodes: object }).nodes).length === 3, 5000, 'the breakpoints pushed');
  t.same(Object.keys((pushed.breakpoints as { nodes: object }).nodes).sort(), ['__proto__', 'constructor', 'prototype'], 'and pushed to reporters as they are');
  await api(first.port, first.token, 'PUT', '/api/breakpoints', { pauseOnError: false, nodes: {} });
});

t.test('a run log loaded at start: the keys come back as plain data', async (t) => {
  const port = first.port;
  await first.stop();
  const again = await serveOnPort(port, dataDir, ['--pause-on-error', 'off']);
  t.teardown(() => again.stop());
  const view = await getRun(again, hostile);
  const problems = runProblems(view, { started: true, merged: true });
  t.same(problems.filter((p) => !p.startsWith('meta') && !p.startsWith('summary')), [], 'everything but the meta: plain data');
  t.same(problems.filter((p) => p.startsWith('meta') || p.startsWith('summary')), [], 'BUG (issue 29): the meta, loaded from the log');
  t.comment(`loaded at start, problems: ${problems.length === 0 ? 'none' : problems.join('; ')}`);

  // graphmind import of that log into another debugger.
  const other = await startServe(['--pause-on-error', 'off']);
  t.teardown(() => other.stop());
  const log = readdirSync(join(dataDir, 'runs')).find((name) => name.startsWith(hostile));
  t.ok(log !== undefined, 'the run has a log file');
  const env: NodeJS.ProcessEnv = { ...process.env, GRAPHMIND_DATA_DIR: other.dataDir };
  delete env.GRAPHMIND_TOKEN;
  const done = await run(process.execPath, [CLI, 'import', join(dataDir, 'runs', log as string), '--port', String(other.port), '--data-dir', other.dataDir], { env, timeout: 30_000 });
  t.comment(`graphmind import: ${done.stdout.trim()} ${done.stderr.trim()}`);
  const imported = await getRun(other, hostile);
  const importProblems = runProblems(imported, { started: true, merged: true });
  t.same(importProblems.filter((p) => !p.startsWith('meta') && !p.startsWith('summary')), [], 'graphmind import: everything but the meta is plain data');
  t.same(importProblems.filter((p) => p.startsWith('meta') || p.startsWith('summary')), [], 'BUG (issue 29): graphmind import: the meta');
  t.comment(`imported, problems: ${importProblems.length === 0 ? 'none' : importProblems.join('; ')}`);
});
