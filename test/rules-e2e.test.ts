// Rules (conditional breakpoints and logpoints) end to end, through real
// parts: a real `graphmind serve`; the stdio `graphmind mcp-proxy` in front
// of the SDK 1.x logging fixture with real SDK 1.x and 2.x clients; the
// `graphmind http-proxy` in front of the SDK 1.x and 2.x Streamable HTTP
// fixtures with real clients of the same generation; the in-process adapter
// wrapping an McpServer of each SDK. For each, with pause-on-error off:
// a rule on an argument value holds only the matching call (reason "rule",
// its id on the hold and the HOLDING line); `once` holds once and GET shows
// it disarmed; a logpoint holds nothing and logs (stream "logpoint", the
// rule id, the call and the values); `after` with `dur>` and `is:error`
// on one tool holds that tool's failing answer only.
import t, { type Test } from 'tap';
import * as z from 'zod';
import type { Hold, RuleState } from '../src/protocol/control.js';
import type { Run } from '../src/protocol/run-model.js';
import { connect, startFixture, startHttpProxy } from './fixtures/http/harness.js';
import { KITS, adapter, connectInMemory, later, text, type Loose } from './helpers/adapter.js';
import { connectV1, connectV2, decide, listHolds, setBreakpoints, startDebugger, waitFor, waitForAsync, type ServeProcess } from './helpers/gates.js';
import { api } from './helpers/serve.js';

/** One way of reaching a server whose `echo` echoes and whose `fail` answers isError. */
interface Target {
  /** Prefix for this target's rule ids (one debugger serves every target). */
  tag: string;
  /** Call a tool; resolves with its result. */
  call(name: string, args: Record<string, unknown>): Promise<Loose>;
  /** The text an echo of `value` answers with. */
  echoed(value: string): string;
  /** Where the HOLDING line is written, if this target writes one. */
  stderr?: () => string;
}

