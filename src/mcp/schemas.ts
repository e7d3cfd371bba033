/**
 * Output schemas, as JSON Schema: small builders and the pieces several
 * tools share (a run summary, a call row, a log row, paging). Clients
 * check `structuredContent` against them, so they say exactly what the
 * tools return.
 *
 * @module
 */
import type { JsonSchema } from './args.js';

/** An object with these properties; all of them required unless listed in `optional`. */
export function object(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties).filter((key) => !optional.includes(key)) };
}

/** A string. */
export const string: JsonSchema = { type: 'string' };
/** A string or null. */
export const stringOrNull: JsonSchema = { type: ['string', 'null'] };
/** A whole number. */
export const integer: JsonSchema = { type: 'integer' };
/** A number or null. */
export const numberOrNull: JsonSchema = { type: ['number', 'null'] };
/** A whole number or null. */
export const integerOrNull: JsonSchema = { type: ['integer', 'null'] };
/** A boolean. */
export const boolean: JsonSchema = { type: 'boolean' };
/** Any JSON value. */
export const anything: JsonSchema = {};

/** An array of `items`. */
export function arrayOf(items: JsonSchema): JsonSchema {
  return { type: 'array', items };
}

/** One of these strings. */
export function oneOf(values: readonly string[]): JsonSchema {
  return { type: 'string', enum: [...values] };
}

/** Where an answer came from. */
export const from = oneOf(['debugger', 'data-dir']);

/** The fields of a run as listed, with its duration. */
export const runSummaryProperties: Record<string, JsonSchema> = {
  runId: string,
  name: string,
  source: string,
  status: oneOf(['running', 'ok', 'error']),
  startedAt: string,
  endedAt: stringOrNull,
  durationMs: numberOrNull,
};

/** A run as listed. */
export const runSummary = object(runSummaryProperties);

/** An error in a list. */
export const errorRow = object({ instanceId: string, nodeId: string, name: string, message: string, code: integerOrNull, sentBy: string }, ['sentBy']);

/** A log line. */
export const logRow = object({ index: integer, at: string, nodeId: string, stream: string, text: string, instanceId: string }, ['instanceId']);

/** A status of a node or an execution. */
export const nodeStatus = oneOf(['open', 'ok', 'error']);

/** The paging fields of a page: rows in the whole list, and the cursor to the next page (null on the last). */
export const paging = { total: integer, nextCursor: stringOrNull };
