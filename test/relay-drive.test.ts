// How createRelay moves frames through its stages: flow control, holds,
// the end, failures, and the order of writing and observing.
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { PassThrough, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import { Classifier } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { createRelay, type Relay } from '../src/streams/create-relay.js';
import type { Frame } from '../src/streams/frame.js';
import { FrameWriter } from '../src/streams/frame-writer.js';
import { GateTransform, type FrameGate } from '../src/streams/gate-transform.js';
import { Lifter } from '../src/streams/lifter.js';
import { LineFramer } from '../src/streams/line-framer.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A relay between in-memory streams; `serverIn` is what the server would read. */
function memoryRelay(options: { gate?: FrameGate; onFrame?: (frame: Frame) => void; serverIn?: Writable } = {}) {
  const hostIn = new PassThrough();
  const hostOut = new PassThrough();
  const serverIn = options.serverIn ?? new PassThrough();
  const serverOut = new PassThrough();
  const relay: Relay = createRelay({
    client: { readable: hostIn, writable: hostOut },
    server: { readable: serverOut, writable: serverIn },
    gate: options.gate,
    onFrame: options.onFrame,
  });
  return { relay, hostIn, hostOut, serverIn, serverOut };
}

function collect(stream: PassThrough): () => string {
  const parts: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => parts.push(chunk));
  return () => Buffer.concat(parts).toString();
}

/** A gate that holds the frames whose text includes `"hold"` until `release()`. */
function holdingGate() {
  const waiting: Array<{ frame: Frame; release: (frames: readonly Frame[]) => void }> = [];
  const checked: string[] = [];
  const gate: FrameGate = {
    check(frame) {
      checked.push(frame.raw.toString().trim());
      if (!frame.raw.includes('"hold"')) return undefined;
      return new Promise((resolve) => waiting.push({ frame, release: resolve }));
    },
    mayHold: () => true,
  };
  return { gate, waiting, checked };
}

const request = (id: number, name = 'echo'): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}"}}\n`;

t.test('a held frame pauses the source; what follows waits unframed, then goes on in order', async (t) => {
  const { gate, waiting, checked } = holdingGate();
  const { relay, hostIn, serverIn } = memoryRelay({ gate });
  const atServer = collect(serverIn as PassThrough);
  hostIn.write(request(1) + request(2, 'hold') + request(3));
  await tick();
  t.equal(atServer(), request(1), 'the frame before the held one went on');
  t.equal(waiting.length, 1, 'one frame is held');
  t.ok(hostIn.isPaused(), 'the source is paused while the frame is held');
  hostIn.write(request(4));
  hostIn.write(request(5));
  await tick();
  t.equal(atServer(), request(1), 'nothing passes the held frame');
  t.same(checked, [request(1).trim(), request(2, 'hold').trim()], 'the gate has not seen what came after the held frame');
  waiting[0]?.release([waiting[0].frame]);
  await tick();
  t.equal(atServer(), request(1) + request(2, 'hold') + request(3) + request(4) + request(5), 'all of it, in order');
  t.notOk(hostIn.isPaused(), 'the source flows again');
  hostIn.end();
  await relay.toServer.done;
});

t.test('a decision can replace or drop the held frame', async (t) => {
  const { gate, waiting } = holdingGate();
  const { relay, hostIn, serverIn } = memoryRelay({ gate });
  const atServer = collect(serverIn as PassThrough);
  hostIn.write(request(1, 'hold') + request(2));
  await tick();
  const replacement = { ...(waiting[0]?.frame as Frame), raw: Buffer.from('{"replaced":true}\n') };
  waiting[0]?.release([replacement]);
  await tick();
  hostIn.write(request(3, 'hold'));
  await tick();
  waiting[1]?.release([]);
  hostIn.end(request(4));
  await relay.toServer.done;
  t.equal(atServer(), '{"replaced":true}\n' + request(2) + request(4));
});

t.test('the source ending while a frame is held: the end waits for the decision', async (t) => {
  const { gate, waiting } = holdingGate();
  const { relay, hostIn, serverIn } = memoryRelay({ gate });
  const atServer = collect(serverIn as PassThrough);
  let done = false;
  void relay.toServer.done.then(() => (done = true));
  // The held line is the stream's last bytes, with no newline after it.
  hostIn.end(`${request(1)}${request(2, 'hold').trim()}`);
  await tick();
  t.equal(waiting.length, 1, 'the unterminated last line is held like any other');
  t.notOk(done, 'the direction has not ended');
  t.notOk(serverIn.writableEnded, 'the server’s stdin is still open');
  waiting[0]?.release([waiting[0].frame]);
  await relay.toServer.done;
  t.equal(atServer(), request(1) + request(2, 'hold').trim(), 'every byte, the last line unchanged');
  t.ok(serverIn.writableEnded, 'then the server’s stdin is ended');
});

