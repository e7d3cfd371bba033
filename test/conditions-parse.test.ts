// The condition language's parser as a playbook: expression in, accepted
// or the first error's 0-based position (and a word of its message) out.
// The positions are interfaces: the viewer's find bar and the rules' 400
// point at them.
import t from 'tap';
import { compileCondition, MAX_CONDITION_LENGTH, MAX_DEPTH, MAX_REGEX_LENGTH } from '../src/conditions/index.js';

type Expected = 'ok' | [position: number, says: string];

const playbook: Array<[string, Expected]> = [
  // Atoms.
  ['method:tools/call', 'ok'],
  ['method:notifications/*', 'ok'],
  ['tool:search', 'ok'],
  ['tool:search_*', 'ok'],
  ['resource:file:///etc/*', 'ok'],
  ['resource:"file:///my docs/a (1).txt"', 'ok'],
  ['prompt:summarize', 'ok'],
  ['node:mcp:initialize', 'ok'],
  ['from:host', 'ok'],
  ['from:server', 'ok'],
  ['is:request', 'ok'],
  ['is:answer', 'ok'],
  ['is:notification', 'ok'],
  ['is:error', 'ok'],
  ['status:ok', 'ok'],
  ['status:held', 'ok'],
  ['Tool:search', 'ok'],
  ['dur>500ms', 'ok'],
  ['dur >= 2s', 'ok'],
  ['dur<=1.5s', 'ok'],
  ['dur<100', 'ok'],
  ['bytes>8k', 'ok'],
  ['bytes>=1m', 'ok'],
  ['bytes<512', 'ok'],
  // Paths.
  ['$.params.arguments.path ~ "/etc/"', 'ok'],
  ["$.params.arguments.q ~ 'PAY-\\d+'", 'ok'],
  ['$.params.arguments.n == 3', 'ok'],
  ['$.params.arguments.n = 3', 'ok'],
  ['$.params.arguments.flag == true', 'ok'],
  ['$.params.arguments.flag != null', 'ok'],
  ['$.result.content[0].text ~ "x"', 'ok'],
  ['$.result.content[*].type == "image"', 'ok'],
  ['$["params"]["arguments"]["a key"] == "v"', 'ok'],
  ['$.params.arguments.n<3', 'ok'],
  ['$.params.arguments.n >= -1.5', 'ok'],
  ['exists($.params.cursor)', 'ok'],
  ['exists( $.params.cursor )', 'ok'],
  ['text ~ "rate limit"', 'ok'],
  ['TEXT ~ "x"', 'ok'],
  // Operators and grouping.
  ['tool:a and tool:b', 'ok'],
  ['tool:a or tool:b', 'ok'],
  ['not tool:a', 'ok'],
  ['NOT tool:a AND is:error OR dur>1s', 'ok'],
  ['(tool:a or tool:b) and is:error', 'ok'],
  ['tool:a is:error', 'ok'],
  ['method:tools/call status:error dur>500ms', 'ok'],
  ['not not tool:a', 'ok'],
  ['((tool:a))', 'ok'],
  // Errors, with where they are.
  ['', [0, 'empty']],
  ['   ', [0, 'empty']],
  ['(', [1, 'expected a condition']],
  ['tool:a and (', [12, 'expected a condition']],
  ['(tool:a', [7, 'expected )']],
  ['tool:a)', [6, 'closes nothing']],
  ['tool:a or', [9, 'expected a condition']],
  ['and tool:a', [0, 'expected a condition']],
  ['foo:bar', [0, 'unknown atom foo:']],
  ['tool:', [5, 'a value must follow tool:']],
  ['from:client', [5, 'from: takes host, server']],
  ['is:errr', [3, 'is: takes']],
  ['status:done', [7, 'status: takes']],
  ['dur>5x', [4, 'unit']],
  ['dur>', [4, 'expected an amount']],
  ['dur ~ "x"', [4, 'expected <, >, <= or >=']],
  ['dur==5ms', [3, 'expected <, >, <= or >=']],
  ['bytes>8g', [6, 'unit']],
  ['search', [0, 'unknown word "search"']],
  ['rate limit', [0, 'unknown word']],
  ['tool:a & tool:b', [7, 'unexpected "&"']],
  ['$.params.x', [10, 'expected ~, ==']],
  ['$.params.x ~ foo', [13, 'quoted regular expression']],
  ['$.params.x == foo', [14, 'expected a value']],
  ['$.params.x < "3"', [13, 'expected a number']],
  ['$.params.x < 3ms', [13, 'expected a number']],
  ['$.params..x == 1', [9, 'a key must follow']],
  ['$.params[x] == 1', [8, '[x] is not']],
  ['$.params[0 == 1', [8, 'not closed']],
  ['$x == 1', [1, 'unexpected "x"']],
  ['$.a ~ "(a"', [6, 'missing closing )']],
  ['$.a ~ "a\\1"', [6, 'bad regular expression']],
  ['$.a ~ "(?=x)"', [6, 'bad regular expression']],
  ['$.a ~ "unclosed', [6, 'not closed']],
  ['text == "x"', [5, 'expected ~ after text']],
  ['text', [4, 'expected ~ after text']],
  ['exists $.a', [7, 'expected ( after exists']],
  ['exists(tool:a)', [7, 'expected a $ path']],
  ['exists($.a', [10, 'expected )']],
  ['tool:a and and tool:b', [11, 'expected a condition']],
];

