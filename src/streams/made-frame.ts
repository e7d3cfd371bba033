import { liftResult } from '../gates/lift.js';
import { scanEnvelope } from './envelope.js';
import { beyondSafe } from './exact-id.js';
import type { Frame, MadeFrame } from './frame.js';

/**
 * The id of `request` as JSON, spelled exactly as the request spelled it:
 * an answer made here must carry the sender's id, and parsing it into a
 * JavaScript number would change `12345678901234567890`, `1e400` or `1.0`.
 * Its value's JSON when the frame's bytes cannot be read again.
 */
function idJson(request: Frame): string {
  const env = scanEnvelope(request.raw);
  if (env !== undefined && env.id !== -1) return request.raw.toString('utf8', env.id, env.idEnd);
  return JSON.stringify(request.id ?? null);
}

/** `value` as one line of JSON. */
function line(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`);
}

/** A made-up answer to `request`: its id as it came, then `tail` (the rest of the members, from the comma). */
function answerLine(request: Frame, tail: string): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","id":${idJson(request)}${tail}}\n`);
}

/**
 * A whole answer typed in the debugger, as one line. An id past 2^53 was
 * rounded when the request was parsed, in the hold as shown and so in what
 * was copied from it: when the typed id is that rounded value, the line
 * carries the request's own digits instead, so it answers that call.
 */
function wholeAnswerLine(request: Frame, value: Record<string, unknown>): Buffer {
  if (!beyondSafe(request.id) || value.id !== request.id) return line(value);
  const { id: _rounded, ...members } = value;
  const rest = JSON.stringify(members).slice(1);
  return Buffer.from(`{"id":${idJson(request)}${rest === '}' ? '' : ','}${rest}\n`);
}

/**
 * What a made frame carries, worked out once: the lifted result of an
 * injected value (by its request's method and era), the whole message
 * typed, the abort's `error` member, or the replacement notification.
 * This is also what a recorder records of the decision.
 */
export function madeValue(made: MadeFrame): unknown {
  if ('value' in made) return made.value;
  const outcome = made.outcome;
  let value: unknown;
  switch (outcome.kind) {
    case 'answer':
      value = liftResult(made.request.method, outcome.value, made.lift);
      break;
    case 'answer-frame':
      value = outcome.frame;
      break;
    case 'fail':
      value = { code: outcome.code, message: outcome.message };
      break;
    case 'replace':
      value = outcome.value;
      break;
  }
  made.value = value;
  return value;
}

/** The bytes of a made frame: one line, the answer carrying its request's id as it was spelled. */
export function madeBytes(made: MadeFrame): Buffer {
  const value = madeValue(made);
  switch (made.outcome.kind) {
    case 'answer':
      return answerLine(made.request, `,"result":${JSON.stringify(value) ?? 'null'}`);
    case 'answer-frame':
      return wholeAnswerLine(made.request, value as Record<string, unknown>);
    case 'fail':
      return answerLine(made.request, `,"error":${JSON.stringify(value)}`);
    case 'replace':
      return line(value);
  }
}
