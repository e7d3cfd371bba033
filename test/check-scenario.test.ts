// graphmind check's scenario findings, each from a fixture server with exactly that fault: a
// scripted call that fails, a structuredContent its outputSchema rejects, a call never answered,
// an answer to an id never sent, a slow call, a result over its budget; a step naming what the
// server does not list (unknown-entry), an expectation not met, the tool surface over its budget.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPython } from './helpers/cli.js';
import { CHECK_FIXTURES, FAULT_SERVER, checkJson, type JsonFinding } from './helpers/check.js';

const SCRIPT = `${CHECK_FIXTURES}script.json`;
const dir = mkdtempSync(join(tmpdir(), 'graphmind-check-'));

/**
 * What `fault` gives: its exit code and its findings' codes. The timeout is wide for a server that
 * answers (python3 may take seconds to start on a loaded machine) and short where the fault is
 * that it never answers.
 */
async function findingsOf(fault: string, args: readonly string[] = []): Promise<{ code: number | null; codes: string[]; findings: JsonFinding[] }> {
  const timeout = fault === 'hang' || fault === 'garbage' ? '1500' : fault === 'unanswered' ? '4000' : '10000';
  const { code, report } = await checkJson(['--timeout', timeout, ...args], [...FAULT_SERVER, fault]);
  return { code, codes: report.findings.map((found) => found.code), findings: report.findings };
}

t.test('each scenario finding code from a server with exactly that fault', async (t) => {
  if (!hasPython(t)) return;
  writeFileSync(`${dir}/echo-only.json`, '[{ "call": "echo", "arguments": { "text": "x" } }]');
  const rows: Array<[string, readonly string[], string[], RegExp]> = [
    ['tool-error', ['--script', SCRIPT], ['tool-error'], /tools\/call echo failed: isError: true: "echo broke"/],
    ['output-schema-mismatch', ['--script', SCRIPT], ['output-schema-mismatch'], /structuredContent does not match the outputSchema: \/count must be number/],
    ['unanswered', ['--script', SCRIPT], ['unanswered'], /no answer to tools\/call within 4000 ms/],
    ['unknown-id', ['--script', SCRIPT], ['unknown-id'], /answered id 1003, which the check did not send/],
    ['slow', ['--script', SCRIPT, '--max-duration', '150'], ['slow'], /tools\/call echo took \d+ ms, over --max-duration 150 ms/],
    ['big-result', ['--script', `${dir}/echo-only.json`, '--max-result-tokens', '1000'], ['context-budget'], /costs ≈ \d+ tokens \(an estimate; \d+ bytes\), over --max-result-tokens 1000/],
  ];
  for (const [fault, args, codes, message] of rows) {
    const { code, codes: found, findings } = await findingsOf(fault, args);
    t.same(found, codes, `${fault}: ${JSON.stringify(findings)}`);
    t.match(findings[0]?.message, message, fault);
    t.equal(code, findings.some((one) => one.fails) ? 1 : 0, `${fault}: exit code`);
  }
});

t.test('unknown-entry: a script step naming a tool, resource or prompt the server does not list', async (t) => {
  if (!hasPython(t)) return;
  writeFileSync(`${dir}/unknown.yaml`, '- call: nope\n- read: x://y\n- prompt: p\n- call: echo\n  arguments: { text: still sent }\n');
  const { code, findings } = await findingsOf('clean', ['--script', `${dir}/unknown.yaml`]);
  t.equal(code, 1);
  t.same(findings.map((one) => [one.code, one.check]), [
    ['unknown-entry', 'step 1: call nope'],
    ['unknown-entry', 'step 2: read x://y'],
    ['unknown-entry', 'step 3: prompt p'],
  ]);
  t.match(findings[0]?.message, /the server lists no tool "nope"; the step was not sent/);
});

t.test('expectation-failed: a step that does not get its expected text', async (t) => {
  if (!hasPython(t)) return;
  writeFileSync(`${dir}/expect.json`, '[{ "call": "echo", "arguments": { "text": "hi" }, "expect": { "text": "bye" } }, { "call": "echo", "arguments": { "text": "hi" }, "expect": { "isError": true } }]');
  const { findings } = await findingsOf('clean', ['--script', `${dir}/expect.json`]);
  t.same(findings.map((one) => one.code), ['expectation-failed', 'expectation-failed']);
  t.match(findings[0]?.message, /does not contain "bye"; it reads "hi"/);
  writeFileSync(`${dir}/expect-error.json`, '[{ "call": "echo", "arguments": { "text": "hi" }, "expect": { "isError": true, "text": "broke" } }]');
  const expected = await findingsOf('tool-error', ['--script', `${dir}/expect-error.json`]);
  t.same(expected.codes, [], 'a failure the step expects is no finding');
});

t.test('context-budget on the tool surface (an SDK 1.x server with 50 tools)', async (t) => {
  const server = [process.execPath, `${CHECK_FIXTURES}sdk1-tools-server.mjs`];
  const { code, report } = await checkJson(['--max-surface-tokens', '100'], server);
  t.equal(code, 1);
  t.same(report.findings.map((one) => one.code), ['context-budget']);
  t.match(report.findings[0]?.message, /the tool surface costs ≈ \d+ tokens on every turn \(an estimate; \d+ bytes\), over --max-surface-tokens 100; the largest: tool_\d+ ≈ \d+/);
  const within = await checkJson(['--max-surface-tokens', '1000000'], server);
  t.equal(within.code, 0);
});
