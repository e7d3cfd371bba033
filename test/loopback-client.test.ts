// The one loopback client of a running debugger (src/client/): what each
// situation becomes — an answer, DebuggerUnavailable (so the commands fall
// back to the data directory), or a LoopbackError — against a real HTTP
// server on 127.0.0.1.
import t from 'tap';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerError, answerJson, DebuggerUnavailable, LoopbackClient, LoopbackError } from '../src/client/loopback-client.js';
import { answerIdentity } from '../src/server/identity-route.js';

/**
 * A server that answers every request with `answer` and notes what it was
 * sent. It proves it holds `proves` on the identity route first (as a
 * debugger does; not noted), unless `proves` is null: then the
 * identity request goes to `answer` too.
 */
async function fakeDebugger(answer: (req: IncomingMessage, res: ServerResponse) => void, proves: string | null = 'the-token'): Promise<{ server: Server; port: number; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  let port = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (proves !== null && url.pathname === '/api/identity') {
      const proof = answerIdentity(url.searchParams, proves, port);
      res.writeHead(proof.status).end(JSON.stringify(proof.body));
      return;
    }
    seen.push(req);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('no port');
  port = address.port;
  return { server, port, seen };
}

/** A port nothing listens on: one a server had, closed. */
async function closedPort(): Promise<number> {
  const { server, port } = await fakeDebugger(() => {});
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dataDir = mkdtempSync(join(tmpdir(), 'graphmind-loopback-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
writeFileSync(join(dataDir, 'token'), 'the-token\n');
const noTokenDir = mkdtempSync(join(tmpdir(), 'graphmind-loopback-none-'));
t.teardown(() => rmSync(noTokenDir, { recursive: true, force: true }));
const env = {};

t.test('an answer: its status, type and body; the token and the Host header as dialled', async (t) => {
  const { server, port, seen } = await fakeDebugger((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  t.teardown(() => server.close());
  const client = new LoopbackClient({ port, dataDir, env });
  const answer = await client.request({ method: 'POST', path: '/api/x', body: Buffer.from('{}'), contentType: 'application/json', accept: 'application/json' });
  t.equal(answer.status, 404);
  t.equal(answer.contentType, 'application/json');
  t.same(answerJson(answer), { error: 'not found' });
  t.equal(answerError(answer), 'not found');
  const [req] = seen;
  t.equal(req?.headers.host, `127.0.0.1:${port}`);
  t.equal(req?.headers.authorization, 'Bearer the-token');
  t.equal(req?.headers.accept, 'application/json');
  t.equal(req?.headers['content-type'], 'application/json');
});

t.test('GRAPHMIND_TOKEN comes before the token file', async (t) => {
  const { server, port, seen } = await fakeDebugger((_req, res) => res.end(), 'from-env');
  t.teardown(() => server.close());
  await new LoopbackClient({ port, dataDir, env: { GRAPHMIND_TOKEN: 'from-env' } }).request({ method: 'GET', path: '/' });
  t.equal(seen[0]?.headers.authorization, 'Bearer from-env');
});

const PLAYBOOK: Array<{
  name: string;
  status?: number;
  body?: string;
  dir?: string;
  nothing?: boolean;
  command?: string;
  maxBytes?: number;
  proves?: string | null;
  expect: { unavailable?: boolean; refused?: boolean; impostor?: boolean; loopback?: boolean; message: RegExp };
}> = [
  { name: 'a listener that cannot prove it is the debugger', status: 200, proves: null, expect: { unavailable: true, refused: true, impostor: true, message: /^something else answers on port \d+ \(it could not prove it is the debugger\); not sending it the token$/ } },
  { name: 'a debugger too old to know the identity route (401 to it)', status: 401, proves: null, expect: { unavailable: true, refused: true, impostor: true, message: /^something else answers on port \d+/ } },
  { name: 'a debugger that proves another token', proves: 'another-token', command: 'graphmind mcp', expect: { unavailable: true, refused: true, impostor: false, message: /^the debugger on port \d+ refused our token \(it proves it holds another one\): we read ours from .*\/token, and it uses another token \(another --data-dir\?\); give graphmind mcp that --data-dir, or set GRAPHMIND_TOKEN$/ } },
  { name: 'no token here, and a debugger answers', dir: noTokenDir, proves: 'another-token', expect: { unavailable: true, refused: true, impostor: false, message: /^the debugger on port \d+ refused our token \(it proves it holds another one\): we have none \(no GRAPHMIND_TOKEN and no .*\/token\), and it uses another token \(another --data-dir\?\)$/ } },
  { name: 'no token, and nothing listens', dir: noTokenDir, nothing: true, expect: { unavailable: true, refused: false, message: /^no debugger answers on 127\.0\.0\.1:\d+$/ } },
  { name: 'nothing listens', nothing: true, expect: { unavailable: true, refused: false, message: /^no debugger answers on 127\.0\.0\.1:\d+$/ } },
  { name: 'the token refused (401)', status: 401, expect: { unavailable: true, refused: true, message: /refused our token \(HTTP 401\): we read ours from .*\/token, and it uses another token \(another --data-dir\?\)$/ } },
  { name: 'the token refused (403), with the hint', status: 403, command: 'graphmind mcp', expect: { unavailable: true, refused: true, message: /refused our token \(HTTP 403\).*; give graphmind mcp that --data-dir, or set GRAPHMIND_TOKEN$/ } },
  { name: 'an answer larger than allowed', status: 200, body: 'x'.repeat(100), maxBytes: 10, expect: { loopback: true, message: /^the debugger's answer to GET \/api\/runs is larger than 10 bytes$/ } },
];

for (const play of PLAYBOOK) {
  t.test(play.name, async (t) => {
    let port: number;
    let seen: IncomingMessage[] = [];
    if (play.nothing === true) {
      port = await closedPort();
    } else {
      const fake = await fakeDebugger((_req, res) => {
        res.writeHead(play.status ?? 200);
        res.end(play.body ?? '');
      }, play.proves === undefined ? 'the-token' : play.proves);
      t.teardown(() => fake.server.close());
      port = fake.port;
      seen = fake.seen;
    }
    const client = new LoopbackClient({ port, dataDir: play.dir ?? dataDir, env, command: play.command, maxBytes: play.maxBytes });
    const error = await client.request({ method: 'GET', path: '/api/runs' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (play.expect.unavailable === true) {
      t.type(error, DebuggerUnavailable);
      t.equal((error as DebuggerUnavailable).refused, play.expect.refused);
      if (play.expect.impostor !== undefined) t.equal((error as DebuggerUnavailable).impostor, play.expect.impostor);
    }
    if (play.expect.loopback === true) t.type(error, LoopbackError);
    // A listener that did not prove our token was sent nothing (it noted every request).
    if (play.proves !== undefined) t.equal(seen.filter((req) => req.headers.authorization !== undefined).length, 0, 'it got no token');
    t.match((error as Error).message, play.expect.message);
  });
}

t.test('a connection that breaks is a LoopbackError naming the request', async (t) => {
  const { server, port } = await fakeDebugger((req) => req.socket.destroy());
  t.teardown(() => server.close());
  const error = await new LoopbackClient({ port, dataDir, env }).request({ method: 'GET', path: '/api/holds' }).catch((thrown: unknown) => thrown);
  t.type(error, LoopbackError);
  t.match((error as Error).message, new RegExp(`^the debugger on port ${port} did not answer GET /api/holds: `));
});

t.test('a refused token names ours and, when a token file we can read proves to be the debugger\'s, that one too', async (t) => {
  // Issue 30: the debugger of GRAPHMIND_DATA_DIR answers while the command was given another --data-dir.
  const theirs = mkdtempSync(join(tmpdir(), 'graphmind-loopback-theirs-'));
  t.teardown(() => rmSync(theirs, { recursive: true, force: true }));
  writeFileSync(join(theirs, 'token'), 'their-token\n');
  const { server, port, seen } = await fakeDebugger((_req, res) => res.end(), 'their-token');
  t.teardown(() => server.close());
  const error = await new LoopbackClient({ port, dataDir, env: { GRAPHMIND_DATA_DIR: theirs } }).request({ method: 'GET', path: '/api/runs' }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  t.type(error, DebuggerUnavailable);
  t.equal((error as DebuggerUnavailable).reason, 'other-token');
  t.equal((error as Error).message, `the debugger on port ${port} refused our token (it proves it holds another one): we read ours from ${join(dataDir, 'token')}, and it uses the one in ${join(theirs, 'token')} (--data-dir ${theirs})`);
  t.equal(seen.length, 0, 'it was sent nothing but the identity checks');
  const fromEnv = await new LoopbackClient({ port, dataDir, env: { GRAPHMIND_TOKEN: 'mine' } }).request({ method: 'GET', path: '/api/runs' }).catch((thrown: unknown) => thrown);
  t.match((fromEnv as Error).message, /we read ours from GRAPHMIND_TOKEN, and it uses another token \(another --data-dir\?\)$/);
});
