/**
 * Which recorded call answers a request, or why none does: the one rule
 * replay and verify share. `params` (the default) finds a call by method
 * and params compared as data (key order ignored, `_meta` left out);
 * `strict` keeps `_meta`; `sequence` expects the recorded requests in
 * their recorded order. The same request recorded several times is
 * answered in recorded order, then as the repeat mode says. A handshake
 * (`initialize`, `server/discover`) is answered as recorded whatever its
 * params (a new client names itself differently). No I/O.
 *
 * @module
 */
import { requestNameOf } from '../export/redact.js';
import { AnswerQueue, type RepeatMode } from './answer-queue.js';
import { canonicalJson, REDACTED } from './canonical.js';
import { differencesOf, type Difference } from './differences.js';
import type { RecordedCall } from './recorded-run.js';

/** How a request is matched to a recorded one (`--match`). */
export type MatchMode = 'params' | 'sequence' | 'strict';

/** The match modes, as `--match` takes them. */
export const MATCH_MODES: readonly MatchMode[] = ['params', 'sequence', 'strict'];

/** A redacted value as it shows in a key: only a whole string token of JSON text can read so (a quote inside a string is escaped). */
const REDACTED_TOKEN = JSON.stringify(REDACTED);

/** Requests answered as recorded whatever their params. */
const HANDSHAKES = new Set(['initialize', 'server/discover']);

/** A request to match. */
export interface IncomingRequest {
  method: string;
  params?: unknown;
}

/** Why no recorded call answers a request. */
export interface Miss {
  /** The recorded request closest to it (same method), or null when none of that method was recorded. */
  nearest: IncomingRequest | null;
  /** Where it differs from the nearest (`$.params…`); empty when it is the same request with its answers used up. */
  differences: Difference[];
  /** The reason in a few words. */
  reason: string;
}

/** A match: the recorded call, or why none. */
export type MatchResult = { call: RecordedCall; miss?: undefined } | { call?: undefined; miss: Miss };

/** Options for {@link CallMatcher}. */
export interface MatchOptions {
  /** @default 'params' */
  match?: MatchMode;
  /** @default 'error' */
  repeat?: RepeatMode;
}

/** The request's key: its method and params as data (`_meta` dropped unless `strict`). */
export function requestKey(method: string, params: unknown, mode: MatchMode): string {
  return `${method}\n${canonicalJson(params, mode !== 'strict') ?? ''}`;
}

/** What a request names, for a message: a tool's or prompt's name, a resource's URI. */
export function requestName(request: IncomingRequest): string | undefined {
  return requestNameOf(request.method, request.params);
}

/** The bucket a call is kept in until it is keyed: its method and what it names. */
function bucketOf(method: string, params: unknown): string {
  return `${method}\n${requestName({ method, params }) ?? ''}`;
}

function asRequest(call: RecordedCall): IncomingRequest {
  return call.params === undefined ? { method: call.method } : { method: call.method, params: call.params };
}

/** The recorded requests of a session, matched as they come (see the module). State: which answers were used. */
export class CallMatcher {
  readonly #mode: MatchMode;
  readonly #repeat: RepeatMode;
  readonly #byKey = new Map<string, AnswerQueue<RecordedCall>>();
  /**
   * The calls by method and name, keyed lazily: a bucket's calls get their
   * key (params made canonical, the costly part) in recorded order, only as
   * far as a request needs, so a large run is ready at once.
   */
  readonly #buckets = new Map<string, { calls: RecordedCall[]; keyed: number }>();
  /** One call per distinct key, by method: the candidates for the nearest. */
  readonly #byMethod = new Map<string, RecordedCall[]>();
  /** Calls holding a redacted value, by method: matched by comparing, not by key. */
  readonly #redacted = new Map<string, AnswerQueue<RecordedCall>[]>();
  readonly #handshakes = new Map<string, RecordedCall>();
  readonly #sequence: AnswerQueue<RecordedCall>;
  /** The run's calls, which may still grow while it is read (see {@link CallMatcher.grow}). */
  readonly #calls: readonly RecordedCall[];
  #added = 0;
  #complete = true;

  /** `complete` false: `calls` is still being read, and grows (tell {@link CallMatcher.grow}). */
  constructor(calls: readonly RecordedCall[], options: MatchOptions = {}, complete = true) {
    this.#mode = options.match ?? 'params';
    this.#repeat = options.repeat ?? 'error';
    this.#sequence = new AnswerQueue([], this.#repeat);
    this.#calls = calls;
    this.#complete = complete;
    this.grow(complete);
  }

