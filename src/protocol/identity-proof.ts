import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The route on which the debugger proves it holds the token, without the
 * client revealing it: `GET /api/identity?nonce=<hex>`, answered with
 * `{ "proof": "<hex>" }`. It needs no token (Host and Origin are checked as
 * on every route).
 */
export const IDENTITY_PATH = '/api/identity';

/** A nonce the debugger accepts: 32 to 128 lowercase hex digits. */
export const NONCE_PATTERN = /^[0-9a-f]{32,128}$/;

/** A fresh random nonce (256 bits, hex). */
export function newNonce(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The proof for `nonce`: HMAC-SHA256 keyed by the token, over the nonce and
 * the port the debugger listens on. The port is in it so that a listener
 * on another port cannot pass a real debugger's answer on as its own.
 */
export function identityProof(token: string, nonce: string, port: number): string {
  return createHmac('sha256', token).update(`graphmind identity ${port} ${nonce}`).digest('hex');
}

/** Does `proof` (as received, of any type) prove that the listener on `port` holds `token`? Compared in constant time. */
export function provesIdentity(token: string, nonce: string, port: number, proof: unknown): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  return timingSafeEqual(Buffer.from(identityProof(token, nonce, port), 'hex'), Buffer.from(proof, 'hex'));
}
