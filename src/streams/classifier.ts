import { Transform, type TransformCallback } from 'node:stream';
import { Correlator } from './correlator.js';
import { memberRange, scanEnvelope, valueAt, valueIs } from './envelope.js';
import type { Direction, Frame, FrameBatch, JsonRpcId } from './frame.js';
import { STDOUT_NOISE_NODE, namingParam, nodeFor } from './node-naming.js';

/** Options for {@link Classifier}. */
export interface ClassifierOptions {
  /** Which way the frames travel. */
  direction: Direction;
  /**
   * The session's correlator. Share one between the two directions of a
   * session so that a response finds its request.
   * @default a new Correlator, private to this classifier
   */
  correlator?: Correlator;
  /**
   * Called with each frame once classified, before it moves on. An observer
   * that throws is ignored: observation never stops delivery.
   * @default undefined
   */
  onFrame?: (frame: Frame) => void;
  /**
   * Batches buffered on each side before backpressure applies.
   * @default 16
   */
  highWaterMark?: number;
}

/**
 * Batches of frames in, the same batches out, each frame annotated:
 * request, notification, response, error, batch or noise; method; id; the
 * graph node; and, for a response, the request it answers.
 *
 * It reads the envelope from the bytes and never changes them. A line that
 * is not a JSON object, or is one but not a JSON-RPC 2.0 message (a
 * logger's one-object line, say), is `noise`.
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

  override _transform(batch: FrameBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
    const onFrame = this.#onFrame;
    for (const frame of batch) {
      if (frame.type !== 'raw') classify(frame, this.correlator);
      if (onFrame !== undefined) {
        try {
          onFrame(frame);
        } catch {
          // Observation is best-effort; the frame is delivered regardless.
        }
      }
    }
    callback(null, batch);
  }
}

function isJsonRpcArray(raw: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return (
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((item: unknown) => item !== null && typeof item === 'object' && (item as { jsonrpc?: unknown }).jsonrpc === '2.0')
    );
  } catch {
    return false;
  }
}

/**
 * Classify one frame in place (the function behind {@link Classifier}), for
 * transports that frame messages themselves.
 */
export function classify(frame: Frame, correlator: Correlator): Frame {
  const raw = frame.raw;
  const env = scanEnvelope(raw);
  if (env === undefined) {
    let first = 0;
    while (first < raw.length && (raw[first] === 0x20 || raw[first] === 0x09)) first++;
    if (raw[first] === 0x5b && isJsonRpcArray(raw)) {
      frame.type = 'batch';
      return frame;
    }
    return markNoise(frame);
  }
  if (!valueIs(raw, env.jsonrpc, env.jsonrpcEnd, '"2.0"')) return markNoise(frame);
  if (env.method !== -1) {
    const method = valueAt(raw, env.method, env.methodEnd);
    if (typeof method !== 'string') return markNoise(frame);
    frame.method = method;
    const key = namingParam(method, frame.direction);
    let field: string | undefined;
    if (key !== undefined) {
      const range = memberRange(raw, env.params, env.paramsEnd, key);
      const value = range === undefined ? undefined : valueAt(raw, range[0], range[1]);
      if (typeof value === 'string') field = value;
    }
    frame.node = nodeFor(method, frame.direction, field);
    if (env.id === -1) {
      frame.type = 'notification';
    } else {
      frame.type = 'request';
      frame.id = valueAt(raw, env.id, env.idEnd) as JsonRpcId;
      correlator.track(frame);
    }
    return frame;
  }
  const hasResult = env.result !== -1;
  if (env.id !== -1 && (hasResult || env.error !== -1)) {
    const id = valueAt(raw, env.id, env.idEnd) as JsonRpcId;
    frame.type = hasResult ? 'response' : 'error';
    frame.id = id;
    const request = correlator.take(frame.direction, id);
    if (request !== undefined) {
      frame.request = request;
      frame.method = request.method;
      frame.node = request.node;
      if (hasResult && request.method === 'tools/call') {
        const isError = memberRange(raw, env.result, env.resultEnd, 'isError');
        if (isError !== undefined && valueIs(raw, isError[0], isError[1], 'true')) frame.isError = true;
      }
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
