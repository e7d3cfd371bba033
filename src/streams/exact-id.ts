import { scanEnvelope } from './envelope.js';
import type { Frame, JsonRpcId } from './frame.js';

/**
 * What the {@link Correlator} pairs a request and its answer by: the id, or,
 * for an integer id too large for a JavaScript number to hold exactly (past
 * 2^53, as 64-bit ids from Go or Python clients can be), that integer as a
 * `bigint`. Parsed as numbers, `9007199254740993` and `9007199254740992`
 * are the same value; as keys they stay two calls.
 */
export type CorrelationKey = JsonRpcId | bigint;

const INTEGER = /^-?[0-9]+$/;

/** True for a number id that its JSON text may spell more exactly than the number does. */
function rounded(id: JsonRpcId | undefined): id is number {
  return typeof id === 'number' && !Number.isSafeInteger(id) && Number.isFinite(id);
}

/**
 * The key of the id whose JSON text is `bytes[start, end)` and whose parsed
 * value is `id`: `id` itself, unless it is an integer past 2^53, which is
 * keyed by its exact digits.
 */
export function keyAt(bytes: Buffer, start: number, end: number, id: JsonRpcId): CorrelationKey {
  if (!rounded(id)) return id;
  const text = bytes.toString('latin1', start, end);
  return INTEGER.test(text) ? BigInt(text) : id;
}

/** The id's JSON text as the frame spelled it, when the parsed id may be rounded; read again from its bytes. */
function spelledId(frame: Frame): string | undefined {
  const env = scanEnvelope(frame.raw);
  return env !== undefined && env.id !== -1 ? frame.raw.toString('latin1', env.id, env.idEnd) : undefined;
}

/** The {@link CorrelationKey} of a classified frame's id (`undefined` if it has none). */
export function idKey(frame: Frame): CorrelationKey | undefined {
  const id = frame.id;
  if (!rounded(id)) return id;
  const text = spelledId(frame);
  return text !== undefined && INTEGER.test(text) ? BigInt(text) : id;
}

/**
 * The frame's id for people to read (in `--trace` and HOLDING lines): a
 * string as it is, a number as JSON, and a number too large to be exact
 * in JavaScript with the digits the frame sent. No id, or `null`: undefined.
 */
export function idForDisplay(frame: Frame): string | undefined {
  const id = frame.id;
  if (id === undefined || id === null) return undefined;
  if (typeof id === 'string') return id;
  if (rounded(id)) return spelledId(frame) ?? JSON.stringify(id);
  return JSON.stringify(id);
}
