/**
 * The server verify checks, reached over Streamable HTTP: the MCP SDK's
 * own client transport speaks the HTTP side (a POST per message, a JSON
 * answer or an event stream per request, the GET stream for what the
 * server sends outside a call, `Mcp-Session-Id` from the `initialize`
 * answer on, the protocol version header once it is agreed, a DELETE at
 * the end), so the server sees a session exactly as an SDK client makes
 * one. A server that cannot be reached, or refuses a message, ends the
 * session with one line saying so.
 *
 * After `notifications/initialized` the SDK opens the GET stream without
 * waiting; a server may send a request that belongs to no POST (the SDK
 * 2.x server's sampling does) on that stream, and drops it while the
 * stream is not there yet. A host's client is slower than verify, so
 * verify waits, as a host in effect does: what it sends next goes once the
 * GET stream is answered (or refused, or not asked for), or its request
 * has been on its way for a moment (a server may hold the headers back
 * until its first event).
 *
 * @module
 */
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isObject } from '../json/is-object.js';
import type { StdioTargetEvents } from './stdio-target.js';

/** How long what verify sends next waits for the GET stream's headers (see the module). */
const GET_GRACE_MS = 300;

/** How long the session's DELETE may take at the end. */
const STOP_GRACE_MS = 2000;

/** What the target tells its user: the same as the stdio target. */
export type HttpTargetEvents = StdioTargetEvents;

/** Why a request to `url` failed, in one line (the cause a fetch hides behind "fetch failed"). */
export function unreachableLine(url: string, error: unknown): string {
  if (!(error instanceof Error)) return `cannot reach the MCP server at ${url}: ${String(error)}`;
  const cause = (error as Error & { cause?: unknown }).cause;
  const why = cause instanceof Error ? cause.message : error.message;
  const status = (error as Error & { code?: unknown }).code;
  if (typeof status === 'number' && status > 0) return `the MCP server at ${url} refused a message: HTTP ${status}${why.includes('endpoint: ') ? ` ${why.slice(why.indexOf('endpoint: ') + 10).trim()}` : ''}`.slice(0, 400);
  return `cannot reach the MCP server at ${url}: ${why}`;
}

/** A Streamable HTTP server (see the module). */
export class HttpTarget {
  /** Nothing over HTTP is stdout noise: always empty. */
  readonly noise: string[] = [];
  readonly #transport: StreamableHTTPClientTransport;
  readonly #events: HttpTargetEvents;
  readonly #url: string;
  /** The ids of the `initialize` requests sent: their answer names the protocol version. */
  readonly #initializeIds = new Set<unknown>();
  #gone = false;
  /** What is sent waits for this: the GET stream settled after `notifications/initialized` (see the module). */
  #ready: Promise<void> = Promise.resolve();
  #streamSettled: (() => void) | undefined;

  private constructor(transport: StreamableHTTPClientTransport, url: string, events: HttpTargetEvents) {
    this.#transport = transport;
    this.#url = url;
    this.#events = events;
    transport.onmessage = (message) => this.#received(message);
    // The GET stream failing is no news for verify (many servers have none); a failed POST is, and is seen where it is sent.
    transport.onerror = () => undefined;
  }

  /** Open a session's transport to `url` (an http: or https: URL; anything else throws). */
  static async open(url: URL, events: HttpTargetEvents): Promise<HttpTarget> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--url must be an http: or https: URL, not ${url.protocol}`);
    const { StreamableHTTPClientTransport: Transport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    let target: HttpTarget | undefined;
    // Sees the GET stream answered, and an `initialized` the server took without a 202 (then no GET comes).
    const watched = async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const isGet = init?.method === 'GET';
      const isInitialized = init?.method === 'POST' && typeof init.body === 'string' && init.body.includes('"notifications/initialized"');
      // Many servers send the GET's headers only with its first event: its request having gone a moment ago must do then.
      const grace = isGet ? setTimeout(() => target?.streamSettled(), GET_GRACE_MS) : undefined;
      try {
        const response = await fetch(input, init);
        clearTimeout(grace);
        if (isGet || (isInitialized && response.status !== 202)) target?.streamSettled();
        return response;
      } catch (error) {
        clearTimeout(grace);
        if (isGet || isInitialized) target?.streamSettled();
        throw error;
      }
    };
    // No reconnection of a dropped event stream beyond the SDK's few tries: verify's --timeout decides.
    const transport = new Transport(url, { fetch: watched, reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 2, maxRetries: 2 } });
    await transport.start();
    target = new HttpTarget(transport, url.href, events);
    return target;
  }

  /** The GET stream was answered (or will not be asked for): what waits may go. */
  private streamSettled(): void {
    this.#streamSettled?.();
    this.#streamSettled = undefined;
  }

  #received(message: JSONRPCMessage): void {
    if (this.#gone) return;
    if ('id' in message && this.#initializeIds.has(message.id) && 'result' in message && isObject(message.result)) {
      const version = message.result.protocolVersion;
      if (typeof version === 'string') this.#transport.setProtocolVersion(version);
    }
    this.#events.message(message, JSON.stringify(message));
  }

  /** Send one message (its JSON text). */
  send(text: string): void {
    if (this.#gone) return;
    const message = JSON.parse(text) as JSONRPCMessage;
    if ('method' in message && message.method === 'initialize' && 'id' in message) this.#initializeIds.add(message.id);
    const failed = (error: unknown): void => {
      this.#streamSettled?.();
      if (this.#gone) return;
      this.#gone = true;
      this.#events.ended(unreachableLine(this.#url, error));
    };
    const sent = this.#ready.then(() => (this.#gone ? undefined : this.#transport.send(message)));
    sent.catch(failed);
    if ('method' in message && message.method === 'notifications/initialized') {
      this.#ready = new Promise<void>((resolve) => (this.#streamSettled = resolve));
    }
  }

  /** The server's stderr is not ours to read over HTTP: always empty. */
  stderrTail(): string[] {
    return [];
  }

  /** End the session: a DELETE (a server without sessions may refuse it: no matter), then the transport closed. */
  async stop(): Promise<void> {
    const wasGone = this.#gone;
    this.#gone = true;
    if (!wasGone && this.#transport.sessionId !== undefined) {
      // A server that hangs on the DELETE must not hold the verify up.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)));
      await Promise.race([this.#transport.terminateSession().catch(() => undefined), late]);
      clearTimeout(timer);
    }
    await this.#transport.close().catch(() => undefined);
  }
}
