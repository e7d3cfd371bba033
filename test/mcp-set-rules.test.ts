// `graphmind mcp`'s set_breakpoints with rules, against a live `graphmind
// serve`: rules set (ids given, defaults filled in, shown in the text), a
// node change that keeps them, a bad expression refused with the rule's
// index and position (nothing changed), and [] removing them.
import { rmSync } from 'node:fs';
import t from 'tap';
import { api, freshDataDir, startServe } from './helpers/serve.js';
import { startMcp } from './fixtures/mcp/mcp-session.js';

const { root, dataDir } = freshDataDir();
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const serve = await startServe([], {}, { dataDir });
t.teardown(() => serve.stop());

const get = async (): Promise<unknown> => (await api(serve.port, serve.token, 'GET', '/api/breakpoints')).json;

t.test('set_breakpoints takes rules (SDK 2.x client, --allow-control)', async (t) => {
  const mcp = await startMcp(t, 'sdk2', { dataDir, port: serve.port, allowControl: true });
  const set = await mcp.call('set_breakpoints', { rules: [{ when: 'tool:search and $.params.arguments.q ~ "PAY-"', hits: 'once' }, { id: 'errors', when: 'is:error', gate: 'after', action: 'log' }] });
  const rules = [
    { id: 'rule-1', when: 'tool:search and $.params.arguments.q ~ "PAY-"', gate: 'before', action: 'pause', hits: 'once', enabled: true, hitCount: 0, armed: true },
    { id: 'errors', when: 'is:error', gate: 'after', action: 'log', hits: 'every', enabled: true, hitCount: 0, armed: true },
  ];
  t.same(set.structuredContent, { breakpoints: { pauseOnError: true, nodes: {}, rules } }, 'the rules in force, with ids, defaults and counts');
  t.match(set.content[0]?.text, /rules: rule-1 \(pause before, once; 0 hits\): tool:search .*; errors \(log after, every; 0 hits\): is:error/, 'listed in the text');
  t.same(await mcp.data('set_breakpoints', { nodes: { 'tool:fail': { after: true } } }), { breakpoints: { pauseOnError: true, nodes: { 'tool:fail': { after: true } }, rules } }, 'a node change keeps the rules');
  const refused = await mcp.refusal('set_breakpoints', { rules: [{ when: 'tool:a' }, { when: 'tool:search and (' }] });
  t.match(refused, { code: 'bad-argument', text: /rules\[1\]\.when: .*\(position \d+\)/ }, 'a bad expression: which rule, and where');
  t.match(await mcp.refusal('set_breakpoints', { rules: [{ when: 'tool:a', gate: 'middle' }] }), { code: 'bad-argument', text: /gate must be before, after or both/ });
  t.match(await mcp.refusal('set_breakpoints', { rules: 'tool:a' }), { code: 'bad-argument', text: /must be an array of rules/ });
  t.same(await get(), { pauseOnError: true, nodes: { 'tool:fail': { after: true } }, rules }, 'nothing changed');
  t.same(await mcp.data('set_breakpoints', { rules: [] }), { breakpoints: { pauseOnError: true, nodes: { 'tool:fail': { after: true } } } }, '[] removes them');
});
