import { request } from 'node:http';
import { IDENTITY_PATH, newNonce, provesIdentity } from '../protocol/identity-proof.js';

/**
 * What answers on a debugger's port:
 * - `proven`: a debugger that holds the same token (safe to send it);
 * - `absent`: nothing listens there;
 * - `impostor`: something listens but could not prove it holds the token
 *   (another program, another debugger with another token, or one too old
 *   to know the route). It must get neither the token nor any traffic.
 */
export type DebuggerIdentity = 'proven' | 'absent' | 'impostor';

/** Options for {@link proveDebugger}. */
export interface ProveOptions {
  /** The loopback address to ask. @default '127.0.0.1' */
  host?: string;
  /** The debugger's port. */
  port: number;
  /** The token the client holds (never sent). */
  token: string;
  /** How long the listener has to answer before it counts as an impostor. @default 2000 */
  timeoutMs?: number;
}

/** The longest answer read from the identity route. */
const MAX_ANSWER_BYTES = 4096;

/**
 * Ask whoever listens on `port` to prove it holds `token`: a fresh nonce
 * goes out, an HMAC of it (keyed by the token, see `identityProof`) must
 * come back. The token itself never leaves this process.
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
    const req = request({ host, port: options.port, path: `${IDENTITY_PATH}?nonce=${nonce}`, method: 'GET', agent: false, headers: { Host: authority } }, (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) settle('impostor');
        else parts.push(chunk);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return settle('impostor');
        try {
          const answer = JSON.parse(Buffer.concat(parts).toString('utf8')) as { proof?: unknown } | null;
          settle(provesIdentity(options.token, nonce, options.port, answer?.proof) ? 'proven' : 'impostor');
        } catch {
          settle('impostor');
        }
      });
      res.on('error', () => settle('impostor'));
    });
    const timer = setTimeout(() => settle('impostor'), options.timeoutMs ?? 2000);
    timer.unref();
    req.on('error', (error: NodeJS.ErrnoException) => settle(error.code === 'ECONNREFUSED' ? 'absent' : 'impostor'));
    req.end();
  });
}
