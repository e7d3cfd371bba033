// Verify's pure rules as playbooks: the hand-written JSONPath subset (parse, and what removing a
// path leaves), --ignore scopes and rules files, the uuid and date-time normalisers, and the
// verdict on two answers (src/json/json-path.ts, replay/verify-rules.ts, verdict.ts).
import t from 'tap';
import { IGNORED, parseJsonPath, removeAt } from '../src/json/json-path.js';
import type { RecordedAnswer } from '../src/replay/recorded-run.js';
import { verdictOf } from '../src/replay/verdict.js';
import { NO_RULES, normaliseText, parseIgnore, parseRules } from '../src/replay/verify-rules.js';

t.test('JSONPath: what parses, and what removing it leaves', async (t) => {
  const value = () => ({ result: { content: [{ text: 'a' }, { text: 'b' }], structuredContent: { timestamp: 1, 'odd key': 2, keep: 3 } } });
  const rows: Array<[string, unknown]> = [
    ['$.result.structuredContent.timestamp', { result: { content: [{ text: 'a' }, { text: 'b' }], structuredContent: { 'odd key': 2, keep: 3 } } }],
    ['$.result.content[0].text', { result: { content: [{}, { text: 'b' }], structuredContent: { timestamp: 1, 'odd key': 2, keep: 3 } } }],
    ['$.result.content[*].text', { result: { content: [{}, {}], structuredContent: { timestamp: 1, 'odd key': 2, keep: 3 } } }],
    ['$.result.content[1]', { result: { content: [{ text: 'a' }, IGNORED], structuredContent: { timestamp: 1, 'odd key': 2, keep: 3 } } }],
    ['$.result.content[5]', value()],
    ['$.result.structuredContent["odd key"]', { result: { content: [{ text: 'a' }, { text: 'b' }], structuredContent: { timestamp: 1, keep: 3 } } }],
    ["$.result.structuredContent['odd key']", { result: { content: [{ text: 'a' }, { text: 'b' }], structuredContent: { timestamp: 1, keep: 3 } } }],
    ['$.result.*', { result: {} }],
    ['$.nothing.here', value()],
    ['$', value()],
  ];
  for (const [path, expected] of rows) {
    const parsed = parseJsonPath(path);
    if (!parsed.ok) {
      t.fail(`${path}: ${parsed.reason}`);
      continue;
    }
    const copy = value();
    removeAt(copy, parsed.steps);
    t.same(copy, expected, path);
  }
  const bad: Array<[string, RegExp]> = [
    ['result.x', /does not start with \$/],
    ['$.', /a key must follow "\."/],
    ['$[1', /a \[ is not closed/],
    ['$[x]', /\[x\] is not \[n\], \[\*\] or \["key"\]/],
    ['$..x', /a key must follow/],
    ['$ x', /unexpected " "/],
  ];
  for (const [path, reason] of bad) {
    const parsed = parseJsonPath(path);
    t.match(parsed.ok ? '' : parsed.reason, reason, `${path} is refused`);
  }
});

t.test('--ignore scopes and rules files', async (t) => {
  const scope = (text: string) => {
    const parsed = parseIgnore(text);
    return parsed.ok ? { method: parsed.rule.method, name: parsed.rule.name, steps: parsed.rule.steps.length } : parsed.reason;
  };
  t.same(scope('$.result.x'), { method: undefined, name: undefined, steps: 2 });
  t.same(scope('tools/call $.result.x'), { method: 'tools/call', name: undefined, steps: 2 });
  t.same(scope('tools/call:search $.result.content[0].text'), { method: 'tools/call', name: 'search', steps: 4 });
  t.same(scope('resources/read:file:///a.txt $.result'), { method: 'resources/read', name: 'file:///a.txt', steps: 1 });
  t.match(scope(':x $.result'), /the scope must be <method> or <method>:<name>/);
  const rows: Array<[string | undefined, string[], RegExp | { ignore: number; normalise: string[] }]> = [
    [undefined, ['$.a'], { ignore: 1, normalise: [] }],
    ['{"ignore":["$.b"],"normalise":["uuid","date-time"]}', ['$.a'], { ignore: 2, normalise: ['uuid', 'date-time'] }],
    ['{"normalize":["uuid"]}', [], { ignore: 0, normalise: ['uuid'] }],
    ['not json', [], /it is not JSON/],
    ['[]', [], /not a JSON object/],
    ['{"ignores":[]}', [], /unknown key "ignores"/],
    ['{"ignore":"$.a"}', [], /"ignore" must be a list of paths/],
    ['{"normalise":["colour"]}', [], /unknown normaliser "colour"/],
    ['{"ignore":["x"]}', [], /does not start with \$/],
  ];
  for (const [text, ignores, expected] of rows) {
    const parsed = parseRules(text, ignores);
    if (expected instanceof RegExp) t.match(parsed.ok ? '' : parsed.reason, expected, `${text} is refused`);
    else t.same(parsed.ok ? { ignore: parsed.rules.ignore.length, normalise: parsed.rules.normalise } : parsed.reason, expected, String(text));
  }
});

t.test('normalisers: UUIDs and ISO date-times inside strings', async (t) => {
  const rows: Array<[string, string]> = [
    ['id 3f2a1c9e-8b7d-4e6f-a5b4-c3d2e1f0a9b8 ok', 'id <uuid> ok'],
    ['3F2A1C9E-8B7D-4E6F-A5B4-C3D2E1F0A9B8', '<uuid>'],
    ['at 2026-03-01T12:34:56.789Z.', 'at <date-time>.'],
    ['at 2026-03-01T12:34:56+02:00', 'at <date-time>'],
    ['2026-03-01 12:34', '<date-time>'],
    ['2026-03-01', '2026-03-01'],
    ['not-a-uuid-at-all', 'not-a-uuid-at-all'],
  ];
  for (const [text, expected] of rows) t.equal(normaliseText(text, ['uuid', 'date-time']), expected, text);
  t.equal(normaliseText('2026-03-01T12:34:56Z', ['uuid']), '2026-03-01T12:34:56Z', 'only the normalisers named apply');
});

t.test('verdicts on two answers', async (t) => {
  const text = (value: string, extra: Record<string, unknown> = {}): RecordedAnswer => ({ result: { content: [{ type: 'text', text: value }], ...extra } });
  const echo = { method: 'tools/call', name: 'echo' };
  const rules = (...ignore: string[]) => {
    const parsed = parseRules(undefined, ignore);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.rules;
  };
  const rows: Array<[string, RecordedAnswer | undefined, RecordedAnswer | undefined, ReturnType<typeof rules>, string, string[]]> = [
    ['equal', text('a'), text('a'), NO_RULES, 'same', []],
    ['a text differs', text('a'), text('b'), NO_RULES, 'different', ['$.result.content[0].text']],
    ['_meta is left out', text('a', { _meta: { x: 1 } }), text('a', { _meta: { x: 2 } }), NO_RULES, 'same', []],
    ['key order ignored', { result: { a: 1, b: 2 } }, { result: { b: 2, a: 1 } }, NO_RULES, 'same', []],
    ['JSON in text compared as JSON', text('{"a":1,"b":2}'), text('{ "b": 2, "a": 1 }'), NO_RULES, 'same', []],
    ['JSON in text: the path goes into it', text('{"a":1}'), text('{"a":2}'), NO_RULES, 'different', ['$.result.content[0].text.a']],
    ['one side not JSON: compared as text', text('{"a":1}'), text('oops'), NO_RULES, 'different', ['$.result.content[0].text']],
    ['ignored inside the JSON text', text('{"a":1,"t":5}'), text('{"a":1,"t":6}'), rules('$.result.content[0].text.t'), 'same', []],
    ['ignore scoped to this tool', text('a'), text('b'), rules('tools/call:echo $.result.content'), 'same', []],
    ['ignore scoped to another tool', text('a'), text('b'), rules('tools/call:search $.result.content'), 'different', ['$.result.content[0].text']],
    ['isError flips, though ignored', text('a'), text('a', { isError: true }), rules('$.result.isError'), 'different', ['$.result.isError']],
    ['a result became an error', text('a'), { error: { code: -32000, message: 'x' } }, NO_RULES, 'different', ['$.error', '$.result']],
    // Equal as JSON: same without the copies, whatever the rules (they cannot make two equal answers differ).
    ['equal, deep _meta and key order aside, with ignores', text('a', { isError: true, _meta: { x: 1 } }), { result: { isError: true, content: [{ text: 'a', type: 'text', _meta: { y: 2 } }] } }, rules('$.result.content[0]', '$.result.isError'), 'same', []],
    ['none expected, none received', undefined, undefined, NO_RULES, 'same', []],
    ['expected, none received', text('a'), undefined, NO_RULES, 'missing', []],
    ['none expected, one received', undefined, text('a'), NO_RULES, 'extra', []],
  ];
  for (const [name, expected, received, ruleSet, verdict, paths] of rows) {
    const found = verdictOf(expected, received, echo, ruleSet);
    t.same({ verdict: found.verdict, paths: found.differences.map((d) => d.path) }, { verdict, paths }, name);
  }
  const recorded = text('{"a":1}');
  verdictOf(recorded, text('{"a":2}'), echo, NO_RULES);
  t.same(recorded, text('{"a":1}'), 'the recording is left as it was');
});
