/**
 * What is wrong with one line the server wrote, as a finding: the rules
 * behind `stdout-noise`, `invalid-frame` and `unknown-id`, read from a frame
 * the relay's classifier has already classified. Pure: a frame in, a
 * finding (or none) out.
 *
 * A line the classifier calls noise is `invalid-frame` when it was meant
 * as JSON-RPC (it names `jsonrpc`, or is a JSON object with `id` and
 * `result`/`error`/`method`), and `stdout-noise` otherwise (a banner, a log
 * line, a logger's one-object JSON).
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { messageOf, type Frame } from '../streams/frame.js';
import { finding, type Finding, type FindingFrame } from './findings.js';

/** The check wire findings belong to. */
export const WIRE_CHECK = 'wire';

/** The frame as a finding quotes it. */
export function quotedFrame(frame: Frame): FindingFrame {
  let text = frame.raw.toString('utf8').replace(/\r?\n$/, '');
  if (text.length > 200) text = `${text.slice(0, 199)}…`;
  return { direction: frame.direction, seq: frame.seq, text };
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Why a line the classifier called noise is a broken JSON-RPC message, or undefined when it is plain noise. */
export function brokenMessage(text: string): string | undefined {
  const trimmed = text.trim();
  const value = parsed(trimmed);
  if (!value.ok) return trimmed.startsWith('{') && trimmed.includes('"jsonrpc"') ? 'a JSON-RPC message that is not valid JSON' : undefined;
  if (Array.isArray(value.value)) return value.value.some((item) => isObject(item) && 'jsonrpc' in item) ? 'a JSON-RPC batch (an array), which MCP no longer allows' : undefined;
  if (!isObject(value.value)) return undefined;
  const message = value.value;
  if ('jsonrpc' in message) {
    if (message.jsonrpc !== '2.0') return `"jsonrpc" is ${JSON.stringify(message.jsonrpc)}, not "2.0"`;
    if ('method' in message) return '"method" is not a string';
    if ('result' in message || 'error' in message) return '"id" is missing or not a string or number';
    return 'neither a request, a notification nor an answer (no "method", "result" or "error")';
  }
  if ('id' in message && ('result' in message || 'error' in message || 'method' in message)) return '"jsonrpc": "2.0" is missing';
  return undefined;
}

/** Why an answer's body is not one a host can take, or undefined. */
export function badAnswer(frame: Frame): string | undefined {
  const message = messageOf(frame);
  if (message === undefined) return undefined; // not whole (a long line): nothing to say
  if ('result' in message && 'error' in message) return 'an answer with both "result" and "error"';
  if (frame.type === 'response') return isObject(message.result) ? undefined : `"result" is ${message.result === null ? 'null' : Array.isArray(message.result) ? 'an array' : `a ${typeof message.result}`}, not an object`;
  const error: unknown = message.error;
  if (!isObject(error)) return '"error" is not an object';
  if (!Number.isInteger(error.code)) return '"error.code" is not an integer';
  if (typeof error.message !== 'string') return '"error.message" is not a string';
  return undefined;
}

/** The finding one frame from the server makes, if any (see the module). */
export function wireFinding(frame: Frame): Finding | undefined {
  if (frame.direction !== 'server-to-client') return undefined;
  switch (frame.type) {
    case 'noise': {
      const quoted = quotedFrame(frame);
      const why = brokenMessage(frame.raw.toString('utf8'));
      if (why !== undefined) return finding('invalid-frame', WIRE_CHECK, `the server wrote an invalid JSON-RPC message: ${why}: ${JSON.stringify(quoted.text)}`, { frame: quoted });
      return finding('stdout-noise', WIRE_CHECK, `the server wrote a line to stdout that is not JSON-RPC: ${JSON.stringify(quoted.text)} — stdout is the MCP wire; log to stderr`, { frame: quoted });
    }
    case 'batch':
      return finding('invalid-frame', WIRE_CHECK, 'the server wrote a JSON-RPC batch (an array), which MCP no longer allows', { frame: quotedFrame(frame) });
    case 'response':
    case 'error': {
      const id = frame.id ?? null;
      if (frame.request === undefined) {
        return finding('unknown-id', WIRE_CHECK, `the server answered id ${JSON.stringify(id)}, which the check did not send or had already had answered`, { frame: quotedFrame(frame), call: { method: '(unknown request)', id } });
      }
      const why = badAnswer(frame);
      if (why === undefined) return undefined;
      return finding('invalid-frame', WIRE_CHECK, `the answer to ${frame.method ?? 'a request'} (id ${JSON.stringify(id)}) is invalid: ${why}`, { frame: quotedFrame(frame), call: { method: frame.method ?? '', id } });
    }
    default:
      return undefined;
  }
}
