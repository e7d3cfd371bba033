import { Transform, type TransformCallback } from 'node:stream';
import { Correlator } from './correlator.js';
import type { Direction, Frame, JsonRpcMessage } from './frame.js';
import { STDOUT_NOISE_NODE, nodeForMethod } from './node-naming.js';

/** Options for {@link Classifier}. */
export interface ClassifierOptions {
  /** Which way the frames travel. */
  direction: Direction;
  /**
   * The session's correlator. Share one between the two directions of a
   * session so that a response finds its request.
   * @default a new Correlator (responses then find requests only if this
   * classifier saw them, which is never for a single direction)
   */
  correlator?: Correlator;
  /**
   * Called with each frame once classified, before it moves on. An observer
   * that throws is ignored: observation never stops delivery.
   * @default undefined
   */
  onFrame?: (frame: Frame) => void;
  /**
   * Objects buffered on each side before backpressure applies.
   * @default 16
   */
  highWaterMark?: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isJsonRpc(value: unknown): value is JsonRpcMessage {
  return isObject(value) && value.jsonrpc === '2.0';
}

/**
 * Frames in, the same frames out, annotated: request, notification,
 * response, error, batch or noise; method; id; and the graph node.
 *
 * It parses a copy of each frame and never touches `frame.raw`. A line that
 * is not JSON, or is JSON but not a JSON-RPC message (a logger's one-object
 * line, say), is `noise`.
 */
export class Classifier extends Transform {
  readonly direction: Direction;
  readonly correlator: Correlator;
  readonly #onFrame: ((frame: Frame) => void) | undefined;

  constructor(options: ClassifierOptions) {
    const hwm = options.highWaterMark ?? 16;
    super({ objectMode: true, readableHighWaterMark: hwm, writableHighWaterMark: hwm });
    this.direction = options.direction;
    this.correlator = options.correlator ?? new Correlator();
    this.#onFrame = options.onFrame;
  }

  override _transform(frame: Frame, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (frame.type !== 'raw') classify(frame, this.correlator);
    if (this.#onFrame !== undefined) {
      try {
        this.#onFrame(frame);
      } catch {
        // Observation is best-effort; the frame is delivered regardless.
      }
    }
    callback(null, frame);
  }
}

/**
 * Classify one frame in place (the function behind {@link Classifier}).
 * Exposed for transports that frame messages themselves.
 */
export function classify(frame: Frame, correlator: Correlator): Frame {
  let message: unknown;
  try {
    message = JSON.parse(frame.raw.toString('utf8'));
  } catch {
    return markNoise(frame);
  }
  if (Array.isArray(message)) {
    frame.type = message.length > 0 && message.every(isJsonRpc) ? 'batch' : 'noise';
    if (frame.type === 'noise') return markNoise(frame);
    return frame;
  }
  if (!isJsonRpc(message)) return markNoise(frame);
  frame.message = message;
  const { method, id } = message;
  if (typeof method === 'string') {
    frame.method = method;
    frame.node = nodeForMethod(method, frame.direction, message.params);
    if (id === undefined) {
      frame.type = 'notification';
    } else {
      frame.type = 'request';
      frame.id = id;
      correlator.track(frame);
    }
    return frame;
  }
  if (id !== undefined && ('result' in message || 'error' in message)) {
    frame.type = 'error' in message ? 'error' : 'response';
    frame.id = id;
    const request = correlator.take(frame.direction, id);
    if (request !== undefined) {
      frame.request = request;
      frame.method = request.method;
      frame.node = request.node;
    }
    return frame;
  }
  return markNoise(frame);
}

function markNoise(frame: Frame): Frame {
  frame.type = 'noise';
  if (frame.direction === 'server-to-client') frame.node = STDOUT_NOISE_NODE;
  return frame;
}
