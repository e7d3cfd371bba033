/**
 * The host's side of a check: requests sent with ids of our own (numbers
 * from 1, as hosts send them), each answer awaited up to `--timeout`, the
 * server's own requests answered as a host with no client capabilities
 * answers them (`ping` with `{}`, anything else with -32601). On the
 * 2026-07-28 era every request carries the per-request `_meta` envelope
 * (protocol version, client info and capabilities) that era requires.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { Frame, JsonRpcMessage } from '../streams/frame.js';
import { messageOf } from '../streams/frame.js';

/** The era that opens with `server/discover` and carries an envelope on every request. */
export const ERA_2026 = '2026-07-28';

/** The client info the check introduces itself with. */
export const CLIENT_INFO = { name: 'graphmind-check', version: '1' } as const;

/** What came back for a request. */
export type Answer =
  | { ok: true; message: JsonRpcMessage; ms: number }
  | { ok: false; why: 'timeout' | 'ended'; line: string; ms: number };

/** Where a conversation sends its text. */
export interface ConversationWire {
  send(text: string): void;
}

/** Who answers a request the server sends (a recorded run's matcher, during `--run`); undefined: the default answers. */
export type ServerRequestHandler = (message: JsonRpcMessage) => boolean;

interface Waiting {
  resolve(answer: Answer): void;
  started: number;
}

/** One session's requests and answers (see the module). */
export class Conversation {
  readonly #wire: ConversationWire;
  readonly #timeoutMs: number;
  readonly #protocolVersion: string;
  readonly #waiting = new Map<number, Waiting>();
  #ids = 0;
  #ended: string | undefined;
  /** Takes the server's requests first, when set. */
  serverRequests: ServerRequestHandler | undefined;

  constructor(wire: ConversationWire, options: { timeoutMs: number; protocolVersion: string }) {
    this.#wire = wire;
    this.#timeoutMs = options.timeoutMs;
    this.#protocolVersion = options.protocolVersion;
  }

  /** The last id sent (a player that sends requests of its own starts after it). */
  get lastId(): number {
    return this.#ids;
  }

  /** Reserve `count` ids for someone else's requests. */
  skipIds(count: number): void {
    this.#ids += count;
  }

  /** The params a request goes with: on the 2026-07-28 era, with the envelope in `_meta`. */
  #params(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (this.#protocolVersion !== ERA_2026) return params;
    const meta = isObject(params?._meta) ? params._meta : {};
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': ERA_2026,
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': {},
      ...meta,
    };
    return { ...params, _meta: envelope };
  }

  /** Send a request and wait for its answer (or the timeout, or the server's end). */
  request(method: string, params?: Record<string, unknown>): Promise<Answer> {
    const id = ++this.#ids;
    const started = performance.now();
    if (this.#ended !== undefined) return Promise.resolve({ ok: false, why: 'ended', line: this.#ended, ms: 0 });
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve({ ok: false, why: 'timeout', line: `no answer to ${method} within ${this.#timeoutMs} ms (--timeout)`, ms: Math.round(performance.now() - started) });
      }, this.#timeoutMs);
      this.#waiting.set(id, {
        started,
        resolve: (answer) => {
          clearTimeout(timer);
          this.#waiting.delete(id);
          resolve(answer);
        },
      });
      const sent = this.#params(params);
      this.#wire.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(sent === undefined ? {} : { params: sent }) }));
    });
  }

  /** Send a notification. */
  notify(method: string, params?: Record<string, unknown>): void {
    if (this.#ended !== undefined) return;
    this.#wire.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
  }

  /** Take a frame the server sent: an answer to one of ours, or a request of its own. */
  take(frame: Frame): void {
    if (frame.direction !== 'server-to-client') return;
    if (frame.type === 'request') return this.#serverRequest(frame);
    if (frame.type !== 'response' && frame.type !== 'error') return;
    if (typeof frame.id !== 'number') return;
    const waiting = this.#waiting.get(frame.id);
    const message = messageOf(frame);
    if (waiting === undefined || message === undefined) return;
    waiting.resolve({ ok: true, message, ms: Math.round(performance.now() - waiting.started) });
  }

  #serverRequest(frame: Frame): void {
    const message = messageOf(frame);
    if (message === undefined) return;
    if (this.serverRequests?.(message) === true) return;
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id ?? null)},`;
    if (message.method === 'ping') return this.#wire.send(`${head}"result":{}}`);
    const error = { code: -32601, message: `graphmind check declares no client capabilities: ${String(message.method)} is not supported` };
    this.#wire.send(`${head}"error":${JSON.stringify(error)}}`);
  }

  /** The server is gone: what waits ends now, and nothing more is sent. */
  ended(line: string): void {
    this.#ended ??= line;
    for (const waiting of [...this.#waiting.values()]) waiting.resolve({ ok: false, why: 'ended', line, ms: Math.round(performance.now() - waiting.started) });
  }
}
