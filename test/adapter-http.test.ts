// The adapter wraps the server, not the transport: a wrapped McpServer
// served over Streamable HTTP on a real node:http listener (1.x: the SDK's
// StreamableHTTPServerTransport; 2.x: its web-standard transport, bridged
// to node:http here since the Node wrapper is a separate package), driven by
// a real Streamable HTTP client of the same generation; a breakpoint holds
// a call, the control API injects, and the run records the HTTP session.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpClientV2 } from '@modelcontextprotocol/client';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpClientV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport as HttpServerV1 } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Client as Client126 } from 'sdk-1-26/client/index.js';
import { StreamableHTTPClientTransport as HttpClient126 } from 'sdk-1-26/client/streamableHttp.js';
import { StreamableHTTPServerTransport as HttpServer126 } from 'sdk-1-26/server/streamableHttp.js';
import t from 'tap';
import * as z from 'zod';
import {
  RunWatch,
  adapter,
  breakpoints,
  decide,
  finishedRun,
  instanceOf,
  kit,
  later,
  setBreakpoints,
  startDebugger,
  text,
  waitForHold,
  type Loose,
  type SdkLabel,
} from './helpers/adapter.js';
import type { Teardown } from './helpers/gates.js';

const serve = await startDebugger(t);

/** Listen on a free loopback port; closed on teardown. */
async function listen(t: Teardown, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ http: HttpServer; url: URL }> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { http, url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`) };
}

/** The body of a node:http request. */
async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Serve one web-standard `Request → Response` handler on node:http (streams the response as it comes: SSE included). */
async function bridge(req: IncomingMessage, res: ServerResponse, handle: (request: Request) => Promise<Response>): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const payload = req.method === 'GET' || req.method === 'HEAD' ? undefined : await body(req);
  const request = new Request(new URL(req.url ?? '/', `http://${req.headers.host}`), { method: req.method, headers, body: payload });
  const response = await handle(request);
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

const GENERATIONS: Array<{ label: SdkLabel; transport: 'node' | 'web' }> = [
  { label: '1.26.0', transport: 'node' },
  { label: '1.32.2', transport: 'node' },
  { label: '2.4.0', transport: 'web' },
];

for (const { label, transport } of GENERATIONS) {
  t.test(`SDK ${label} over Streamable HTTP on node:http`, async (t) => {
    await setBreakpoints(serve, breakpoints({ 'tool:echo': { before: true } }));
    const k = kit(label);
    const gm = await adapter(t, serve);
    const server = gm.wrapServer(k.mcpServer('http-server'));
    let ran = 0;
    server.registerTool('echo', { description: 'Echo', inputSchema: k.schema({ text: z.string() }) }, async ({ text: value }: { text: string }) => {
      ran++;
      return text(`echo ${value}`);
    });
    server.registerTool('plain', { description: 'Not held' }, async () => text('plain answer'));

    const watch = await RunWatch.start(serve);
    let sessionId: string | undefined;
    let handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    if (transport === 'node') {
      const Transport = (label === '1.26.0' ? HttpServer126 : HttpServerV1) as Loose;
      const serverTransport = new Transport({ sessionIdGenerator: () => (sessionId = randomUUID()) });
      await server.connect(serverTransport);
      handle = async (req, res) => {
        const raw = req.method === 'POST' ? JSON.parse((await body(req)).toString('utf8')) : undefined;
        await serverTransport.handleRequest(req, res, raw);
      };
    } else {
      const serverTransport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => (sessionId = randomUUID()) });
      await server.connect(serverTransport);
      handle = (req, res) => bridge(req, res, (request) => serverTransport.handleRequest(request));
    }
    const { url } = await listen(t, (req, res) => {
      handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });

    let client: Loose;
    if (label === '2.4.0') {
      client = new ClientV2({ name: 'http-client', version: '0.0.0' });
      await client.connect(new HttpClientV2(url));
    } else {
      const Client = (label === '1.26.0' ? Client126 : ClientV1) as Loose;
      const Transport = (label === '1.26.0' ? HttpClient126 : HttpClientV1) as Loose;
      client = new Client({ name: 'http-client', version: '0.0.0' });
      await client.connect(new Transport(url));
    }
    t.teardown(() => client.close().catch(() => {}));
    t.type(sessionId, 'string', 'the HTTP session began');

    t.strictSame(await client.callTool({ name: 'plain', arguments: {} }), text('plain answer'), 'a call with no breakpoint answers as usual');
    const pending = later(client.callTool({ name: 'echo', arguments: { text: 'over http' } }));
    const hold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
    t.match(hold.frame, { method: 'tools/call', params: { name: 'echo', arguments: { text: 'over http' } } }, 'the call is held before its handler');
    t.equal(ran, 0, 'the handler has not run');
    await decide(serve, hold.holdId, 'inject', 'injected over http');
    t.strictSame(await pending, text('injected over http'), 'the HTTP client receives the injected value');
    t.equal(ran, 0, 'the handler never ran');

    const run = await finishedRun(serve, hold.runId);
    t.equal(run.name, 'tools/call:echo');
    t.equal(run.source, 'mcp-adapter');
    t.equal(run.meta.sessionId, sessionId, 'the run carries the HTTP session id');
    t.strictSame(instanceOf(run, 'tool:echo').output, text('injected over http'));
    const plain = await watch.one('tools/call:plain');
    t.equal(plain.meta.sessionId, sessionId);
    t.strictSame(instanceOf(plain, 'tool:plain').output, text('plain answer'));
    t.match((await watch.one('mcp:connect http-server')).meta, { transport: /StreamableHTTPServerTransport$/ }, 'the connect run names the transport');
  });
}
