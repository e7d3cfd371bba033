// The debugger proves it holds the token before a client hands it over
// (control API, security rule 12). The proof as a playbook, then the client
// against listeners that are honest, impostors, silent or absent.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { proveDebugger } from '../src/report/prove-debugger.js';
import { identityProof, NONCE_PATTERN, newNonce, provesIdentity } from '../src/protocol/identity-proof.js';
import { answerIdentity } from '../src/server/identity-route.js';
import { startServer } from '../src/server/serve.js';
import { rawRequest } from './helpers/serve.js';

const token = 'a'.repeat(64);
const nonce = '0123456789abcdef'.repeat(4);

t.test('the proof, as a playbook', async (t) => {
  const good = identityProof(token, nonce, 4747);
  const rows: Array<[string, unknown, boolean]> = [
    ['the proof for this token, nonce and port', good, true],
    ['upper-case hex of the same proof', good.toUpperCase(), false],
    ['a proof for another port', identityProof(token, nonce, 4748), false],
    ['a proof keyed by another token', identityProof('b'.repeat(64), nonce, 4747), false],
    ['a proof of another nonce', identityProof(token, nonce.replace('0', '1'), 4747), false],
    ['the token itself', token, false],
    ['the nonce echoed', nonce, false],
    ['too short', good.slice(2), false],
    ['not a string', 42, false],
    ['nothing', undefined, false],
  ];
  for (const [name, proof, expected] of rows) t.equal(provesIdentity(token, nonce, 4747, proof), expected, name);
  t.match(newNonce(), NONCE_PATTERN, 'a fresh nonce is one the debugger accepts');
  t.not(newNonce(), newNonce(), 'and fresh each time');
});

t.test('the route: a nonce in, a proof out, nothing else', async (t) => {
  const rows: Array<[string, string, number]> = [
    ['a good nonce', `nonce=${nonce}`, 200],
    ['no nonce', '', 400],
    ['two nonces', `nonce=${nonce}&nonce=${nonce}`, 400],
    ['too short', 'nonce=abcd', 400],
    ['not hex', `nonce=${'z'.repeat(64)}`, 400],
    ['upper case', `nonce=${nonce.toUpperCase()}`, 400],
    ['too long', `nonce=${'a'.repeat(130)}`, 400],
  ];
  for (const [name, search, status] of rows) {
    const answer = answerIdentity(new URLSearchParams(search), token, 4747);
    t.equal(answer.status, status, name);
    t.notMatch(JSON.stringify(answer.body), token, `${name}: the token is not in the answer`);
  }
  t.same(answerIdentity(new URLSearchParams(`nonce=${nonce}`), token, 4747).body, { proof: identityProof(token, nonce, 4747) });
});

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** An HTTP listener answering the identity route with `answer(nonce, port)`; it records every request it gets. */
async function listener(t: Test, answer: (search: URLSearchParams, port: number) => { status: number; body: string }) {
  const seen: Array<{ url: string; authorization: string | undefined }> = [];
  let port = 0;
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const url = new URL(req.url ?? '/', 'http://x');
    const { status, body } = answer(url.searchParams, port);
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  port = await listen(server);
  t.teardown(() => server.close());
  return { port, seen };
}

t.test('the client proves a debugger and never sends the token', async (t) => {
  const honest = await listener(t, (search, port) => {
    const answer = answerIdentity(search, token, port);
    return { status: answer.status, body: JSON.stringify(answer.body) };
  });
  t.equal(await proveDebugger({ port: honest.port, token }), 'proven', 'a listener with the token is proven');
  t.equal(honest.seen.length, 1, 'one request');
  t.equal(honest.seen[0]?.authorization, undefined, 'no Authorization header');
  t.notMatch(honest.seen[0]?.url ?? '', token, 'no token in the URL');
  t.equal(await proveDebugger({ port: honest.port, token: 'c'.repeat(64) }), 'other-token', 'a debugger with another token is not ours');
  t.equal(await proveDebugger({ port: honest.port, token: undefined }), 'other-token', 'nor is any debugger when we have no token to check it with');
});

