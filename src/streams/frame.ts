/**
 * The unit that flows through a relay: one line of the wire, with its exact
 * bytes, and what the classifier learned about it.
 *
 * @module
 */

import type { LiftOptions } from '../gates/lift.js';
import type { Outcome } from '../gates/outcome.js';

/** Which way a frame travels. */
export type Direction = 'client-to-server' | 'server-to-client';

/** What a frame turned out to be, once classified. */
export type FrameType =
  | 'request'
  | 'notification'
  | 'response'
  | 'error'
  | 'batch'
  | 'noise'
  | 'raw';

/** A JSON-RPC id, as it appeared on the wire. */
export type JsonRpcId = string | number | null;

/** The JSON-RPC message of a frame, parsed from a copy of its bytes. */
export interface JsonRpcMessage {
  /** The protocol version, `"2.0"` (the classifier takes a line with any other for noise). */
  jsonrpc: string;
  /** The id of a request or a response; absent on a notification. */
  id?: JsonRpcId;
  /** The method of a request or a notification. */
  method?: string;
  /** The parameters of a request or a notification. */
  params?: unknown;
  /** The result of a successful response. */
  result?: unknown;
  /** The error of a failed response. */
  error?: {
    /** The JSON-RPC error code. */
    code?: number;
    /** The error's short description. */
    message?: string;
    /** Anything else the peer attached to the error. */
    data?: unknown;
  };
  [key: string]: unknown;
}

/** The graph node a frame belongs to, by the spec's naming tables. */
export interface NodeRef {
  /** Stable per logical node, e.g. `tool:echo` or `mcp:initialize`. */
  nodeId: string;
  /** What sort of node it is, e.g. `tool` for `tools/call`, `llm` for sampling, `custom` for protocol methods. */
  kind: 'server' | 'tool' | 'resource' | 'prompt' | 'llm' | 'custom';
  /** The parent's nodeId: `mcp:session` or `mcp:protocol`. */
  parent: string;
  /** Human label shown in the viewer. */
  label: string;
}

/**
 * One frame of the wire.
 *
 * `raw` is exactly what arrived, terminator included; it is what a writer
 * writes unless a gate deliberately replaced the frame.
 */
export interface Frame {
  /** The exact bytes: one line with its `\n` (and any `\r`), or a raw chunk. */
  raw: Buffer;
  /** Which way the frame travels. */
  direction: Direction;
  /** Per-direction sequence number, from 1. */
  seq: number;
  /**
   * The line's length in bytes. It equals `raw.length` except for a long
   * line relayed in pieces whose bytes were not all kept (see `streamed`):
   * then `raw` holds only its head.
   */
  size: number;
  /**
   * The line's bytes were relayed in pieces as they arrived, ahead of this
   * frame, because no gate could hold it: writers do not write this frame
   * again and gates do not hold it. It still carries the line's
   * classification, and its bytes when the line was at most
   * `keepStreamedBytes` long.
   */
  streamed: boolean;
  /**
   * On a piece of a long line relayed as it arrives (a `raw` frame): the
   * frame of the whole line, which follows its last piece.
   */
  partOf: Frame | undefined;
  /**
   * `false` for the last bytes of a stream that ended without a newline, and
   * for raw chunks relayed after the stream degraded.
   */
  terminated: boolean;
  /** Set by the {@link Classifier}; absent on raw (degraded) chunks. */
  type?: FrameType;
  /**
   * The parsed copy of a JSON-RPC frame, once somebody asked for it through
   * {@link messageOf}. Classification reads the envelope straight from the
   * bytes and does not parse the whole frame.
   */
  message?: JsonRpcMessage;
  /** The request method (for a response: the method of its request). */
  method?: string;
  /** The JSON-RPC id, for requests and responses. */
  id?: JsonRpcId;
  /** For a response: the request frame it answers, when known. */
  request?: Frame;
  /** The graph node this frame belongs to (absent for noise and raw). */
  node?: NodeRef;
  /** A `tools/call` result that reports a failure (`isError: true`). */
  isError?: boolean;
  /**
   * Where the message's `params` (a request or notification) or `result` (a
   * response) is in `raw`: the byte range of its value, `-1` to `-1` when
   * there is none or it was not read from `raw` (a line relayed in pieces).
   * Set by the {@link Classifier}, so that an observer can copy the value's
   * JSON text without parsing the frame.
   */
  payloadStart: number;
  /** The end (exclusive) of the byte range that starts at `payloadStart`; `-1` when there is none. */
  payloadEnd: number;
  /**
   * The execution this request or notification was recorded as, set by an
   * observer that records runs (the proxy's graph recorder).
   */
  instanceId?: string;
  /**
   * For a request: its answer, when an observer records the two together
   * (the graph recorder, when both wait in the same batch).
   */
  answer?: Frame;
  /**
   * A frame made by a gate's decision rather than read from the wire (an
   * injected answer, an abort's error, a replacement notification): the
   * `Lifter` stage writes its bytes (`raw` is empty until then).
   */
  made?: MadeFrame;
  /**
   * For a gate that can change where frames go (the proxy's restart gate):
   * the number of the destination this frame was given to, `0` until a gate
   * sets it. A field of every frame rather than a side table, because one
   * more entry per request in a `WeakSet` cost the relay a fifth of its
   * pipelined throughput (garbage collection of the weak entries).
   */
  deliveredTo: number;
  /**
   * When the relay read the bytes that completed this frame, in ms since
   * the epoch: one clock reading per input chunk, shared by the frames it
   * completed.
   */
  at: number;
}

