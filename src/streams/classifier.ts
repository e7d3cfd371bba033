import { Transform, type TransformCallback } from 'node:stream';
import { Correlator } from './correlator.js';
import { isObject } from '../json/is-object.js';
import { isTrue, valueAt } from '../json/read-value.js';
import { StringInterner } from '../json/string-interner.js';
import { Envelope, isVersion2, scanEnvelope } from './envelope.js';
import { keyAt } from './exact-id.js';
import type { Direction, Frame, FrameBatch, JsonRpcId } from './frame.js';
import { STDOUT_NOISE_NODE, namingParam, nodeFor } from './node-naming.js';
import { SkeletonReader } from './skeleton.js';

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
  /** Which way the frames travel. */
  readonly direction: Direction;
  /** The request/response table this classifier records requests in and matches responses against. */
  readonly correlator: Correlator;
  readonly #onFrame: ((frame: Frame) => void) | undefined;
  /** Reads the line currently arriving in pieces, if any. */
  #skeleton: SkeletonReader | undefined;
  #skeletonOf: Frame | undefined;

  constructor(options: ClassifierOptions) {
    const hwm = options.highWaterMark ?? 16;
    super({ objectMode: true, readableHighWaterMark: hwm, writableHighWaterMark: hwm });
    this.direction = options.direction;
    this.correlator = options.correlator ?? new Correlator();
    this.#onFrame = options.onFrame;
  }

  /** Node's Transform hook: classify the batch in place (see {@link Classifier.classifyBatch}) and pass it on. */
  override _transform(batch: FrameBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.classifyBatch(batch);
    callback(null, batch);
  }

  /**
   * Classify a batch in place and show each frame to the observer: what
   * `_transform` does, for a caller that drives the classifier directly
   * (as {@link createRelay} does).
   */
  classifyBatch(batch: FrameBatch): void {
    const onFrame = this.#onFrame;
    for (const frame of batch) {
      if (frame.partOf !== undefined) {
        // A piece of a long line on its way: read it as it passes; the
        // line is classified (and observed) when its own frame follows.
        this.#readPiece(frame);
        continue;
      }
      if (frame.streamed) this.#classifyStreamed(frame);
      else if (frame.type !== 'raw') classify(frame, this.correlator);
      if (onFrame !== undefined) {
        try {
          onFrame(frame);
        } catch {
          // Observation is best-effort; the frame is delivered regardless.
        }
      }
    }
  }

  #readPiece(piece: Frame): void {
    if (this.#skeletonOf !== piece.partOf) {
      this.#skeleton ??= new SkeletonReader();
      this.#skeleton.reset();
      this.#skeletonOf = piece.partOf;
    }
    this.#skeleton?.push(piece.raw);
  }

  /** A line that went out in pieces: classify it from what was read of them. */
  #classifyStreamed(frame: Frame): void {
    const skeleton = this.#skeletonOf === frame && this.#skeleton !== undefined ? this.#skeleton.finish() : { kind: 'other' as const };
    this.#skeletonOf = undefined;
    if (skeleton.kind === 'object') classify(frame, this.correlator, skeleton.bytes);
    else if (skeleton.kind === 'array') frame.type = 'batch';
    else markNoise(frame);
  }
}

function isJsonRpcArray(bytes: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return (
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((item: unknown) => isObject(item) && item.jsonrpc === '2.0')
    );
  } catch {
    return false;
  }
}

// Reused by every call: an envelope is consumed before classify returns.
const scratch = new Envelope();
// Methods and naming values repeat; per direction, so that one side's
// traffic does not push the other's out.
const methodsToServer = new StringInterner();
const methodsToClient = new StringInterner();
const names = new StringInterner();

/**
 * Classify one frame in place (the function behind {@link Classifier}), for
 * transports that frame messages themselves.
 *
 * @param bytes what to read the message from, if not `frame.raw`: the same
 *   JSON text, e.g. a compact copy of a line that was relayed in pieces.
 *   Everything classify learns comes from these bytes.
 */
export function classify(frame: Frame, correlator: Correlator, bytes: Buffer = frame.raw): Frame {
  const env = scanEnvelope(bytes, scratch);
  if (env === undefined) {
    let first = 0;
    while (first < bytes.length && (bytes[first] === 0x20 || bytes[first] === 0x09)) first++;
    if (bytes[first] === 0x5b && isJsonRpcArray(bytes)) {
      frame.type = 'batch';
      return frame;
    }
    return markNoise(frame);
  }
  if (!isVersion2(bytes, env.jsonrpc, env.jsonrpcEnd)) return markNoise(frame);
  const direction = frame.direction;
  if (env.method !== -1) {
    const toServer = direction === 'client-to-server';
    const method = (toServer ? methodsToServer : methodsToClient).stringAt(bytes, env.method, env.methodEnd);
    if (method === undefined) return markNoise(frame);
    frame.method = method;
    const key = namingParam(method, direction);
    let field: string | undefined;
    if (key === 'name') field = names.stringAt(bytes, env.name, env.nameEnd);
    else if (key === 'uri') field = names.stringAt(bytes, env.uri, env.uriEnd);
    frame.node = nodeFor(method, direction, field);
    if (bytes === frame.raw) {
      frame.payloadStart = env.params;
      frame.payloadEnd = env.paramsEnd;
    }
    if (env.id === -1) {
      frame.type = 'notification';
    } else {
      frame.type = 'request';
      const id = valueAt(bytes, env.id, env.idEnd) as JsonRpcId;
      frame.id = id;
      correlator.track(frame, keyAt(bytes, env.id, env.idEnd, id));
    }
    return frame;
  }
  const hasResult = env.result !== -1;
  if (env.id !== -1 && (hasResult || env.error !== -1)) {
    const id = valueAt(bytes, env.id, env.idEnd) as JsonRpcId;
    frame.type = hasResult ? 'response' : 'error';
    frame.id = id;
    if (hasResult && bytes === frame.raw) {
      frame.payloadStart = env.result;
      frame.payloadEnd = env.resultEnd;
    }
    // An integer past 2^53 is keyed exactly (a rounded number would pair it with its neighbour).
    const request = correlator.take(direction, keyAt(bytes, env.id, env.idEnd, id));
    if (request !== undefined) {
      frame.request = request;
      frame.method = request.method;
      frame.node = request.node;
      if (hasResult && request.method === 'tools/call' && isTrue(bytes, env.isError, env.isErrorEnd)) {
        frame.isError = true;
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
