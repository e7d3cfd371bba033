// 1000 pipelined requests through the proxy with a raw JSON-RPC driver: every answer arrives, in order, byte for byte.
import { spawn } from 'node:child_process';
import t from 'tap';
import { PROXY_FIXTURES, startProxy, waitFor } from './helpers/cli.js';

const ECHO_SERVER = `${PROXY_FIXTURES}byte-echo-server.mjs`;
const COUNT = 1000;

/**
 * Request `id`, with formatting a re-serialiser would change: `method` and
 * `jsonrpc` after `params`, `1.0`, `1E3`, a `\u00e9` escape, a raw UTF-8 `é`
 * and a space before a colon.
 */
function requestLine(id: number): string {
  return `{"params":{"name":"echo","arguments":{"i":${id},"f":1.0,"g":1E3,"s":"caf\\u00e9 #${id}","r":"é" }},"method":"tools/call","id":${id},"jsonrpc":"2.0"}\n`;
}

/** What byte-echo-server.mjs writes for `line`, built here from the request alone. */
function expectedResponse(line: string, id: number): string {
  const request = line.slice(0, -1);
  const params: unknown = (JSON.parse(request) as { params: unknown }).params;
  const eol = id % 7 === 0 ? '\r\n' : '\n';
  return `{"result":{"echo":${JSON.stringify(params)},"raw":${JSON.stringify(request)},"n":1.0,"big":1e3,"s":"caf\\u00e9"},"id":${id},"jsonrpc":"2.0"}${eol}`;
}

/** Cut `input` into three writes at offsets that fall mid-line (and one mid-`é`). */
function chunksOf(input: Buffer): Buffer[] {
  const e = Buffer.from('é');
  const midChar = input.indexOf(e, Math.floor(input.length / 3)) + 1;
  const second = Math.floor((input.length * 2) / 3) + 5;
  return [input.subarray(0, midChar), input.subarray(midChar, second), input.subarray(second)];
}

/** Run the echo server directly (no proxy) on the same writes and collect what it prints. */
async function runDirect(chunks: readonly Buffer[]): Promise<Buffer> {
  const child = spawn(process.execPath, [ECHO_SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  for (const chunk of chunks) child.stdin.write(chunk);
  child.stdin.end();
  await closed;
  return Buffer.concat(out);
}

/** Split wire bytes into lines, each keeping its terminator. */
function linesOf(bytes: Buffer): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, nl + 1).toString('utf8'));
    start = nl + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start).toString('utf8'));
  return lines;
}

t.test('1000 pipelined tools/call requests come back complete, in order and byte-exact', async (t) => {
  const requests = Array.from({ length: COUNT }, (_, i) => requestLine(i + 1));
  const input = Buffer.from(requests.join(''), 'utf8');
  const expected = Buffer.from(requests.map((line, i) => expectedResponse(line, i + 1)).join(''), 'utf8');
  const chunks = chunksOf(input);

  // The expectation is built independently of the fixture; check the two agree without the proxy.
  const direct = await runDirect(chunks);
  t.ok(direct.equals(expected), 'the echo server on its own writes exactly the expected bytes');

  const proxy = startProxy([], [process.execPath, ECHO_SERVER]);
  t.teardown(() => {
    if (proxy.child.exitCode === null && proxy.child.signalCode === null) proxy.child.kill('SIGKILL');
  });
  for (const chunk of chunks) proxy.child.stdin.write(chunk);

  await waitFor(() => proxy.stdout().length >= expected.length, 20_000, `${expected.length} bytes of responses`).catch(
    (error: Error) => t.fail(error.message, { got: proxy.stdout().length, stderr: proxy.stderr() }),
  );
  // Anything extra the proxy might add would arrive right behind; give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const actual = proxy.stdout();

  const lines = linesOf(actual);
  t.equal(lines.length, COUNT, `${COUNT} response lines arrived`);
  const ids = lines.map((line) => {
    try {
      return (JSON.parse(line) as { id: unknown }).id;
    } catch {
      return `unparseable: ${line.slice(0, 80)}`;
    }
  });
  const inOrder = ids.findIndex((id, i) => id !== i + 1);
  t.equal(inOrder, -1, 'ids are 1..1000 in order', inOrder === -1 ? {} : { index: inOrder, found: ids[inOrder] });

  const expectedLines = linesOf(expected);
  const firstDiff = expectedLines.findIndex((line, i) => lines[i] !== line);
  t.equal(
    firstDiff,
    -1,
    'every response line is byte-identical to what the server wrote',
    firstDiff === -1 ? {} : { line: firstDiff + 1, found: lines[firstDiff], wanted: expectedLines[firstDiff] },
  );
  t.ok(actual.equals(expected), `the whole stdout is exactly the server's bytes (${actual.length} of ${expected.length})`);

  proxy.child.stdin.end();
  const { code, signal } = await proxy.exited;
  t.same({ code, signal }, { code: 0, signal: null }, 'the proxy exits 0 when the host closes stdin');
  t.equal(proxy.stdout().length, expected.length, 'nothing else was written to stdout');
  t.notMatch(proxy.stderr(), /not JSON-RPC/, 'no response was taken for stdout noise');
});
