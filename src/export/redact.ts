/**
 * `graphmind export --redact <path>`: the values a path selects written as
 * {@link REDACTED} in every format, so a run can be committed without the
 * API key a tool was called with. A path is read against the JSON-RPC
 * message as it went over the wire (`$.params.arguments.apiKey` in a
 * request, `$.result.content[0].text` in an answer, `$.error.data` in an
 * error), optionally scoped to a method and a name as verify's `--ignore`
 * is (`tools/call:login $.params.arguments.password`). The run's events
 * are redacted before any format sees them, so JSONL, HAR, OTLP and
 * cassettes hide the same values; replay and verify take a redacted value
 * in a recorded request as matching anything. No I/O.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { parseScopedPath, replaceAt, scopeApplies, type ScopedPath } from '../json/json-path.js';
import type { RunEvent } from '../protocol/ingest.js';
import { methodOf } from './call-shape.js';

/** What a redacted value is written as. */
export const REDACTED = '[redacted]';

/** What a request names, for a scope or a message: a resource's URI, else a tool's or prompt's name. */
export function requestNameOf(method: string, params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  const name = method.startsWith('resources/') ? params.uri : params.name;
  return typeof name === 'string' ? name : undefined;
}

/** The `--redact` values parsed, or the first that cannot be, with why. */
export function parseRedactions(texts: readonly string[]): { ok: true; paths: ScopedPath[] } | { ok: false; reason: string } {
  const paths: ScopedPath[] = [];
  for (const text of texts) {
    const parsed = parseScopedPath(text);
    if (!parsed.ok) return { ok: false, reason: `--redact ${parsed.reason}` };
    if (parsed.rule.steps.length === 0) return { ok: false, reason: `--redact ${JSON.stringify(text)}: $ alone would redact whole messages; name a value inside one ($.params…, $.result…)` };
    paths.push(parsed.rule);
  }
  return { ok: true, paths };
}

/**
 * Redact one JSON-RPC message (or a part of one wrapped as it: `{ params }`)
 * of a call of `method` naming `name`, in place; how many values were replaced.
 */
export function redactMessage(message: unknown, method: string, name: string | undefined, paths: readonly ScopedPath[]): number {
  let count = 0;
  for (const path of paths) if (scopeApplies(path, method, name)) count += replaceAt(message, path.steps, REDACTED);
  return count;
}

/** What a call's values are scoped by. */
interface CallScope {
  method: string;
  name: string | undefined;
}

/**
 * A run's events redacted one at a time, in log order (a call's end is
 * scoped by its start). State: the scope of each call seen.
 */
export class EventRedactor {
  readonly #paths: readonly ScopedPath[];
  readonly #calls = new Map<string, CallScope>();
  /** Values replaced so far. */
  count = 0;

  constructor(paths: readonly ScopedPath[]) {
    this.#paths = paths;
  }

  /** Redact `event` in place; true when a value of it was replaced. */
  event(event: RunEvent): boolean {
    const before = this.count;
    switch (event.type) {
      case 'instance.started':
      case 'instance.completed': {
        const scope = { method: methodOf(event.node), name: requestNameOf(methodOf(event.node), event.input) };
        this.#calls.set(event.instanceId, scope);
        if (event.input !== undefined) event.input = this.#part('params', event.input, scope);
        if (event.type === 'instance.completed' && event.output !== undefined) event.output = this.#part('result', event.output, scope);
        break;
      }
      case 'instance.finished':
        if (event.output !== undefined) event.output = this.#part('result', event.output, this.#scopeOf(event.instanceId));
        break;
      case 'instance.error':
        this.#error(event);
        break;
      case 'hold.opened': {
        const known = this.#calls.get(event.instanceId);
        const frame = event.frame;
        const name = known?.name ?? (isObject(frame) ? requestNameOf(event.method, frame.params) : undefined);
        this.count += redactMessage(frame, event.method, name, this.#paths);
        break;
      }
      default:
        break;
    }
    return this.count > before;
  }

  #scopeOf(instanceId: string): CallScope {
    return this.#calls.get(instanceId) ?? { method: '', name: undefined };
  }

  /** One member of a message (`params`, `result`, `error`) redacted as the message would be: the new value. */
  #part(member: 'params' | 'result' | 'error', value: unknown, scope: CallScope): unknown {
    const message: Record<string, unknown> = { [member]: value };
    this.count += redactMessage(message, scope.method, scope.name, this.#paths);
    return message[member];
  }

  #error(event: Extract<RunEvent, { type: 'instance.error' }>): void {
    const scope = this.#scopeOf(event.instanceId);
    const before = this.count;
    if (event.output !== undefined) event.output = this.#part('result', event.output, scope);
    // A failed tool result's message is its text: once the result is redacted, so is the message.
    if (event.error.name === 'ToolError' && this.count > before) event.error = { ...event.error, message: REDACTED };
    const error = this.#part('error', { ...event.error }, scope);
    // Its name and code are the shape of the failure, not data: they stay (an event's check needs them as they are).
    const message = isObject(error) && typeof error.message === 'string' ? error.message : REDACTED;
    const data = isObject(error) ? error.data : event.error.data === undefined ? undefined : REDACTED;
    event.error = { ...event.error, message, ...(data === undefined ? {} : { data }) };
  }
}