t.test('a destination that does not drain pauses the source, and the relay keeps only a chunk', async (t) => {
  const seen: Buffer[] = [];
  let later: Array<() => void> = [];
  const serverIn = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      seen.push(chunk);
      later.push(callback);
    },
  });
  const { relay, hostIn } = memoryRelay({ serverIn });
  const line = request(1, 'x'.repeat(200));
  const sent: string[] = [];
  for (let i = 0; i < 200; i++) {
    sent.push(line);
    hostIn.write(line);
  }
  await tick();
  t.ok(hostIn.isPaused(), 'the source is paused');
  t.ok(serverIn.writableLength <= 1024 + line.length * 20, `the destination holds ${serverIn.writableLength} bytes, not everything`);
  const queued = hostIn.readableLength + hostIn.writableLength;
  t.ok(queued > line.length * 150, `the rest waits at the source (${queued} bytes)`);
  hostIn.end();
  // Let the destination go: every write completes as soon as it is made.
  const flush = (): void => {
    const callbacks = later;
    later = [];
    for (const callback of callbacks) callback();
  };
  const timer = setInterval(flush, 1);
  await relay.toServer.done;
  clearInterval(timer);
  flush();
  t.equal(Buffer.concat(seen).toString(), sent.join(''), 'every byte, in order');
});

t.test('with nothing that could hold, a chunk of several lines goes out before its frames are observed; otherwise after', async (t) => {
  const ping = '{"jsonrpc":"2.0","method":"ping"}\n';
  const pong = '{"jsonrpc":"2.0","method":"pong"}\n';
  const cases = [
    { mayHold: false, chunk: ping + pong, expected: [`write ${ping}${pong}`, 'frame ping', 'frame pong'], what: 'several lines: written first, then classified' },
    { mayHold: false, chunk: ping, expected: ['frame ping', `write ${ping}`], what: 'one line: classified first, then written' },
    { mayHold: true, chunk: ping + pong, expected: ['frame ping', 'frame pong', `write ${ping}${pong}`], what: 'a gate that may hold sees the frames before they go' },
  ];
  for (const { mayHold, chunk, expected, what } of cases) {
    const events: string[] = [];
    const serverIn = new Writable({
      write(bytes: Buffer, _encoding, callback) {
        events.push(`write ${bytes.toString()}`);
        callback();
      },
    });
    const checked: string[] = [];
    const gate: FrameGate = {
      check: (frame) => {
        checked.push(frame.method ?? '?');
        return undefined;
      },
      mayHold: () => mayHold,
    };
    const { relay, hostIn } = memoryRelay({ serverIn, gate, onFrame: (frame) => events.push(`frame ${frame.method}`) });
    hostIn.end(chunk);
    await relay.toServer.done;
    t.same(events, expected, what);
    t.same(checked, expected.filter((e) => e.startsWith('frame ')).map((e) => e.slice(6)), 'the gate saw every classified frame');
  }
});

t.test('an error of the destination rejects the direction and stops reading the source', async (t) => {
  const serverIn = new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
  const { relay, hostIn } = memoryRelay({ serverIn });
  hostIn.write(request(1));
  await t.rejects(relay.toServer.done, { code: 'EPIPE' });
  t.ok(hostIn.destroyed, 'the source is destroyed, as stream.pipeline would');
});

