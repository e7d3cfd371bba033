import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * Headers that belong to one HTTP connection, not to the message: a proxy
 * does not pass them on (RFC 9110, 7.6.1). `host` is the upstream's own,
 * and `content-length` is set for the bytes actually sent.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/**
 * `raw` (a message's `rawHeaders`: names and values in one list, names as
 * the peer spelled them) without the hop-by-hop headers, those the
 * `Connection` header names, and `drop`; every other header (`Mcp-Session-Id`,
 * `MCP-Protocol-Version`, `Last-Event-ID`, `Authorization`, cookies…) as it
 * came. With `keepLength`, `content-length` stays (a body relayed as it is).
 */
export function passHeaders(raw: readonly string[], keepLength = false): string[] {
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() !== 'connection') continue;
    named ??= new Set();
    for (const name of (raw[i + 1] as string).split(',')) named.add(name.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (HOP_BY_HOP.has(name) && !(keepLength && name === 'content-length')) continue;
    if (named !== undefined && named.has(name)) continue;
    out.push(raw[i] as string, raw[i + 1] as string);
  }
  return out;
}

/** True when the request's `Accept` header takes `type` (or anything). */
export function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept;
  if (accept === undefined) return false;
  return accept.split(',').some((part) => {
    const media = (part.split(';')[0] as string).trim().toLowerCase();
    return media === type || media === '*/*';
  });
}

/**
 * The first value of header `name` (lower case) in a message's
 * `rawHeaders`, or undefined. Read from the raw list: asking a message for
 * `headers` builds the whole object, which costs more than the proxy's own
 * work on a call.
 */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  const length = name.length;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length === length && key.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/** True for a loopback address or name: `127.x.x.x`, `::1`, `localhost`. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

/**
 * The names a request to a proxy listening on loopback `port` may carry in
 * `Host`: its own address under the loopback names, so that a web page
 * that rebinds a name of its own to 127.0.0.1 is refused (the proxy
 * rewrites `Host` for the upstream, so the upstream's own check of it no
 * longer sees the page's name).
 */
export function loopbackHostCheck(port: number): (host: string | undefined) => boolean {
  const allowed = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  return (host) => host !== undefined && allowed.has(host.toLowerCase());
}

/** A URL as it may be shown and recorded: no user name, password, query or fragment (they may carry secrets). */
export function safeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
