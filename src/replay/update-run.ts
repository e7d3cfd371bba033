/**
 * `graphmind verify --update`: a recording re-blessed with the answers the
 * server gives now. In a run log, every end of a call's execution is
 * rewritten to the new answer (recorded as the relay records an answer: a
 * tool result with `isError` as a `ToolError`, a JSON-RPC error as a
 * `JsonRpcError`), so what the host received and what the server sent are
 * both the new answer; every other line stays as it was. In a cassette, the
 * interaction's `response` is replaced. No I/O.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { recordResult, rpcError } from '../report/answer-record.js';
import type { RecordedAnswer } from './recorded-run.js';

/** A new answer for one call. */
export interface NewAnswer {
  method: string;
  answer: RecordedAnswer;
}

const ENDS = new Set(['instance.finished', 'instance.error', 'instance.completed']);
const SHOWN = { inputs: false, toolResults: false };

/** The end event's fields for `answer`: its type, output and error. */
function endOf(update: NewAnswer): { type: string; output?: unknown; error?: unknown } {
  const { method, answer } = update;
  if ('error' in answer) return { type: 'instance.error', error: rpcError(answer.error) };
  const record = recordResult(method, answer.result, SHOWN);
  return record.failed ? { type: 'instance.error', output: record.output, error: record.error } : { type: 'instance.finished', output: record.output };
}

/** A run log's text with the calls' ends rewritten (by instance id; see the module). */
export function updateRunLog(text: string, answers: ReadonlyMap<string, NewAnswer>): string {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue; // a torn or damaged line: kept as it is, skipped when read
    }
    if (!isObject(event) || typeof event.type !== 'string' || !ENDS.has(event.type) || typeof event.instanceId !== 'string') continue;
    const update = answers.get(event.instanceId);
    if (update === undefined) continue;
    const end = endOf(update);
    const next: Record<string, unknown> = { ...event };
    delete next.output;
    delete next.error;
    // A one-event call keeps its shape (start and end in one event) when it ended well.
    if (event.type === 'instance.completed' && end.type === 'instance.finished') next.output = end.output;
    else {
      if (event.type === 'instance.completed') continue; // an error cannot be told in that shape: left as it was
      next.type = end.type;
      if (end.output !== undefined) next.output = end.output;
      if (end.error !== undefined) next.error = end.error;
    }
    lines[i] = JSON.stringify(next);
  }
  return lines.join('\n');
}

/** A cassette with its interactions' responses replaced (by the call's place among its requests and notifications). */
export function updateCassette(cassette: Record<string, unknown>, answers: ReadonlyMap<number, RecordedAnswer>): Record<string, unknown> {
  const interactions = Array.isArray(cassette.interactions) ? cassette.interactions : [];
  let index = 0;
  const next = interactions.map((interaction: unknown) => {
    if (!isObject(interaction) || !isObject(interaction.request)) return interaction;
    const { type, request } = interaction;
    if ((type !== 'jsonrpc_request' && type !== 'notification') || typeof request.method !== 'string') return interaction;
    const answer = answers.get(index++);
    if (answer === undefined) return interaction;
    return { ...interaction, response: { jsonrpc: '2.0', id: request.id ?? null, ...answer } };
  });
  return { ...cassette, interactions: next };
}
