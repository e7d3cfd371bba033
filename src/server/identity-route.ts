import { identityProof, NONCE_PATTERN } from '../protocol/identity-proof.js';

/** The identity route's answer: a status and a JSON body. */
export interface IdentityAnswer {
  /** 200 with a proof, 400 for a missing or malformed nonce. */
  status: 200 | 400;
  /** `{ proof }` or `{ error }`. */
  body: { proof: string } | { error: string };
}

/**
 * Answer `GET /api/identity?nonce=…` (see `identityProof`): the proof that
 * this debugger holds `token`, for the port it listens on. The nonce is
 * checked before anything is computed; the token never appears in the answer.
 */
export function answerIdentity(search: URLSearchParams, token: string, port: number): IdentityAnswer {
  const nonces = search.getAll('nonce');
  const nonce = nonces.length === 1 ? nonces[0] : undefined;
  if (nonce === undefined || !NONCE_PATTERN.test(nonce)) return { status: 400, body: { error: 'nonce must be 32 to 128 lowercase hex digits' } };
  return { status: 200, body: { proof: identityProof(token, nonce, port) } };
}
