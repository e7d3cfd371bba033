/**
 * What an expression is evaluated against, and the facts about it several
 * atoms share: whether the answer is an error, the call's status, the name
 * in its node, the text a model reads. No I/O.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';

/** What an expression is evaluated against: a frame at a gate, or a recorded call as a whole. */
export interface ConditionSubject {
  /** JSON-RPC method of the call (the request's method, also when the frame is its answer). */
  method?: string;
  /** Graph node id of the call, e.g. `tool:search`, `resource:file:///x`, `prompt:p`. */
  nodeId?: string;
  /** Who sent the request: the host (client) or the server (sampling, elicitation, roots…). */
  from?: 'host' | 'server';
  /** What this frame / record is: `request`, `answer`, `notification`. For a whole call: `answer` once answered, else `request`. */
  kind: 'request' | 'answer' | 'notification';
  /** The parsed request (or notification) message. */
  request?: unknown;
  /** The parsed answer message, once known. */
  answer?: unknown;
  /** The call's status where known. */
  status?: 'ok' | 'error' | 'open' | 'held';
  /** Server time of the answer, ms (answers only). */
  durationMs?: number;
  /** Bytes of the frame (or of request + answer for a whole call). */
  bytes?: number;
}

/** Is `answer` a JSON-RPC error, or a result with `isError: true`? */
export function answerIsError(answer: unknown): boolean {
  if (!isObject(answer)) return false;
  if (answer.error !== undefined) return true;
  return isObject(answer.result) && answer.result.isError === true;
}

/** The subject's status: as given, else read from its answer (`ok` or `error`); undefined when neither says. */
export function statusOf(subject: ConditionSubject): ConditionSubject['status'] {
  if (subject.status !== undefined) return subject.status;
  if (subject.answer === undefined) return undefined;
  return answerIsError(subject.answer) ? 'error' : 'ok';
}

const NAMED: Record<string, { prefix: string; field: 'name' | 'uri' }> = {
  'tools/call': { prefix: 'tool:', field: 'name' },
  'resources/read': { prefix: 'resource:', field: 'uri' },
  'prompts/get': { prefix: 'prompt:', field: 'name' },
};

/**
 * The name of a `tools/call`, `resources/read` or `prompts/get` request
 * (its `name` or `uri` param), when the request is of the kind `prefix`
 * (`tool:`, `resource:`, `prompt:`) names. For a subject with no node id.
 */
export function requestName(request: unknown, prefix: string): string | undefined {
  if (!isObject(request) || typeof request.method !== 'string') return undefined;
  const named = NAMED[request.method];
  if (named === undefined || named.prefix !== prefix || !isObject(request.params)) return undefined;
  const name = request.params[named.field];
  return typeof name === 'string' ? name : undefined;
}

/** The subject's method: as given, else its request's. */
export function methodOf(subject: ConditionSubject): string | undefined {
  if (subject.method !== undefined) return subject.method;
  const request = subject.request;
  return isObject(request) && typeof request.method === 'string' ? request.method : undefined;
}

/**
 * Call `test` with each piece of text a model reads in the subject until
 * one passes: a result's `content[].text` (or a single `content`), a
 * resource's `contents[].text`, a prompt's `messages[].content.text`,
 * `structuredContent` as JSON text, an error's message, and a sampling
 * request's `messages[].content.text`.
 */
export function someText(subject: ConditionSubject, test: (text: string) => boolean): boolean {
  const answer = subject.answer;
  if (isObject(answer)) {
    const result = answer.result;
    if (isObject(result)) {
      if (someContent(result.content, test) || someContent(result.contents, test) || someMessage(result.messages, test)) return true;
      if (result.structuredContent !== undefined && test(JSON.stringify(result.structuredContent))) return true;
    }
    if (isObject(answer.error) && typeof answer.error.message === 'string' && test(answer.error.message)) return true;
  }
  const request = subject.request;
  return isObject(request) && isObject(request.params) && someMessage(request.params.messages, test);
}

function someContent(content: unknown, test: (text: string) => boolean): boolean {
  if (isObject(content)) return typeof content.text === 'string' && test(content.text);
  if (!Array.isArray(content)) return false;
  for (const item of content) if (isObject(item) && typeof item.text === 'string' && test(item.text)) return true;
  return false;
}

function someMessage(messages: unknown, test: (text: string) => boolean): boolean {
  if (!Array.isArray(messages)) return false;
  for (const message of messages) if (isObject(message) && someContent(message.content, test)) return true;
  return false;
}
