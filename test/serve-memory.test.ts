// A big run read by many clients at once: each response used to carry its
// own encoding of the run, so slow readers of a run of tens of MiB could
// pin gigabytes in the server. Responses now share one encoding while the
// run is unchanged.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { RunEvents, api, eventually, fakeReporter, runId, startServe } from './helpers/serve.js';

const MiB = 1024 * 1024;
const node = { nodeId: 'tool:big', kind: 'tool', parent: 'mcp:session', label: 'big' } as const;

/** Resident memory of a live process, bytes. */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) * 1024;
}

t.test('many slow readers of one big run share one copy of it', async (t) => {
  const server = await startServe();
  t.teardown(() => server.stop());
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const id = runId('bigrun');
  const run = new RunEvents(id);
  // 16 calls with 1 MiB inputs each: a run of about 16 MiB as JSON.
  const events = [run.started()];
  for (let i = 1; i <= 16; i++) {
    events.push(run.next({ type: 'instance.started', instanceId: `mcp_${i}`, node, input: { blob: `${i}`.padEnd(MiB, 'x') } }));
  }
  reporter.send(events);
  const whole = await eventually(async () => {
    const answer = await api(server.port, server.token, 'GET', `/api/runs/${id}`);
    return (answer.json as { instances?: unknown[] } | undefined)?.instances?.length === 16 ? answer : undefined;
  }, 20_000, 'the run with its 16 calls');
  const size = Buffer.byteLength(whole.text);
  t.ok(size > 16 * MiB, `the run is ${(size / MiB).toFixed(1)} MiB of JSON`);

  const pid = server.child.pid as number;
  const before = rss(pid);
  const readers = 24;
  const sockets: Socket[] = [];
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
  });
  let heads = 0;
  for (let i = 0; i < readers; i++) {
    const socket = connect(server.port, '127.0.0.1');
    sockets.push(socket);
    // Read the first bytes (the status line), then stop reading: a reader that is slow, not gone.
    socket.once('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('HTTP/1.1 200')) heads++;
      socket.pause();
    });
    socket.write(`GET /api/runs/${id} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
  }
  await eventually(async () => (heads === readers ? true : undefined), 20_000, 'every reader to get its answer started');
  // Let the server take every response as far as it can go.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const grown = rss(pid) - before;
  // Each with its own copy: at least readers × size (384 MiB and more).
  t.ok(grown < 6 * size, `the server grew by ${(grown / MiB).toFixed(0)} MiB for ${readers} readers of ${(size / MiB).toFixed(1)} MiB (one copy each would be ${((readers * size) / MiB).toFixed(0)} MiB)`);

  // Meanwhile the run is still served whole to a reader that reads.
  const again = await api(server.port, server.token, 'GET', `/api/runs/${id}`);
  t.equal(again.text, whole.text, 'a reader that reads gets the same run, byte for byte');

  // A change makes a fresh copy: what is read after it shows the change.
  reporter.send([run.next({ type: 'instance.finished', instanceId: 'mcp_1', output: 'done' })]);
  const changed = await eventually(async () => {
    const answer = await api(server.port, server.token, 'GET', `/api/runs/${id}`);
    const first = (answer.json as { instances?: Array<{ status?: string }> } | undefined)?.instances?.[0];
    return first?.status === 'ok' ? answer : undefined;
  }, 10_000, 'the finished call');
  t.not(changed.text, whole.text, 'a run that changed is encoded anew');
});
