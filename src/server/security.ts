import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The addresses `--host` accepts. */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', '::1'];

/** Headers every response carries. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
});

/** The CSP of API responses: nothing may load from them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** The CSP of the viewer's page. */
export function viewerCsp(port: number): string {
  // 'self' covers the page's own socket, on ::1 too (CSP3 lets it match ws:
  // for an http: page). There is no CSP syntax for an IPv6 literal:
  // Chromium reports `ws://[::1]:<port>` as an invalid source and ignores it
  // (https://github.com/w3c/webappsec-csp/issues/224), so it is not listed;
  // test/serve-audit.test.ts opens the page on ::1 in Chromium to keep it so.
  const sockets = ['127.0.0.1', 'localhost'].map((name) => `ws://${name}:${port}`).join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${sockets}`,
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if ((req.rawHeaders[i] as string).toLowerCase() === name) values.push(req.rawHeaders[i + 1] as string);
  }
  return values;
}

/**
 * The DNS-rebinding defence: exactly one Host header, naming a loopback
 * address or `localhost` with our port.
 */
export function hostAllowed(req: IncomingMessage, port: number): boolean {
  const hosts = headerValues(req, 'host');
  if (hosts.length !== 1) return false;
  const host = (hosts[0] as string).toLowerCase();
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

/**
 * Only an origin-form request target (`/path?query`) is served. An
 * absolute-form one (`GET http://evil.example/ HTTP/1.1`) names its own
 * authority, which HTTP says overrides Host, so it would slip past the
 * Host check; `*` (asterisk-form) serves nothing here either.
 */
export function targetAllowed(req: IncomingMessage): boolean {
  return req.url !== undefined && req.url.startsWith('/');
}

/** The checks every request and upgrade passes before routing: target, Host and Origin (the token comes after). */
export function requestAllowed(req: IncomingMessage, port: number): boolean {
  return targetAllowed(req) && hostAllowed(req, port) && originAllowed(req, port);
}

/** A request without Origin passes; one with Origin must be our own page's. */
export function originAllowed(req: IncomingMessage, port: number): boolean {
  const origins = headerValues(req, 'origin');
  if (origins.length === 0) return true;
  if (origins.length > 1) return false;
  const origin = origins[0] as string;
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}` || origin === `http://[::1]:${port}`;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * Compare a presented token with ours in constant time. Both sides are
 * hashed first, so the comparison does not even depend on their lengths.
 */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  const a = digest(presented ?? '');
  const b = digest(token);
  return timingSafeEqual(a, b) && presented !== undefined;
}

/**
 * The token a request carries: `Authorization: Bearer <token>`, or, for a
 * WebSocket upgrade (browsers cannot set headers there), `?token=`.
 */
export function presentedToken(req: IncomingMessage, url: URL, allowQuery: boolean): string | undefined {
  const auth = headerValues(req, 'authorization');
  if (auth.length === 1) {
    const match = /^Bearer ([^\s]+)$/i.exec(auth[0] as string);
    if (match) return match[1];
    return undefined;
  }
  if (auth.length > 1) return undefined;
  if (allowQuery) {
    const fromQuery = url.searchParams.getAll('token');
    if (fromQuery.length === 1) return fromQuery[0];
  }
  return undefined;
}

/**
 * Paths that ask for the token before anything else, routed or not: the API
 * and the reporters' ingest. (The gateway answers `/api/identity` before
 * this check: a client asks it who listens before it sends the token.)
 */
export function needsToken(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/ingest';
}
