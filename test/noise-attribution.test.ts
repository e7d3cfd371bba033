// Whose line it was (issue 30): a real SDK server whose `greet` handler
// writes to stderr and prints noise on stdout, behind the built
// `graphmind mcp-proxy`, under a real `graphmind serve`. A line that comes
// while one call is in flight is put on that call (its node and instance),
// still in the run's log lines in order; with two calls in flight it stays
// on the session; and `graphmind mcp`'s get_call shows a call's lines.
import { rmSync } from 'node:fs';
import t from 'tap';
import type { Instance, LogLine } from '../src/protocol/run-model.js';
import { connectV1, runIds, waitForAsync } from './helpers/gates.js';
import { PROXY_FIXTURES } from './helpers/cli.js';
import { api, freshDataDir, startServe } from './helpers/serve.js';
import { startMcp } from './fixtures/mcp/mcp-session.js';

type Row = Record<string, unknown>;
interface RunBody {
  runId: string;
  status: string;
  instances: Instance[];
  logs: LogLine[];
}

const SERVER = `${PROXY_FIXTURES}greet-noise-server.mjs`;

const { root, dataDir } = freshDataDir();
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const serve = await startServe([], {}, { dataDir });
t.teardown(() => serve.stop());

/** One proxied session: `drive` runs against the client, then the session ends; the run as the debugger has it, once finished. */
async function session(drive: (client: Awaited<ReturnType<typeof connectV1>>['client']) => Promise<void>): Promise<RunBody> {
  const before = new Set(await runIds(serve));
  const proxied = await connectV1(t, serve, { server: [SERVER] });
  await drive(proxied.client);
  await proxied.close();
  let run: RunBody | undefined;
  await waitForAsync(async () => {
    const fresh = (await runIds(serve)).filter((id) => !before.has(id));
    if (fresh.length !== 1) return false;
    run = (await api(serve.port, serve.token, 'GET', `/api/runs/${fresh[0]}`)).json as RunBody;
    return run.status !== 'running';
  }, 15_000, 'the session\'s run to finish');
  return run as RunBody;
}

let answer: unknown;
const greeted = await session(async (client) => {
  answer = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
});
const greet = greeted.instances.find((instance) => instance.nodeId === 'tool:greet') as Instance;

t.test('the host gets greet\'s answer', async (t) => {
  t.same(answer, { content: [{ type: 'text', text: 'hello, Ada' }] });
});

t.test('a stderr line printed by greet is on greet, and still among the run\'s lines', async (t) => {
  t.ok(greet, 'greet was recorded');
  const line = greeted.logs.find((log) => log.text === 'greet: stderr while greeting Ada');
  t.match(line, { nodeId: 'tool:greet', instanceId: greet.instanceId, stream: 'stderr' }, 'on the call in flight');
  const banner = greeted.logs.find((log) => log.text === 'greet-noise server up');
  t.ok(banner, 'the banner is recorded');
  t.equal(banner?.nodeId, 'mcp:session', 'the banner, printed while starting, is the session\'s');
  t.equal(banner?.instanceId, undefined);
});

t.test('stdout noise printed by greet names greet', async (t) => {
  const noise = greeted.instances.find((instance) => instance.nodeId === 'mcp:stdout-noise');
  t.match(noise, { input: 'greet: stdout noise while greeting Ada', error: { name: 'StdoutNoise', data: { during: { nodeId: 'tool:greet', instanceId: greet.instanceId } } } });
});

t.test('graphmind mcp\'s get_call shows the call\'s lines', async (t) => {
  const mcp = await startMcp(t, 'sdk1', { dataDir, port: serve.port });
  const call = (await mcp.data('get_call', { runId: greeted.runId, instanceId: greet.instanceId })).call as Row;
  t.match(call.lines, {
    total: 2,
    lines: [
      { stream: 'stderr', text: 'greet: stderr while greeting Ada' },
      { stream: 'stdout', text: 'greet: stdout noise while greeting Ada' },
    ],
  });
  const text = (await mcp.call('get_call', { runId: greeted.runId, instanceId: greet.instanceId })).content.map((part) => part.text).join('\n');
  t.match(text, /stderr: greet: stderr while greeting Ada/);
  t.match(text, /stdout: greet: stdout noise while greeting Ada/);
});

t.test('with two calls in flight, a line stays on the session', async (t) => {
  const paired = await session(async (client) => {
    const [a, b] = await Promise.all([client.callTool({ name: 'pair', arguments: { name: 'a' } }), client.callTool({ name: 'pair', arguments: { name: 'b' } })]);
    t.same([a, b], [{ content: [{ type: 'text', text: 'paired a' }] }, { content: [{ type: 'text', text: 'paired b' }] }]);
  });
  const line = paired.logs.find((log) => log.text.startsWith('pair: stderr with two calls in flight'));
  t.match(line, { nodeId: 'mcp:session', stream: 'stderr' });
  t.equal(line?.instanceId, undefined, 'on no call');
  const noise = paired.instances.find((instance) => instance.nodeId === 'mcp:stdout-noise');
  t.ok(noise, 'the noise is recorded');
  t.equal(noise?.error?.data, undefined, 'and names no call');
});
