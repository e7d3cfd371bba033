// The custom relay in docs/streams.md ("A relay the debugger gates") is
// example/debug-relay.mjs, word for word, and it works: run against a real
// `graphmind serve`, a breakpoint holds a client's tools/call and an
// injected value reaches the client, lifted, through the relay's Lifter.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { PROXY_FIXTURES } from './helpers/cli.js';
import { decide, setBreakpoints, startDebugger, waitForHold } from './helpers/gates.js';
import { freePort } from './helpers/graph.js';

const EXAMPLE = fileURLToPath(new URL('../example/debug-relay.mjs', import.meta.url));

t.test('docs/streams.md shows the example as it is', async (t) => {
  const doc = readFileSync(new URL('../docs/streams.md', import.meta.url), 'utf8');
  const block = /## A relay the debugger gates[\s\S]*?```js\n([\s\S]*?)```/.exec(doc);
  t.ok(block, 'the section and its code block');
  t.equal(block?.[1], readFileSync(EXAMPLE, 'utf8'), 'the block is example/debug-relay.mjs');
});

t.test('the example relay holds at a breakpoint and injects', async (t) => {
  const serve = await startDebugger(t);
  await setBreakpoints(serve, { pauseOnError: true, nodes: { 'tool:echo': { before: true } } });
  const port = await freePort();
  const relay = spawn(process.execPath, [EXAMPLE, String(port), process.execPath, `${PROXY_FIXTURES}echo-server.mjs`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GRAPHMIND_URL: `ws://127.0.0.1:${serve.port}/ingest`, GRAPHMIND_DATA_DIR: serve.dataDir },
  });
  t.teardown(() => relay.kill('SIGKILL'));
  let stderr = '';
  relay.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  while (!stderr.includes('relaying MCP')) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(relay.stdout.read(), null, 'nothing on its stdout');

  const socket = connect({ port, host: '127.0.0.1' });
  t.teardown(() => socket.destroy());
  let received = '';
  socket.setEncoding('utf8').on('data', (text: string) => (received += text));
  const answer = async (id: number): Promise<Record<string, unknown>> => {
    for (;;) {
      const line = received.split('\n').find((l) => l.includes(`"id":${id}`));
      if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  socket.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n');
  await answer(1);
  socket.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"held"}}}\n');
  const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  t.equal(hold.method, 'tools/call');
  t.equal(received.includes('"id":2'), false, 'held: no answer yet');
  await decide(serve, hold.holdId, 'inject', { price: 42 });
  t.strictSame(await answer(2), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '{"price":42}' }], structuredContent: { price: 42 } } }, 'the lifted value, with the request id');
});
