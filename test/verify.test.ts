// graphmind verify with real parts: a session recorded through a real graphmind mcp-proxy into
// a real graphmind serve from a real SDK 1.x server, then played against that server again
// (exit 0), against a changed handler (exit 1, the diff names the tool and the path), with
// --ignore and --rules making a changing answer pass, --update re-blessing the run, an injected
// answer as the expected one, the four reporters, stdout noise, a server that cannot start and a
// server that never answers.
import t from 'tap';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from './helpers/cli.js';
import { freePort, serveOnPort, tempDir, type ServeOnPort } from './helpers/graph.js';
import { record, runGraphmind } from './helpers/replay.js';

const SERVER = `${FIXTURES}verify/server.mjs`;
let serve: ServeOnPort;
let runFile: string;
let runId: string;

/** Run `graphmind verify <args> -- node server.mjs` with `env` for the server; its exit code and output. */
async function verify(args: readonly string[], env: Record<string, string> = {}, server: readonly string[] = [process.execPath, SERVER]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runGraphmind(['verify', ...args, '--', ...server], env);
}

t.before(async () => {
  serve = await serveOnPort(await freePort(), tempDir());
  const recorded = await record(serve, [process.execPath, SERVER], async (client) => [
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    await client.callTool({ name: 'search', arguments: { query: 'mcp' } }),
    await client.listTools(),
  ]);
  runId = recorded.runId;
  runFile = join(tempDir('graphmind-verify-'), 'recorded.jsonl');
  copyFileSync(join(serve.dataDir, 'runs', `${recorded.runId}.jsonl`), runFile);
});
t.teardown(() => serve.stop());

