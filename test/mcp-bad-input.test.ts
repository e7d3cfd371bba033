// Bad input to `graphmind mcp` (real SDK 1.x and 2.x clients over stdio, runs recorded from real
// proxy sessions): each is a tool result with isError and one clear line, or for an unknown tool a
// JSON-RPC error, and the server goes on answering.
import t from 'tap';
import { NO_DEBUGGER_PORT } from './helpers/cli.js';
import { encodeCursor, queryKey } from '../src/mcp/paging.js';
import { CLIENT_KINDS, startMcp } from './fixtures/mcp/mcp-session.js';
import { recordRuns } from './fixtures/mcp/record-runs.js';

const { dataDir, runs } = await recordRuns(t);

/** A call, the code its refusal must carry, and what its line must say. */
interface BadCall {
  name: string;
  args: Record<string, unknown>;
  code: string;
  text: RegExp;
}

const BAD_CALLS: readonly BadCall[] = [
  // An unknown run id, well formed.
  { name: 'get_run', args: { runId: 'run_that_is_not_there' }, code: 'unknown-run', text: /^no run has the id "run_that_is_not_there" \(looked in the data directory\): list_runs shows the runs there are$/ },
  { name: 'list_calls', args: { runId: 'run_that_is_not_there' }, code: 'unknown-run', text: /^no run has the id/ },
  { name: 'search_logs', args: { runId: 'run_that_is_not_there', pattern: 'x' }, code: 'unknown-run', text: /^no run has the id/ },
  { name: 'find_problems', args: { runId: 'run_that_is_not_there' }, code: 'unknown-run', text: /^no run has the id/ },
  // Malformed run ids: refused before any file is looked for.
  { name: 'get_run', args: { runId: '../token' }, code: 'bad-run-id', text: /^runId "\.\.\/token" is not a run id \(1 to 64 letters, digits, _ or -\)$/ },
  { name: 'get_run', args: { runId: `${runs.sdk}.jsonl` }, code: 'bad-run-id', text: /is not a run id/ },
  { name: 'get_run', args: { runId: 'r'.repeat(65) }, code: 'bad-run-id', text: /is not a run id/ },
  { name: 'get_run', args: { runId: '' }, code: 'bad-run-id', text: /is not a run id/ },
  { name: 'get_run', args: { runId: 42 }, code: 'bad-run-id', text: /^runId of type number is not a run id/ },
  { name: 'get_call', args: { runId: '/etc/passwd', instanceId: 'mcp_1' }, code: 'bad-run-id', text: /is not a run id/ },
  { name: 'search_logs', args: { runId: 'a b', pattern: 'x' }, code: 'bad-run-id', text: /is not a run id/ },
  { name: 'list_calls', args: { runId: 'run\u0000x' }, code: 'bad-run-id', text: /is not a run id/ },
  // Missing, unknown or out-of-range arguments.
  { name: 'get_run', args: {}, code: 'bad-argument', text: /^runId is required$/ },
  { name: 'get_call', args: { runId: runs.sdk }, code: 'bad-argument', text: /^instanceId is required$/ },
  { name: 'get_call', args: { runId: runs.sdk, instanceId: 'mcp_999999' }, code: 'unknown-call', text: /has no call "mcp_999999"/ },
  { name: 'get_call', args: { runId: runs.sdk, instanceId: 'mcp_1', maxChars: 5 }, code: 'bad-argument', text: /^maxChars must be between 100 and 10000$/ },
  { name: 'list_runs', args: { limit: 0 }, code: 'bad-argument', text: /^limit must be between 1 and 50$/ },
  { name: 'list_runs', args: { limit: 1000 }, code: 'bad-argument', text: /^limit must be between 1 and 50$/ },
  { name: 'list_runs', args: { limit: 2.5 }, code: 'bad-argument', text: /^limit must be a whole number$/ },
  { name: 'list_runs', args: { status: 'broken' }, code: 'bad-argument', text: /^status must be one of running, ok, error$/ },
  { name: 'list_runs', args: { since: 'yesterday' }, code: 'bad-argument', text: /^since "yesterday" is neither an age/ },
  { name: 'list_runs', args: { runId: runs.sdk }, code: 'bad-argument', text: /^unknown argument "runId"; this tool takes status, source, text, since, limit, cursor$/ },
  { name: 'list_holds', args: { all: true }, code: 'bad-argument', text: /^unknown argument "all"; this tool takes none$/ },
  { name: 'find_problems', args: { kind: 'everything' }, code: 'bad-argument', text: /^kind must be one of spawn_failure, early_exit/ },
  // Bad regular expressions, and patterns.
  { name: 'search_logs', args: { runId: runs.sdk, pattern: '(unclosed', regex: true }, code: 'bad-regex', text: /^bad regex: Invalid regular expression: \/\(unclosed\/i: Unterminated group$/ },
  { name: 'search_logs', args: { runId: runs.sdk, pattern: '[z-a]', regex: true }, code: 'bad-regex', text: /^bad regex: .*[Rr]ange out of order/ },
  // Catastrophic backtracking on the crash's stack trace lines: stopped after 2 s.
  { name: 'search_logs', args: { runId: runs.crash, pattern: '^(.*.*)*QQQ$', regex: true }, code: 'search-timeout', text: /^the search took longer than 2000 ms and was stopped: use a simpler pattern$/ },
  { name: 'search_logs', args: { runId: runs.sdk, pattern: '' }, code: 'bad-argument', text: /^pattern must not be empty$/ },
  { name: 'search_logs', args: { runId: runs.sdk, pattern: 'x'.repeat(1_001) }, code: 'bad-argument', text: /^pattern is longer than 1000 characters$/ },
  // Cursors: not ours, another query's, past the end.
  { name: 'list_runs', args: { cursor: 'not a cursor!' }, code: 'bad-cursor', text: /^bad cursor: pass a nextCursor exactly as a previous page gave it/ },
  { name: 'list_runs', args: { cursor: Buffer.from('{"q":1}').toString('base64url') }, code: 'bad-cursor', text: /^bad cursor/ },
  { name: 'list_runs', args: { status: 'ok', cursor: encodeCursor({ q: queryKey('list_runs', {}), o: 1 }) }, code: 'bad-cursor', text: /belongs to a query with other arguments/ },
  { name: 'list_runs', args: { cursor: encodeCursor({ q: queryKey('list_runs', {}), o: 50 }) }, code: 'page-past-end', text: /^page past the end: the list has 4 row\(s\) now; leave cursor out to start again$/ },
  { name: 'list_calls', args: { runId: runs.sdk, cursor: encodeCursor({ q: queryKey('list_calls', { runId: runs.sdk }), o: 1_000_000 }) }, code: 'page-past-end', text: /^page past the end/ },
  { name: 'search_logs', args: { runId: runs.crash, pattern: 'line', cursor: encodeCursor({ q: queryKey('search_logs', { runId: runs.crash, pattern: 'line', regex: false, ignoreCase: true }), o: 999 }) }, code: 'page-past-end', text: /^page past the end/ },
  // Live-only tools with no debugger.
  { name: 'list_holds', args: {}, code: 'no-debugger', text: /^list_holds needs a running graphmind serve: no debugger answers on 127\.0\.0\.1:1$/ },
];

for (const kind of CLIENT_KINDS) {
  t.test(`${kind} client: bad input gets a clear tool error`, async (t) => {
    const mcp = await startMcp(t, kind, { dataDir, port: NO_DEBUGGER_PORT });
    for (const bad of BAD_CALLS) {
      const refusal = await mcp.refusal(bad.name, bad.args);
      t.equal(refusal.code, bad.code, `${bad.name} ${JSON.stringify(bad.args).slice(0, 80)}: ${bad.code}`);
      t.match(refusal.text, bad.text);
      t.notOk(refusal.text.includes('\n'), 'one line');
    }
    // A cursor handed out by one tool is refused by another.
    const page = await mcp.data('list_runs', { limit: 1 });
    t.match(await mcp.refusal('list_calls', { runId: runs.sdk, cursor: page.nextCursor as string }), { code: 'bad-cursor' });

    for (const name of ['no_such_tool', 'decide_hold', 'set_breakpoints']) {
      await t.rejects(mcp.client.callTool({ name, arguments: {} }), { message: new RegExp(`Unknown tool: ${name}`) }, `${name}: a JSON-RPC error`);
    }
    // Still serving after all that.
    t.equal((await mcp.data('list_runs')).total, 4, 'the server still answers');
    t.equal(mcp.stderr().match(/failed:/g), null, 'no internal failure was logged');
  });
}
