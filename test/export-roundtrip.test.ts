// graphmind export and graphmind import, through the real CLI: a run
// recorded from a real proxy session (a held call injected, an answer held
// and retried, a failing tool, stdout noise) exported as JSONL and imported
// into another debugger (over its API) and into a data directory with no
// debugger running comes back exactly as GET /api/runs/:runId showed it;
// the HAR export validates against the HAR 1.2 JSON schema; the API's
// export and import routes answer what they should.
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { CLI, NO_DEBUGGER_PORT } from './helpers/cli.js';
import { connectV1, decide, newRuns, runIds, setBreakpoints, startDebugger, waitForHold } from './helpers/gates.js';
import { api, freshDataDir, startServe, type ServeProcess } from './helpers/serve.js';

const TOOLS_SERVER = fileURLToPath(new URL('./fixtures/export/tools-server.mjs', import.meta.url));
const require = createRequire(import.meta.url);

/** Run the CLI; resolves with its exit code and output. */
async function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string; bytes: Buffer }> {
  const env = { ...process.env };
  delete env.GRAPHMIND_TOKEN;
  delete env.GRAPHMIND_DATA_DIR;
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  const bytes = Buffer.concat(out);
  return { code, stdout: bytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), bytes };
}

async function getRunJson(serve: ServeProcess, runId: string): Promise<Record<string, unknown>> {
  const answer = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`);
  if (answer.status !== 200) throw new Error(`GET /api/runs/${runId}: ${answer.status}`);
  return answer.json as Record<string, unknown>;
}

/** The HAR 1.2 schema (har-schema), compiled with its draft-06 meta-schema. */
function harValidator(): (value: unknown) => boolean {
  const ajv = new Ajv({ strict: false, allErrors: true, formats: { 'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/ } });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  for (const schema of Object.values(require('har-schema') as Record<string, object>)) ajv.addSchema(schema);
  const validate = ajv.getSchema('har.json#');
  if (validate === undefined) throw new Error('no har.json# schema');
  return (value) => {
    const ok = validate(value) as boolean;
    if (!ok) t.comment(JSON.stringify(validate.errors?.slice(0, 5)));
    return ok;
  };
}

t.test('export and import round-trip a run exactly', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'graphmind-export-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const serve = await startDebugger(t, ['--pause-on-error', 'off']);
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true }, 'tool:slow': { after: true } } });
  const before = new Set(await runIds(serve));
  const session = await connectV1(t, serve, { server: [TOOLS_SERVER] });
  const [runId] = (await newRuns(serve, before)) as [string];

  const injected = session.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
  await decide(serve, hold.holdId, 'inject', { content: [{ type: 'text', text: 'injected' }] });
  await injected;
  const retried = session.client.callTool({ name: 'slow', arguments: { ms: 1 } });
  const first = await waitForHold(serve, { nodeId: 'tool:slow', gate: 'after' });
  await decide(serve, first.holdId, 'retry');
  const second = await waitForHold(serve, { nodeId: 'tool:slow', gate: 'after' });
  await decide(serve, second.holdId, 'continue');
  await retried;
  await session.client.callTool({ name: 'fail', arguments: {} });
  await session.close();
  let original = await getRunJson(serve, runId);
  for (let i = 0; i < 200 && original.status === 'running'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    original = await getRunJson(serve, runId);
  }
  t.equal(original.status, 'ok');
  t.ok(((original.instances as Array<{ attempts?: unknown[] }>).some((instance) => instance.attempts?.length === 1)), 'the retried call kept its dropped answer');

  const file = join(work, 'run.jsonl');
  const exported = await cli(['export', runId, '--format', 'jsonl', '-o', file, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(exported.code, 0, exported.stderr);
  t.match(exported.stderr, `graphmind export: wrote run ${runId} as jsonl to ${file}`);
  t.match(exported.stderr, `from the debugger on 127.0.0.1:${serve.port}`);
  t.same(readFileSync(file), readFileSync(join(serve.dataDir, 'runs', `${runId}.jsonl`)), 'the JSONL export is the run\'s log, byte for byte');

  t.test('into another debugger, over its API', async (t) => {
    const other = await startDebugger(t);
    const imported = await cli(['import', file, '--port', String(other.port), '--data-dir', other.dataDir]);
    t.equal(imported.code, 0, imported.stderr);
    t.match(imported.stdout, `graphmind import: loaded run ${runId} into the debugger: http://127.0.0.1:${other.port}/#run=${runId}`);
    t.same(await getRunJson(other, runId), original, 'GET /api/runs/:runId: the same run');
    const listed = (await api(other.port, other.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
    t.ok(listed.some((run) => run.runId === runId));

    const again = await cli(['import', file, '--port', String(other.port), '--data-dir', other.dataDir]);
    t.equal(again.code, 1);
    t.match(again.stderr, 'graphmind import: the debugger on 127.0.0.1:');
    // Issue 30: the hint names the CLI's flag, not the API's ?newId=1.
    t.match(again.stderr, `a run ${runId} is there already: import it with --new-id to keep both`);
    const renamed = await cli(['import', file, '--new-id', '--port', String(other.port), '--data-dir', other.dataDir]);
    t.equal(renamed.code, 0, renamed.stderr);
    const newId = /loaded run (\S+) into/.exec(renamed.stdout)?.[1] as string;
    t.not(newId, runId);
    const copy = await getRunJson(other, newId);
    t.same({ ...copy, runId }, original, 'under a new id, the same run');

    // Exported from there again: the same trace as from here (ids come from the run).
    const otlpHere = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export?format=otlp-json`);
    const otlpThere = await api(other.port, other.token, 'GET', `/api/runs/${runId}/export?format=otlp-json`);
    t.same(otlpThere.json, otlpHere.json);
  });

  t.test('into a data directory with no debugger running, then served', async (t) => {
    const { root, dataDir } = freshDataDir();
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const imported = await cli(['import', file, '--port', String(NO_DEBUGGER_PORT), '--data-dir', dataDir]);
    t.equal(imported.code, 0, imported.stderr);
    t.match(imported.stdout, `no debugger answers on 127.0.0.1:${NO_DEBUGGER_PORT}; wrote run ${runId} to ${join(dataDir, 'runs', `${runId}.jsonl`)}`);
    const twice = await cli(['import', file, '--port', String(NO_DEBUGGER_PORT), '--data-dir', dataDir]);
    t.equal(twice.code, 1);
    t.match(twice.stderr, 'a run with this id is in');

    // Exported from the data directory (no debugger): the same bytes, and a HAR.
    const fromDir = await cli(['export', runId, '--port', String(NO_DEBUGGER_PORT), '--data-dir', dataDir]);
    t.equal(fromDir.code, 0, fromDir.stderr);
    t.same(fromDir.bytes, readFileSync(file));
    const missing = await cli(['export', 'run_nothing_here', '--port', String(NO_DEBUGGER_PORT), '--data-dir', dataDir]);
    t.equal(missing.code, 1);
    t.match(missing.stderr, `graphmind export: no run run_nothing_here in ${dataDir}`);

    const served = await startServe([], {}, { dataDir });
    t.teardown(() => served.stop());
    t.same(await getRunJson(served, runId), original, 'loaded by graphmind serve at its start: the same run');
  });

  t.test('HAR 1.2', async (t) => {
    const harFile = join(work, 'run.har');
    const written = await cli(['export', runId, '--format', 'har', '-o', harFile, '--port', String(serve.port), '--data-dir', serve.dataDir]);
    t.equal(written.code, 0, written.stderr);
    const har = JSON.parse(readFileSync(harFile, 'utf8')) as { log: { entries: Array<Record<string, any>>; creator: { name: string } } };
    const validate = harValidator();
    t.notOk(validate({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [{ startedDateTime: 'yesterday', time: 1 }] } }), 'the schema turns away what is not HAR');
    t.ok(validate(har), 'validates against the HAR 1.2 schema');
    t.equal(har.log.creator.name, 'graphmind-ai');
    const calls = (original.instances as Array<{ nodeId: string }>).filter((instance) => !['mcp:session', 'mcp:protocol', 'mcp:stdout-noise'].includes(instance.nodeId));
    t.equal(har.log.entries.length, calls.length, 'one entry per call');
    for (const entry of har.log.entries) {
      // What Chromium's HAR importer reads of an entry.
      t.type(entry.startedDateTime, 'string');
      t.type(entry.time, 'number');
      t.type(entry.request.url, 'string');
      t.type(entry.response.status, 'number');
      t.type(entry.response.content.size, 'number');
      t.type(entry.response.content.mimeType, 'string');
      t.ok(Array.isArray(entry.request.headers) && Array.isArray(entry.response.headers));
      t.ok(entry.time >= 0);
    }
    const echo = har.log.entries.find((entry) => entry.request.url.endsWith('/tools/call/echo'));
    t.equal(echo?.request.url, 'mcp://export-fixture/tools/call/echo');
    t.equal(echo?.response.status, 200);
    t.match(echo?.response.content.text, 'injected');
    t.match(echo?._graphmind, { changedByDebugger: true, change: { action: 'inject', by: 'api' } });
    t.same(JSON.parse(echo?.request.postData.text).params, { name: 'echo', arguments: { text: 'hi' } });
    t.equal(JSON.parse(echo?.request.postData.text).id, (hold.frame as { id: number }).id, 'a held frame\'s id is the request\'s');
    const slow = har.log.entries.find((entry) => entry.request.url.endsWith('/tools/call/slow'));
    t.match(slow?._graphmind, { changedByDebugger: true, change: { action: 'retry' } });
    t.equal(slow?._graphmind.attempts.length, 1);
    const initialized = har.log.entries.find((entry) => entry.request.url.endsWith('/notifications/initialized'));
    t.equal(initialized?.response.status, 202, 'a notification is Accepted, as over Streamable HTTP');
    const fail = har.log.entries.find((entry) => entry.request.url.endsWith('/tools/call/fail'));
    t.match(JSON.parse(fail?.response.content.text).result, { isError: true });
  });

  t.test('the API routes', async (t) => {
    const head = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export`);
    t.equal(head.status, 200);
    t.equal(head.headers['content-type'], 'application/x-ndjson; charset=utf-8');
    t.equal(head.headers['content-disposition'], `attachment; filename="${runId}.jsonl"`);
    t.equal((await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export?format=xml`)).status, 400);
    t.equal((await api(serve.port, serve.token, 'GET', '/api/runs/run_unknown/export?format=har')).status, 404);
    t.equal((await api(serve.port, undefined, 'GET', `/api/runs/${runId}/export`)).status, 401);
    t.equal((await api(serve.port, serve.token, 'POST', `/api/runs/${runId}/export`)).status, 405);
    const garbage = await api(serve.port, serve.token, 'POST', '/api/runs/import', 'not a log\n');
    t.equal(garbage.status, 400);
    t.match(garbage.json, { error: 'this is not a GraphMind run log (no line of it is a run event)' });
    const lines = readFileSync(file, 'utf8').split('\n');
    const partial = await api(serve.port, serve.token, 'POST', '/api/runs/import?newId=1', `${lines.slice(3).join('\n')}`);
    t.equal(partial.status, 400, 'a log without its start');
    const exists = await api(serve.port, serve.token, 'POST', '/api/runs/import', readFileSync(file, 'utf8'));
    t.equal(exists.status, 409);
    // A torn last line is left out, as at a server's start; what came before loads.
    const torn = `${readFileSync(file, 'utf8')}{"type":"log","runId":`;
    const loaded = await api(serve.port, serve.token, 'POST', '/api/runs/import?newId=1', torn);
    t.equal(loaded.status, 201);
    t.equal((loaded.json as { skippedLines: number }).skippedLines, 1);
    t.equal((loaded.json as { run: { status: string } }).run.status, 'ok');
  });

  t.test('a run still being recorded exports as it is now', async (t) => {
    await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true } } });
    const seen = new Set(await runIds(serve));
    const live = await connectV1(t, serve, { server: [TOOLS_SERVER] });
    const [liveId] = (await newRuns(serve, seen)) as [string];
    const call = live.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    const held = await waitForHold(serve, { nodeId: 'tool:echo' });
    const jsonl = await api(serve.port, serve.token, 'GET', `/api/runs/${liveId}/export`);
    t.equal(jsonl.status, 200);
    t.match(jsonl.text, `"holdId":"${held.holdId}"`, 'the log up to the hold');
    const har = await api(serve.port, serve.token, 'GET', `/api/runs/${liveId}/export?format=har`);
    const entry = (har.json as { log: { entries: Array<{ response: { status: number }; _graphmind: { holds: unknown[] } }> } }).log.entries.find((e) => e._graphmind.holds !== undefined);
    t.equal(entry?.response.status, 0, 'held, not answered yet');
    await decide(serve, held.holdId, 'continue');
    await call;
    await live.close();
  });

  t.test('nothing is left behind in the work folder but the exports', async (t) => {
    t.same(readdirSync(work).sort(), ['run.har', 'run.jsonl']);
  });
});
