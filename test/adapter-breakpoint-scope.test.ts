// Scoped breakpoints in the in-process adapter, end to end: a real
// `graphmind serve`, a wrapped McpServer of each SDK (named "adapted") and
// a real client over the in-memory transport. A breakpoint scoped to
// another server's name leaves its calls alone; one scoped to "adapted"
// holds them, and with no viewer on the live feed the adapter says so on
// stderr at once; with a live feed client it does not.
import t from 'tap';
import * as z from 'zod';
import { KITS, adapter, connectInMemory, decide, later, listHolds, setBreakpoints, startDebugger, text, waitForHold, type Loose } from './helpers/adapter.js';
import { liveClient } from './helpers/serve.js';

/** Lines written to this process's stderr while `fn` runs (the adapter warns there). */
async function stderrDuring<T>(fn: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.startsWith('graphmind adapter: ')) {
      lines.push(text.trimEnd());
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    return { value: await fn(), lines };
  } finally {
    process.stderr.write = write;
  }
}

for (const k of KITS) {
  t.test(`SDK ${k.label}: a breakpoint holds the adapter's calls only on its server`, async (t) => {
    // A debugger of its own: nobody on its live feed to begin with.
    const serve = await startDebugger(t);
    const gm = await adapter(t, serve);
    const server: Loose = gm.wrapServer(k.mcpServer('adapted'));
    server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => text(`echo ${value}`));
    const client = await connectInMemory(t, k, server);

    await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true, server: 'someone-else' } } });
    t.same(await client.callTool({ name: 'echo', arguments: { text: 'free' } }), text('echo free'), "another server's breakpoint: the call goes on");
    t.same(await listHolds(serve), [], 'nothing held');

    await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true, server: 'adapted' } } });
    const unwatched = await stderrDuring(async () => {
      const call = later(client.callTool({ name: 'echo', arguments: { text: 'held' } }));
      const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
      await decide(serve, hold.holdId, 'continue');
      return call;
    });
    t.same(unwatched.value, text('echo held'), 'its own breakpoint holds the call; continued, it answers');
    t.equal(unwatched.lines.length, 1, 'one line for the hold');
    t.match(unwatched.lines[0], /^graphmind adapter: tools\/call.*is held at the before gate and no viewer is open: open http:\/\/127\.0\.0\.1:\d+ to decide it/, 'saying nobody watches');

    const viewer = await liveClient(serve.port, serve.token);
    t.teardown(() => viewer.ws.terminate());
    // The viewers message reaches the adapter before this PUT's breakpoints, which it acks.
    await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true } } });
    const watched = await stderrDuring(async () => {
      const call = later(client.callTool({ name: 'echo', arguments: { text: 'watched' } }));
      const hold = await waitForHold(serve, { nodeId: 'tool:echo' });
      await decide(serve, hold.holdId, 'continue');
      return call;
    });
    t.same(watched.value, text('echo watched'), 'a breakpoint for every server holds it too');
    t.same(watched.lines, [], 'with a viewer on the feed, nothing is said at once');
  });
}
