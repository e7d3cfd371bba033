/**
 * An mcp-recorder cassette (devhelmhq/mcp-recorder, format version 1.x:
 * `{ version, metadata, interactions: [{ type, request, response, … }] }`)
 * read as a recorded run. A `jsonrpc_request` is a call with the answer
 * in its `response`, a `notification` a call nothing answers; `lifecycle`
 * entries (an HTTP DELETE or GET) carry no message and are skipped. A
 * cassette records what the client received, so that is also what the
 * server sent.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { RecordedAnswer, RecordedCall, RecordedRun } from './recorded-run.js';

/** The cassette format's major version this reads. */
export const CASSETTE_MAJOR = '1';

/** Does this parsed JSON look like a cassette (rather than something else)? */
export function isCassette(value: unknown): value is Record<string, unknown> {
  return isObject(value) && Array.isArray(value.interactions) && 'version' in value;
}

function answerOf(response: unknown): RecordedAnswer | undefined {
  if (!isObject(response)) return undefined;
  if ('result' in response) return { result: response.result };
  const error = response.error;
  if (!isObject(error) || typeof error.code !== 'number') return undefined;
  const message = typeof error.message === 'string' ? error.message : '';
  return error.data === undefined ? { error: { code: error.code, message } } : { error: { code: error.code, message, data: error.data } };
}

/** A cassette's calls, or why it cannot be read (another version, not a cassette). */
export function runOfCassette(value: Record<string, unknown>, label: string): { ok: true; run: RecordedRun } | { ok: false; reason: string } {
  const version = value.version;
  if (typeof version !== 'string' || version.split('.')[0] !== CASSETTE_MAJOR) {
    return { ok: false, reason: `it is an mcp-recorder cassette of version ${JSON.stringify(version)}; graphmind replay reads version ${CASSETTE_MAJOR}.x` };
  }
  const calls: RecordedCall[] = [];
  for (const interaction of value.interactions as unknown[]) {
    if (!isObject(interaction) || !isObject(interaction.request)) continue;
    const { type, request } = interaction;
    if ((type !== 'jsonrpc_request' && type !== 'notification') || typeof request.method !== 'string') continue;
    const notification = type === 'notification' || !('id' in request);
    const call: RecordedCall = { index: calls.length, method: request.method, notification, inside: [], after: [] };
    if (request.params !== undefined) call.params = request.params;
    const answer = notification ? undefined : answerOf(interaction.response);
    if (answer !== undefined) {
      call.received = answer;
      call.sent = answer;
    }
    calls.push(call);
  }
  return { ok: true, run: { label, calls, missing: [] } };
}
