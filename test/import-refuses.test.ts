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
import { retentionNotice, trimmedByNextStart } from '../src/cli/import-retention.js';
import { CLI, NO_DEBUGGER_PORT } from './helpers/cli.js';
import { tempDir } from './helpers/graph.js';
import { startServe } from './helpers/serve.js';

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

/** A whole, finished run log of `runId`, started at `t`. */
function runLog(runId: string, t = 1_700_000_000_000): string {
  return [
    { type: 'run.started', runId, seq: 1, t, name: `run ${runId}`, source: 'mcp-proxy', meta: {} },
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
  const rows: Array<[number, number, number]> = [
    [0, 200, 0],
    [198, 200, 0],
    [199, 200, 0],
    [200, 200, 1],
    [250, 200, 51],
    [1, 1, 1],
  ];
  for (const [here, max, trimmed] of rows) t.equal(trimmedByNextStart(here, max), trimmed, `${here} runs here, --max-runs ${max}: the next start deletes ${trimmed}`);
  t.equal(retentionNotice('/d', 10, 200, false), undefined, 'room: nothing to say');
  t.match(retentionNotice('/d', 200, 200, false), { refuse: true, line: /^\/d holds 200 runs and --max-runs is 200: with this one the next graphmind serve deletes the 1 oldest .*nothing was imported\. Give --allow-trim/ });
  t.match(retentionNotice('/d', 200, 200, true), { refuse: false, line: /deletes the 1 oldest .*\(--allow-trim\)$/ });
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
