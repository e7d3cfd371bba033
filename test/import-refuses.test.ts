// `graphmind import` as a user runs it (issue 29, finding 9, and the import
// half of "retention that speaks"): what is not a regular file is refused at
// once, naming what it is; a file over --max-bytes is refused; standard
// input is read with `-`, under the same cap; a 413 from the debugger names
// its --max-body; into a data directory the next start would trim to
// --max-runs, nothing is written unless --allow-trim.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { importedKind, retentionNotice, runsByKind, trimmedByNextStart, type KindCounts } from '../src/cli/import-retention.js';
import type { RetentionKind } from '../src/server/run-order.js';
import { CLI, NO_DEBUGGER_PORT } from './helpers/cli.js';
import { tempDir } from './helpers/graph.js';
import { eventually, startServe } from './helpers/serve.js';

/** Run `graphmind import <args>` with `input` on stdin (or none); its exit code, output and how long it took. */
async function importing(args: readonly string[], input?: string | Buffer): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_')) env[key] = value;
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, 'import', ...args], { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], env });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  if (input !== undefined) {
    child.stdin?.on('error', () => {});
    child.stdin?.end(input);
  }
  // A FIFO that blocked would hang here: the bound is the test's own timeout, and `ms` is checked below.
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ms: Date.now() - started };
}

/** A whole, finished run log of `runId`, started at `t`, recorded by `source`. */
function runLog(runId: string, t = 1_700_000_000_000, source = 'mcp-proxy'): string {
  return [
    { type: 'run.started', runId, seq: 1, t, name: `run ${runId}`, source, meta: {} },
    { type: 'run.finished', runId, seq: 2, t: t + 1, status: 'ok' },
  ]
    .map((event) => `${JSON.stringify(event)}\n`)
    .join('');
}

const work = tempDir('graphmind-import-');
const dataDir = join(work, 'data');
const noDebugger = ['--port', String(NO_DEBUGGER_PORT), '--data-dir', dataDir];

