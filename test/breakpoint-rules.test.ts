// Rules (conditional breakpoints and logpoints) as playbooks: the check of a
// PUT /api/breakpoints body's rules (input -> clean rules or the problem),
// the server's rule book (ids, defaults, hit counts, disarming, what
// reporters are sent), the breakpoints state that pushes a disarmed rule to
// every reporter, the hold policy's order, and a reporter's own count.
import t from 'tap';
import { MAX_RULES, type Breakpoints, type BreakpointRule, type RuleState } from '../src/protocol/control.js';
import { parseBreakpoints, BreakpointsState, type BreakpointsPeer } from '../src/server/breakpoints.js';
import { RuleBook } from '../src/server/breakpoint-rules.js';
import { RuleSet } from '../src/gates/rules.js';
import { holdPlan } from '../src/gates/hold-policy.js';
import type { ConditionSubject } from '../src/conditions/index.js';

const base = { pauseOnError: true, nodes: {} };

t.test('PUT bodies with rules: each input -> clean rules, or a 400 saying which rule and what', async (t) => {
  type Expected = { rules: BreakpointRule[] | undefined } | { error: RegExp; rule?: number; position?: boolean } | string;
  const playbook: Array<[string, unknown, Expected]> = [
    ['no rules: the breakpoints have none (the server keeps its own)', undefined, { rules: undefined }],
    ['an empty list', [], { rules: [] }],
    ['a minimal rule, as given', [{ when: 'tool:search' }], { rules: [{ when: 'tool:search' }] }],
    [
      'every field',
      [{ id: 'pay', when: 'tool:search', gate: 'both', action: 'log', hits: 3, enabled: false }],
      { rules: [{ id: 'pay', when: 'tool:search', gate: 'both', action: 'log', hits: 3, enabled: false }] },
    ],
    ["GET's form PUT back: hitCount and armed are taken and ignored", [{ id: 'r', when: 'tool:a', hitCount: 4, armed: false }], { rules: [{ id: 'r', when: 'tool:a' }] }],
    ['rules not an array', { when: 'tool:a' }, { error: /rules must be an array/ }],
    ['a rule not an object', ['tool:a'], { error: /rules\[0\]: each rule is/, rule: 0 }],
    ['an unknown gate', [{ when: 'tool:a' }, { when: 'tool:b', gate: 'middle' }], { error: /rules\[1\]: gate must be before, after or both/, rule: 1 }],
    ['an unknown action', [{ when: 'tool:a', action: 'stop' }], { error: /action must be pause or log/, rule: 0 }],
    ['hits 0', [{ when: 'tool:a', hits: 0 }], { error: /hits must be every, once or a positive integer/, rule: 0 }],
    ['hits 1.5', [{ when: 'tool:a', hits: 1.5 }], { error: /hits must be every, once or a positive integer/, rule: 0 }],
    ['hits "twice"', [{ when: 'tool:a', hits: 'twice' }], { error: /hits must be/, rule: 0 }],
    ['enabled "yes"', [{ when: 'tool:a', enabled: 'yes' }], { error: /enabled must be true or false/, rule: 0 }],
    ['an unknown key', [{ when: 'tool:a', where: 'x' }], { error: /a rule takes only/, rule: 0 }],
    ['no when', [{ gate: 'before' }], { error: /when must be an expression/, rule: 0 }],
    ['an empty expression', [{ when: '' }], { error: /rules\[0\]\.when: /, rule: 0, position: true }],
    ['a bad expression', [{ when: 'tool:a' }, { when: 'tool:a and (' }], { error: /rules\[1\]\.when: .*\(position \d+\)/, rule: 1, position: true }],
    ['an expression of 10,000 characters', [{ when: `tool:${'a'.repeat(10_000)}` }], { error: /rules\[0\]\.when: /, rule: 0, position: true }],
    ['a bad id', [{ id: 'has space', when: 'tool:a' }], { error: /id must be 1 to 64/, rule: 0 }],
    ['an id given twice', [{ id: 'x', when: 'tool:a' }, { id: 'x', when: 'tool:b' }], { error: /rules\[1\]: the id x is given twice/, rule: 1 }],
    [`${MAX_RULES + 1} rules`, Array.from({ length: MAX_RULES + 1 }, () => ({ when: 'tool:a' })), { error: new RegExp(`at most ${MAX_RULES} rules \\(this has ${MAX_RULES + 1}\\)`) }],
    ['10,000 rules', Array.from({ length: 10_000 }, () => ({ when: 'tool:a' })), { error: /at most 1000 rules/ }],
  ];
  for (const [name, rules, expected] of playbook) {
    const parsed = parseBreakpoints(rules === undefined ? base : { ...base, rules });
    if (typeof expected === 'string') t.equal(parsed, expected, name);
    else if ('rules' in expected) {
      t.ok(typeof parsed !== 'string' && !('error' in parsed), `${name}: taken`);
      if (typeof parsed !== 'string' && !('error' in parsed)) t.same(parsed.rules, expected.rules, name);
    } else {
      t.ok(typeof parsed === 'object' && 'error' in parsed, `${name}: refused`);
      if (typeof parsed !== 'object' || !('error' in parsed)) continue;
      t.match(parsed.error, expected.error, `${name}: says what is wrong`);
      t.notOk(parsed.error.includes('\n'), `${name}: in one line`);
      t.equal(parsed.rule, expected.rule, `${name}: which rule`);
      if (expected.position === true) t.type(parsed.position, 'number', `${name}: the position of the error`);
    }
  }
  t.equal(parseBreakpoints({ ...base, rules: [], other: 1 }), 'only pauseOnError, pauseOnDrift, nodes and rules are allowed', 'an unknown top-level key is still refused');
});

