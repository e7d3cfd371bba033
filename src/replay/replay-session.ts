/**
 * One client's session with a replayed server: JSON-RPC messages in,
 * recorded answers out, over any wire (stdio, one Streamable HTTP
 * session). A request is answered with the new request's id by the
 * recorded call {@link CallMatcher} finds, after what the server sent
 * inside that call (a request to the client is sent with an id of ours
 * and its answer awaited, not compared; a progress notification carries
 * the new request's progress token). `ping` is always answered,
 * notifications are taken and dropped, and a request recorded without an
 * answer stays unanswered.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { RepeatMode } from './answer-queue.js';
import { CallMatcher, requestName, type MatchMode, type Miss } from './match.js';
import { answerFor, type JsonRpcId, type RecordedAnswer, type RecordedCall, type RecordedRun, type ServerMessage } from './recorded-run.js';

/** The JSON-RPC error code of a request no recorded call answers. */
export const NO_MATCH_CODE = -32096;

/** How a replay answers (the `graphmind replay` flags). */
export interface ReplayOptions {
  /** @default 'params' */
  match?: MatchMode;
  /** @default 'error' */
  repeat?: RepeatMode;
  /** `hang` leaves a request nothing matches unanswered. @default 'error' */
  onMiss?: 'error' | 'hang';
  /** Answer with what the server sent rather than what the host received. @default false */
  asSentByServer?: boolean;
}

/** Where a session's messages go: `relatedId` is the client request a message belongs to (an HTTP wire sends it on that request's stream). */
export interface ReplayWire {
  send(text: string, relatedId?: JsonRpcId): void;
}

/** The error member of a miss (see {@link NO_MATCH_CODE}). */
export function missError(method: string, params: unknown, miss: Miss): { code: number; message: string; data: Record<string, unknown> } {
  const name = requestName({ method, params });
  return {
    code: NO_MATCH_CODE,
    message: `graphmind replay: no recorded answer for ${method}${name === undefined ? '' : ` ${name}`}`,
    data: { nearest: miss.nearest, differences: miss.differences, reason: miss.reason },
  };
}

function idText(id: JsonRpcId | null): string {
  return typeof id === 'number' ? String(id) : JSON.stringify(id);
}

function isId(id: unknown): id is JsonRpcId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** The progress token a request asked for, if any. */
function progressTokenOf(params: unknown): unknown {
  return isObject(params) && isObject(params._meta) ? params._meta.progressToken : undefined;
}

/** One client's replay (see the module). */
export class ReplaySession {
  readonly #matcher: CallMatcher;
  readonly #wire: ReplayWire;
  readonly #onMiss: 'error' | 'hang';
  readonly #asSent: boolean;
  /** Answers as JSON text after the id (`"result":…`), made once per recorded answer. */
  readonly #bodies = new Map<RecordedAnswer, string>();
  /** Our requests to the client waiting for its answer, by their id. */
  readonly #awaiting = new Map<JsonRpcId, () => void>();
  /** Client requests taken and not answered yet (played, or left unanswered). */
  readonly #pending = new Set<JsonRpcId>();
  #serverIds = 0;
  #closed = false;
  /**
   * Requests that wait for the run to be read further (in arrival order:
   * once one waits, those after it wait behind it, so that the same call
   * asked twice is answered in recorded order).
   */
  #waiting: Array<{ id: JsonRpcId; method: string; params: unknown }> = [];
  #waitingHead = 0;
  #idle: (() => void) | undefined;

  /** `complete` false: `run.calls` is still being read and grows; tell {@link ReplaySession.grow}. */
  constructor(run: RecordedRun, options: ReplayOptions, wire: ReplayWire, complete = true) {
    this.#matcher = new CallMatcher(run.calls, { match: options.match, repeat: options.repeat }, complete);
    this.#wire = wire;
    this.#onMiss = options.onMiss ?? 'error';
    this.#asSent = options.asSentByServer === true;
  }

