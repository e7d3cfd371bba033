/**
 * The server's socket: the loopback-only host check, the HTTP server with
 * its request time limits, and the bind, with a one-line
 * {@link ServeError} for each way starting can fail.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { LOOPBACK_HOSTS } from './security.js';

/** A problem that stops the server from starting, with a one-line message. */
export class ServeError extends Error {
  constructor(
    message: string,
    /** Why: the port is taken (`EADDRINUSE`), the host is not loopback (`EHOST`), or listening failed otherwise (`ELISTEN`). */
    readonly code: 'EADDRINUSE' | 'EHOST' | 'ELISTEN',
  ) {
    super(message);
    this.name = 'ServeError';
  }
}

/** How long a request may take to arrive, headers and body (see `ServeOptions.requestTimeoutMs`). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The address to bind for `--host` (`[::1]` without its brackets); a {@link ServeError} for one that is not loopback. */
export function bindHostOf(host: string): string {
  const bindHost = host === '[::1]' ? '::1' : host;
  if (!LOOPBACK_HOSTS.includes(bindHost)) {
    throw new ServeError(
      `--host must be a loopback address (127.0.0.1 or ::1), not ${JSON.stringify(host)}; to reach the debugger from another machine, use an SSH tunnel (ssh -L 4747:127.0.0.1:4747 <this machine>)`,
      'EHOST',
    );
  }
  return bindHost;
}

/** What the server does with requests and upgrades; set once the server is ready (until then: 503, and upgrades dropped). */
export interface Handlers {
  request: (req: IncomingMessage, res: ServerResponse) => void;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** The HTTP server, routing to `handlers` as they are when each request comes. */
export function createHttpServer(requestTimeout: number, handlers: Handlers): Server {
  // Node would answer a request without Host with its own 400; the Host check answers it (403) instead.
  // A request body has a while to arrive whole (Node's default is five minutes): a client
  // that stalls mid-body does not keep what it sent so far in memory for long.
  const server: Server = createServer(
    {
      requireHostHeader: false,
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
      // Node looks for requests past their time only this often.
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, requestTimeout / 4)),
    },
    (req, res) => handlers.request(req, res),
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => handlers.upgrade(req, socket, head));
  server.on('clientError', (_error, socket) => socket.destroy());
  return server;
}

/** Bind `server`; the port it got (for port 0), or a {@link ServeError} with its one line. */
export function listenOn(server: Server, port: number, bindHost: string): Promise<number> {
  return new Promise<number>((resolve, rejectListen) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      if (error.code === 'EADDRINUSE') {
        rejectListen(
          new ServeError(
            `port ${port} on ${bindHost} is already in use — is another graphmind running? Stop it, or choose another port with --port`,
            'EADDRINUSE',
          ),
        );
      } else {
        rejectListen(new ServeError(`cannot listen on ${bindHost}:${port}: ${error.message}`, 'ELISTEN'));
      }
    };
    server.once('error', onError);
    server.listen(port, bindHost, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(address !== null && typeof address === 'object' ? address.port : port);
    });
  });
}
