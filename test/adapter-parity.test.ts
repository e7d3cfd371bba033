// Parity: the same holds decided the same way through graphmind mcp-proxy
// (the frame on the wire) and through graphmind-ai/adapter (the handler in
// process) give the client the same answer. Both carry out the one shared
// decision table (gates/outcome.ts) and lift with the one lifter
// (gates/lift.ts); this runs one table of cases through both, with real SDK
// clients and a real graphmind serve.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import t from 'tap';
import type { Hold, HoldAction } from '../src/protocol/control.js';
import { CLI } from './helpers/cli.js';
import { holdGone, waitForGivenUp } from './helpers/adapter.js';
import { breakpointsApplied, decide, getRun, listHolds, setBreakpoints, sleep, startDebugger, waitForAsync, waitForHold, type ServeProcess, type Teardown } from './helpers/gates.js';

const SERVER = fileURLToPath(new URL('./fixtures/parity/parity-server.mjs', import.meta.url));

type Method = 'tools/call' | 'resources/read' | 'prompts/get';

interface Case {
  name: string;
  method: Method;
  gate: 'before' | 'after';
  action: HoldAction;
  /** The injected value; a function makes it from the held frame (a whole frame carries the request's id). */
  value?: unknown | ((hold: Hold) => unknown);
}

const idOf = (hold: Hold): unknown => (hold.frame as { id?: unknown }).id;

/** The table: injects of every shape the lifter knows, whole frames, and aborts, before and after. */
const CASES: Case[] = [
  { name: 'a string', method: 'tools/call', gate: 'before', action: 'inject', value: 'a string' },
  { name: 'an object', method: 'tools/call', gate: 'before', action: 'inject', value: { price: 42 } },
  { name: 'a number', method: 'tools/call', gate: 'before', action: 'inject', value: 7 },
  { name: 'null', method: 'tools/call', gate: 'before', action: 'inject', value: null },
  { name: 'a shaped result', method: 'tools/call', gate: 'before', action: 'inject', value: { content: [{ type: 'text', text: 'shaped' }], isError: true } },
  { name: 'a whole frame with a result', method: 'tools/call', gate: 'before', action: 'inject', value: (hold: Hold) => ({ jsonrpc: '2.0', id: idOf(hold), result: { content: [{ type: 'text', text: 'whole' }] } }) },
  { name: 'a whole frame with an error', method: 'tools/call', gate: 'before', action: 'inject', value: (hold: Hold) => ({ jsonrpc: '2.0', id: idOf(hold), error: { code: -32000, message: 'typed by hand' } }) },
  { name: 'abort before', method: 'tools/call', gate: 'before', action: 'abort' },
  { name: 'continue before', method: 'tools/call', gate: 'before', action: 'continue' },
  { name: 'an object after', method: 'tools/call', gate: 'after', action: 'inject', value: { rewritten: true } },
  { name: 'abort after', method: 'tools/call', gate: 'after', action: 'abort' },
  { name: 'retry after', method: 'tools/call', gate: 'after', action: 'retry' },
  { name: 'a read as a string', method: 'resources/read', gate: 'before', action: 'inject', value: 'read text' },
  { name: 'a read as an object', method: 'resources/read', gate: 'before', action: 'inject', value: { a: 1 } },
  { name: 'a read, aborted', method: 'resources/read', gate: 'before', action: 'abort' },
  { name: 'a prompt as a string', method: 'prompts/get', gate: 'before', action: 'inject', value: 'prompt text' },
  { name: 'a prompt after', method: 'prompts/get', gate: 'after', action: 'inject', value: { messages: [{ role: 'assistant', content: { type: 'text', text: 'as typed' } }] } },
];

/** The node each integration names for a method: the proxy names a resource by its URI, the adapter by its registration. */
const NODES: Record<'proxy' | 'adapter', Record<Method, string>> = {
  proxy: { 'tools/call': 'tool:echo', 'resources/read': 'resource:note://one', 'prompts/get': 'prompt:hello' },
  adapter: { 'tools/call': 'tool:echo', 'resources/read': 'resource:note', 'prompts/get': 'prompt:hello' },
};

async function connect(t: Teardown, serve: ServeProcess, how: 'proxy' | 'adapter'): Promise<Client> {
  const env = { ...(process.env as Record<string, string>), GRAPHMIND_URL: `ws://127.0.0.1:${serve.port}/ingest`, GRAPHMIND_DATA_DIR: serve.dataDir };
  const transport =
    how === 'proxy'
      ? new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp-proxy', '--port', String(serve.port), '--', process.execPath, SERVER], env, stderr: 'pipe' })
      : new StdioClientTransport({ command: process.execPath, args: [SERVER, '--wrap'], env, stderr: 'pipe' });
  const client = new Client({ name: `parity-${how}`, version: '1.0.0' });
  t.teardown(() => client.close());
  await client.connect(transport);
  return client;
}

/** The calls of case `n` take turns between two arguments: the same call three times in a row would be held as a loop (by both, alike). */
function send(client: Client, method: Method, n: number): Promise<unknown> {
  if (method === 'tools/call') return client.callTool({ name: 'echo', arguments: { text: `from the server ${n % 2}` } });
  if (method === 'resources/read') return client.readResource({ uri: 'note://one' });
  return client.getPrompt({ name: 'hello' });
}

