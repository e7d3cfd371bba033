// graphmind surface and graphmind surface diff end to end with a real SDK 1.x server
// (test/fixtures/surface/server.mjs, one change at a time through SURFACE_CHANGE): a lock
// written, then a description changed (risky, exit 1), a tool removed (breaking), a parameter
// made required (breaking), a rename, an optional parameter (benign, exit 0 by default),
// --fail-on, the json and markdown reporters, and exit 2 with one line for a side that cannot be
// read and a server that cannot be listed. SDK 2.x, HTTP and recorded runs: surface-cli-sdk2.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers/graph.js';
import { changesClassed, lock, surface } from './helpers/surface.js';

const dir = tempDir('graphmind-surface-');
// Each `graphmind surface` starts a node process and a server: under a loaded CI machine a few seconds each.
t.setTimeout(300_000);

t.test('SDK 1.x: a lock written, then each change classed with its exit code', async (t) => {
  const base = await changesClassed(t, dir, '1');
  t.equal(readFileSync(await lock(t, dir, '1', 'again'), 'utf8'), readFileSync(base, 'utf8'), 'the same server listed again, the same bytes');
});

t.test('the json and markdown reporters', async (t) => {
  const base = join(dir, 'sdk1-lock.surface.json');
  const removed = join(dir, 'sdk1-remove.surface.json');
  const json = await surface(['diff', base, removed, '--reporter', 'json']);
  t.equal(json.code, 1);
  const report = JSON.parse(json.stdout) as { changes: Array<Record<string, unknown>>; counts: Record<string, number>; failed: boolean };
  t.match(report, { failOn: 'risky', failed: true, counts: { breaking: 1, risky: 0, benign: 0 } });
  t.same(report.changes, [{ class: 'breaking', kind: 'tool-removed', entry: 'tool:delete', message: 'tool delete was removed' }]);
  const markdown = await surface(['diff', base, join(dir, 'sdk1-description.surface.json'), '--reporter', 'markdown']);
  t.equal(markdown.code, 1);
  t.match(markdown.stdout, /^### Tool surface: 1 change: 0 breaking, 1 risky, 0 benign\n/);
  t.match(markdown.stdout, /\n\| class \| change \| entry \| what \|\n\| --- \| --- \| --- \| --- \|\n\| risky \| description-changed \| `tool:search` \| tool search: description changed \|\n/);
});

t.test('exit 2 and one line: a side that cannot be read, a server that cannot be listed', async (t) => {
  const base = join(dir, 'sdk1-lock.surface.json');
  const notJson = join(dir, 'not-json.json');
  writeFileSync(notJson, 'tools: [search]\n');
  const otherVersion = join(dir, 'other-version.json');
  writeFileSync(otherVersion, JSON.stringify({ format: 'graphmind-surface', version: 7, tools: [] }));
  const cases: Array<[string[], RegExp]> = [
    [['diff', base, join(dir, 'missing.json')], /^graphmind surface: cannot read \S+missing\.json: no such file\n$/],
    [['diff', notJson, base], /^graphmind surface: cannot read \S+not-json\.json: not a surface file: not JSON \(.*\), and not a run: .*\n$/],
    [['diff', base, otherVersion], /^graphmind surface: cannot read \S+other-version\.json: surface version 7 is not one this graphmind reads \(1\)\n$/],
    [['--', process.execPath, '-e', 'process.stderr.write("cannot open the database\\n"); process.exit(3)'], /^graphmind surface: .*exit.*3[^\n]*\n/],
    [['--timeout', '300', '--', process.execPath, '-e', 'setInterval(() => {}, 1000)'], /^graphmind surface: the MCP server did not answer initialize within 300 ms\n$/],
    [['--', join(dir, 'no-such-server')], /^graphmind surface: .*no-such-server.*\n$/],
    [[], /^graphmind surface: give one of: a run \(graphmind surface <run>\), -- <server command…>, or --url <http url>\n$/],
    [['diff', base, base, '--fail-on', 'sometimes'], /^graphmind surface: Invalid values: Argument: fail-on, Given: "sometimes", Choices: "breaking", "risky", "any"\n$/],
  ];
  for (const [args, line] of cases) {
    const failed = await surface(args);
    t.equal(failed.code, 2, args.join(' '));
    t.match(failed.stderr, line, args.join(' '));
    t.notMatch(failed.stderr, /\n\s+at /, 'no stack trace');
  }
});