for (const [text, expected] of playbook) {
  t.test(JSON.stringify(text), async (t) => {
    const result = compileCondition(text);
    if (expected === 'ok') {
      t.ok(result.ok, result.ok ? 'compiles' : `${result.error} at ${result.position}`);
      if (result.ok) t.equal(result.condition.text, text);
    } else {
      t.notOk(result.ok, 'rejected');
      if (!result.ok) {
        t.equal(result.position, expected[0], `position (${result.error})`);
        t.match(result.error, expected[1]);
        t.notMatch(result.error, /\n/, 'one line');
      }
    }
  });
}

t.test('bad input: sizes and depths are bounded, each with a position', async (t) => {
  const long = compileCondition(`tool:${'a'.repeat(10_000)}`);
  t.strictSame(long.ok ? undefined : long.position, MAX_CONDITION_LENGTH, '10,000 characters: rejected at the limit');
  t.ok(compileCondition(`tool:${'a'.repeat(MAX_CONDITION_LENGTH - 5)}`).ok, 'exactly the limit is read');

  const parens = compileCondition(`${'('.repeat(1000)}tool:a${')'.repeat(1000)}`);
  t.strictSame(parens.ok ? undefined : parens.position, MAX_DEPTH, '1,000 parentheses deep: rejected at the first one too deep');
  const nots = compileCondition(`${'not '.repeat(1000)}tool:a`);
  t.strictSame(nots.ok ? undefined : nots.position, MAX_DEPTH * 4, '1,000 nots deep: same');
  t.ok(compileCondition(`${'('.repeat(MAX_DEPTH)}tool:a${')'.repeat(MAX_DEPTH)}`).ok, `${MAX_DEPTH} deep is fine`);

  const terms = Array.from({ length: 250 }, (_, index) => `tool:t${index}`).join(' or ');
  t.ok(terms.length < MAX_CONDITION_LENGTH && compileCondition(terms).ok, 'a long flat or-chain is not nesting');

  const regex = compileCondition(`$.a ~ "${'a'.repeat(MAX_REGEX_LENGTH + 1)}"`);
  t.strictSame(regex.ok ? undefined : [regex.position, /at most 256/.test(regex.error)], [6, true], 'a regex over the limit');
  t.ok(compileCondition(`$.a ~ "${'a'.repeat(MAX_REGEX_LENGTH)}"`).ok, 'a regex at the limit');
});
