// A run's group (the adapter connection it belongs to) names the reporter
// process from the run id. The server reads it without the pattern's match
// when a run follows one of the same connection: the answer must be the
// pattern's, whatever the id.
import t from 'tap';
import { runGroup } from '../src/protocol/run-state.js';

/** The bundled reporter's run ids, as protocol/run-state.ts documents them. */
const REPORTER_RUN_ID = /^run_[0-9a-z]+_([A-Za-z0-9_-]{16})[0-9a-z]+$/;
const META = { server: 'bench', connection: 'c1' };
const ORIGIN = 'Fw4YmDF7ikrr_-q1';

const IDS: Array<[string, string]> = [
  ['the same process', `run_mx4h9oal_${ORIGIN}2`],
  ['a longer count', `run_mx4h9oam_${ORIGIN}zz9`],
  ['another process', 'run_mx4h9oal_Aw4YmDF7ikrr_-q12'],
  ['no count', `run_mx4h9oal_${ORIGIN}`],
  ['an upper-case count', `run_mx4h9oal_${ORIGIN}A`],
  ['an upper-case time', `run_MX4h9oal_${ORIGIN}2`],
  ['no time', `run__${ORIGIN}2`],
  ['a `_` in the count', `run_mx4h9oal_${ORIGIN}2_`],
  ['not a run id of the reporter', 'custom-1'],
  ['the origin one further on', `run_mx4h9oal_x${ORIGIN}2`],
  ['the same process again', `run_mx4h9oan_${ORIGIN}3`],
];

t.test("a run's group names its reporter process as the run id pattern does", async (t) => {
  for (const first of [`run_mx4h9oal_${ORIGIN}1`, 'custom-0']) {
    for (const [what, id] of IDS) {
      runGroup(first, 'mcp-adapter', META);
      const expected = JSON.stringify(['bench', 'c1', REPORTER_RUN_ID.exec(id)?.[1] ?? '']);
      t.equal(runGroup(id, 'mcp-adapter', META)?.id, expected, `${what}, after ${first}`);
    }
  }
  const a = runGroup(`run_mx4h9oal_${ORIGIN}1`, 'mcp-adapter', META);
  t.equal(runGroup(`run_mx4h9oal_${ORIGIN}2`, 'mcp-adapter', META), a, 'runs of one connection share the group object');
});
