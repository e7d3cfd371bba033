// `graphmind replay` and `graphmind verify` read plain flags without yargs
// (a faster start). The rule as a playbook: which command lines the plain
// path reads, and for each one it reads, the values are the ones yargs gives
// for the same command line (the same option table), so the two paths can
// never disagree; the rest is left to yargs (undefined).
import t from 'tap';
import yargs from 'yargs';
import { plainReplayFlags, replayFlags } from '../src/cli/replay-command.js';
import { plainVerifyFlags, verifyFlags } from '../src/cli/verify-command.js';

/** What yargs gives for `args`, the keys of `like` only (yargs adds aliases and camelCase forms). */
async function withYargs(args: string[], builder: typeof replayFlags | typeof verifyFlags, like: Record<string, unknown>): Promise<Record<string, unknown>> {
  const parsed = (await yargs(args).command('$0 <run>', '', builder as typeof replayFlags).strict().fail(false).parseAsync()) as Record<string, unknown>;
  return Object.fromEntries(Object.keys(like).map((key) => [key, parsed[key]]));
}

const REPLAY_DEFAULTS = { match: 'params', repeat: 'error', 'on-miss': 'error', 'as-sent-by-server': false };
const replayRows: Array<[string, string[], Record<string, unknown> | undefined]> = [
  ['a file only', ['run.jsonl'], { run: 'run.jsonl', ...REPLAY_DEFAULTS }],
  ['a relative path', ['./fixtures/run.jsonl'], { run: './fixtures/run.jsonl', ...REPLAY_DEFAULTS }],
  ['a run id and where to find it', ['run_abc', '--port', '4748', '--data-dir', '/tmp/d'], { run: 'run_abc', ...REPLAY_DEFAULTS, port: 4748, 'data-dir': '/tmp/d' }],
  ['flags before the run, with =', ['--match=sequence', '--repeat', 'cycle', 'run.jsonl'], { run: 'run.jsonl', ...REPLAY_DEFAULTS, match: 'sequence', repeat: 'cycle' }],
  ['http 0 and a boolean', ['run.jsonl', '--http', '0', '--as-sent-by-server', '--on-miss', 'hang'], { run: 'run.jsonl', ...REPLAY_DEFAULTS, http: 0, 'as-sent-by-server': true, 'on-miss': 'hang' }],
  ['a negated boolean', ['run.jsonl', '--no-as-sent-by-server'], { run: 'run.jsonl', ...REPLAY_DEFAULTS, 'as-sent-by-server': false }],
  ['help: yargs', ['--help'], undefined],
  ['version: yargs', ['run.jsonl', '--version'], undefined],
  ['no run: yargs words the error', [], undefined],
  ['two runs: yargs', ['a.jsonl', 'b.jsonl'], undefined],
  ['a value not among the choices: yargs', ['run.jsonl', '--repeat', 'sometimes'], undefined],
  ['a port out of range: yargs', ['run.jsonl', '--port', '70000'], undefined],
  ['http out of range: yargs', ['run.jsonl', '--http', '65536'], undefined],
  ['a number with a leading zero: yargs', ['run.jsonl', '--http', '08'], undefined],
  ['a missing value: yargs', ['run.jsonl', '--data-dir'], undefined],
  ['an empty value: yargs', ['run.jsonl', '--data-dir='], undefined],
  ['a quoted value after =: yargs', ['run.jsonl', '--data-dir="/tmp/d"'], undefined],
  ['a boolean with a value: yargs', ['run.jsonl', '--as-sent-by-server', 'false'], undefined],
  ['a camelCase flag: yargs', ['run.jsonl', '--onMiss', 'hang'], undefined],
  ['an unknown flag: yargs', ['run.jsonl', '--fast'], undefined],
  ['a number-like run: yargs', ['1e3'], undefined],
  ['--: yargs', ['run.jsonl', '--'], undefined],
];

t.test('replay: the plain path, and yargs on the same lines', async (t) => {
  for (const [name, args, expected] of replayRows) {
    const plain = plainReplayFlags(args) as Record<string, unknown> | undefined;
    t.strictSame(plain, expected, name);
    if (plain !== undefined) t.strictSame(plain, await withYargs(args, replayFlags, plain), `${name}: what yargs gives`);
  }
});

const VERIFY_DEFAULTS = { 'as-sent-by-server': false, ignore: [], reporter: 'text', timeout: 10_000, update: false };
const verifyRows: Array<[string, string[], Record<string, unknown> | undefined]> = [
  ['a file only', ['run.jsonl'], { run: 'run.jsonl', ...VERIFY_DEFAULTS }],
  ['ignores, repeated, one with =', ['run.jsonl', '--ignore', '$.result.a', '--ignore=tools/call:search $.result.b'], { run: 'run.jsonl', ...VERIFY_DEFAULTS, ignore: ['$.result.a', 'tools/call:search $.result.b'] }],
  ['update with -o, a reporter, a timeout', ['run.jsonl', '--update', '-o', 'new.jsonl', '--reporter', 'junit', '--timeout', '500'], { run: 'run.jsonl', ...VERIFY_DEFAULTS, update: true, output: 'new.jsonl', reporter: 'junit', timeout: 500 }],
  ['a url and rules', ['--url', 'http://127.0.0.1:3000/mcp', '--rules', 'rules.json', 'run.jsonl'], { run: 'run.jsonl', ...VERIFY_DEFAULTS, url: 'http://127.0.0.1:3000/mcp', rules: 'rules.json' }],
  ['a run id, a port and a data directory', ['run_abc', '--port', '1', '--data-dir', '/tmp/d'], { run: 'run_abc', ...VERIFY_DEFAULTS, port: 1, 'data-dir': '/tmp/d' }],
  ['an ignore followed by the run: yargs (it would take the run as a second path)', ['--ignore', '$.a', 'run.jsonl'], undefined],
  ['-o without --update: yargs words the error', ['run.jsonl', '-o', 'x.jsonl'], undefined],
  ['a timeout of 0: yargs', ['run.jsonl', '--timeout', '0'], undefined],
  ['--port with no value: yargs', ['run.jsonl', '--port'], undefined],
  ['a negated array: yargs', ['run.jsonl', '--no-ignore'], undefined],
  ['help: yargs', ['run.jsonl', '--help'], undefined],
];

t.test('verify: the plain path, and yargs on the same lines', async (t) => {
  for (const [name, args, expected] of verifyRows) {
    const plain = plainVerifyFlags(args) as Record<string, unknown> | undefined;
    t.strictSame(plain, expected, name);
    if (plain !== undefined) t.strictSame(plain, await withYargs(args, verifyFlags, plain), `${name}: what yargs gives`);
  }
});
