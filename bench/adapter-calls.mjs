// One configuration of the adapter bench, in a process of its own: an SDK
// McpServer with one tool, called over the SDK's in-memory transport by the
// SDK's own client, one call at a time, and the mean time per call.
//
//   node bench/adapter-calls.mjs <sdk: 1|2> <mode: plain|detached|attached> <calls> <warmup ms>
//
// plain: the server as written. detached: wrapped, no debugger (the adapter
// records into its bounded buffer, nothing holds). attached: wrapped and
// reporting every call to the graphmind serve named by GRAPHMIND_URL (no
// breakpoints set). Prints one JSON line: { perCallUs, cpuPerCallUs, calls }.
import { graphmind } from 'graphmind-ai/adapter';
import { z } from 'zod';

const [sdk, mode, callsText, warmupText] = process.argv.slice(2);
const calls = Number(callsText);
const warmupMs = Number(warmupText);

async function pair() {
  if (sdk === '1') {
    const [{ McpServer }, { Client }, { InMemoryTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/inMemory.js'),
    ]);
    return { server: new McpServer({ name: 'bench', version: '1.0.0' }), client: new Client({ name: 'bench', version: '1.0.0' }), link: () => InMemoryTransport.createLinkedPair() };
  }
  const [{ McpServer, InMemoryTransport }, { Client }] = await Promise.all([import('@modelcontextprotocol/server'), import('@modelcontextprotocol/client')]);
  return { server: new McpServer({ name: 'bench', version: '1.0.0' }), client: new Client({ name: 'bench', version: '1.0.0' }), link: () => InMemoryTransport.createLinkedPair() };
}

const { server: raw, client, link } = await pair();
const gm = mode === 'plain' ? undefined : graphmind({ app: 'bench', waitForAttach: mode === 'attached' });
const server = gm === undefined ? raw : gm.wrapServer(raw);
server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
const [serverSide, clientSide] = link();
await server.connect(serverSide);
await client.connect(clientSide);
if (mode === "attached" && !gm.session.attached) throw new Error("attached mode: no debugger attached");
if (mode === "disposed") await gm.dispose();

let i = 0;
const call = () => client.callTool({ name: 'echo', arguments: { text: `call ${i++}` } });
const warmUntil = Date.now() + warmupMs;
while (Date.now() < warmUntil) await call();
const started = process.hrtime.bigint();
const cpuBefore = process.cpuUsage();
for (let n = 0; n < calls; n++) await call();
const cpu = process.cpuUsage(cpuBefore);
const perCallUs = Number(process.hrtime.bigint() - started) / 1000 / calls;
// This process's CPU (user + system) per call: what the adapter costs the server, whatever else the machine runs.
const cpuPerCallUs = (cpu.user + cpu.system) / calls;
await client.close();
await gm?.dispose();
process.stdout.write(`${JSON.stringify({ perCallUs, cpuPerCallUs, calls })}\n`);
