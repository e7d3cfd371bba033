// Issue 30, "First-minute traps": `graphmind import` against a debugger of
// another data directory says so, naming the token file it read, exits 1
// and writes nothing anywhere (not the default data directory, not the
// one named, not the debugger's); its conflict hint names --new-id; and
// every command names the debugger by one rule (--port, else
// GRAPHMIND_URL's port, else 4747), playbook below.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { debuggerAddress, DEFAULT_PORT } from '../src/report/config.js';
import { CLI, NO_DEBUGGER_PORT } from './helpers/cli.js';
import { tempDir } from './helpers/graph.js';
import { api, startServe } from './helpers/serve.js';

const work = tempDir('graphmind-naming-');
const home = join(work, 'home');
const defaultDir = join(home, '.graphmind');
mkdirSync(defaultDir, { recursive: true, mode: 0o700 });
// A stale token in the default data directory, as a user who once ran serve without --data-dir has.
writeFileSync(join(defaultDir, 'token'), 'a-stale-token\n', { mode: 0o600 });

/** Run the CLI with HOME=`home` and no GRAPHMIND_* but `env`; its exit code and output. */
async function cli(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) base[key] = value;
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...base, HOME: home, ...env } });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** A whole run log of `runId`, in a file. */
function runLogFile(runId: string): string {
  const file = join(work, `${runId}.jsonl`);
  const events = [
    { type: 'run.started', runId, seq: 1, t: 1_700_000_000_000, name: `run ${runId}`, source: 'mcp-proxy', meta: {} },
    { type: 'run.finished', runId, seq: 2, t: 1_700_000_000_001, status: 'ok' },
  ];
  writeFileSync(file, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  return file;
}

/** The run logs in `dir`'s runs folder. */
const runsIn = (dir: string): string[] => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((name) => name.endsWith('.jsonl')) : []);

t.test('import without --data-dir, a debugger of another data directory on the port: one line naming the token files, exit 1, nothing written anywhere', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const named = join(work, 'named');
  mkdirSync(named, { recursive: true });
  writeFileSync(join(named, 'token'), 'the-named-token\n');
  const file = runLogFile('run_naming_1');

  const plain = await cli(['import', file, '--port', String(serve.port)]);
  t.equal(plain.code, 1, 'exit 1');
  t.equal(plain.stdout, '', 'nothing on stdout');
  t.equal(
    plain.stderr,
    `graphmind import: the debugger on port ${serve.port} refused our token (it proves it holds another one): we read ours from ${join(defaultDir, 'token')}, and it uses another token (another --data-dir?); nothing was written\n`,
  );
  t.notMatch(plain.stderr, 'no debugger answers', 'never "no debugger answers" when one answered');

  // The debugger's own data directory is learnt only from a token file this user can read that proves it (nothing sent).
  const told = await cli(['import', file, '--port', String(serve.port), '--data-dir', named], { GRAPHMIND_DATA_DIR: serve.dataDir });
  t.equal(told.code, 1);
  t.match(told.stderr, `we read ours from ${join(named, 'token')}, and it uses the one in ${join(serve.dataDir, 'token')} (--data-dir ${serve.dataDir}); nothing was written`);

  const fromEnv = await cli(['import', file, '--port', String(serve.port)], { GRAPHMIND_TOKEN: 'not-the-one' });
  t.equal(fromEnv.code, 1);
  t.match(fromEnv.stderr, 'we read ours from GRAPHMIND_TOKEN, and it uses another token (another --data-dir?)');

  for (const dir of [defaultDir, named, serve.dataDir]) t.same(runsIn(dir), [], `nothing written in ${dir}`);
  const runs = await api(serve.port, serve.token, 'GET', '/api/runs');
  t.notMatch(runs.text, 'run_naming_1', 'nor loaded into the debugger');

  // export has the same fallback: it does not read a data directory the debugger does not use.
  const exported = await cli(['export', 'run_naming_1', '--port', String(serve.port)]);
  t.equal(exported.code, 1);
  t.match(exported.stderr, /^graphmind export: the debugger on port \d+ refused our token \(it proves it holds another one\): we read ours from /);
});

t.test('no debugger at all and no data directory named: exit 1, nothing written; with --data-dir it is written there', async (t) => {
  const file = runLogFile('run_naming_2');
  const plain = await cli(['import', file, '--port', String(NO_DEBUGGER_PORT)]);
  t.equal(plain.code, 1);
  t.match(plain.stderr, `graphmind import: no debugger answers on 127.0.0.1:${NO_DEBUGGER_PORT}, and no data directory was named: start graphmind serve and import again, or give --data-dir (or GRAPHMIND_DATA_DIR)`);
  t.same(runsIn(defaultDir), [], 'the default data directory got nothing');
  const named = join(work, 'named-2');
  const written = await cli(['import', file, '--port', String(NO_DEBUGGER_PORT), '--data-dir', named]);
  t.equal(written.code, 0, written.stderr);
  t.same(runsIn(named), ['run_naming_2.jsonl']);
  t.same(runsIn(defaultDir), []);
});

