// graphmind mcp's `where` (issue 33): list_calls and find_problems pick recorded calls with an
// expression of the condition language. Real runs recorded by a real graphmind serve and
// mcp-proxy in front of the logging fixture (echo, fail: isError, boom: a JSON-RPC error,
// bigfail), read back by the built CLI under real SDK 1.x and 2.x clients.
import t from 'tap';
import { NO_DEBUGGER_PORT } from './helpers/cli.js';
import { CLIENT_KINDS, startMcp } from './fixtures/mcp/mcp-session.js';
import { recordRuns } from './fixtures/mcp/record-runs.js';

const { runs, dataDir } = await recordRuns(t);
const runId = runs.sdk;

type Row = Record<string, unknown>;
const nodes = (data: Row, key = 'calls'): unknown[] => (data[key] as Row[]).map((row) => row.nodeId);

for (const kind of CLIENT_KINDS) {
  t.test(`${kind} client: where on recorded calls`, async (t) => {
    const mcp = await startMcp(t, kind, { dataDir, port: NO_DEBUGGER_PORT });

    t.test('list_calls: atoms, paths, text, operators', async (t) => {
      const cases: Array<[string, string[]]> = [
        ['tool:echo', ['tool:echo']],
        ['tool:*fail', ['tool:fail', 'tool:bigfail']],
        ['is:error', ['tool:fail', 'tool:boom', 'tool:bigfail']],
        ['is:error and not tool:bigfail', ['tool:fail', 'tool:boom']],
        ['$.params.arguments.text ~ "FROM THE RECORDER"', ['tool:echo']],
        ['$.params.arguments.why == "the recorder asked"', ['tool:boom']],
        ['$.error.message ~ "recorder asked"', ['tool:boom']],
        ['$.result.isError == true', ['tool:fail', 'tool:bigfail']],
        ['text ~ "^it failed$"', ['tool:fail']],
        ['method:tools/call and bytes>100k', ['tool:bigfail']],
        ['method:initialize', ['mcp:initialize']],
        ['status:ok and tool:*', ['tool:echo']],
        ['from:server', []],
        ['dur<0ms', []],
        ['$.params.arguments.nothing ~ "x"', []],
      ];
      for (const [where, expected] of cases) {
        const data = await mcp.data('list_calls', { runId, where });
        t.same(nodes(data), expected, where);
        t.equal(data.total, expected.length, `${where}: total`);
      }
      const combined = await mcp.data('list_calls', { runId, status: 'error', where: 'tool:b*' });
      t.same(nodes(combined), ['tool:boom', 'tool:bigfail'], 'status and where combine');
      const text = (await mcp.call('list_calls', { runId, where: 'tool:echo' })).content[0]?.text ?? '';
      t.match(text, /where tool:echo/, 'the text says which calls it lists');
    });

    t.test('list_calls: a page cursor belongs to its where', async (t) => {
      const first = await mcp.data('list_calls', { runId, where: 'tool:*', limit: 1 });
      t.equal(first.total, 4);
      t.type(first.nextCursor, 'string');
      const second = await mcp.data('list_calls', { runId, where: 'tool:*', limit: 1, cursor: first.nextCursor });
      t.same(nodes(second), ['tool:fail']);
      const other = await mcp.refusal('list_calls', { runId, where: 'tool:echo', limit: 1, cursor: first.nextCursor });
      t.equal(other.code, 'bad-cursor', 'a cursor of another where is refused');
    });

    t.test('find_problems: only the problems of the matching calls', async (t) => {
      const all = await mcp.data('find_problems', { runId });
      t.ok((all.problems as Row[]).some((problem) => problem.nodeId === 'tool:boom'), 'boom is a problem');
      const fails = await mcp.data('find_problems', { runId, where: 'tool:*fail' });
      t.same(nodes(fails, 'problems').sort(), ['tool:bigfail', 'tool:fail']);
      const boom = await mcp.data('find_problems', { runId, where: '$.params.arguments.why ~ "recorder"' });
      t.same(nodes(boom, 'problems'), ['tool:boom']);
      const none = await mcp.data('find_problems', { runId, where: 'tool:echo' });
      t.equal(none.total, 0, 'echo went well');
      const recent = await mcp.data('find_problems', { where: 'tool:boom' });
      t.same(nodes(recent, 'problems'), ['tool:boom'], 'across the recent runs too');
    });

    t.test('a bad expression: a tool error with its position, nothing listed', async (t) => {
      const bad: Array<[Row, RegExp]> = [
        [{ runId, where: '(tool:echo' }, /^where is not a valid expression: expected \) .* at position 10 /],
        [{ runId, where: 'tool:echo and' }, /at position 13/],
        [{ runId, where: 'foo:bar' }, /unknown atom foo: .*at position 0/],
        [{ runId, where: '$.params.q ~ "(a"' }, /bad regular expression.*at position 13/],
        [{ runId, where: '' }, /where/],
        [{ runId, where: 'x'.repeat(10_000) }, /where/],
        [{ runId, where: `${'('.repeat(1000)}tool:a${')'.repeat(1000)}` }, /nested more than 64 deep at position 64/],
        [{ runId, where: 42 }, /^where must be a string/],
      ];
      for (const [args, text] of bad) {
        const refused = await mcp.refusal('list_calls', args);
        t.equal(refused.code, 'bad-argument', String(args.where).slice(0, 40));
        t.match(refused.text, text);
        t.notMatch(refused.text, /\n/, 'one line');
      }
      const problems = await mcp.refusal('find_problems', { where: 'is:wrong' });
      t.match(problems.text, /where is not a valid expression: is: takes request, answer, notification, error; not "wrong" at position 3/);
    });
  });
}
