// What the host sees of a restart, byte for byte: a raw stdio host writes
// lines to `graphmind mcp-proxy --watch`'s stdin and reads its stdout. The
// stdout holds exactly one answer to each of the host's own requests (the
// proxy's -32098 and -32097 among them) plus the list_changed the proxy
// announces, and nothing of the handshake it replays to each new server.
import t from 'tap';
import { startProxy, waitFor, type ProxyProcess } from './helpers/cli.js';
import { proxyEnv } from './helpers/gates.js';
import { FAILED_LINE, NOT_RUNNING, RESTARTED, RESTARTED_LINE, RESTARTED_MESSAGE, allGone, project, replayed, type Project } from './fixtures/restart/sessions.js';

interface Message {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A host that speaks raw lines to the proxy. */
class RawHost {
  constructor(readonly proxy: ProxyProcess) {}

  send(message: Record<string, unknown>): void {
    this.proxy.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  /** Every line the proxy wrote to stdout, as it wrote them. */
  lines(): string[] {
    const text = this.proxy.stdout().toString('utf8');
    const lines = text.split('\n');
    lines.pop();
    return lines;
  }

  messages(): Message[] {
    return this.lines().map((line) => JSON.parse(line) as Message);
  }

  async answer(id: unknown, timeoutMs = 20_000): Promise<Message> {
    let found: Message | undefined;
    await waitFor(() => (found = this.messages().find((m) => m.id === id && m.method === undefined)) !== undefined, timeoutMs, `the answer to ${JSON.stringify(id)}`);
    return found as Message;
  }

  restartLines(): string[] {
    return this.proxy
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith(RESTARTED_LINE) || line.startsWith(FAILED_LINE));
  }

  async restarted(count: number): Promise<string> {
    await waitFor(() => this.restartLines().length >= count, 30_000, `restart line ${count}; stderr:\n${this.proxy.stderr()}`);
    return this.restartLines()[count - 1] as string;
  }
}

function start(p: Project): RawHost {
  return new RawHost(startProxy(['--watch', p.dir], [process.execPath, p.file], { env: { ...proxyEnv(undefined), ...p.env() } }));
}

t.test('the host gets answers to its own requests and the announced list change, nothing else', async (t) => {
  const p = project(t, { sdk: 1, tag: 'gen0' });
  const host = start(p);
  t.teardown(() => host.proxy.child.kill('SIGKILL'));
  host.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-host', version: '1' } } });
  await host.answer(1);
  host.send({ method: 'notifications/initialized' });
  host.send({ id: 2, method: 'tools/list' });
  host.send({ id: 'r-3', method: 'resources/list', params: {} });
  host.send({ id: 4, method: 'logging/setLevel', params: { level: 'warning' } });
  host.send({ id: 5, method: 'resources/subscribe', params: { uri: 'test://greeting' } });
  for (const id of [2, 'r-3', 4, 5]) await host.answer(id);

  // A slow call in flight, then the fix (a tool added).
  host.send({ id: 6, method: 'tools/call', params: { name: 'slow', arguments: { ms: 120_000 } } });
  await waitFor(() => p.messages().some((m) => m.id === 6), 20_000, 'the slow call to reach the server');
  p.save({ sdk: 1, tag: 'gen1', added: true });
  t.match(await host.restarted(1), /tools changed \(the host was told\)$/, 'restarted; the tools changed, the resources did not');
  const inFlight = await host.answer(6);
  t.strictSame(inFlight.error, { code: RESTARTED, message: RESTARTED_MESSAGE }, 'the call in flight: -32098');
  host.send({ id: 7, method: 'tools/call', params: { name: 'hello', arguments: { text: 'x' } } });
  t.equal((await host.answer(7)).result?.content !== undefined, true, 'a call after the restart is answered');

  // A fix that does not parse: requests are answered here; the next save recovers.
  p.save({ sdk: 1, tag: 'gen2', broken: true });
  await host.restarted(2);
  host.send({ id: 8, method: 'tools/call', params: { name: 'hello', arguments: { text: 'y' } } });
  const down = await host.answer(8);
  t.equal(down.error?.code, NOT_RUNNING, 'while down: -32097');
  host.send({ method: 'notifications/cancelled', params: { requestId: 99 } });
  p.save({ sdk: 1, tag: 'gen3', added: true });
  t.match(await host.restarted(3), RESTARTED_LINE);
  host.send({ id: 9, method: 'tools/call', params: { name: 'hello', arguments: { text: 'z' } } });
  const last = await host.answer(9);
  t.strictSame(last.result?.content, [{ type: 'text', text: 'gen3: z' }], 'the recovered server answers');

  host.proxy.child.stdin.end();
  const exit = await host.proxy.exited;
  t.equal(exit.code, 0, "the proxy exits with the last server's code");

  // Byte-checked: every line is one of ours to the host, once.
  const stdout = host.proxy.stdout().toString('utf8');
  t.notOk(stdout.includes('graphmind-restart-'), 'no id of the replay reached the host');
  t.ok(stdout.endsWith('\n'), 'whole lines only');
  const messages = host.messages();
  const answers = messages.filter((m) => m.method === undefined).map((m) => m.id);
  t.strictSame(answers.slice().sort((a, b) => String(a).localeCompare(String(b))), [1, 2, 4, 5, 6, 7, 8, 9, 'r-3'], 'one answer to each request of the host, and no other');
  const notes = host.lines().filter((line) => line.includes('"method"'));
  t.strictSame(notes, ['{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'], 'and one notification: the list change the proxy announced (gen3 has the same tools as gen1)');
  const order = messages.map((m) => m.method ?? m.id);
  t.ok(order.indexOf('notifications/tools/list_changed') > order.indexOf(6), 'announced after the call in flight was answered');
  t.ok(order.indexOf('notifications/tools/list_changed') < order.indexOf(7), 'and before anything the new server answered');

  // And at the servers: the replay, with ids of the proxy's own.
  const ours = replayed(p);
  t.strictSame(
    ours.map((m) => `${m.id} ${m.method}`),
    [
      'graphmind-restart-1-1 initialize',
      'graphmind-restart-1-2 logging/setLevel',
      'graphmind-restart-1-3 resources/subscribe',
      'graphmind-restart-1-4 tools/list',
      'graphmind-restart-1-5 resources/list',
      // gen2 never read its stdin (it did not parse), so it logged nothing.
      'graphmind-restart-3-1 initialize',
      'graphmind-restart-3-2 logging/setLevel',
      'graphmind-restart-3-3 resources/subscribe',
      'graphmind-restart-3-4 tools/list',
      'graphmind-restart-3-5 resources/list',
    ],
    'each new server got the handshake and the state, in order',
  );
  const received = p.received();
  const lineOf = (id: string): string | undefined => received.find((line) => line.includes(`"id":"${id}"`));
  t.equal(lineOf('graphmind-restart-1-1'), received[0]?.replace('"id":1', '"id":"graphmind-restart-1-1"'), "the replayed initialize is the host's line, only its id changed");
  t.equal(lineOf('graphmind-restart-1-5'), received.find((line) => line.includes('"id":"r-3"'))?.replace('"id":"r-3"', '"id":"graphmind-restart-1-5"'), "a list fetched again with the host's own request line");
  t.notOk(received.some((line) => line.includes('"requestId":99')), 'a notification while down went nowhere');
  t.strictSame(await allGone(p.pids()), [], 'no server left');
});
