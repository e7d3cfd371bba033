/**
 * What a reporter takes from the server's messages: each checked before
 * anything acts on it, so that a garbled or hostile message changes nothing
 * (the gates never read a broken object, a listener never gets a bad value).
 *
 * @module
 */
import type { Breakpoints, HoldAction } from '../protocol/control.js';

/** A decision pushed by the server for one of this reporter's holds. */
export interface DecisionMessage {
  /** The hold decided. */
  holdId: string;
  /** What the user decided. */
  action: HoldAction;
  /** The injected value, for `inject`. */
  value?: unknown;
}

/** A call the server asks a proxy to send to its server again (see `SendToReporter`). */
export interface SendMessage {
  /** The live run whose server gets the request. */
  runId: string;
  /** The recorded call it repeats. */
  instanceId: string;
  /** The request's method. */
  method: string;
  /** Its `params`: an object or an array, or undefined for none. */
  params: unknown;
  /** Who asked (1 to 64 characters). */
  by: string;
}

/** A server message as the reporter acts on it: checked, with only the fields it uses. */
export type InboundMessage =
  | { type: 'breakpoints'; breakpoints: Breakpoints; version: number | undefined }
  | { type: 'decision'; decision: DecisionMessage }
  | { type: 'rejected'; runId: string; reason: string }
  | { type: 'restart'; runId: string }
  | { type: 'viewers'; watching: boolean }
  | { type: 'send'; send: SendMessage };

/** A whole breakpoints value: `pauseOnError` a boolean, `nodes` an object, `rules` absent or an array (a malformed rule in it is skipped by the gates). */
export function validBreakpoints(value: unknown): value is Breakpoints {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { pauseOnError, nodes, rules } = value as Record<string, unknown>;
  return typeof pauseOnError === 'boolean' && nodes !== null && typeof nodes === 'object' && !Array.isArray(nodes) && (rules === undefined || Array.isArray(rules));
}

/**
 * The message the server sent as `text`, checked; undefined for anything
 * to ignore (not JSON, an unknown type, a field of the wrong type). A
 * breakpoints `version` that is not a positive integer is taken as none
 * (the breakpoints apply, and are not acked).
 */
export function readServerMessage(text: string): InboundMessage | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const fields = message as Record<string, unknown>;
  switch (fields.type) {
    case 'breakpoints': {
      if (!validBreakpoints(fields.breakpoints)) return undefined;
      const version = fields.version;
      return { type: 'breakpoints', breakpoints: fields.breakpoints, version: typeof version === 'number' && Number.isSafeInteger(version) && version > 0 ? version : undefined };
    }
    case 'decision':
      if (typeof fields.holdId !== 'string' || typeof fields.action !== 'string') return undefined;
      return { type: 'decision', decision: { holdId: fields.holdId, action: fields.action as HoldAction, value: fields.value } };
    case 'rejected':
      if (typeof fields.runId !== 'string') return undefined;
      return { type: 'rejected', runId: fields.runId, reason: typeof fields.reason === 'string' ? fields.reason : '' };
    case 'restart':
      if (typeof fields.runId !== 'string') return undefined;
      return { type: 'restart', runId: fields.runId };
    case 'viewers':
      if (typeof fields.watching !== 'boolean') return undefined;
      return { type: 'viewers', watching: fields.watching };
    case 'send':
      return readSend(fields);
    default:
      return undefined;
  }
}

/** A `send` message's fields, checked: short texts, and `params` structured (JSON-RPC allows nothing else). */
function readSend(fields: Record<string, unknown>): InboundMessage | undefined {
  const { runId, instanceId, method, params, by } = fields;
  const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
  if (!text(runId, 64) || !text(instanceId, 1024) || !text(method, 1024) || !text(by, 64)) return undefined;
  if (params !== undefined && (params === null || typeof params !== 'object')) return undefined;
  return { type: 'send', send: { runId, instanceId, method, params, by } };
}
