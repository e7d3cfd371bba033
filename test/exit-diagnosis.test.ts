// The end of a stdio proxy session as a playbook: what was seen (how the
// server ended, whether it answered, who stopped it, the host, stdout
// noise, its last stderr lines) -> which failure diagnostic, the exact
// lines on stderr, what the run is told, and the proxy's exit code
// (src/proxy/exit-diagnosis.ts, pure functions).
import t from 'tap';
import { EXIT_CANNOT_RUN, diagnoseExit, diagnoseSpawnFailure, errorLine, type ExitDiagnostic, type ExitFacts } from '../src/proxy/exit-diagnosis.js';

const P = 'graphmind mcp-proxy: ';

/** A session whose server answered and exited 0 after the host closed stdin: nothing to say. */
const QUIET: ExitFacts = { exit: [0, null], answered: true, stoppedByUs: false, serverDegraded: false, hostClosed: true, sentSignals: [], pending: 0, noise: 0, stderrTail: [] };

interface Row {
  name: string;
  facts: Partial<ExitFacts>;
  diagnostic: ExitDiagnostic;
  lines: string[];
  exitCode: number;
  /** The end was one the host asked for (SessionEnd.asked). */
  asked?: boolean;
  /** What the run's SessionEnd carries besides exitCode and signal. */
  recorded?: { exitedEarly?: { message: string; stderr: string[] }; exitedUnobserved?: { message: string; stderr: string[] } };
}

/** What the run is told of an early exit whose line has no stderr lines under it: the line, less our prefix. */
const early = (line: string): Row['recorded'] => ({ exitedEarly: { message: line.slice(P.length), stderr: [] } });