t.test('a source that closes without ending is a premature close; the other direction goes on', async (t) => {
  const { relay, hostIn, serverOut, hostOut } = memoryRelay();
  const atHost = collect(hostOut);
  hostIn.destroy();
  await t.rejects(relay.toServer.done, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
  serverOut.end('{"jsonrpc":"2.0","method":"notifications/message"}\n');
  await relay.toClient.done;
  t.equal(atHost(), '{"jsonrpc":"2.0","method":"notifications/message"}\n');
});

t.test('destroy() tears both directions down; so does destroying a stage', async (t) => {
  const first = memoryRelay();
  first.relay.destroy();
  await t.rejects(first.relay.toServer.done);
  await t.rejects(first.relay.toClient.done);
  t.ok(first.hostIn.destroyed && first.serverOut.destroyed, 'both sources are destroyed');

  const second = memoryRelay();
  const atServer = collect(second.serverIn as PassThrough);
  second.relay.toServer.framer.destroy();
  await t.rejects(second.relay.toServer.done, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
  second.hostIn.write(request(1));
  await tick();
  t.equal(atServer(), '', 'nothing is read after the framer is destroyed');
});

t.test('a source that had already ended still ends the direction', async (t) => {
  const hostIn = new PassThrough();
  hostIn.end();
  hostIn.resume();
  await new Promise((resolve) => hostIn.once('end', resolve));
  const serverIn = new PassThrough();
  const relay = createRelay({
    client: { readable: hostIn, writable: new PassThrough() },
    server: { readable: new PassThrough(), writable: serverIn },
  });
  await relay.toServer.done;
  t.ok(serverIn.writableEnded, 'the server side is ended');
});

t.test('the exported stages piped by hand relay the same bytes, with a stage of ours between them', async (t) => {
  const text = `${request(1)}not json\r\n{"jsonrpc":"2.0","method":"ping"}\n${request(2, 'hold')}tail`;
  const { gate, waiting } = holdingGate();
  const tools: string[] = [];
  const source = new PassThrough();
  const destination = new PassThrough();
  const received = collect(destination);
  const piped = pipeline(
    source,
    new LineFramer({ direction: 'client-to-server' }),
    new Classifier({ direction: 'client-to-server', correlator: new Correlator() }),
    new Transform({
      objectMode: true,
      transform(batch: Frame[], _encoding, callback) {
        for (const frame of batch) if (frame.type === 'request') tools.push(frame.node?.label ?? '?');
        callback(null, batch);
      },
    }),
    new GateTransform({ gate }),
    new Lifter(),
    new FrameWriter({ destination }),
  );
  // Three bytes at a time, so that lines cross chunks.
  for (let i = 0; i < text.length; i += 3) source.write(text.slice(i, i + 3));
  source.end();
  await tick();
  t.equal(waiting.length, 1, 'the gate holds in a hand-made pipeline too');
  waiting[0]?.release([waiting[0].frame]);
  await piped;
  t.equal(received(), text, 'byte for byte');
  t.same(tools, ['echo', 'hold'], 'our stage saw the classified frames');
});

t.test('the writer ends as a piped one would: finished when done resolves, destination ended unless end: false', async (t) => {
  const { relay, hostIn, serverIn } = memoryRelay();
  hostIn.end(request(1));
  await relay.toServer.done;
  t.ok(relay.toServer.writer.writableFinished, 'the writer has finished');
  t.ok(serverIn.writableEnded, 'and ended the server side');
  const open = new PassThrough();
  const serverOut = new PassThrough();
  const kept = createRelay({ client: { readable: new PassThrough(), writable: open, end: false }, server: { readable: serverOut, writable: new PassThrough() } });
  serverOut.end('{"jsonrpc":"2.0","method":"ping"}\n');
  await kept.toClient.done;
  t.ok(kept.toClient.writer.writableFinished, 'finished');
  t.notOk(open.writableEnded, 'a destination with end: false stays open');
});

t.test('a writer that fails while it ends rejects the direction instead of leaving it pending', async (t) => {
  const serverIn = new PassThrough();
  serverIn.end = () => {
    throw new Error('end failed');
  };
  const { relay, hostIn } = memoryRelay({ serverIn });
  hostIn.end(request(1));
  await t.rejects(relay.toServer.done, { message: 'end failed' });
});

t.test('the custom TCP relay of docs/streams.md: sockets on both sides, bytes exact, ends that follow', async (t) => {
  // A line-based "server" on TCP: answers each request line with a result carrying its id.
  const upstreamServer = createServer((socket) => {
    let rest = '';
    socket.on('data', (chunk: Buffer) => {
      rest += chunk.toString();
      let newline = rest.indexOf('\n');
      while (newline !== -1) {
        const line = rest.slice(0, newline);
        rest = rest.slice(newline + 1);
        const { id } = JSON.parse(line) as { id: number };
        socket.write(`{"jsonrpc":"2.0","id":${id},"result":{"echo":"\\u00e9 ${id}"}}\n`);
        newline = rest.indexOf('\n');
      }
    });
    socket.on('end', () => socket.end());
  });
  upstreamServer.listen(0, '127.0.0.1');
  await once(upstreamServer, 'listening');
  const upstreamPort = (upstreamServer.address() as { port: number }).port;
  const relays: Relay[] = [];
  // allowHalfOpen on both sockets: a client that ends its side still gets its answers.
  const relayServer = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ port: upstreamPort, host: '127.0.0.1', allowHalfOpen: true });
    relays.push(
      createRelay({
        client: { readable: client, writable: client },
        server: { readable: upstream, writable: upstream },
      }),
    );
  });
  relayServer.listen(0, '127.0.0.1');
  await once(relayServer, 'listening');
  t.teardown(() => {
    relayServer.close();
    upstreamServer.close();
  });
  const client = connect((relayServer.address() as { port: number }).port, '127.0.0.1');
  await once(client, 'connect');
  const received: Buffer[] = [];
  client.on('data', (chunk: Buffer) => received.push(chunk));
  let sent = '';
  for (let id = 1; id <= 200; id++) sent += request(id);
  client.end(sent);
  await once(client, 'end');
  const expected = Array.from({ length: 200 }, (_, i) => `{"jsonrpc":"2.0","id":${i + 1},"result":{"echo":"\\u00e9 ${i + 1}"}}\n`).join('');
  t.equal(Buffer.concat(received).toString(), expected, '200 answers, byte for byte, in order');
  const relay = relays[0] as Relay;
  await relay.toServer.done;
  await relay.toClient.done;
  t.pass('both directions ended when the client, then the server, closed');
  t.equal(relay.correlator.outstanding('client-to-server').length, 0, 'every request was answered');
});
