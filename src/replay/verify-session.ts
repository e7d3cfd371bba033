/**
 * The host's side of a recorded run played against a server: its requests
 * and notifications sent in recorded order (ids of our own), each request's
 * answer awaited (up to a timeout) and judged against the recorded one
 * ({@link verdictOf}), and the server's own requests answered from the
 * recording, matched as replay matches ({@link CallMatcher}). Over any
 * wire: the caller sends the text and hands back what the server sends.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { CallMatcher, requestName } from './match.js';
import { answerFor, type JsonRpcId, type RecordedAnswer, type RecordedCall, type RecordedRun } from './recorded-run.js';
import { missError } from './replay-session.js';
import { verdictOf, type CallVerdict } from './verdict.js';
import type { VerifyRules } from './verify-rules.js';

/** One call's result. */
export interface CallResult extends CallVerdict {
  /** Its place among the run's calls. */
  index: number;
  method: string;
  /** The tool, prompt or resource it names. */
  name?: string;
  /** Why there is no answer (`missing`), or a note (`unanswered, as recorded`). */
  reason?: string;
  /** The answer expected. */
  expected?: RecordedAnswer;
  /** The answer received now. */
  received?: RecordedAnswer;
  /** How long the answer took, in milliseconds. */
  ms: number;
}

/** How verify compares. */
export interface VerifyOptions {
  rules: VerifyRules;
  /** Compare with the server's recorded answers rather than what the host received. @default false */
  asSentByServer?: boolean;
  /** How long one call may take, in milliseconds. */
  timeoutMs: number;
  /** The session's requests get ids after this one (a session that has sent requests of its own first). @default 0 */
  firstId?: number;
}

/** Where the session's messages go. */
export interface VerifyWire {
  send(text: string): void;
}

type Waiting = (answer: RecordedAnswer | string) => void;

function answerOfMessage(message: Record<string, unknown>): RecordedAnswer | undefined {
  if ('result' in message) return { result: message.result };
  const error = message.error;
  if (!isObject(error)) return undefined;
  const answer = { code: typeof error.code === 'number' ? error.code : 0, message: typeof error.message === 'string' ? error.message : '' };
  return { error: error.data === undefined ? answer : { ...answer, data: error.data } };
}

/** The server's requests recorded in `run`, as calls a matcher answers. */
function serverRequests(run: RecordedRun): RecordedCall[] {
  const out: RecordedCall[] = [];
  for (const call of run.calls) {
    for (const message of [...call.inside, ...call.after]) {
      if (!message.request) continue;
      const recorded: RecordedCall = { index: out.length, method: message.method, notification: false, inside: [], after: [] };
      if (message.params !== undefined) recorded.params = message.params;
      if (message.answer !== undefined) recorded.received = recorded.sent = message.answer;
      out.push(recorded);
    }
  }
  return out;
}

/** One verify session (see the module). */
export class VerifySession {
  readonly #run: RecordedRun;
  readonly #options: VerifyOptions;
  readonly #wire: VerifyWire;
  readonly #matcher: CallMatcher;
  readonly #waiting = new Map<JsonRpcId, Waiting>();
  /** Requests recorded unanswered, sent without waiting: an answer to one is `extra`. */
  readonly #unanswered = new Map<JsonRpcId, CallResult>();
  /** Answers to no request of ours. */
  readonly extras: CallResult[] = [];
  #ended: string | undefined;
  #ids = 0;

  constructor(run: RecordedRun, options: VerifyOptions, wire: VerifyWire) {
    this.#run = run;
    this.#options = options;
    this.#wire = wire;
    this.#matcher = new CallMatcher(serverRequests(run));
    this.#ids = options.firstId ?? 0;
  }

  /** Take one parsed message from the server. */
  receive(message: unknown): void {
    if (!isObject(message)) return;
    const { id, method } = message;
    if (typeof method === 'string') {
      if (id === undefined || id === null) return; // a notification: not compared
      this.#answerServer(id as JsonRpcId, method, message.params);
      return;
    }
    const answer = answerOfMessage(message);
    if (answer === undefined || (typeof id !== 'string' && typeof id !== 'number')) return;
    const waiting = this.#waiting.get(id);
    if (waiting !== undefined) return waiting(answer);
    const late = this.#unanswered.get(id);
    if (late !== undefined) {
      late.verdict = 'extra';
      late.received = answer;
      late.reason = 'recorded unanswered, answered now';
      return;
    }
    this.extras.push({ index: -1, method: '(unknown request)', verdict: 'extra', differences: [], received: answer, reason: `an answer to id ${JSON.stringify(id)}, which was not sent`, ms: 0 });
  }

  /** The server is gone (`reason` in words): what waits gets no answer. */
  ended(reason: string): void {
    this.#ended ??= reason;
    for (const waiting of this.#waiting.values()) waiting(reason);
  }

  #answerServer(id: JsonRpcId, method: string, params: unknown): void {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},`;
    if (method === 'ping') return this.#wire.send(`${head}"result":{}}`);
    const found = this.#matcher.match({ method, params });
    const answer = found.call?.received;
    if (answer === undefined) {
      const error = found.miss === undefined ? { code: -32603, message: 'graphmind verify: the recorded request was never answered' } : missError(method, params, found.miss);
      return this.#wire.send(`${head}"error":${JSON.stringify(error)}}`);
    }
    this.#wire.send(`${head}${'result' in answer ? `"result":${JSON.stringify(answer.result ?? {})}` : `"error":${JSON.stringify(answer.error)}`}}`);
  }

  /** Play the run's calls in order; one result per request. */
  async play(): Promise<CallResult[]> {
    const results: CallResult[] = [];
    for (const call of this.#run.calls) {
      if (call.notification) {
        if (this.#ended === undefined) this.#wire.send(this.#text(call, undefined));
        continue;
      }
      results.push(await this.#call(call));
    }
    return [...results, ...this.extras];
  }

  #text(call: RecordedCall, id: JsonRpcId | undefined): string {
    const idText = id === undefined ? '' : `"id":${JSON.stringify(id)},`;
    const params = call.params === undefined ? '' : `,"params":${JSON.stringify(call.params)}`;
    return `{"jsonrpc":"2.0",${idText}"method":${JSON.stringify(call.method)}${params}}`;
  }

  async #call(call: RecordedCall): Promise<CallResult> {
    const expected = answerFor(call, this.#options.asSentByServer === true);
    const name = requestName(call);
    const base = { index: call.index, method: call.method, ...(name === undefined ? {} : { name }), ...(expected === undefined ? {} : { expected }) };
    if (this.#ended !== undefined) return { ...base, ...verdictOf(expected, undefined, call, this.#options.rules), reason: this.#ended, ms: 0 };
    const id = ++this.#ids;
    const started = performance.now();
    if (expected === undefined) {
      const result: CallResult = { ...base, verdict: 'same', differences: [], reason: 'unanswered, as recorded', ms: 0 };
      this.#unanswered.set(id, result);
      this.#wire.send(this.#text(call, id));
      return result;
    }
    const got = await new Promise<RecordedAnswer | string>((resolve) => {
      const timer = setTimeout(() => resolve(`no answer within ${this.#options.timeoutMs} ms (--timeout)`), this.#options.timeoutMs);
      this.#waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.#wire.send(this.#text(call, id));
    });
    this.#waiting.delete(id);
    const ms = Math.round(performance.now() - started);
    if (typeof got === 'string') return { ...base, verdict: 'missing', differences: [], reason: got, ms };
    return { ...base, ...verdictOf(expected, got, { method: call.method, ...(name === undefined ? {} : { name }) }, this.#options.rules), received: got, ms };
  }
}