t.test('the rule book: ids, defaults, counts, disarming, what reporters get', async (t) => {
  const book = new RuleBook();
  book.replace([{ when: 'tool:a' }, { id: 'rule-7', when: 'tool:b', hits: 'once' }, { when: 'tool:c', hits: 2, action: 'log', gate: 'after' }, { id: 'off', when: 'tool:d', enabled: false }]);
  const states = book.states();
  t.same(
    states.map((rule) => rule.id),
    ['rule-8', 'rule-7', 'rule-9', 'off'],
    'ids given: rule-<n> past any rule-<n> given (a number is never given twice)',
  );
  t.same(states[0], { id: 'rule-8', when: 'tool:a', gate: 'before', action: 'pause', hits: 'every', enabled: true, hitCount: 0, armed: true }, 'every default filled in');
  t.same(
    book.forReporters().map((rule) => [rule.id, rule.hits]),
    [
      ['rule-8', 'every'],
      ['rule-7', 1],
      ['rule-9', 2],
    ],
    'reporters get the enabled, armed rules with the hits each has left',
  );
  t.equal(book.hit('rule-7'), 'disarmed', 'once: the first hit disarms');
  t.equal(book.hit('rule-9'), 'counted', 'hits 2: the first is counted');
  t.equal(book.hit('rule-8'), 'counted', 'every: counted');
  t.equal(book.hit('gone'), undefined, 'a rule not in force is not counted');
  t.same(
    book.forReporters().map((rule) => [rule.id, rule.hits]),
    [
      ['rule-8', 'every'],
      ['rule-9', 1],
    ],
    'the disarmed rule is no longer sent; the other has one hit left',
  );
  t.same(
    book.states().map((rule) => [rule.id, rule.hitCount, rule.armed]),
    [
      ['rule-8', 1, true],
      ['rule-7', 1, false],
      ['rule-9', 1, true],
      ['off', 0, true],
    ],
    'GET shows each hit count and whether it is armed',
  );
  book.replace([{ id: 'rule-7', when: 'tool:b', hits: 'once' }, { id: 'rule-9', when: 'tool:c', hits: 3, action: 'log', gate: 'after' }, { when: 'tool:a' }]);
  t.same(
    book.states().map((rule) => [rule.id, rule.hitCount, rule.armed]),
    [
      ['rule-7', 1, false],
      ['rule-9', 0, true],
      ['rule-10', 0, true],
    ],
    'PUT again: an unchanged rule keeps its count (and stays disarmed); a changed one starts again; one without an id is new',
  );
});

