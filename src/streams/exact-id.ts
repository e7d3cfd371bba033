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

/** A JSON number's parts: sign, integer digits, fraction digits, exponent. */
const NUMBER = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/**
 * True for a number beyond what a JavaScript number holds exactly as an
 * integer (past 2^53 either way): its JSON text may say more than it does.
 */
export function beyondSafe(id: unknown): id is number {
  return typeof id === 'number' && (id > Number.MAX_SAFE_INTEGER || id < -Number.MAX_SAFE_INTEGER) && Number.isFinite(id);
}

/**
 * The exact integer a JSON number's text spells, however it spells it
 * (`100000000000000000000`, `1e20`, `1.0e20`), or undefined when the text
 * is not an integer.
 */
function exactInteger(text: string): bigint | undefined {
  const parts = NUMBER.exec(text);
  if (parts === null) return undefined;
  const sign = parts[1] ?? '';
  const fraction = parts[3] ?? '';
  const shift = Number(parts[4] ?? '0') - fraction.length;
  let digits = `${parts[2] ?? ''}${fraction}`;
  if (shift < 0) {
    // Only trailing zeros may be shifted out: anything else is a fraction.
    if (!/^0*$/.test(digits.slice(shift))) return undefined;
    digits = digits.slice(0, shift);
  } else if (shift > 400) {
    // Past any finite number: not worth the digits.
    return undefined;
  } else {
    digits += '0'.repeat(shift);
  }
  const value = BigInt(digits === '' ? '0' : digits);
  return sign === '-' ? -value : value;
}

/**
 * The key of the id whose JSON text is `bytes[start, end)` and whose parsed
 * value is `id`: `id` itself, unless it is an integer past 2^53, which is
 * keyed by the exact integer its text spells.
 */
export function keyAt(bytes: Buffer, start: number, end: number, id: JsonRpcId): CorrelationKey {
  if (!beyondSafe(id)) return id;
  return exactInteger(bytes.toString('latin1', start, end)) ?? id;
}

/** The id's JSON text as the frame spelled it, when the parsed id may be rounded; read again from its bytes. */
function spelledId(frame: Frame): string | undefined {
  const env = scanEnvelope(frame.raw);
  return env !== undefined && env.id !== -1 ? frame.raw.toString('latin1', env.id, env.idEnd) : undefined;
}

/**
 * The {@link CorrelationKey} of a classified frame's id (`undefined` if it
 * has none), read again from `frame.raw`. Of a long line relayed in pieces
 * only the head may be kept, and its id may lie beyond it: the classifier
 * keys such a line from the bytes it read, not through this.
 */
export function idKey(frame: Frame): CorrelationKey | undefined {
  const id = frame.id;
  if (!beyondSafe(id)) return id;
  const text = spelledId(frame);
  return (text === undefined ? undefined : exactInteger(text)) ?? id;
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
  if (beyondSafe(id)) return spelledId(frame) ?? JSON.stringify(id);
  return JSON.stringify(id);
}
