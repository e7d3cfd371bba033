// Stand-ins for the debugger in tests: since every client asks whoever
// listens to prove it holds the token before it sends it (control API,
// security rule 12), a stand-in that is to receive a reporter's events
// must answer the identity route as `graphmind serve` does.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { answerIdentity } from '../../src/server/identity-route.js';

/** The token stand-ins prove they hold: give it to the client as GRAPHMIND_TOKEN. */
export const STAND_IN_TOKEN = 'stand-in-token-for-tests';

/**
 * Answer `req` if it asks the identity route, proving `token` for `port`
 * (the port the server listens on); true if it did.
 */
export function answeredIdentity(req: IncomingMessage, res: ServerResponse, port: number, token = STAND_IN_TOKEN): boolean {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname !== '/api/identity') return false;
  const answer = answerIdentity(url.searchParams, token, port);
  res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  return true;
}

/**
 * An HTTP server on 127.0.0.1:`port` (0: any) that proves it holds `token`;
 * other requests go to `handler` (default: 404). Upgrades are the caller's.
 */
export async function provingServer(port = 0, token = STAND_IN_TOKEN, handler?: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ http: Server; port: number }> {
  let bound = port;
  const http = createServer((req, res) => {
    if (answeredIdentity(req, res, bound, token)) return;
    if (handler !== undefined) handler(req, res);
    else res.writeHead(404).end();
  });
  http.listen(port, '127.0.0.1');
  await once(http, 'listening');
  bound = (http.address() as AddressInfo).port;
  return { http, port: bound };
}

/** A WebSocket server on a {@link provingServer}; `close()` ends both, and every connection. */
export async function provingWss(port = 0, token = STAND_IN_TOKEN): Promise<{ wss: WebSocketServer; port: number; close(): Promise<void> }> {
  const { http, port: bound } = await provingServer(port, token);
  const wss = new WebSocketServer({ server: http });
  const close = async (): Promise<void> => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return { wss, port: bound, close };
}