t.test('the conflict hint names the CLI flag, --new-id, not the API query', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const file = runLogFile('run_naming_3');
  const first = await cli(['import', file, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(first.code, 0, first.stderr);
  const again = await cli(['import', file, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(again.code, 1);
  t.equal(again.stderr, `graphmind import: the debugger on 127.0.0.1:${serve.port} did not load it: a run run_naming_3 is there already: import it with --new-id to keep both\n`);
  t.notMatch(again.stderr, 'newId');
  const renamed = await cli(['import', file, '--new-id', '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(renamed.code, 0, renamed.stderr);
});

t.test('one rule names the debugger: a playbook of debuggerAddress', async (t) => {
  const rows: Array<[string, { port?: number; url?: string }, NodeJS.ProcessEnv, { port: number; from: string; problem?: RegExp }]> = [
    ['nothing given: 4747', {}, {}, { port: DEFAULT_PORT, from: 'default' }],
    ['GRAPHMIND_URL', {}, { GRAPHMIND_URL: 'ws://127.0.0.1:5001/ingest' }, { port: 5001, from: 'GRAPHMIND_URL' }],
    ['--port beats GRAPHMIND_URL', { port: 5002 }, { GRAPHMIND_URL: 'ws://127.0.0.1:5001/ingest' }, { port: 5002, from: '--port' }],
    ['--port alone', { port: 5002 }, {}, { port: 5002, from: '--port' }],
    ['a url option (the adapter) beats both', { port: 5002, url: 'ws://[::1]:5003/ingest' }, { GRAPHMIND_URL: 'ws://127.0.0.1:5001/ingest' }, { port: 5003, from: 'url' }],
    ['an empty GRAPHMIND_URL is not set', {}, { GRAPHMIND_URL: '' }, { port: DEFAULT_PORT, from: 'default' }],
    ['a GRAPHMIND_URL that is no ingest URL: passed over, and said', {}, { GRAPHMIND_URL: 'localhost:5001' }, { port: DEFAULT_PORT, from: 'default', problem: /^GRAPHMIND_URL is not the debugger's ingest URL/ }],
    ['http: is taken as ws:', {}, { GRAPHMIND_URL: 'http://127.0.0.1:5004' }, { port: 5004, from: 'GRAPHMIND_URL' }],
  ];
  for (const [name, given, env, expected] of rows) {
    const address = debuggerAddress(given, env);
    t.equal(address.port, expected.port, `${name}: port`);
    t.equal(address.from, expected.from, `${name}: from`);
    if (expected.problem === undefined) t.equal(address.problem, undefined, `${name}: no problem`);
    else t.match(address.problem, expected.problem, `${name}: the problem`);
  }
});

t.test('every command finds the debugger by that rule: GRAPHMIND_URL without --port, --port over it', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const url = { GRAPHMIND_URL: `ws://127.0.0.1:${serve.port}/ingest` };
  const wrongUrl = { GRAPHMIND_URL: `ws://127.0.0.1:${NO_DEBUGGER_PORT}/ingest` };
  const file = runLogFile('run_naming_4');
  const imported = await cli(['import', file, '--data-dir', serve.dataDir], url);
  t.equal(imported.code, 0, imported.stderr);
  t.match(imported.stdout, `loaded run run_naming_4 into the debugger: http://127.0.0.1:${serve.port}/`, 'import: GRAPHMIND_URL');
  const exported = await cli(['export', 'run_naming_4', '--data-dir', serve.dataDir], url);
  t.equal(exported.code, 0, exported.stderr);
  t.match(exported.stdout, 'run_naming_4', 'export: GRAPHMIND_URL');
  const flagWins = await cli(['export', 'run_naming_4', '--port', String(serve.port), '--data-dir', serve.dataDir], wrongUrl);
  t.equal(flagWins.code, 0, `export: --port beats GRAPHMIND_URL (${flagWins.stderr})`);
  const replayed = await cli(['replay', 'run_naming_4', '--data-dir', join(work, 'empty')], url);
  t.notMatch(replayed.stderr, 'no run run_naming_4', 'replay: GRAPHMIND_URL (the run is read from the debugger)');
  const bad = await cli(['export', 'run_naming_4'], { GRAPHMIND_URL: 'not a url' });
  t.equal(bad.code, 2, 'a GRAPHMIND_URL that names no port: exit 2');
  t.equal(bad.stderr, `graphmind export: GRAPHMIND_URL is not the debugger's ingest URL (ws://127.0.0.1:<port>/ingest): "not a url"; set it to the debugger's, or give --port\n`);
  for (const command of ['import', 'export', 'mcp', 'replay', 'mcp-proxy', 'http-proxy']) {
    const help = await cli([command, '--help']);
    t.match(help.stdout.replace(/\s+/g, ' '), "GRAPHMIND_URL's port, else 4747", `${command} --help says the rule`);
  }
});