t.test('the breakpoints state: no rules look as before; a PUT without rules keeps them; a disarmed rule goes to every reporter', async (t) => {
  const sent: Array<{ breakpoints: Breakpoints; version: number }> = [];
  let told = 0;
  const state: BreakpointsState = new BreakpointsState({ ...base }, { onRules: () => told++ });
  // The reporter applies each version at once.
  const peer: BreakpointsPeer = {
    sendBreakpoints: (breakpoints, version) => {
      sent.push({ breakpoints, version });
      queueMicrotask(() => state.ack(peer, version));
    },
  };
  t.same(state.current, base, 'no rules: GET shows no rules key (as before rules existed)');
  state.join(peer);
  await state.set({ ...base, rules: [{ id: 'one', when: 'tool:a', hits: 'once' }, { id: 'all', when: 'tool:b' }] });
  t.same(sent.at(-1)?.breakpoints.rules, [
    { id: 'one', when: 'tool:a', gate: 'before', action: 'pause', hits: 1 },
    { id: 'all', when: 'tool:b', gate: 'before', action: 'pause', hits: 'every' },
  ]);
  await state.set({ pauseOnError: false, nodes: {} });
  t.equal(state.current.rules?.length, 2, 'a PUT without rules keeps the rules');
  t.equal(state.current.pauseOnError, false, 'and changes the rest');
  const version = state.version;
  state.ruleHit('all');
  t.equal(state.version, version, 'a counted hit sends nothing to reporters');
  t.equal(told, 0, 'the live feed hears of a count a little later (a few times a second at most)');
  state.ruleHit('one');
  t.equal(told, 1, 'and of a disarmed rule at once');
  t.equal(state.version, version + 1, 'a rule used up: a new version');
  t.same(sent.at(-1)?.breakpoints.rules?.map((rule) => rule.id), ['all'], 'sent to every reporter without it');
  t.same(
    state.current.rules?.map((rule) => [rule.id, (rule as RuleState).hitCount, (rule as RuleState).armed]),
    [
      ['one', 1, false],
      ['all', 1, true],
    ],
    'GET shows the counts',
  );
  await state.set({ ...base, rules: [] });
  t.same(state.current, base, 'rules: [] clears them');
});

/** A subject for the stub-free checks below: a tools/call of `tool`. */
const call = (tool: string): ConditionSubject => ({ kind: 'request', method: 'tools/call', nodeId: `tool:${tool}`, from: 'host', request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool } } });

t.test("a reporter's rule set: split by gate and action, counted locally, disabled and broken rules left out", async (t) => {
  const rules = new RuleSet([
    { id: 'once', when: 'tool:a', hits: 'once' },
    { id: 'log', when: 'tool:a', action: 'log', gate: 'both' },
    { id: 'off', when: 'tool:a', enabled: false },
    { id: 'broken', when: 'tool:a and (' },
    { id: 'after', when: 'tool:b', gate: 'after' },
  ]);
  t.same([rules.pauseBefore.length, rules.logBefore.length, rules.pauseAfter.length, rules.logAfter.length], [1, 1, 1, 1], 'each gate gets its rules');
  t.equal(rules.pause('before', call('a')), 'once', 'the once rule holds the first match');
  t.equal(rules.pause('before', call('a')), undefined, 'and never again, before the server has answered');
  t.same(rules.logs('before', call('a'))?.map((hit) => hit.ruleId), ['log'], 'a logpoint logs every match');
  t.equal(rules.logs('before', call('b')), undefined, 'and nothing on another call');
  t.ok(new RuleSet([]).empty, 'no rule: empty');
  t.ok(new RuleSet([{ when: 'tool:a', enabled: false }]).empty, 'only disabled rules: empty');
});

t.test('the hold policy with rules: a breakpoint first, then a rule, then the loop or the error gate', async (t) => {
  const bp: Breakpoints = { pauseOnError: true, nodes: { 'tool:a': { before: true } } };
  let asked = 0;
  const rule = (): string => {
    asked++;
    return 'r';
  };
  t.same(holdPlan(bp, { point: 'before', nodeId: 'tool:a', rule }), { point: 'before', reason: 'breakpoint' }, 'a breakpoint holds');
  t.equal(asked, 0, 'and the rule is not asked (its hit is not counted)');
  t.same(holdPlan(bp, { point: 'before', nodeId: 'tool:b', loop: true, rule }), { point: 'before', reason: 'rule', ruleId: 'r' }, 'a rule before the loop hold');
  t.same(holdPlan(bp, { point: 'after', nodeId: 'tool:b', failed: true, rule }), { point: 'after', reason: 'rule', ruleId: 'r' }, 'a rule at after before pause-on-error');
  t.same(holdPlan(bp, { point: 'after', nodeId: 'tool:b', failed: true, rule: () => undefined }), { point: 'error', reason: 'error' }, 'no rule match: the error gate');
});
