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
