// graphmind check's exit codes: --fail-on (severities and codes), -o and the reporters on
// findings (SARIF valid with results, JUnit failures), and the cases that exit 2 with one line
// (bad flags, a lock that is not one, a bad script, an unreadable run, an unwritable -o).
import t from 'tap';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPython } from './helpers/cli.js';
import { CHECK_FIXTURES, FAULT_SERVER, check, sarifValidator, xmlProblem } from './helpers/check.js';

const SCRIPT = `${CHECK_FIXTURES}script.json`;
const dir = mkdtempSync(join(tmpdir(), 'graphmind-check-'));

t.test('--fail-on: severities and codes decide the exit', async (t) => {
  if (!hasPython(t)) return;
  const args = ['--script', SCRIPT];
  t.equal((await check([...args], [...FAULT_SERVER, 'unknown-id'])).code, 0, 'a warning passes the default (errors)');
  t.equal((await check([...args, '--fail-on', 'warning'], [...FAULT_SERVER, 'unknown-id'])).code, 1, '--fail-on warning');
  t.equal((await check([...args, '--fail-on', 'unknown-id'], [...FAULT_SERVER, 'unknown-id'])).code, 1, '--fail-on <code>');
  t.equal((await check([...args, '--fail-on', 'drift'], [...FAULT_SERVER, 'tool-error'])).code, 0, 'an error not named passes');
  const crashed = await check([...args, '--fail-on', 'drift'], [...FAULT_SERVER, 'crash']);
  t.equal(crashed.code, 1, 'a server that never got through the handshake fails whatever --fail-on names');
  const text = await check([...args], [...FAULT_SERVER, 'unknown-id']);
  t.match(text.stdout, /warning\s+unknown-id\s+wire: .*\[passes --fail-on\]/);
  t.match(text.stdout, /1 findings \(0 errors, 1 warning, 0 notes\): PASS/);
});

t.test('-o writes the report to a file; the reporters on findings', async (t) => {
  if (!hasPython(t)) return;
  const out = `${dir}/report.sarif`;
  const sarifRun = await check(['--reporter', 'sarif', '-o', out, '--script', SCRIPT], [...FAULT_SERVER, 'stdout-noise']);
  t.equal(sarifRun.code, 1);
  t.equal(sarifRun.stdout, '', 'nothing on stdout with -o');
  t.match(sarifRun.stderr, new RegExp(`FAIL, 1 finding\\(s\\); the sarif report is in ${out.replace(/[.]/g, '\\.')}`));
  const sarif = JSON.parse(readFileSync(out, 'utf8')) as { runs: Array<{ results: Array<{ ruleId: string; level: string; locations: Array<{ physicalLocation?: { artifactLocation: { uri: string } } }> }> }> };
  t.equal(sarifValidator()(sarif), undefined, 'valid SARIF 2.1.0 with results');
  t.match(sarif.runs[0]?.results, [{ ruleId: 'stdout-noise', level: 'error' }]);
  t.match(sarif.runs[0]?.results[0]?.locations[0]?.physicalLocation?.artifactLocation.uri, /fault-server\.py$/, 'located at the server file');
  const junit = await check(['--reporter', 'junit', '--script', SCRIPT], [...FAULT_SERVER, 'tool-error']);
  t.equal(junit.code, 1);
  t.equal(xmlProblem(junit.stdout), undefined, 'well-formed XML');
  t.match(junit.stdout, /<testcase classname="graphmind check\.script" name="step 1: call echo" time="[\d.]+">\n\s+<failure type="tool-error" message="tools\/call echo failed: isError: true: &quot;echo broke&quot;">/);
  t.match(junit.stdout, /failures="1"/);
});

t.test('could not run: exit 2 with one line, no stack trace', async (t) => {
  writeFileSync(`${dir}/not-a-lock.json`, '{"tools": "no"}');
  writeFileSync(`${dir}/bad-script.json`, '[{"call": 3}]');
  const rows: Array<[readonly string[], readonly string[], RegExp]> = [
    [[], [], /graphmind check: give the server command after -- \(graphmind check -- <server command…>\) or --url <http url>/],
    [['--url', 'http://127.0.0.1:1/mcp'], ['node', 'x.js'], /give either --url <http url> or -- <server command…>, not both/],
    [['--lock', `${dir}/missing.json`], ['node', 'x.js'], /cannot read --lock .*missing\.json: ENOENT/],
    [['--lock', `${dir}/not-a-lock.json`], ['node', 'x.js'], /--lock .*not-a-lock\.json is not a surface file: /],
    [['--script', `${dir}/bad-script.json`], ['node', 'x.js'], /--script .*bad-script\.json: step 1: "call" must be a non-empty string/],
    [['--script', `${dir}/missing.yaml`], ['node', 'x.js'], /cannot read --script/],
    [['--fail-on', 'everything'], ['node', 'x.js'], /--fail-on: "everything" is neither a severity/],
    [['--reporter', 'xml'], ['node', 'x.js'], /Invalid values:/],
    [['--timeout', '0'], ['node', 'x.js'], /--timeout must be a whole number of milliseconds/],
    [['--protocol-version', 'latest'], ['node', 'x.js'], /--protocol-version must be a date such as 2025-11-25/],
    [['--script', SCRIPT, '--run', 'x.jsonl'], ['node', 'x.js'], /give either --script or --run, not both/],
    [['--run', `${dir}/missing.jsonl`], ['node', 'x.js'], /cannot check .*missing\.jsonl/],
    [['-o', `${dir}/no/such/dir/report.txt`], ['graphmind-no-such-server-here'], /cannot write -o .*report\.txt/],
  ];
  for (const [args, server, line] of rows) {
    const run = await check(args, server);
    t.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    t.match(run.stderr, line, args.join(' '));
    t.notMatch(run.stderr, /\n\s+at /, 'no stack trace');
    // yargs words a choice it refuses on two lines, as for every command.
    if (!args.includes('--reporter')) t.equal(run.stderr.trim().split('\n').length, 1, 'one line');
    t.match(run.stderr, /^graphmind check: /);
  }
});
