/**
 * The check every client of the debugger makes before it sends the token
 * or any session traffic to the debugger's port (control API, security
 * rule 12): a fresh nonce goes out on `GET /api/identity`, which needs no
 * token, and an HMAC of it keyed by the token must come back. The token
 * itself never leaves this process.
 *
 * @module
 */
import { request } from 'node:http';
import { IDENTITY_PATH, newNonce, provesIdentity } from '../protocol/identity-proof.js';

/**
 * What answers on a debugger's port:
 * - `proven`: a debugger that holds the same token (safe to send it);
 * - `absent`: nothing listens there;
 * - `other-token`: something answered the identity route with a proof of
 *   the right shape that is not for our token (or we have no token to
 *   check it with): most likely a `graphmind serve` of another data
 *   directory. It gets nothing, like an impostor; only what the user is
 *   told differs;
 * - `impostor`: something listens but could not prove it holds the token
 *   (another program, or a debugger too old to know the route). It must
 *   get neither the token nor any traffic.
 */
export type DebuggerIdentity = 'proven' | 'absent' | 'other-token' | 'impostor';

/** Options for {@link proveDebugger}. */
export interface ProveOptions {
  /** The loopback address to ask. @default '127.0.0.1' */
  host?: string;
  /** The debugger's port. */
  port: number;
  /** The token the client holds (never sent); undefined when it has none, and then nothing can be `proven`. */
  token: string | undefined;
  /** How long the listener has to answer before it counts as an impostor. @default 2000 */
  timeoutMs?: number;
  /** Let the process exit while the check is under way (a reporter never keeps its host alive). @default false */
  unref?: boolean;
  /** Stops the check (it then settles as `impostor`, which the caller ignores). */
  signal?: AbortSignal;
}

/** Connection errors that mean nothing listens at that address (IPv6 loopback missing included). */
export const NOT_LISTENING: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'EAFNOSUPPORT', 'ENETUNREACH', 'EHOSTUNREACH']);

/** The longest answer read from the identity route. */
const MAX_ANSWER_BYTES = 4096;

/** A proof of the right shape: what a debugger answers, whoever's token it holds. */
const PROOF_SHAPE = /^[0-9a-f]{64}$/;

/** Classify a finished answer of the identity route. */
function judge(options: ProveOptions, nonce: string, status: number | undefined, body: Buffer): DebuggerIdentity {
  if (status !== 200) return 'impostor';
  let proof: unknown;
  try {
    const answer = JSON.parse(body.toString('utf8')) as { proof?: unknown } | null;
    proof = answer?.proof;
  } catch {
    return 'impostor';
  }
  if (typeof proof !== 'string' || !PROOF_SHAPE.test(proof)) return 'impostor';
  if (options.token !== undefined && provesIdentity(options.token, nonce, options.port, proof)) return 'proven';
  return 'other-token';
}

/**
 * Ask whoever listens on `port` to prove it holds `token` (see the module
 * and {@link DebuggerIdentity}). Never rejects.
 */
export function proveDebugger(options: ProveOptions): Promise<DebuggerIdentity> {
  const host = options.host ?? '127.0.0.1';
  const nonce = newNonce();
  const authority = host.includes(':') ? `[${host}]:${options.port}` : `${host}:${options.port}`;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (identity: DebuggerIdentity): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(identity);
    };
    const path = `${IDENTITY_PATH}?nonce=${nonce}`;
    const req = request({ host, port: options.port, path, method: 'GET', agent: false, setHost: false, headers: { host: authority }, signal: options.signal }, (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) settle('impostor');
        else parts.push(chunk);
      });
      res.on('end', () => settle(judge(options, nonce, res.statusCode, Buffer.concat(parts))));
      res.on('error', () => settle('impostor'));
    });
    if (options.unref === true) req.on('socket', (socket) => socket.unref());
    const timer = setTimeout(() => settle('impostor'), options.timeoutMs ?? 2000);
    if (options.unref === true) timer.unref();
    req.on('error', (error: NodeJS.ErrnoException) => settle(NOT_LISTENING.has(error.code ?? '') ? 'absent' : 'impostor'));
    req.end();
  });
}
