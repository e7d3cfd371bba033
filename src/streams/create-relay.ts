import type { Readable, Writable } from 'node:stream';
import { Classifier } from './classifier.js';
import { Correlator } from './correlator.js';
import { driveDirection, type DirectionControl } from './drive-direction.js';
import type { Direction, Frame, FrameBatch } from './frame.js';
import { FrameWriter } from './frame-writer.js';
import { GateTransform, type FrameGate } from './gate-transform.js';
import { Lifter } from './lifter.js';
import { DEFAULT_MAX_FRAME_BYTES, LineFramer } from './line-framer.js';

/** One side of a relay: where its bytes come from and where ours go. */
export interface RelayEndpoint {
  /** What this peer writes: the relay reads it. */
  readable: Readable;
  /** What this peer reads: the relay writes to it. */
  writable: NodeJS.WritableStream & Writable;
  /**
   * End `writable` when the other side's stream ends. Leave it on for a
   * child's stdin; turn it off for `process.stdout`.
   * @default true
   */
  end?: boolean;
}

/** Options for {@link createRelay}. */
export interface RelayOptions {
  /** The MCP client (host) side: for the CLI, the proxy's own stdin/stdout. */
  client: RelayEndpoint;
  /** The MCP server side: for the CLI, the child's stdin/stdout. */
  server: RelayEndpoint;
  /**
   * Frame-assembly ceiling per direction; a longer line degrades that
   * direction to a raw byte pipe.
   * @default 67108864 (64 MiB)
   */
  maxFrameBytes?: number;
  /**
   * Observer called with every classified frame of both directions.
   * Exceptions are swallowed.
   * @default undefined
   */
  onFrame?: (frame: Frame) => void;
  /**
   * Called once per direction that falls back to raw bytes.
   * @default undefined
   */
  onDegrade?: (direction: Direction, bytes: number) => void;
  /**
   * The gate consulted for every frame of both directions.
   * @default undefined (everything passes)
   */
  gate?: FrameGate;
}

/**
 * The stages of one direction, in pipeline order. The relay calls them
 * directly rather than piping them (see {@link createRelay}), so they emit
 * no `'data'` of their own: observe frames through `onFrame`, and the end
 * through `done` (the writer also emits `'finish'` then).
 */
export interface RelayDirection {
  /** Which way this direction's frames travel. */
  readonly direction: Direction;
  /** Stage 1: bytes in, one frame per line. */
  readonly framer: LineFramer;
  /** Stage 2: annotates each frame (type, method, id, node, request); shares the relay's correlator. */
  readonly classifier: Classifier;
  /** Stage 3: asks the relay's gate about each frame and holds what it holds. */
  readonly gate: GateTransform;
  /** Stage 4: gives the frames made by a decision their bytes. */
  readonly lifter: Lifter;
  /** Stage 5: writes each frame's bytes to the other peer. */
  readonly writer: FrameWriter;
  /** Settles when this direction has ended (rejects if it failed). */
  readonly done: Promise<void>;
  /**
   * Write frames that did not come through this direction's pipeline (an
   * answer a gate made for a request held in the other direction): the
   * lifter gives made frames their bytes, and the writer puts them after
   * what it has written, never inside a line.
   */
  send(frames: FrameBatch): void;
}

/** A running relay. */
export interface Relay {
  /** Client → server: the host's requests on their way to the server. */
  readonly toServer: RelayDirection;
  /** Server → client: answers, notifications and server requests. */
  readonly toClient: RelayDirection;
  /** The session's request/response table, shared by both directions. */
  readonly correlator: Correlator;
  /** Tear both directions down. */
  destroy(error?: Error): void;
  /**
   * Relay to and from another server from now on (a restarted process):
   * the host's frames go to `server.writable`, and `server.readable` is
   * read instead of the old server's output, which is let go (what of it
   * was not read yet, and a line it left unfinished, are dropped). The
   * host's side, the correlator and the gates stay as they are.
   */
  replaceServer(server: RelayEndpoint): void;
}

function buildDirection(
  direction: Direction,
  source: Readable,
  sink: RelayEndpoint,
  correlator: Correlator,
  options: RelayOptions,
  control: DirectionControl,
): RelayDirection {
  const gateCore = options.gate;
  const nothingHolds = (): boolean => gateCore === undefined || gateCore.mayHold?.(direction) === false;
  const framer = new LineFramer({
    direction,
    maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    // Long lines go on in pieces only while nothing could hold them.
    canStream: nothingHolds,
  });
  const classifier = new Classifier({ direction, correlator, onFrame: options.onFrame });
  const gate = new GateTransform({ gate: options.gate });
  const lifter = new Lifter();
  const writer = new FrameWriter({ destination: sink.writable, end: sink.end ?? true });
  if (options.onDegrade !== undefined) {
    const onDegrade = options.onDegrade;
    framer.once('degraded', (info: { bytes: number }) => onDegrade(direction, info.bytes));
  }
  const done = driveDirection(source, { framer, classifier, gate, lifter, writer, nothingHolds }, control);
  // A failed direction is reported through `done`; never as an unhandled rejection.
  done.catch(() => {});
  const send = (frames: FrameBatch): void => {
    for (const frame of lifter.lift(frames)) writer.writeBytes(frame.raw);
  };
  return { direction, framer, classifier, gate, lifter, writer, done, send };
}

/**
 * Wire a byte-exact, observable relay between an MCP client and an MCP
 * server: line framer → classifier → gate → lifter → writer, once per
 * direction, sharing one correlator.
 *
 * The stages are the exported Transform streams, but the relay does not
 * pipe them: it calls each stage's synchronous core (`frame`,
 * `classifyBatch`, `passBatch`, `lift`, `writeBatch`) in turn as a chunk
 * arrives, which keeps the stream machinery's per-stage cost off every
 * call. Flow control is the pipeline's: a held frame pauses the source, so
 * does a destination that cannot keep up, and order is kept. To put a
 * stage of your own between them, pipe the transforms yourself (see
 * docs/streams.md).
 *
 * The endpoints can be anything stream-shaped: a child's stdio, sockets,
 * or in-memory `PassThrough`s.
 *
 * @example
 * ```ts
 * import { spawn } from 'node:child_process';
 * import { createRelay } from 'graphmind-ai';
 *
 * const child = spawn('node', ['server.js'], { stdio: ['pipe', 'pipe', 'inherit'] });
 * createRelay({
 *   client: { readable: process.stdin, writable: process.stdout, end: false },
 *   server: { readable: child.stdout, writable: child.stdin },
 *   onFrame: (frame) => console.error(frame.direction, frame.type, frame.method ?? ''),
 * });
 * ```
 */
export function createRelay(options: RelayOptions): Relay {
  const correlator = new Correlator();
  const fromServer: DirectionControl = {};
  const toServer = buildDirection('client-to-server', options.client.readable, options.server, correlator, options, {});
  const toClient = buildDirection('server-to-client', options.server.readable, options.client, correlator, options, fromServer);
  return {
    toServer,
    toClient,
    correlator,
    destroy(error?: Error) {
      for (const dir of [toServer, toClient]) {
        dir.framer.destroy(error);
        dir.writer.destroy(error);
      }
    },
    replaceServer(server: RelayEndpoint) {
      toServer.writer.redirect(server.writable);
      fromServer.switchSource?.(server.readable);
    },
  };
}
