/**
 * Where a reporter finds the debugger: the ingest URL it is given, or the
 * loopback addresses `graphmind serve` may listen on.
 *
 * @module
 */

/**
 * Where a debugger may listen: `graphmind serve --host` takes only these.
 * Each connection attempt tries both, the one that answered last first.
 */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1'] as const;

/** `host` as it goes in a URL: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Where an ingest URL points: its host (no brackets), port and path. */
export interface IngestTarget {
  /** The host, an IPv6 address without its brackets. */
  host: string;
  /** The port (80 when the URL gives none). */
  port: number;
  /** The path (`/ingest` when the URL gives none). */
  path: string;
}

/**
 * The parts of an ingest URL (`ws://host:port/path`, `http:` accepted as
 * `ws:`), or undefined for one that cannot be used.
 */
export function parseIngestUrl(url: string): IngestTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'http:') return undefined;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return undefined;
  const port = parsed.port === '' ? 80 : Number(parsed.port);
  return { host, port, path: parsed.pathname === '/' || parsed.pathname === '' ? '/ingest' : parsed.pathname };
}
