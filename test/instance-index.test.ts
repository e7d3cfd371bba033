// The replay's instances by id: the proxy's mcp_<n> in array slots, every other id in a Map, one place per id.
import t from 'tap';
import { InstanceIndex } from '../src/protocol/instance-index.js';

t.test('every id finds what was set for it, and only that', async (t) => {
  const index = new InstanceIndex<string>();
  const ids = ['mcp_1', 'mcp_2', 'mcp_0', 'mcp_10', 'mcp_01', 'mcp_', 'mcp_1x', 'MCP_3', 'inst-7', '', 'mcp_99999999999', 'mcp_5000', 'mcp_3'];
  for (const id of ids) t.notOk(index.has(id), `${JSON.stringify(id)} is not there before it is set`);
  for (const id of ids) index.set(id, `value of ${id}`);
  for (const id of ids) t.equal(index.get(id), `value of ${id}`, `${JSON.stringify(id)} finds its own value`);
  t.notOk(index.has('mcp_4'), 'a number in a gap has nothing');
  t.notOk(index.has('mcp_001'), 'nor another spelling of a number that has a value');
  t.equal(index.get('mcp_1'), 'value of mcp_1', 'mcp_1 and mcp_01 are two ids');
});

t.test('a far number goes to the Map, and stays found when the slots grow past it', async (t) => {
  const index = new InstanceIndex<number>();
  index.set('mcp_3000', 3000);
  for (let n = 0; n < 5000; n++) if (n !== 3000) index.set(`mcp_${n}`, n);
  for (const n of [0, 1, 2999, 3000, 3001, 4999]) t.equal(index.get(`mcp_${n}`), n, `mcp_${n}`);
  index.set('mcp_3000', -1);
  t.equal(index.get('mcp_3000'), -1, 'setting it again replaces its one value');
});

t.test('setting an id again replaces its value', async (t) => {
  const index = new InstanceIndex<string>();
  index.set('mcp_7', 'first');
  index.set('mcp_7', 'second');
  index.set('other', 'first');
  index.set('other', 'second');
  t.equal(index.get('mcp_7'), 'second');
  t.equal(index.get('other'), 'second');
});