t.test('the same server: every call the same, exit 0; by run id from the debugger too', async (t) => {
  const byFile = await verify([runFile]);
  t.equal(byFile.code, 0, byFile.stderr);
  t.match(byFile.stdout, /same\s+#\d+ tools\/call echo/);
  t.match(byFile.stdout, /calls: \d+ same, 0 different, 0 missing, 0 extra/);
  const byId = await verify([runId, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(byId.code, 0, byId.stderr);
});

t.test('a changed handler: exit 1, the diff names the tool and the path', async (t) => {
  const changed = await verify([runFile], { VERIFY_CHANGE: 'echo' });
  t.equal(changed.code, 1);
  t.match(changed.stdout, /different\s+#\d+ tools\/call echo\n\s+\$\.result\.content\[0\]\.text: recorded "hello", received "HELLO"/);
  t.match(changed.stdout, /same\s+#\d+ tools\/call search/);
  const flipped = await verify([runFile, '--ignore', 'tools/call:echo $.result.content'], { VERIFY_CHANGE: 'fail' });
  t.equal(flipped.code, 1, 'an isError that flips is a difference whatever is ignored');
  t.match(flipped.stdout, /\$\.result\.isError: not recorded, received true/);
});

t.test('--ignore and --rules make a changing answer pass', async (t) => {
  const plain = await verify([runFile], { VERIFY_CHANGE: 'time' });
  t.equal(plain.code, 1);
  t.match(plain.stdout, /\$\.result\.content\[0\]\.text\.at: recorded "2026-01-01T00:00:00.000Z"/, 'JSON inside a text is compared as JSON: the path goes into it');
  const ignored = await verify(
    [runFile, '--ignore', '$.result.structuredContent.timestamp', '--ignore', '$.result.structuredContent.id', '--ignore', 'tools/call:search $.result.content[0].text'],
    { VERIFY_CHANGE: 'time' },
  );
  t.equal(ignored.code, 0, ignored.stdout);
  const scopedElsewhere = await verify([runFile, '--ignore', 'tools/call:echo $.result'], { VERIFY_CHANGE: 'time' });
  t.equal(scopedElsewhere.code, 1, 'an ignore scoped to another tool does not apply');
  const rules = join(tempDir('graphmind-verify-'), 'rules.json');
  writeFileSync(rules, JSON.stringify({ normalise: ['uuid', 'date-time'] }));
  const normalised = await verify([runFile, '--rules', rules], { VERIFY_CHANGE: 'time' });
  t.equal(normalised.code, 0, normalised.stdout);
  writeFileSync(rules, JSON.stringify({ normalise: ['colour'] }));
  const bad = await verify([runFile, '--rules', rules]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /graphmind verify: --rules .*unknown normaliser "colour"/);
});

t.test('--update writes the new answers into the run file; refused for a run id without -o', async (t) => {
  const file = join(tempDir('graphmind-verify-'), 'run.jsonl');
  copyFileSync(runFile, file);
  const updated = await verify([file, '--update'], { VERIFY_CHANGE: 'echo' });
  t.equal(updated.code, 0, updated.stderr);
  t.match(updated.stderr, /wrote the answers received now into/);
  t.equal((await verify([file], { VERIFY_CHANGE: 'echo' })).code, 0, 'the re-blessed run matches the changed server');
  t.equal((await verify([file])).code, 1, 'and no longer the old one');
  const refused = await verify([runId, '--update', '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(refused.code, 2);
  t.match(refused.stderr, /graphmind verify: --update rewrites a run file, and \S+ is a run id: give -o <file>/);
  const out = join(tempDir('graphmind-verify-'), 'out.jsonl');
  const toFile = await verify([runId, '--update', '-o', out, '--port', String(serve.port), '--data-dir', serve.dataDir], { VERIFY_CHANGE: 'echo' });
  t.equal(toFile.code, 0, toFile.stderr);
  t.equal((await verify([out], { VERIFY_CHANGE: 'echo' })).code, 0);
});

t.test('an injected answer is the expected one; --as-sent-by-server compares with the server\'s', async (t) => {
  // What a person does while debugging: the server said "hello", they injected "HELLO".
  const file = join(tempDir('graphmind-verify-'), 'injected.jsonl');
  const lines = readFileSync(runFile, 'utf8').split('\n').filter((line) => line !== '');
  const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const end = events.find((e) => (e.type === 'instance.completed' || e.type === 'instance.finished') && JSON.stringify(e.output ?? null).includes('"hello"'));
  t.ok(end, 'the echo call ended in the recording');
  const last = events.at(-1) as { seq: number; t: number };
  // A later end of the same call replaces what the host received, as an inject at an after gate does.
  const injected = { type: 'instance.finished', instanceId: end?.instanceId, runId: end?.runId, seq: last.seq + 1, t: last.t + 1, output: { content: [{ type: 'text', text: 'HELLO' }] } };
  writeFileSync(file, `${[...lines, JSON.stringify(injected)].join('\n')}\n`);
  t.equal((await verify([file])).code, 1, 'the unfixed server differs from the injected answer');
  t.equal((await verify([file], { VERIFY_CHANGE: 'echo' })).code, 0, 'the fixed server gives the injected answer');
  t.equal((await verify([file, '--as-sent-by-server'])).code, 0, "the server's own recorded answer");
});

t.test('--reporter json, junit and tap are well-formed', async (t) => {
  const json = await verify([runFile, '--reporter', 'json'], { VERIFY_CHANGE: 'echo' });
  t.equal(json.code, 1);
  const parsed = JSON.parse(json.stdout) as { ok: boolean; counts: Record<string, number>; calls: Array<{ verdict: string; name?: string; differences: Array<{ path: string }> }> };
  t.equal(parsed.ok, false);
  t.equal(parsed.counts.different, 1);
  const different = parsed.calls.find((call) => call.verdict === 'different');
  t.equal(different?.name, 'echo');
  t.same(different?.differences.map((d) => d.path), ['$.result.content[0].text']);
  const junit = await verify([runFile, '--reporter', 'junit'], { VERIFY_CHANGE: 'echo' });
  t.match(junit.stdout, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="graphmind verify" tests="\d+" failures="1">/);
  t.match(junit.stdout, /<testcase classname="tools\/call" name="#\d+ tools\/call echo" time="[\d.]+">\n\s+<failure type="different" message="different: \$\.result\.content\[0\]\.text: recorded &quot;hello&quot;, received &quot;HELLO&quot;">/);
  t.equal((junit.stdout.match(/<testcase /g) ?? []).length, (junit.stdout.match(/<\/testcase>|<testcase [^>]*\/>/g) ?? []).length, 'every testcase is closed');
  t.match(junit.stdout, /<\/testsuite>\n<\/testsuites>\n$/);
  const tap = await verify([runFile, '--reporter', 'tap'], { VERIFY_CHANGE: 'echo' });
  const tapLines = tap.stdout.split('\n');
  t.equal(tapLines[0], 'TAP version 14');
  const plan = Number(/^1\.\.(\d+)$/.exec(tapLines[1] ?? '')?.[1]);
  t.equal(tapLines.filter((line) => /^(not )?ok \d+ - /.test(line)).length, plan, 'as many test points as planned');
  t.match(tap.stdout, /\nnot ok \d+ - different tools\/call echo \(call \d+\)\n  ---\n  verdict: different\n/);
});

t.test('stdout noise from the server is a difference', async (t) => {
  const noisy = await verify([runFile], { VERIFY_NOISE: '1' });
  t.equal(noisy.code, 1);
  t.match(noisy.stdout, /stdout noise\n\s+the server wrote 1 line\(s\) to stdout that are not JSON-RPC .*"hello from the server"/);
});

t.test('a server that cannot start: exit 2 with the diagnostic and its stderr tail', async (t) => {
  const failed = await verify([runFile], { VERIFY_FAIL: '1' });
  t.equal(failed.code, 2);
  t.match(failed.stderr, /^graphmind verify: the MCP server exited with code 3 before answering anything — its last stderr output was:\n {4}starting the fixture\n {4}Error: cannot open the database at \/nowhere\n$/);
  t.equal(failed.stdout, '');
  const missing = await verify([runFile], {}, ['/nowhere/such-server']);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /^graphmind verify: cannot run "\/nowhere\/such-server": .*there is no such file/);
  const unreadable = await verify(['/nowhere/run.jsonl']);
  t.equal(unreadable.code, 2);
  t.match(unreadable.stderr, /^graphmind verify: cannot verify \/nowhere\/run.jsonl: cannot open it/);
});

t.test('a server that never answers a call: --timeout, a per-call result', async (t) => {
  const started = Date.now();
  // Wide enough for the server to start on a loaded machine (the timeout is per call, initialize included).
  const hung = await verify([runFile, '--timeout', '4000'], { VERIFY_HANG: 'echo' });
  t.comment(`verify with one hung call took ${Date.now() - started} ms`);
  t.equal(hung.code, 1, hung.stderr);
  t.match(hung.stdout, /missing\s+#\d+ tools\/call echo\n\s+no answer within 4000 ms \(--timeout\)/);
  t.match(hung.stdout, /same\s+#\d+ tools\/call search/, 'the calls after it still ran');
  const never = await verify([runFile, '--timeout', '300'], {}, [process.execPath, '-e', 'process.stderr.write("waiting\\n"); setInterval(() => {}, 1000)']);
  t.equal(never.code, 2, 'a server that never answers initialize could not be verified');
  t.match(never.stderr, /^graphmind verify: the MCP server did not answer initialize within 300 ms \(--timeout\) — its last stderr output was:\n {4}waiting\n$/);
});