/** What the client received: the result, or the error's code and message. */
async function outcome(pending: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await pending };
  } catch (error) {
    const { code, message } = error as { code?: number; message?: string };
    return { error: { code, message } };
  }
}

t.test('inject and abort give the client the same answer through the proxy and through the adapter', async (t) => {
  const serve = await startDebugger(t);
  const clients = { proxy: await connect(t, serve, 'proxy'), adapter: await connect(t, serve, 'adapter') };
  for (const [n, c] of CASES.entries()) {
    const received: Record<string, unknown> = {};
    for (const how of ['proxy', 'adapter'] as const) {
      const nodeId = NODES[how][c.method];
      await setBreakpoints(serve, { pauseOnError: false, nodes: { [nodeId]: { [c.gate]: true } } });
      await breakpointsApplied(serve, 2); // the proxy and the adapter have applied them (the PUT waits for those attached; this, for one that attaches later)
      const pending = outcome(send(clients[how], c.method, n));
      const hold = await waitForHold(serve, { nodeId, gate: c.gate });
      const value = typeof c.value === 'function' ? (c.value as (hold: Hold) => unknown)(hold) : c.value;
      await decide(serve, hold.holdId, c.action, value);
      if (c.action === 'retry') {
        // The call runs again and holds again at the same gate: let it go this time.
        let again = await waitForHold(serve, { nodeId, gate: c.gate });
        // The first hold stays listed until its release reaches the debugger.
        while (again.holdId === hold.holdId) {
          await sleep(20);
          again = await waitForHold(serve, { nodeId, gate: c.gate });
        }
        await decide(serve, again.holdId, 'continue');
      }
      received[how] = await pending;
    }
    t.strictSame(received.adapter, received.proxy, `${c.method} ${c.gate}, ${c.action} ${c.name}: ${JSON.stringify(received.proxy)}`);
  }
});

t.test('the loop hold: the third identical call holds before it runs, in both', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: false, nodes: {} });
  const clients = { proxy: await connect(t, serve, 'proxy'), adapter: await connect(t, serve, 'adapter') };
  await breakpointsApplied(serve, 2);
  const received: Record<string, unknown> = {};
  for (const how of ['proxy', 'adapter'] as const) {
    const call = (): Promise<unknown> => outcome(clients[how].callTool({ name: 'echo', arguments: { text: 'again and again' } }));
    t.match(await call(), { result: { content: [{ text: 'again and again' }] } }, `${how}: the first call runs`);
    t.match(await call(), { result: { content: [{ text: 'again and again' }] } }, `${how}: so does the second`);
    const third = call();
    const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before', reason: 'loop' });
    await decide(serve, hold.holdId, 'inject', 'stop polling');
    received[how] = await third;
  }
  t.strictSame(received.adapter, received.proxy, `the same answer: ${JSON.stringify(received.proxy)}`);
});

/**
 * Call echo until a call holds at the after gate: one that ends unheld came
 * before the breakpoints reached the proxy or the adapter (waited for by
 * the hold itself, not by a sleep). Returns the held call and its hold.
 */
async function heldCall(serve: ServeProcess, client: Client, how: string): Promise<{ controller: AbortController; pending: Promise<unknown>; hold: Hold }> {
  for (let n = 0; ; n++) {
    const controller = new AbortController();
    let ended = false;
    // A different text each time: the same call three times in a row would be held as a loop.
    const pending = outcome(client.callTool({ name: 'echo', arguments: { text: `cancelled through the ${how}, ${n}` } }, undefined, { signal: controller.signal })).finally(() => {
      ended = true;
    });
    let hold: Hold | undefined;
    await waitForAsync(async () => {
      hold = (await listHolds(serve)).find((h) => h.nodeId === 'tool:echo' && h.gate === 'after');
      return hold !== undefined || ended;
    }, 10_000, `a call through the ${how} to hold`);
    if (hold !== undefined) return { controller, pending, hold };
  }
}

t.test('a client that cancels a held call: the hold stays open, is reported given up the same way, and can still be decided, in both', async (t) => {
  const serve = await startDebugger(t);
  const clients = { proxy: await connect(t, serve, 'proxy'), adapter: await connect(t, serve, 'adapter') };
  // At the after gate: a held request stops the proxy's client-to-server direction, cancellation included.
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { after: true } } });
  const recorded: Record<string, unknown> = {};
  for (const how of ['proxy', 'adapter'] as const) {
    const { controller, pending, hold } = await heldCall(serve, clients[how], how);
    controller.abort('the user gave up');
    const client = await pending;
    const given = await waitForGivenUp(serve, hold.holdId);
    // Still decidable: the decision is taken, and the hold goes.
    await decide(serve, hold.holdId, 'continue');
    const gone = await holdGone(serve, hold.holdId);
    let status: string | undefined;
    await waitForAsync(async () => {
      status = (await getRun(serve, hold.runId)).instances.find((instance) => instance.instanceId === hold.instanceId)?.status;
      return status !== undefined && status !== 'open';
    }, 10_000, `the ${how}'s held call to end`);
    recorded[how] = { client, givenUp: given.givenUp, gate: given.gate, gone, status };
  }
  t.match(recorded.proxy, { givenUp: 'the client cancelled the request (notifications/cancelled: the user gave up)', gone: true, status: 'ok' }, 'the proxy: given up, decided, the call ends as answered');
  t.strictSame(recorded.adapter, recorded.proxy, `the same in both: ${JSON.stringify(recorded.proxy)}`);
});