  /** Take the calls read since the last time; `complete`: the run is read whole. */
  grow(complete: boolean): void {
    const calls = this.#calls;
    while (this.#added < calls.length) this.#add(calls[this.#added++] as RecordedCall);
    this.#complete = complete;
  }

  /**
   * {@link CallMatcher.match}, while the run may still grow: `wait` when no
   * call read so far answers `request` and one read later might (nothing is
   * used then). Once the run is read whole, the same as `match`.
   */
  tryMatch(request: IncomingRequest): MatchResult | 'wait' {
    if (this.#complete) return this.match(request);
    if (HANDSHAKES.has(request.method)) return this.#handshakes.has(request.method) ? this.match(request) : 'wait';
    if (this.#mode === 'sequence') return this.#sequence.used < this.#sequence.size ? this.#next(request) : 'wait';
    const key = requestKey(request.method, request.params, this.#mode);
    let queue = this.#byKey.get(key);
    if (queue === undefined || queue.used >= queue.size) {
      this.#keyUntil(bucketOf(request.method, request.params), key);
      queue = this.#byKey.get(key);
    }
    // Not read yet, used up so far, or one that only a redacted call answers (looked for once all are read).
    if (queue === undefined || queue.used >= queue.size) return 'wait';
    return this.#take(queue);
  }

  #add(call: RecordedCall): void {
    if (call.notification) return;
    if (HANDSHAKES.has(call.method)) {
      if (!this.#handshakes.has(call.method)) this.#handshakes.set(call.method, call);
      return;
    }
    this.#sequence.push(call);
    if (this.#mode === 'sequence') return;
    const bucketKey = bucketOf(call.method, call.params);
    let bucket = this.#buckets.get(bucketKey);
    if (bucket === undefined) this.#buckets.set(bucketKey, (bucket = { calls: [], keyed: 0 }));
    bucket.calls.push(call);
  }

  /** Key the calls of `bucketKey` until one has `key` (or all are keyed); what needs all keyed asks for `until` undefined. */
  #keyUntil(bucketKey: string, key: string | undefined): void {
    const bucket = this.#buckets.get(bucketKey);
    if (bucket === undefined) return;
    while (bucket.keyed < bucket.calls.length) {
      const call = bucket.calls[bucket.keyed++] as RecordedCall;
      const callKey = requestKey(call.method, call.params, this.#mode);
      this.#index(call, callKey);
      if (callKey === key) return;
    }
  }

  #index(call: RecordedCall, key: string): void {
    let queue = this.#byKey.get(key);
    if (queue === undefined) {
      this.#byKey.set(key, (queue = new AnswerQueue([], this.#repeat)));
      let list = this.#byMethod.get(call.method);
      if (list === undefined) this.#byMethod.set(call.method, (list = []));
      list.push(call);
      if (key.includes(REDACTED_TOKEN)) {
        let redacted = this.#redacted.get(call.method);
        if (redacted === undefined) this.#redacted.set(call.method, (redacted = []));
        redacted.push(queue);
      }
    }
    queue.push(call);
  }

  /** Key every call not keyed yet (a miss looks at them all). */
  #keyAll(): void {
    for (const bucketKey of this.#buckets.keys()) this.#keyUntil(bucketKey, undefined);
  }

  /** The recorded call that answers `request` now (it is used), or why none does. */
  match(request: IncomingRequest): MatchResult {
    const handshake = this.#handshakes.get(request.method);
    if (handshake !== undefined) return { call: handshake };
    if (this.#mode === 'sequence') return this.#next(request);
    const key = requestKey(request.method, request.params, this.#mode);
    let queue = this.#byKey.get(key);
    if (queue === undefined || queue.used >= queue.size) {
      // Recorded later with the same key, not keyed yet?
      this.#keyUntil(bucketOf(request.method, request.params), key);
      queue = this.#byKey.get(key);
    }
    if (queue === undefined) {
      this.#keyAll();
      queue = this.#byKey.get(key) ?? this.#redactedQueue(request);
    }
    return queue !== undefined ? this.#take(queue) : { miss: this.#nearest(request) };
  }

  /** The next answer of `queue`, or the miss of a queue used up. */
  #take(queue: AnswerQueue<RecordedCall>): MatchResult {
    const call = queue.take();
    if (call !== undefined) return { call };
    const plural = queue.size === 1 ? 'its recorded answer was' : `its ${queue.size} recorded answers were all`;
    return { miss: { nearest: asRequest(queue.first as RecordedCall), differences: [], reason: `${plural} used (--repeat ${this.#repeat})` } };
  }

  /** `sequence`: the next recorded request, if it is this one. */
  #next(request: IncomingRequest): MatchResult {
    const expected = this.#sequence.peek();
    if (expected === undefined) {
      const reason = this.#sequence.size === 0 ? 'no request was recorded' : `the ${this.#sequence.size} recorded requests were all answered (--repeat ${this.#repeat})`;
      return { miss: { nearest: null, differences: [], reason } };
    }
    const differences = this.#compare(expected, request);
    if (differences.length === 0) {
      this.#sequence.take();
      return { call: expected };
    }
    return { miss: { nearest: asRequest(expected), differences, reason: `it is not the next recorded request (number ${this.#sequence.used + 1})` } };
  }

  /** Where `request` differs from the recorded `call` (method included). */
  #compare(call: RecordedCall, request: IncomingRequest): Difference[] {
    const differences: Difference[] = [];
    if (call.method !== request.method) differences.push({ path: '$.method', recorded: call.method, received: request.method });
    differences.push(...differencesOf(call.params, request.params, { path: '$.params', dropMeta: this.#mode !== 'strict' }));
    return differences;
  }

  /** A queue of recorded calls with a redacted value that match `request` but for it. */
  #redactedQueue(request: IncomingRequest): AnswerQueue<RecordedCall> | undefined {
    const queues = this.#redacted.get(request.method);
    if (queues === undefined) return undefined;
    return queues.find((queue) => this.#compare(queue.first as RecordedCall, request).length === 0);
  }

  /** The recorded request of the same method that differs least from `request` (a call of the same name first). */
  #nearest(request: IncomingRequest): Miss {
    const candidates = this.#byMethod.get(request.method);
    if (candidates === undefined) return { nearest: null, differences: [], reason: `no ${request.method} request was recorded` };
    let best: { call: RecordedCall; differences: Difference[]; score: number } | undefined;
    for (const call of candidates) {
      const differences = this.#compare(call, request);
      const score = differences.length + (requestName(call) === requestName(request) ? 0 : 1000);
      if (best === undefined || score < best.score) best = { call, differences, score };
    }
    const found = best as { call: RecordedCall; differences: Difference[] };
    return { nearest: asRequest(found.call), differences: found.differences, reason: 'its params differ from every recorded one' };
  }
}