/** The rules in force, as GET returns them. */
async function rules(serve: ServeProcess): Promise<RuleState[]> {
  return ((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json as { rules?: RuleState[] }).rules ?? [];
}

/** Wait for exactly one hold; returns it. */
async function oneHold(serve: ServeProcess): Promise<Hold> {
  let holds: Hold[] = [];
  await waitForAsync(async () => (holds = await listHolds(serve)).length === 1, 10_000, 'one hold');
  return holds[0] as Hold;
}

/** The logpoint lines of `ruleId` in every run the debugger has. */
async function logpointLines(serve: ServeProcess, ruleId: string): Promise<Run['logs']> {
  const runs = (await api(serve.port, serve.token, 'GET', '/api/runs')).json as Array<{ runId: string }>;
  const lines: Run['logs'] = [];
  for (const { runId } of runs) {
    const run = (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`)).json as Run;
    lines.push(...run.logs.filter((log) => log.stream === 'logpoint' && log.ruleId === ruleId));
  }
  return lines;
}

const firstText = (result: Loose): string => (result?.content?.[0]?.text as string | undefined) ?? '';

async function scenario(t: Test, serve: ServeProcess, target: Target): Promise<void> {
  const { tag } = target;

  await t.test('a rule on an argument value holds only the matching call', async (t) => {
    const id = `${tag}-pay`;
    await setBreakpoints(serve, { pauseOnError: false, nodes: {}, rules: [{ id, when: 'tool:echo and $.params.arguments.text ~ "PAY-"' }] });
    t.equal(firstText(await target.call('echo', { text: 'hello' })), target.echoed('hello'), 'a call that does not match goes on');
    t.same(await listHolds(serve), [], 'nothing held');
    const held = later(target.call('echo', { text: 'order PAY-123' }));
    const hold = await oneHold(serve);
    t.match(hold, { gate: 'before', nodeId: 'tool:echo', reason: 'rule', ruleId: id }, 'the matching call holds, with the rule on the hold');
    const stderr = target.stderr;
    if (stderr !== undefined) {
      // The line is written as the hold opens; the proxy's stderr may reach us a moment after the hold's report.
      const line = new RegExp(`HOLDING tools/call #\\S+ at the before gate — resume it in http://127\\.0\\.0\\.1:\\d+ \\(rule ${id}\\)`);
      await waitFor(() => line.test(stderr()), 10_000, 'the HOLDING line');
      t.pass('the rule is on its HOLDING line');
    }
    await decide(serve, hold.holdId, 'continue');
    t.equal(firstText(await held), target.echoed('order PAY-123'), 'continued, it answers');
    await waitForAsync(async () => (await rules(serve))[0]?.hitCount === 1, 10_000, 'the hit counted');
    t.match((await rules(serve))[0], { id, hitCount: 1, armed: true, gate: 'before', action: 'pause', hits: 'every', enabled: true }, 'GET: one hit, still armed, defaults filled in');
  });

  await t.test('once holds once', async (t) => {
    const id = `${tag}-once`;
    await setBreakpoints(serve, { pauseOnError: false, nodes: {}, rules: [{ id, when: 'tool:echo', hits: 'once' }] });
    const first = later(target.call('echo', { text: 'first' }));
    const hold = await oneHold(serve);
    t.match(hold, { reason: 'rule', ruleId: id }, 'the first call holds');
    await decide(serve, hold.holdId, 'continue');
    await first;
    t.equal(firstText(await target.call('echo', { text: 'second' })), target.echoed('second'), 'the second goes on');
    t.same(await listHolds(serve), [], 'nothing held');
    await waitForAsync(async () => (await rules(serve))[0]?.armed === false, 10_000, 'the rule disarmed');
    t.match((await rules(serve))[0], { id, hitCount: 1, armed: false }, 'GET: one hit, disarmed');
  });

  await t.test('a logpoint holds nothing and logs', async (t) => {
    const id = `${tag}-log`;
    await setBreakpoints(serve, { pauseOnError: false, nodes: {}, rules: [{ id, when: 'tool:echo and $.params.arguments.text ~ "log-me"', action: 'log' }] });
    t.equal(firstText(await target.call('echo', { text: 'log-me please' })), target.echoed('log-me please'), 'the matching call goes on');
    t.equal(firstText(await target.call('echo', { text: 'not me' })), target.echoed('not me'), 'and another');
    t.same(await listHolds(serve), [], 'nothing held');
    let lines: Run['logs'] = [];
    await waitForAsync(async () => (lines = await logpointLines(serve, id)).length === 1, 10_000, 'the logpoint line');
    t.match(lines[0], { stream: 'logpoint', ruleId: id, nodeId: 'tool:echo' }, 'one line on the call, with the rule');
    t.same(
      lines[0]?.values?.find((value) => value.at === '$.params.arguments.text'),
      { at: '$.params.arguments.text', value: 'log-me please' },
      'and the values the expression looked at',
    );
    t.type(lines[0]?.instanceId, 'string', 'naming the call');
    t.match(lines[0]?.text, new RegExp(`^${id} · tools/call tool:echo · .*\\$\\.params\\.arguments\\.text = "log-me please"`), 'and saying it in one line');
    await waitForAsync(async () => (await rules(serve))[0]?.hitCount === 1, 10_000, 'the hit counted');
  });

  await t.test('after, with dur> and is:error on one tool, pause-on-error off', async (t) => {
    await setBreakpoints(serve, {
      pauseOnError: false,
      nodes: {},
      rules: [
        { id: `${tag}-slow`, when: 'tool:fail and dur>60000ms', gate: 'after' },
        { id: `${tag}-err`, when: 'tool:fail and is:error and dur>=0ms', gate: 'after' },
      ],
    });
    t.equal(firstText(await target.call('echo', { text: 'fine' })), target.echoed('fine'), 'an answer that is no error goes on');
    const failing = later(target.call('fail', {}));
    const hold = await oneHold(serve);
    t.match(hold, { gate: 'after', nodeId: 'tool:fail', reason: 'rule', ruleId: `${tag}-err` }, 'the failing answer holds at the after gate, by the is:error rule (not the dur> one)');
    await decide(serve, hold.holdId, 'continue');
    t.equal((await failing).isError, true, 'continued, the failure reaches the client');
    t.match(await rules(serve), [{ id: `${tag}-slow`, hitCount: 0 }, { id: `${tag}-err` }], 'the dur> rule never matched');
  });
}

