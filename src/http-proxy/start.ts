import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopback, loopbackHostCheck } from './headers.js';
import { HttpProxy, type HttpProxyOptions } from './http-proxy.js';

/** The port `graphmind http-proxy` listens on unless told otherwise (the debugger's 4747, plus three). */
export const DEFAULT_HTTP_PROXY_PORT = 4750;

/** Where to listen. */
export interface ListenAddress {
  /** An IP address or `localhost`. */
  host: string;
  /** 0 picks a free port. */
  port: number;
}

/**
 * `host:port` (`[::1]:port` for IPv6) as an address to listen on, or what
 * is wrong with it: a host other hosts can reach is refused unless
 * `allowRemote`.
 */
export function listenAddress(text: string, allowRemote: boolean): ListenAddress | string {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  if (match === null) return `--listen must be host:port, e.g. 127.0.0.1:${DEFAULT_HTTP_PROXY_PORT} (got ${JSON.stringify(text)})`;
  const host = (match[1] as string).replace(/^\[|\]$/g, '');
  const port = Number(match[2]);
  if (port > 65535) return `--listen has no such port: ${port}`;
  if (!allowRemote && !isLoopback(host)) return `--listen ${text} is reachable from other hosts: anybody who reaches it could use your MCP server through it; listen on 127.0.0.1, or pass --allow-remote if that is what you want`;
  return { host, port };
}

/** Options for {@link startHttpProxy}. */
export interface StartHttpProxyOptions extends HttpProxyOptions {
  /** Address to listen on. @default '127.0.0.1' */
  host?: string;
  /** Port to listen on (0: a free one). @default 4750 */
  listenPort?: number;
  /** Serve requests whatever their `Host` header (with a non-loopback `host`). @default false */
  allowRemote?: boolean;
}

/** A running HTTP proxy. */
export interface RunningHttpProxy {
  /** The proxy (its sessions, reporter and gate). */
  proxy: HttpProxy;
  /** The `node:http` server it answers on. */
  server: Server;
  /** The URL to give the MCP host: the upstream's path on the listen address. */
  url: string;
  /** Stop listening, end every session's run, let the debugger take the last events. */
  close(): Promise<void>;
}

/**
 * Start `graphmind http-proxy` in this process: a {@link HttpProxy} on a
 * `node:http` server. On a loopback address, only requests addressed to it
 * (`Host: 127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>`) are served.
 */
export async function startHttpProxy(options: StartHttpProxyOptions): Promise<RunningHttpProxy> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  if (!loopback && options.allowRemote !== true) throw new Error(`${host} is not a loopback address (pass allowRemote to listen on it)`);
  const server = createServer({ keepAliveTimeout: 65_000 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort ?? DEFAULT_HTTP_PROXY_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const proxy = new HttpProxy({ ...options, hostCheck: options.hostCheck ?? (loopback && options.allowRemote !== true ? loopbackHostCheck(port) : undefined) });
  server.on('request', proxy.handle);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    proxy,
    server,
    url: `http://${shownHost}:${port}${proxy.upstream.pathname}`,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await proxy.close();
      })();
      return closing;
    },
  };
}
