// Each finding code of graphmind check, produced by a small fixture server with exactly that fault
// (a Python stdlib server started with the fault's name, a command that does not exist), and
// only that finding, with the call or frame it concerns.
import t from 'tap';
import { hasPython } from './helpers/cli.js';
import { CHECK_FIXTURES, FAULT_SERVER, checkJson, type JsonFinding } from './helpers/check.js';

const SCRIPT = `${CHECK_FIXTURES}script.json`;

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

t.test('each finding code from a server with exactly that fault', async (t) => {
  if (!hasPython(t)) return;
  const rows: Array<[string, readonly string[], string[], RegExp]> = [
    ['stdout-noise', [], ['stdout-noise'], /not JSON-RPC: "fault-fixture starting up on stdio"/],
    ['invalid-frame', [], ['invalid-frame'], /"jsonrpc" is "1\.0", not "2\.0"/],
    ['garbage', [], ['invalid-frame', 'unanswered'], /not valid JSON/],
    ['hang', [], ['unanswered'], /no answer to initialize within 1500 ms \(--timeout\)/],
    ['crash', [], ['early-exit'], /exited with code 3 before answering anything .*\n.*Traceback: the handshake crashed/],
    ['refuse', [], ['handshake-failed'], /refused initialize: Unsupported protocol version/],
    ['schema-invalid', [], ['schema-invalid'], /tool "echo": inputSchema is not a valid object schema: schema is invalid/],
    ['schema-not-object', [], ['schema-invalid'], /"type" is "string", not "object"/],
    ['pagination-loop', [], ['pagination-loop'], /gave the cursor "same" again/],
    ['pagination-endless', [], ['pagination-loop'], /still paging after 1000 pages/],
  ];
  for (const [fault, args, codes, message] of rows) {
    const { code, codes: found, findings } = await findingsOf(fault, args);
    t.same(found, codes, `${fault}: ${JSON.stringify(findings)}`);
    t.match(findings[0]?.message, message, fault);
    t.equal(code, findings.some((one) => one.fails) ? 1 : 0, `${fault}: exit code`);
  }
});

t.test('findings carry the call or the frame they concern', async (t) => {
  if (!hasPython(t)) return;
  const noise = (await findingsOf('stdout-noise')).findings[0];
  t.match(noise, { code: 'stdout-noise', severity: 'error', check: 'wire', frame: { direction: 'server-to-client', seq: 1, text: 'fault-fixture starting up on stdio' } });
  const failed = (await findingsOf('tool-error', ['--script', SCRIPT])).findings[0];
  t.match(failed, { code: 'tool-error', severity: 'error', check: 'step 1: call echo', call: { method: 'tools/call', name: 'echo', step: 1 } });
  t.type(failed?.call?.id, 'number');
  const unknown = (await findingsOf('unknown-id', ['--script', SCRIPT])).findings[0];
  t.match(unknown, { code: 'unknown-id', severity: 'warning', fails: false, call: { id: 1003 } });
});

t.test('spawn-failure: a command that does not exist', async (t) => {
  const { code, report } = await checkJson([], ['graphmind-no-such-server-here']);
  t.equal(code, 1);
  t.same(report.findings.map((one) => one.code), ['spawn-failure']);
  t.match(report.findings[0]?.message, /cannot run "graphmind-no-such-server-here": .*not found on PATH/);
  const url = await checkJson(['--url', 'http://127.0.0.1:1/mcp'], []);
  t.equal(url.code, 1);
  t.same(url.report.findings.map((one) => one.code), ['spawn-failure'], 'a URL nothing answers');
});