t.test('anything else on the port is an impostor; nothing there is absent', async (t) => {
  const cases: Array<[string, (search: URLSearchParams, port: number) => { status: number; body: string }]> = [
    ['a 401 (a debugger too old to know the route)', () => ({ status: 401, body: '{"error":"unauthorized"}' })],
    ['a proof of the wrong length', () => ({ status: 200, body: JSON.stringify({ proof: 'f'.repeat(62) }) })],
    ['upper-case hex', (search, port) => ({ status: 200, body: JSON.stringify({ proof: identityProof(token, search.get('nonce') ?? '', port).toUpperCase() }) })],
    ['a 404 with a good proof', (search, port) => ({ status: 404, body: JSON.stringify({ proof: identityProof(token, search.get('nonce') ?? '', port) }) })],
    ['not JSON', () => ({ status: 200, body: 'hello' })],
    ['a huge answer', () => ({ status: 200, body: 'x'.repeat(100_000) })],
  ];
  for (const [name, answer] of cases) {
    const impostor = await listener(t, answer);
    t.equal(await proveDebugger({ port: impostor.port, token }), 'impostor', name);
    t.ok(impostor.seen.every((request) => request.authorization === undefined && !request.url.includes(token)), `${name}: got no token`);
  }
  // A proof of the right shape that is not ours: sent nothing either way; only the user is told it looks like another debugger.
  const lookalikes: Array<[string, (search: URLSearchParams, port: number) => { status: number; body: string }]> = [
    ['a made-up proof', () => ({ status: 200, body: JSON.stringify({ proof: 'f'.repeat(64) }) })],
    ['an echo of the nonce', (search) => ({ status: 200, body: JSON.stringify({ proof: search.get('nonce') }) })],
    ['a real proof for another port (a relayed answer)', (search, port) => ({ status: 200, body: JSON.stringify({ proof: identityProof(token, search.get('nonce') ?? '', port + 1) }) })],
  ];
  for (const [name, answer] of lookalikes) {
    const lookalike = await listener(t, answer);
    t.equal(await proveDebugger({ port: lookalike.port, token }), 'other-token', name);
    t.ok(lookalike.seen.every((request) => request.authorization === undefined && !request.url.includes(token)), `${name}: got no token`);
  }
  // A TCP listener that accepts and says nothing.
  const silent = createNetServer(() => {});
  const silentPort = await listen(silent);
  t.teardown(() => silent.close());
  t.equal(await proveDebugger({ port: silentPort, token, timeoutMs: 200 }), 'impostor', 'a listener that never answers');
  // A port nobody listens on.
  const closed = createNetServer();
  const closedPort = await listen(closed);
  closed.close();
  await once(closed, 'close');
  t.equal(await proveDebugger({ port: closedPort, token }), 'absent', 'nothing listening');
});

t.test('graphmind serve answers the route before the token check, behind its Host and Origin checks', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gm-identity-'));
  const server = await startServer({ port: 0, dataDir, env: {} });
  t.teardown(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const host = `127.0.0.1:${server.port}`;
  const ok = await rawRequest(server.port, { path: `/api/identity?nonce=${nonce}`, headers: { host } });
  t.equal(ok.status, 200, 'no token needed');
  t.ok(provesIdentity(server.token, nonce, server.port, (ok.json as { proof?: unknown }).proof), 'the proof is for its token and port');
  t.notMatch(ok.text, server.token, 'the token is not in the answer');
  const rows: Array<[string, Parameters<typeof rawRequest>[1], number]> = [
    ['no nonce', { path: '/api/identity', headers: { host } }, 400],
    ['a foreign Host (DNS rebinding)', { path: `/api/identity?nonce=${nonce}`, headers: { host: `evil.example:${server.port}` } }, 403],
    ['a foreign Origin', { path: `/api/identity?nonce=${nonce}`, headers: { host, origin: 'http://evil.example' } }, 403],
    ['a POST', { method: 'POST', path: `/api/identity?nonce=${nonce}`, headers: { host } }, 405],
    ['another /api path still wants the token', { path: '/api/health', headers: { host } }, 401],
  ];
  for (const [name, request, status] of rows) t.equal((await rawRequest(server.port, request)).status, status, name);
  t.equal(await proveDebugger({ port: server.port, token: server.token }), 'proven', 'the client proves it');
  t.equal(await proveDebugger({ port: server.port, token: 'not-its-token' }), 'other-token', 'and tells a debugger of another token');
});
