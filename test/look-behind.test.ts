// Looking behind a held frame (FrameGate.behind): the gate is shown what
// waits behind a hold — the frames framed with it, and the lines that
// arrive while it is held, up to LOOK_AHEAD_BYTES — and none of it passes
// until the decision. A gate without `behind` is shown nothing and the
// source pauses at once, as before.
import { PassThrough } from 'node:stream';
import t from 'tap';
import { createRelay } from '../src/streams/create-relay.js';
import { LOOK_AHEAD_BYTES } from '../src/streams/drive-direction.js';
import type { Frame } from '../src/streams/frame.js';
import type { FrameGate } from '../src/streams/gate-transform.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const request = (id: number, name = 'echo'): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}"}}\n`;

function relayWith(looks: boolean) {
  const waiting: Array<{ frame: Frame; release: (frames: readonly Frame[]) => void }> = [];
  const behind: Array<{ text: string; classified: boolean }> = [];
  const gate: FrameGate = {
    check(frame) {
      if (!frame.raw.includes('"hold"')) return undefined;
      return new Promise((resolve) => waiting.push({ frame, release: resolve }));
    },
    mayHold: () => true,
    ...(looks ? { behind: (frame: Frame) => void behind.push({ text: frame.raw.toString(), classified: frame.type !== undefined }) } : {}),
  };
  const hostIn = new PassThrough();
  const serverIn = new PassThrough();
  const relay = createRelay({ client: { readable: hostIn, writable: new PassThrough() }, server: { readable: new PassThrough(), writable: serverIn }, gate });
  const parts: Buffer[] = [];
  serverIn.on('data', (chunk: Buffer) => parts.push(chunk));
  return { relay, hostIn, waiting, behind, atServer: () => Buffer.concat(parts).toString() };
}

t.test('the gate is shown the frames behind a held one, and none of them passes', async (t) => {
  const { relay, hostIn, waiting, behind, atServer } = relayWith(true);
  hostIn.write(request(1, 'hold') + request(2));
  await tick();
  t.strictSame(behind, [{ text: request(2), classified: true }], 'the frame framed with the held one, classified');
  // A line cut across chunks is shown whole, once its end arrives.
  const line = request(3);
  hostIn.write(line.slice(0, 20));
  await tick();
  hostIn.write(line.slice(20) + request(4));
  await tick();
  t.strictSame(behind.slice(1), [{ text: request(3), classified: false }, { text: request(4), classified: false }], 'lines arriving while held, as bytes');
  t.notOk(hostIn.isPaused(), 'the source is still read, for the look');
  t.equal(atServer(), '', 'nothing behind the held frame passed');
  waiting[0]?.release([waiting[0].frame]);
  await tick();
  t.equal(atServer(), request(1, 'hold') + request(2) + request(3) + request(4), 'then all of it, in order, framed for real');
  hostIn.end();
  await relay.toServer.done;
});

t.test(`held means stopped: the look reads at most ${LOOK_AHEAD_BYTES} bytes, then the source pauses`, async (t) => {
  const { relay, hostIn, waiting, behind, atServer } = relayWith(true);
  hostIn.write(request(1, 'hold'));
  await tick();
  const filler = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(1000)}"}}\n`;
  let written = 0;
  while (!hostIn.isPaused() && written < LOOK_AHEAD_BYTES * 4) {
    hostIn.write(filler);
    written += filler.length;
    await tick();
  }
  t.ok(hostIn.isPaused(), 'paused');
  t.ok(written >= LOOK_AHEAD_BYTES && written < LOOK_AHEAD_BYTES + 2 * filler.length, `after the look-ahead (${written} bytes)`);
  const shown = behind.length;
  hostIn.write(filler);
  await tick();
  t.equal(behind.length, shown, 'what comes once paused is not looked at');
  t.equal(atServer(), '', 'and nothing passed');
  waiting[0]?.release([waiting[0].frame]);
  await tick();
  t.equal(atServer().length, request(1, 'hold').length + written + filler.length, 'all of it goes on after the decision');
  hostIn.end();
  await relay.toServer.done;
});

t.test('a gate that does not look behind: the source pauses at once', async (t) => {
  const { relay, hostIn, waiting } = relayWith(false);
  hostIn.write(request(1, 'hold') + request(2));
  await tick();
  t.ok(hostIn.isPaused(), 'paused with the hold');
  waiting[0]?.release([waiting[0].frame]);
  await tick();
  hostIn.end();
  await relay.toServer.done;
});
