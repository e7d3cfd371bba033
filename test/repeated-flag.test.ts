// A flag given twice is refused, naming it, unless it is documented as
// repeatable: the rule as a playbook of command lines.
import t from 'tap';
import { repeatedFlag, type FlagSet } from '../src/cli/repeated-flag.js';

const flags: FlagSet = { aliases: { output: ['o'], port: ['p'] }, repeatable: new Set(['watch', 'redact']) };

const rows: Array<[string, string[], string | undefined]> = [
  ['nothing given', [], undefined],
  ['each flag once', ['--data-dir', 'a', '--port', '1', '--open'], undefined],
  ['a string flag twice', ['--data-dir', 'a', '--data-dir', 'b'], '--data-dir'],
  ['the same flag, camel case and kebab case', ['--dataDir', 'a', '--data-dir', 'b'], '--data-dir'],
  ['with = and without', ['--port=1', '--port', '2'], '--port'],
  ['a boolean twice', ['--open', '--open'], '--open'],
  ['a boolean and its negation', ['--no-open', '--open'], '--open'],
  ['a flag and its alias', ['-o', 'a.har', '--output', 'b.har'], '--output'],
  ['an alias twice', ['-p', '1', '-p', '2'], '--port'],
  ['a repeatable flag many times', ['--watch', 'src', '--watch', 'lib', '--watch=test'], undefined],
  ['another repeatable flag', ['--redact', '$.a', '--redact', '$.b'], undefined],
  ['values are not flags', ['--data-dir', 'data-dir', 'data-dir'], undefined],
  ['a negative number is a value', ['--port', '-1', '--max', '-1'], undefined],
  ['after --, the server command is not ours', ['--port', '1', '--', 'node', 'server.js', '--port', '2'], undefined],
  ['the first repeated one is named', ['--a', '--b', '--b', '--a'], '--b'],
  ['--upstream twice', ['--upstream', 'http://a', '--upstream', 'http://b'], '--upstream'],
];

for (const [name, args, expected] of rows) t.equal(repeatedFlag(args, flags), expected, name);

// Every command refuses a repeated flag in one line, exit code 2, before it
// starts anything: run through the real CLI.
const { spawnSync } = await import('node:child_process');
const { CLI } = await import('./helpers/cli.js');
const commands: Array<[string, string[], string]> = [
  ['serve', ['serve', '--data-dir', '/nonexistent/a', '--data-dir', '/nonexistent/b'], 'graphmind: --data-dir was given more than once; give each flag once'],
  ['the default command', ['--port', '1', '--port', '2'], 'graphmind: --port was given more than once; give each flag once'],
  ['mcp-proxy', ['mcp-proxy', '--port', '1', '--port=2', '--', 'node', '-e', ''], 'graphmind mcp-proxy: --port was given more than once; give each flag once'],
  ['http-proxy', ['http-proxy', '--upstream', 'http://127.0.0.1:1/mcp', '--upstream', 'http://127.0.0.1:2/mcp'], 'graphmind http-proxy: --upstream was given more than once; give each flag once'],
  ['mcp', ['mcp', '--allow-control', '--allow-control'], 'graphmind mcp: --allow-control was given more than once; give each flag once'],
  ['export', ['export', 'run_1', '-o', 'a.har', '--output', 'b.har'], 'graphmind export: --output was given more than once; give each flag once'],
  ['import', ['import', 'a.jsonl', '--new-id', '--new-id'], 'graphmind import: --new-id was given more than once; give each flag once'],
];
for (const [name, args, line] of commands) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  t.equal(run.status, 2, `${name}: exit code 2`);
  t.equal(run.stderr, `${line}\n`, `${name}: one line naming the flag`);
  t.equal(run.stdout, '', `${name}: nothing on stdout`);
}