  /** Take one parsed message (or a batch of them) from the client. */
  receive(message: unknown): void {
    if (Array.isArray(message)) {
      for (const item of message) this.receive(item);
      return;
    }
    if (!isObject(message)) return this.#error(null, -32600, 'graphmind replay: not a JSON-RPC message');
    const { id, method } = message;
    if (typeof method !== 'string') {
      // The client's answer to a request of ours.
      if (isId(id)) this.#awaiting.get(id)?.();
      return;
    }
    if (id === undefined) return; // A notification: taken, nothing answers it.
    if (!isId(id)) return this.#error(null, -32600, 'graphmind replay: a request id must be a string or a number');
    if (this.#pending.has(id)) return this.#error(id, -32600, `graphmind replay: request id ${idText(id)} is already used by a request not answered yet`);
    if (method === 'ping') return this.#wire.send(`{"jsonrpc":"2.0","id":${idText(id)},"result":{}}`, id);
    if (this.#waitingHead < this.#waiting.length || !this.#try(id, method, message.params)) {
      this.#pending.add(id);
      this.#waiting.push({ id, method, params: message.params });
    }
  }

  /** More of the run was read (`complete`: all of it): answer the requests that waited for it, in order. */
  grow(complete: boolean): void {
    this.#matcher.grow(complete);
    const waiting = this.#waiting;
    while (this.#waitingHead < waiting.length && !this.#closed) {
      const { id, method, params } = waiting[this.#waitingHead] as { id: JsonRpcId; method: string; params: unknown };
      this.#pending.delete(id);
      if (!this.#try(id, method, params)) {
        this.#pending.add(id);
        return;
      }
      waiting[this.#waitingHead++] = undefined as never;
    }
    this.#waiting = [];
    this.#waitingHead = 0;
    this.#idle?.();
  }

  /** Resolves once no request waits for more of the run (at once when none does). */
  settled(): Promise<void> {
    if (this.#waitingHead >= this.#waiting.length) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  /** Answer one request from what is read so far; false when it must wait for more. */
  #try(id: JsonRpcId, method: string, params: unknown): boolean {
    const found = this.#matcher.tryMatch({ method, params });
    if (found === 'wait') return false;
    if (found.miss !== undefined) {
      if (this.#onMiss === 'hang') this.#pending.add(id);
      else this.#answerError(id, missError(method, params, found.miss));
      return true;
    }
    const call = found.call;
    const answer = answerFor(call, this.#asSent);
    if (call.inside.length === 0 && call.after.length === 0) {
      if (answer === undefined) this.#pending.add(id);
      else this.#answer(id, answer);
      return true;
    }
    this.#pending.add(id);
    void this.#play(id, call, answer, params);
    return true;
  }

  /** The client is gone: nothing more is sent, and what waits for it stops waiting. */
  close(): void {
    this.#closed = true;
    this.#idle?.();
    for (const resume of this.#awaiting.values()) resume();
    this.#awaiting.clear();
  }

  /** What the server sent inside the call, then its answer, then what it sent after. */
  async #play(id: JsonRpcId, call: RecordedCall, answer: RecordedAnswer | undefined, params: unknown): Promise<void> {
    const token = progressTokenOf(params);
    for (const message of call.inside) {
      if (this.#closed) return;
      await this.#sendServerMessage(message, id, token);
    }
    if (this.#closed) return;
    if (answer === undefined) return; // Recorded unanswered: it stays so.
    this.#pending.delete(id);
    this.#answer(id, answer);
    for (const message of call.after) {
      if (this.#closed) return;
      // A progress token is good only until its request is answered.
      if (message.method !== 'notifications/progress') await this.#sendServerMessage(message, undefined, undefined);
    }
  }

  /** Send one recorded server message; a request's answer is awaited (not compared). */
  async #sendServerMessage(message: ServerMessage, relatedId: JsonRpcId | undefined, token: unknown): Promise<void> {
    let params = message.params;
    if (message.method === 'notifications/progress') {
      if (token === undefined || !isObject(params)) return; // The new request asked for no progress.
      params = { ...params, progressToken: token };
    }
    const paramsText = params === undefined ? '' : `,"params":${JSON.stringify(params)}`;
    if (!message.request) {
      this.#wire.send(`{"jsonrpc":"2.0","method":${JSON.stringify(message.method)}${paramsText}}`, relatedId);
      return;
    }
    const serverId = `graphmind-replay-${++this.#serverIds}`;
    const answered = new Promise<void>((resolve) => this.#awaiting.set(serverId, resolve));
    this.#wire.send(`{"jsonrpc":"2.0","id":${JSON.stringify(serverId)},"method":${JSON.stringify(message.method)}${paramsText}}`, relatedId);
    await answered;
    this.#awaiting.delete(serverId);
  }

  #answer(id: JsonRpcId, answer: RecordedAnswer): void {
    let body = this.#bodies.get(answer);
    if (body === undefined) {
      body = 'result' in answer ? `"result":${JSON.stringify(answer.result ?? {})}` : `"error":${JSON.stringify(answer.error)}`;
      this.#bodies.set(answer, body);
    }
    this.#wire.send(`{"jsonrpc":"2.0","id":${idText(id)},${body}}`, id);
  }

  #answerError(id: JsonRpcId, error: { code: number; message: string; data?: unknown }): void {
    this.#wire.send(`{"jsonrpc":"2.0","id":${idText(id)},"error":${JSON.stringify(error)}}`, id);
  }

  #error(id: JsonRpcId | null, code: number, message: string): void {
    this.#wire.send(`{"jsonrpc":"2.0","id":${idText(id)},"error":${JSON.stringify({ code, message })}}`, id ?? undefined);
  }
}
