/**
 * A replay over Streamable HTTP at `http://127.0.0.1:<port>/mcp`, with
 * sessions as the MCP SDKs expect them: an `initialize` POSTed without a
 * session id starts one (its own replay, from the first recorded call),
 * later requests name it in `Mcp-Session-Id`, a DELETE ends it. The MCP
 * SDK's own server transport speaks the HTTP side (JSON or an event
 * stream per POST, the GET stream, the protocol version header); what a
 * replay sends inside a call goes on that call's stream.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RecordedRun } from './recorded-run.js';
import { ReplaySession, type ReplayOptions } from './replay-session.js';

/** A replay listening over HTTP. */
export interface HttpReplay {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  server: Server;
  /** Stop listening and end every session. */
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** Replay `run` over Streamable HTTP on 127.0.0.1:`port` (0: a free one). */
export async function replayOverHttp(run: RecordedRun, options: ReplayOptions, port: number): Promise<HttpReplay> {
  const { StreamableHTTPServerTransport: Transport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; replay: ReplaySession }>();

  const open = (): StreamableHTTPServerTransport => {
    const transport: StreamableHTTPServerTransport = new Transport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, replay });
      },
    });
    const replay = new ReplaySession(run, options, {
      send(text, relatedId) {
        const message = JSON.parse(text) as JSONRPCMessage;
        transport.send(message, relatedId === undefined ? undefined : { relatedRequestId: relatedId }).catch(() => undefined);
      },
    });
    transport.onmessage = (message) => replay.receive(message);
    transport.onclose = () => {
      replay.close();
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/mcp') return reply(res, 404, 'graphmind replay: the MCP endpoint is /mcp');
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(res, 404, 'graphmind replay: no such session (it ended, or the replay restarted)');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'graphmind replay: no session: POST an initialize first');
    let body: unknown;
    try {
      body = await readBody(req);
    } catch {
      return reply(res, 400, 'graphmind replay: the body is not JSON');
    }
    await open().handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `graphmind replay: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = address !== null && typeof address === 'object' ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    server,
    async close() {
      for (const session of sessions.values()) await session.transport.close().catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
