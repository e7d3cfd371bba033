// Rules from the page, end to end (issue 33): a real `graphmind serve`, the
// viewer in Chromium, and a real SDK 1.x client through `graphmind
// mcp-proxy` in front of the logging fixture.
//
//   the find bar's expression narrows to the matching call; "Break when this
//   matches" adds it as a rule (the nodes, pause-on-error and the rules there
//   are kept); the next call that does not match goes through, the next that
//   does holds with the rule named; the panel shows its hit count; an edit
//   with a bad expression shows the server's error at its position and
//   changes nothing; a good edit and a disable are saved; a logpoint added in
//   the panel holds nothing and its line shows in the timeline.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import t from 'tap';
import type { Breakpoints, RuleState } from '../src/protocol/control.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { breakpointsApplied, connectV1, listHolds, runIds, setBreakpoints, waitForAsync } from './helpers/gates.js';
import { api, startServe } from './helpers/serve.js';
import { shot, until } from './helpers/viewer.js';

const STEP_MS = 10_000;

/** Mark a call's rejection as handled now; awaiting it later still throws. */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

t.test('Break when this matches, rules in the panel, a logpoint in the timeline', async (t) => {
  const serve = await startServe();
  t.teardown(() => serve.stop());
  const get = async (): Promise<Breakpoints> => (await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json as Breakpoints;
  const rulesWhen = async (predicate: (rules: RuleState[]) => boolean, what: string): Promise<RuleState[]> => {
    let rules: RuleState[] = [];
    await waitForAsync(async () => predicate((rules = ((await get()).rules ?? []) as RuleState[])), STEP_MS, what);
    return rules;
  };
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  const { client } = await connectV1(t, serve);
  const echo = (c: Client, text: string) => c.callTool({ name: 'echo', arguments: { text } });
  await waitForAsync(async () => (await runIds(serve)).length > 0, STEP_MS, 'the run');
  // Breakpoints that Break when must keep: pause-on-error off, a node breakpoint on a node never called.
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:never': { after: true } } });
  await echo(client, 'hello');
  await echo(client, 'PAY-1 first');
  await page.locator('.node[data-node-id="tool:echo"]').waitFor({ timeout: STEP_MS });

  // The find bar: the expression narrows the timeline to the one call.
  const expression = 'tool:echo and $.params.arguments.text ~ "pay-"';
  await page.getByRole('searchbox', { name: 'find calls' }).fill(expression);
  await until(page, `document.querySelectorAll('.timeline .tl-call').length === 1`, 'one matching call');
  t.match(await page.locator('.timeline .tl-call').textContent(), /echo/, 'the PAY- call only');

  // Break when this matches.
  await page.locator('button[data-action="break-when"]').click();
  const [added] = await rulesWhen((rules) => rules.length === 1, 'the rule');
  t.match(added, { when: expression, gate: 'before', action: 'pause', hits: 'every', enabled: true, hitCount: 0, armed: true }, 'the filter is a rule, at the before gate');
  const after = await get();
  t.same([after.pauseOnError, after.nodes], [false, { 'tool:never': { after: true } }], 'the nodes and pause-on-error are kept');
  const ruleId = added?.id ?? '';
  const row = page.locator(`.rules li.rule[data-rule-id="${ruleId}"]`);
  await row.waitFor({ timeout: STEP_MS });
  t.equal(await row.locator('.rule-when').textContent(), expression, 'the panel lists it, as text');
  await until(page, `document.querySelector('[data-testid="bp-strip"]')?.getAttribute('data-rules') === '1'`, 'the strip to count the rule');
  t.match(await page.locator('[data-testid="bp-strip"] .bp-strip-rules').textContent(), /^1 rule$/, 'the top bar shows the rule in force');
  await breakpointsApplied(serve);

  // A call that does not match goes through; the next that does holds, with the rule named.
  t.strictSame(await echo(client, 'not this one'), { content: [{ type: 'text', text: 'not this one' }] }, 'no match: not held');
  const held = later(echo(client, 'PAY-2 second'));
  await waitForAsync(async () => (await listHolds(serve)).some((h) => h.reason === 'rule'), STEP_MS, 'the rule’s hold');
  const hold = (await listHolds(serve)).find((h) => h.reason === 'rule');
  t.equal(hold?.ruleId, ruleId, 'the hold is the rule’s');
  const card = page.locator(`.hold[data-hold-id="${hold?.holdId ?? ''}"]`);
  await card.waitFor({ timeout: STEP_MS });
  t.equal(await card.getAttribute('data-reason'), 'rule');
  t.match(await card.locator('.reason').textContent(), new RegExp(`rule ${ruleId}`), 'the card names the rule');
  t.match(await card.locator('.hold-why').textContent(), `${ruleId} matched: ${expression}`, 'and what it matches');
  await shot(page, 'rule-hold');
  await card.locator('button[data-action="continue"]').click();
  t.strictSame(await held, { content: [{ type: 'text', text: 'PAY-2 second' }] }, 'Continue lets it through');
  await row.and(page.locator('[data-hit-count="1"]')).waitFor({ timeout: STEP_MS });
  t.match(await row.locator('.rule-state').textContent(), /^1 hit · armed$/, 'the panel shows the hit count, and that it is armed');

  // Edit: a bad expression is refused with its position, nothing changes; a good one is saved.
  await row.locator('button[data-action="edit-rule"]').click();
  const editing = page.locator('.rules li.rule.editing');
  const box = editing.locator('textarea');
  const bad = 'tool:echo and (text ~ "x"';
  await box.fill(bad);
  await editing.locator('select.rule-hits-choice').selectOption('once');
  await editing.locator('button[data-action="save-rule"]').click();
  const error = editing.locator('.rule-error');
  await error.locator('.cond-caret').waitFor({ timeout: STEP_MS });
  await shot(page, 'rule-edit-error');
  const position = Number(await error.getAttribute('data-position'));
  t.ok(position >= 0 && position <= bad.length, `the server’s position is shown (${position})`);
  t.match(await error.textContent(), /bad breakpoints: rules\[0\]\.when/, 'with its error');
  t.equal(((await error.locator('.cond-caret').textContent()) ?? '').indexOf('^'), ((await error.locator('.cond-error-text span').first().textContent()) ?? '').length, 'the caret under the character');
  t.equal(((await get()).rules as RuleState[])[0]?.when, expression, 'nothing changed on the server');
  const fixed = 'tool:echo and $.params.arguments.text ~ "^PAY-3"';
  await box.fill(fixed);
  await editing.locator('button[data-action="save-rule"]').click();
  const [edited] = await rulesWhen((rules) => rules[0]?.when === fixed, 'the edit');
  t.match(edited, { id: ruleId, when: fixed, hits: 'once', gate: 'before' }, 'the edit is saved, the id kept');
  await editing.waitFor({ state: 'detached', timeout: STEP_MS });

  // Disable: kept, but matches nothing.
  await row.locator('input.rule-enabled').uncheck();
  await rulesWhen((rules) => rules[0]?.enabled === false, 'the rule disabled');
  await row.and(page.locator('.disabled')).waitFor({ timeout: STEP_MS });
  await breakpointsApplied(serve);
  t.strictSame(await echo(client, 'PAY-3 third'), { content: [{ type: 'text', text: 'PAY-3 third' }] }, 'a disabled rule holds nothing');

  // A logpoint, added in the panel: nothing held, its line in the timeline.
  const add = page.locator('.rules form.rule-form[aria-label="add a rule"]');
  await add.locator('textarea').fill('tool:echo and $.params.arguments.text ~ "log-me"');
  await add.locator('select.rule-action').selectOption('log');
  await add.locator('button[data-action="add-rule"]').click();
  const rules = await rulesWhen((r) => r.length === 2, 'the logpoint');
  t.match(rules[1], { action: 'log', gate: 'before' }, 'a log rule');
  t.equal(rules[0]?.enabled, false, 'the first rule kept as it was');
  await breakpointsApplied(serve);
  await page.getByRole('searchbox', { name: 'find calls' }).fill('');
  t.strictSame(await echo(client, 'log-me please'), { content: [{ type: 'text', text: 'log-me please' }] }, 'a logpoint holds nothing');
  const line = page.locator(`.timeline .tl-logpoint[data-rule-id="${rules[1]?.id ?? ''}"]`);
  await line.waitFor({ timeout: STEP_MS });
  t.match(await line.textContent(), /logpoint/, 'its line shows in the timeline, as a logpoint');
  await shot(page, 'logpoint-line');
  t.equal((await listHolds(serve)).length, 0, 'nothing held');
  // The refused edit's 400 is the browser's own log line for a failed request, expected here.
  const refused = (problem: string): boolean => problem.includes('status of 400') && problem.includes('/api/breakpoints');
  t.same(realProblems(problems, (text) => t.comment(text)).filter((problem) => !refused(problem)), [], 'no console errors but the refused edit');
});