/**
 * What a decision made in place of a frame (see `outcomeOf`): an answer to
 * `request` (a value lifted into its method's result, a whole message
 * typed by the user, or the abort error), or a notification's replacement.
 */
export interface MadeFrame {
  /** The decision's outcome that this frame carries out. */
  outcome: Extract<Outcome, { kind: 'answer' | 'answer-frame' | 'fail' | 'replace' }>;
  /** The call an answer answers: its id is the answer's, its method shapes a lifted result. */
  request: Frame;
  /** How a lifted value is stamped (the era) and, for a read, its URI. */
  lift: LiftOptions;
  /** What the frame carries, once worked out (see `madeValue`). */
  value?: unknown;
}

/**
 * A new frame with every field present, so that all frames share one
 * object shape and the stages that read them stay fast (monomorphic).
 * `at` is when its bytes were read (default: now).
 */
export function newFrame(raw: Buffer, direction: Direction, seq: number, terminated: boolean, at: number = Date.now()): Frame {
  return {
    raw,
    direction,
    seq,
    size: raw.length,
    streamed: false,
    partOf: undefined,
    terminated,
    type: undefined,
    message: undefined,
    method: undefined,
    id: undefined,
    request: undefined,
    node: undefined,
    isError: undefined,
    payloadStart: -1,
    payloadEnd: -1,
    instanceId: undefined,
    answer: undefined,
    made: undefined,
    deliveredTo: 0,
    // A time in ms since the epoch does not fit a small integer, so every
    // frame's `at` is a double from the start: a field that began as a
    // small integer and later took a time would change every frame's object
    // shape (and throw away the optimised code of every stage that reads
    // frames).
    at,
  };
}

/**
 * What flows between the stages of a relay: the frames of one input chunk,
 * in order. Batching keeps the per-frame cost of the stream machinery out
 * of the hot path; every stage still sees every frame.
 */
export type FrameBatch = Frame[];

/**
 * True if `raw` holds the frame's whole line: false only for a long line
 * relayed in pieces whose bytes were not all kept (see `Frame.size`).
 */
export function hasWholeLine(frame: Frame): boolean {
  return frame.raw.length === frame.size;
}

/**
 * The parsed copy of a frame's JSON-RPC message (parsed on first use and
 * kept), or undefined for noise, raw bytes and batches.
 */
export function messageOf(frame: Frame): JsonRpcMessage | undefined {
  if (frame.message !== undefined) return frame.message;
  if (frame.type === undefined || frame.type === 'noise' || frame.type === 'raw' || frame.type === 'batch') return undefined;
  // Only the head of a long streamed line was kept: there is nothing whole to parse.
  if (!hasWholeLine(frame)) return undefined;
  try {
    frame.message = JSON.parse(frame.raw.toString('utf8')) as JsonRpcMessage;
  } catch {
    return undefined;
  }
  return frame.message;
}