t.test('the stdio proxy', async (t) => {
  const serve = await startDebugger(t);
  for (const sdk of ['1', '2'] as const) {
    await t.test(`SDK ${sdk}.x client`, async (t) => {
      const session = sdk === '1' ? await connectV1(t, serve) : await connectV2(t, serve);
      const client = session.client as Loose;
      await scenario(t, serve, { tag: `stdio${sdk}`, call: (name, args) => client.callTool({ name, arguments: args }), echoed: (value) => value, stderr: () => session.stderr.text() });
      await session.close();
    });
  }
});

t.test('the HTTP proxy', async (t) => {
  const serve = await startDebugger(t);
  for (const sdk of ['1', '2'] as const) {
    await t.test(`SDK ${sdk}.x client and server`, async (t) => {
      const fixture = await startFixture(t, { sdk, mode: 'stateful', response: 'json' });
      const proxy = await startHttpProxy(t, fixture.url, { serve });
      const { client } = await connect(t, proxy.url, sdk);
      await scenario(t, serve, { tag: `http${sdk}`, call: (name, args) => client.callTool({ name, arguments: args }), echoed: (value) => `echo ${value}`, stderr: () => proxy.stderr() });
    });
  }
});

t.test('the adapter', async (t) => {
  const serve = await startDebugger(t);
  for (const k of KITS) {
    await t.test(`SDK ${k.label}`, async (t) => {
      const gm = await adapter(t, serve);
      const server: Loose = gm.wrapServer(k.mcpServer('adapted'));
      server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(value));
      server.registerTool('fail', { description: 'Fail', inputSchema: k.schema({}) }, async () => ({ isError: true, content: [{ type: 'text', text: 'it failed' }] }));
      const client = await connectInMemory(t, k, server);
      await scenario(t, serve, { tag: `adapter${k.label}`, call: (name, args) => client.callTool({ name, arguments: args }), echoed: (value) => value });
    });
  }
});

t.test('PUT /api/breakpoints refuses bad rules with a 400 that says which and where, and changes nothing', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: true, nodes: {}, rules: [{ id: 'kept', when: 'tool:echo' }] });
  const before = (await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json;
  const put = (rules: unknown): Promise<{ status: number; json: unknown }> => api(serve.port, serve.token, 'PUT', '/api/breakpoints', { pauseOnError: false, nodes: {}, rules });
  const bad: Array<[string, unknown, Record<string, unknown>]> = [
    ['a bad expression', [{ when: 'tool:echo' }, { when: 'tool:echo and $.params.q ~' }], { error: /^bad breakpoints: rules\[1\]\.when: .*\(position 26\)$/, rule: 1, position: 26 }],
    ['an empty expression', [{ when: '' }], { rule: 0, position: 0 }],
    ['an expression nested 1,000 deep', [{ when: `${'('.repeat(1000)}tool:a${')'.repeat(1000)}` }], { rule: 0 }],
    ['an unknown gate', [{ when: 'tool:a', gate: 'sideways' }], { error: /gate must be before, after or both/, rule: 0 }],
    ['an unknown action', [{ when: 'tool:a', action: 'explode' }], { error: /action must be pause or log/, rule: 0 }],
    ['hits -1', [{ when: 'tool:a', hits: -1 }], { error: /hits must be every, once or a positive integer/, rule: 0 }],
    ['10,000 rules', Array.from({ length: 10_000 }, () => ({ when: 'tool:a' })), { error: /at most 1000 rules/ }],
  ];
  for (const [name, rules, expected] of bad) {
    const answer = await put(rules);
    t.equal(answer.status, 400, `${name}: 400`);
    t.match(answer.json, expected, `${name}: says what, which rule and where`);
  }
  t.same((await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json, before, 'nothing changed');
});