const rows: Row[] = [
  { name: 'answered, then exited 0 after the host left: asked for', facts: {}, diagnostic: 'none', lines: [], exitCode: 0, asked: true },
  { name: 'answered, then exited 3 after the host closed its input: asked for, the code goes on', facts: { exit: [3, null] }, diagnostic: 'none', lines: [], exitCode: 3, asked: true },
  { name: 'answered, then crashed with the host still there: the exit code goes on, not asked for', facts: { exit: [3, null], hostClosed: false }, diagnostic: 'none', lines: [], exitCode: 3 },
  {
    name: 'the host signalled the proxy (SIGINT, as a health check ends), the server died of it: asked for',
    facts: { exit: [null, 'SIGINT'], hostClosed: false, stoppedByUs: true, sentSignals: ['SIGINT'] },
    diagnostic: 'none',
    lines: [],
    exitCode: 130,
    asked: true,
  },
  {
    name: 'told to stop, it ignored SIGTERM and was killed after the grace: asked for',
    facts: { exit: [null, 'SIGKILL'], hostClosed: false, stoppedByUs: true, sentSignals: ['SIGTERM', 'SIGKILL'] },
    diagnostic: 'none',
    lines: [],
    exitCode: 137,
    asked: true,
  },
  {
    name: 'told to stop with SIGINT, it died of SIGSEGV: a crash, not asked for',
    facts: { exit: [null, 'SIGSEGV'], hostClosed: false, stoppedByUs: true, sentSignals: ['SIGINT'] },
    diagnostic: 'none',
    lines: [],
    exitCode: 139,
  },
  {
    name: 'the host closed its input, and someone else killed the server: not asked for',
    facts: { exit: [null, 'SIGKILL'] },
    diagnostic: 'none',
    lines: [],
    exitCode: 137,
  },
  {
    name: 'crashed before answering anything: exited early, with its last stderr lines',
    facts: { answered: false, exit: [1, null], stderrTail: ['Error: boom', '    at main'] },
    diagnostic: 'exited-early',
    lines: [`${P}the MCP server exited with code 1 before answering anything — its last stderr output was:\n    Error: boom\n        at main`],
    exitCode: 1,
    recorded: { exitedEarly: { message: 'the MCP server exited with code 1 before answering anything — its last stderr output was:', stderr: ['Error: boom', '    at main'] } },
  },
  {
    name: 'crashed before answering, silent on stderr',
    facts: { answered: false, exit: [2, null] },
    diagnostic: 'exited-early',
    lines: [`${P}the MCP server exited with code 2 before answering anything — it wrote nothing to stderr`],
    exitCode: 2,
    recorded: { exitedEarly: { message: 'the MCP server exited with code 2 before answering anything — it wrote nothing to stderr', stderr: [] } },
  },
  { name: 'a clean exit before any answer, after the host closed stdin with nothing pending: a smoke test, not a failure', facts: { answered: false }, diagnostic: 'none', lines: [], exitCode: 0, asked: true },
  {
    name: 'a clean exit before any answer while the host still had stdin open',
    facts: { answered: false, hostClosed: false },
    diagnostic: 'exited-early',
    lines: [`${P}the MCP server exited with code 0 before answering anything — it wrote nothing to stderr`],
    exitCode: 0,
    recorded: early(`${P}the MCP server exited with code 0 before answering anything — it wrote nothing to stderr`),
  },
  {
    name: 'a clean exit before any answer with a request pending',
    facts: { answered: false, pending: 1 },
    diagnostic: 'exited-early',
    lines: [`${P}the MCP server exited with code 0 before answering anything — it wrote nothing to stderr`],
    exitCode: 0,
    recorded: early(`${P}the MCP server exited with code 0 before answering anything — it wrote nothing to stderr`),
  },
  {
    name: 'stopped by us (a signal to the proxy): no diagnostic, 128 + the signal',
    facts: { answered: false, stoppedByUs: true, sentSignals: ['SIGTERM'], exit: [null, 'SIGTERM'] },
    diagnostic: 'none',
    lines: [],
    exitCode: 143,
    asked: true,
  },
  {
    name: 'killed by SIGKILL before answering',
    facts: { answered: false, exit: [null, 'SIGKILL'] },
    diagnostic: 'exited-early',
    lines: [`${P}the MCP server was killed by SIGKILL before answering anything — it wrote nothing to stderr`],
    exitCode: 137,
    recorded: early(`${P}the MCP server was killed by SIGKILL before answering anything — it wrote nothing to stderr`),
  },
  {
    name: 'a Windows crash code is named',
    facts: { answered: false, exit: [3221225477, null] },
    diagnostic: 'exited-early',
    lines: [`${P}the MCP server exited with code 3221225477 (STATUS_ACCESS_VIOLATION) before answering anything — it wrote nothing to stderr`],
    exitCode: 3221225477,
    recorded: early(`${P}the MCP server exited with code 3221225477 (STATUS_ACCESS_VIOLATION) before answering anything — it wrote nothing to stderr`),
  },
  {
    name: '--inherit-stderr: the line points above, and the graph gets no lines',
    facts: { answered: false, exit: [1, null], stderrTail: 'inherited' },
    diagnostic: 'exited-early',
    lines: [`${P}the MCP server exited with code 1 before answering anything — its stderr was passed straight through (--inherit-stderr), so look for its last output above`],
    exitCode: 1,
    recorded: { exitedEarly: { message: 'the MCP server exited with code 1 before answering anything — its stderr was passed straight through (--inherit-stderr), so look for its last output above', stderr: [] } },
  },
  {
    name: 'output become a raw pipe, then a crash: whether it answered is not known',
    facts: { answered: false, serverDegraded: true, exit: [1, null] },
    diagnostic: 'exited-unobserved',
    lines: [`${P}the MCP server exited with code 1; whether it answered is not known, since its stdout had become a raw byte pipe (a line larger than --max-frame-bytes) — it wrote nothing to stderr`],
    exitCode: 1,
    recorded: {
      exitedUnobserved: {
        message: 'the MCP server exited with code 1; whether it answered is not known, since its stdout had become a raw byte pipe (a line larger than --max-frame-bytes) — it wrote nothing to stderr',
        stderr: [],
      },
    },
  },
  { name: 'output become a raw pipe, then a clean exit: nothing claimed', facts: { answered: false, serverDegraded: true, hostClosed: false }, diagnostic: 'none', lines: [], exitCode: 0 },
  {
    name: 'stdout noise: counted at the end',
    facts: { noise: 3 },
    diagnostic: 'none',
    lines: [`${P}3 line(s) the server wrote to stdout were not JSON-RPC and were relayed verbatim — stdout is the MCP wire; log to stderr (see "stdout noise" on the graph)`],
    exitCode: 0,
    asked: true,
  },
  {
    name: 'an early exit and noise: the diagnostic first, then the count',
    facts: { answered: false, exit: [1, null], noise: 1 },
    diagnostic: 'exited-early',
    lines: [
      `${P}the MCP server exited with code 1 before answering anything — it wrote nothing to stderr`,
      `${P}1 line(s) the server wrote to stdout were not JSON-RPC and were relayed verbatim — stdout is the MCP wire; log to stderr (see "stdout noise" on the graph)`,
    ],
    exitCode: 1,
    recorded: early(`${P}the MCP server exited with code 1 before answering anything — it wrote nothing to stderr`),
  },
  { name: 'neither code nor signal known: exit 1', facts: { exit: [null, null] }, diagnostic: 'none', lines: [], exitCode: 1, asked: true },
];