t.test('what is not a regular file is refused at once, naming what it is', async (t) => {
  const fifo = join(work, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const rows: Array<[string, string, RegExp]> = [
    ['/dev/zero (it would read for ever)', '/dev/zero', /^graphmind import: \/dev\/zero is a character device, not a run log: give a file \(or - to read standard input\)\n$/],
    ['a FIFO with no writer (it would block for ever)', fifo, /is a FIFO \(named pipe\), not a run log/],
    ['a directory', work, /is a directory, not a run log/],
    ['a missing file', join(work, 'missing.jsonl'), /missing\.jsonl: no such file\n$/],
  ];
  for (const [name, path, expected] of rows) {
    const result = await importing([path, ...noDebugger]);
    t.equal(result.code, 1, `${name}: exit 1`);
    t.match(result.stderr, expected, name);
    t.equal(result.stdout, '', `${name}: nothing on stdout`);
    // The whole command, Node's start included; a read of /dev/zero or a blocked FIFO would never end.
    t.ok(result.ms < 10_000, `${name}: at once (${result.ms} ms)`);
    t.comment(`${name}: refused in ${result.ms} ms (the command's whole run)`);
  }
  t.notOk(existsSync(join(dataDir, 'runs')) && readdirSync(join(dataDir, 'runs')).length > 0, 'nothing was written');
});

t.test('the cap: a file or standard input over --max-bytes is refused, naming the flag', async (t) => {
  const file = join(work, 'big.jsonl');
  const log = runLog('run_big');
  writeFileSync(file, log);
  const over = await importing([file, '--max-bytes', '100', ...noDebugger]);
  t.equal(over.code, 1);
  t.match(over.stderr, `graphmind import: ${file} is ${Buffer.byteLength(log)} bytes, over the 100-byte limit: raise it with --max-bytes`);
  const piped = await importing(['-', '--max-bytes', '100', ...noDebugger], log);
  t.equal(piped.code, 1);
  t.match(piped.stderr, 'graphmind import: standard input is over the 100-byte limit: raise it with --max-bytes');
  const bad = await importing([file, '--max-bytes', '0', ...noDebugger]);
  t.equal(bad.code, 2, 'a bad --max-bytes is refused as a bad flag (exit 2)');
  t.match(bad.stderr, '--max-bytes must be a positive whole number of bytes');
});

t.test('standard input with -', async (t) => {
  const result = await importing(['-', ...noDebugger], runLog('run_from_stdin'));
  t.equal(result.code, 0, result.stderr);
  t.match(result.stdout, `wrote run run_from_stdin to ${join(dataDir, 'runs', 'run_from_stdin.jsonl')}`);
  t.ok(existsSync(join(dataDir, 'runs', 'run_from_stdin.jsonl')));
});

t.test('a debugger that answers 413 is named with its --max-body', async (t) => {
  const serve = await startServe(['--max-body', '200']);
  t.teardown(() => serve.stop());
  const file = join(work, 'over-body.jsonl');
  writeFileSync(file, runLog('run_over_body_with_a_long_enough_id_to_pass_two_hundred_bytes'));
  const result = await importing([file, '--port', String(serve.port), '--data-dir', serve.dataDir]);
  t.equal(result.code, 1);
  t.match(result.stderr, new RegExp(`^graphmind import: the debugger on 127\\.0\\.0\\.1:${serve.port} did not load it: the log is \\d+ bytes, more than that graphmind serve takes in one request \\(its --max-body`));
});

t.test('retention, as a playbook', async (t) => {
  const only = (session: number, adapter = 0) => ({ session, adapter });
  const rows: Array<[string, KindCounts, RetentionKind, number, number]> = [
    ['empty', only(0), 'session', 200, 0],
    ['room for one more', only(198), 'session', 200, 0],
    ['the last place', only(199), 'session', 200, 0],
    ['full', only(200), 'session', 200, 1],
    ['over', only(250), 'session', 200, 51],
    ['--max-runs 1', only(1), 'session', 1, 1],
    // Counted per kind, as serve counts them: a busy adapter does not make a session import trim, nor the reverse.
    ['a session, 500 adapter runs beside 3 sessions', only(3, 500), 'session', 200, 0],
    ['an adapter run, 500 sessions beside 3 adapter runs', only(500, 3), 'adapter', 200, 0],
    ['an adapter run into a full adapter history', only(3, 200), 'adapter', 200, 1],
    ['a session into full sessions, adapter runs beside', only(4, 7), 'session', 4, 1],
  ];
  for (const [name, here, kind, max, trimmed] of rows) t.equal(trimmedByNextStart(here, kind, max), trimmed, `${name}: the next start deletes ${trimmed}`);
  t.equal(retentionNotice('/d', only(10), 'session', 200, false), undefined, 'room: nothing to say');
  t.equal(retentionNotice('/d', only(3, 500), 'session', 200, false), undefined, 'room among sessions, however many adapter runs: nothing to say');
  t.match(retentionNotice('/d', only(200), 'session', 200, false), { refuse: true, line: /^\/d holds 200 runs and --max-runs is 200: with this one the next graphmind serve deletes the 1 oldest .*nothing was imported\. Give --allow-trim/ });
  t.match(retentionNotice('/d', only(200), 'session', 200, true), { refuse: false, line: /deletes the 1 oldest .*\(--allow-trim\)$/ });
  t.equal(
    retentionNotice('/d', only(4, 7), 'session', 4, false)?.line,
    '/d holds 11 runs, 4 of them sessions like this one (the 7 adapter runs are counted apart), and --max-runs is 4: with this one the next graphmind serve deletes the 1 oldest session (this run among them if it is older than the rest); nothing was imported. Give --allow-trim to import it anyway, or a larger --max-runs to import and to serve',
    'with runs of the other kind: the numbers of this kind, the other named as counted apart',
  );
  t.equal(
    retentionNotice('/d', only(1, 3), 'adapter', 2, true)?.line,
    '/d holds 4 runs, 3 of them adapter runs like this one (the 1 session is counted apart), and --max-runs is 2: with this one the next graphmind serve deletes the 2 oldest adapter runs (this run among them if it is older than the rest) (--allow-trim)',
  );
  t.equal(importedKind([{ type: 'run.started', runId: 'r', seq: 1, t: 1, name: 'tools/call:x', source: 'mcp-adapter', meta: {} }]), 'adapter', 'an adapter run\'s log: the adapter kind');
  t.equal(importedKind([{ type: 'run.started', runId: 'r', seq: 1, t: 1, name: 'node s.js', source: 'mcp-proxy', meta: {} }]), 'session', 'a proxy session\'s: a session');
});

t.test('runsByKind: what the next start loads, per kind, segments included', async (t) => {
  const dir = join(work, 'kinds');
  mkdirSync(join(dir, 'runs', 'segments'), { recursive: true });
  for (let i = 0; i < 3; i++) writeFileSync(join(dir, 'runs', `run_s_${i}.jsonl`), runLog(`run_s_${i}`));
  // An adapter run with a log of its own (it outgrew its segment), one whose first line is not its start (replayed whole), and a log that is no run.
  writeFileSync(join(dir, 'runs', 'run_a_own.jsonl'), runLog('run_a_own', 1_700_000_000_000, 'mcp-adapter'));
  writeFileSync(join(dir, 'runs', 'run_a_late.jsonl'), `{"damaged"\n${runLog('run_a_late', 1_700_000_000_000, 'mcp-adapter')}`);
  writeFileSync(join(dir, 'runs', 'run_broken.jsonl'), 'not a run\n');
  // A segment of five adapter runs: one dropped by --max-runs, one with a log of its own (counted once), one the import brings.
  const segmentRuns = ['run_a_1', 'run_a_2', 'run_a_dropped', 'run_a_own', 'run_a_incoming'];
  writeFileSync(join(dir, 'runs', 'segments', '00000001.seg'), segmentRuns.map((id, i) => runLog(id, 1_700_000_000_000 + i, 'mcp-adapter')).join(''));
  writeFileSync(join(dir, 'runs', 'segments', '00000001.dropped'), 'run_a_dropped\n');
  t.same(runsByKind(dir), { session: 3, adapter: 5 }, 'sessions: 3 logs; adapter runs: 2 logs of their own and 3 segment runs');
  t.same(runsByKind(dir, 'run_a_incoming'), { session: 3, adapter: 4 }, 'the run being imported is not counted where a segment keeps it: its log will be the one loaded');
  t.same(runsByKind(join(work, 'no-such-dir')), { session: 0, adapter: 0 }, 'no runs folder: none');
});

t.test('into a data directory the next start would trim: refused unless --allow-trim', async (t) => {
  const full = join(work, 'full');
  mkdirSync(join(full, 'runs'), { recursive: true });
  for (let i = 0; i < 3; i++) writeFileSync(join(full, 'runs', `run_here_${i}.jsonl`), runLog(`run_here_${i}`, 1_800_000_000_000 + i));
  const file = join(work, 'old.jsonl');
  writeFileSync(file, runLog('run_old'));
  const args = [file, '--port', String(NO_DEBUGGER_PORT), '--data-dir', full, '--max-runs', '3'];
  const refused = await importing(args);
  t.equal(refused.code, 1);
  t.match(refused.stderr, `graphmind import: ${full} holds 3 runs and --max-runs is 3: with this one the next graphmind serve deletes the 1 oldest (this run among them if it is older than the rest); nothing was imported`);
  t.notOk(existsSync(join(full, 'runs', 'run_old.jsonl')), 'nothing was written');
  const roomy = await importing([...args.slice(0, -1), '4']);
  t.equal(roomy.code, 0, `a --max-runs with room: written (${roomy.stderr})`);
  t.ok(existsSync(join(full, 'runs', 'run_old.jsonl')));

  const file2 = join(work, 'old2.jsonl');
  writeFileSync(file2, runLog('run_old2'));
  const allowed = await importing([file2, '--port', String(NO_DEBUGGER_PORT), '--data-dir', full, '--max-runs', '4', '--allow-trim']);
  t.equal(allowed.code, 0, allowed.stderr);
  t.match(allowed.stderr, `${full} holds 4 runs and --max-runs is 4: with this one the next graphmind serve deletes the 1 oldest (this run among them if it is older than the rest) (--allow-trim)`);
  t.ok(existsSync(join(full, 'runs', 'run_old2.jsonl')), 'written when told to');

  // What it warned of is what the next start does: the oldest (the run just imported) goes.
  const served = await startServe(['--max-runs', '4'], {}, { dataDir: full });
  t.teardown(() => served.stop());
  const listed = (await (await fetch(`http://127.0.0.1:${served.port}/api/runs`, { headers: { authorization: `Bearer ${served.token}` } })).json()) as Array<{ runId: string }>;
  t.equal(listed.length, 4, 'serve kept --max-runs');
  t.equal(
    listed.filter((run) => run.runId === 'run_old2' || run.runId === 'run_old').length,
    1,
    'and the one it deleted is an imported run, the oldest, as the warning said it could be',
  );
});

t.test('counted per kind as serve counts them, segment runs included', async (t) => {
  const busy = join(work, 'busy');
  mkdirSync(join(busy, 'runs', 'segments'), { recursive: true });
  for (let i = 0; i < 2; i++) writeFileSync(join(busy, 'runs', `run_sess_${i}.jsonl`), runLog(`run_sess_${i}`, 1_800_000_000_000 + i));
  for (let i = 0; i < 2; i++) writeFileSync(join(busy, 'runs', `run_adap_${i}.jsonl`), runLog(`run_adap_${i}`, 1_800_000_000_100 + i, 'mcp-adapter'));
  writeFileSync(join(busy, 'runs', 'segments', '00000001.seg'), runLog('run_adap_seg', 1_800_000_000_200, 'mcp-adapter') + runLog('run_adap_gone', 1_800_000_000_201, 'mcp-adapter'));
  writeFileSync(join(busy, 'runs', 'segments', '00000001.dropped'), 'run_adap_gone\n');
  const into = ['--port', String(NO_DEBUGGER_PORT), '--data-dir', busy, '--max-runs', '3'];

  // Two sessions here: a third fits, whatever the adapter's runs (counted together, the four logs would have refused it).
  const session = join(work, 'busy-session.jsonl');
  writeFileSync(session, runLog('run_sess_new', 1_700_000_000_000));
  const written = await importing([session, ...into]);
  t.equal(written.code, 0, `a session with room among sessions: written (${written.stderr})`);
  t.equal(written.stderr, '', 'and nothing to warn of');

  // Three adapter runs here (two logs of their own and one in a segment; the dropped one is not loaded): a fourth trims one.
  const adapter = join(work, 'busy-adapter.jsonl');
  writeFileSync(adapter, runLog('run_adap_new', 1_700_000_000_000, 'mcp-adapter'));
  const refused = await importing([adapter, ...into]);
  t.equal(refused.code, 1);
  t.equal(
    refused.stderr,
    `graphmind import: ${busy} holds 6 runs, 3 of them adapter runs like this one (the 3 sessions are counted apart), and --max-runs is 3: with this one the next graphmind serve deletes the 1 oldest adapter run (this run among them if it is older than the rest); nothing was imported. Give --allow-trim to import it anyway, or a larger --max-runs to import and to serve\n`,
    'the refusal counts the segment run and names the numbers of its kind',
  );
  t.notOk(existsSync(join(busy, 'runs', 'run_adap_new.jsonl')), 'nothing was written');
  const allowed = await importing([adapter, ...into, '--allow-trim']);
  t.equal(allowed.code, 0, allowed.stderr);

  // What it said is what serve does: three of each kind kept, the imported adapter run (the oldest of its kind) deleted.
  const served = await startServe(['--max-runs', '3'], {}, { dataDir: busy });
  t.teardown(() => served.stop());
  const list = async () => (await (await fetch(`http://127.0.0.1:${served.port}/api/runs`, { headers: { authorization: `Bearer ${served.token}` } })).json()) as Array<{ runId: string; source: string }>;
  // The runs load in the background, and retention runs once they are all in: polled until the list is settled at six.
  const listed = await eventually(async () => {
    const runs = await list();
    return runs.length === 6 && !runs.some((run) => run.runId === 'run_adap_new') ? runs : undefined;
  }, 10_000, 'serve to load the runs and trim to --max-runs per kind');
  const ids = (source: string) => listed.filter((run) => (run.source === 'mcp-adapter') === (source === 'mcp-adapter')).map((run) => run.runId).sort();
  t.same(ids('mcp-proxy'), ['run_sess_0', 'run_sess_1', 'run_sess_new'], 'every session kept');
  t.same(ids('mcp-adapter'), ['run_adap_0', 'run_adap_1', 'run_adap_seg'], 'three adapter runs kept: the oldest, just imported, deleted as warned');
});