for (const row of rows) {
  t.test(row.name, async (t) => {
    const facts: ExitFacts = { ...QUIET, ...row.facts };
    const diagnosis = diagnoseExit(facts);
    t.equal(diagnosis.diagnostic, row.diagnostic, 'diagnostic');
    t.strictSame(diagnosis.lines, row.lines, 'stderr lines');
    t.equal(diagnosis.exitCode, row.exitCode, 'exit code');
    t.strictSame(
      diagnosis.end,
      { exitedEarly: row.recorded?.exitedEarly, exitedUnobserved: row.recorded?.exitedUnobserved, exitCode: facts.exit[0], signal: facts.exit[1], ...(row.asked === true ? { asked: true } : {}) },
      'what the run is told',
    );
    if (row.recorded === undefined) t.equal(diagnosis.end.exitedEarly ?? diagnosis.end.exitedUnobserved, undefined, 'no failure recorded');
  });
}

t.test('a spawn failure: one line, the SpawnError record without our prefix, exit 127', async (t) => {
  const diagnosis = diagnoseSpawnFailure('no-such-server', { code: 'ENOENT', message: 'spawn no-such-server ENOENT' });
  const line = `${P}cannot run "no-such-server": spawn no-such-server ENOENT — the command was not found on PATH; check the "command" in your MCP client config`;
  t.equal(diagnosis.line, line);
  t.strictSame(diagnosis.end, { spawnError: { message: line.slice(P.length), code: 'ENOENT' } });
  t.equal(diagnosis.exitCode, EXIT_CANNOT_RUN);
  t.equal(EXIT_CANNOT_RUN, 127);
});

t.test('errorLine: the last stderr line that names an error, cut to 200 characters', async (t) => {
  const table: Array<[string[], string | undefined]> = [
    [[], undefined],
    [['starting', 'listening'], undefined],
    [['Traceback (most recent call last):', '  File "x.py"', 'ModuleNotFoundError: No module named foo'], 'ModuleNotFoundError: No module named foo'],
    [['SyntaxError: first', 'TypeError: second', '    at x'], 'TypeError: second'],
    [['  Error: indented  '], 'Error: indented'],
    [['java.lang.IllegalStateException: no'], 'java.lang.IllegalStateException: no'],
    [['an Error in the middle'], undefined],
    [[`Error: ${'x'.repeat(300)}`], `Error: ${'x'.repeat(192)}…`],
  ];
  for (const [lines, expected] of table) t.equal(errorLine(lines), expected, JSON.stringify(lines).slice(0, 80));
});
