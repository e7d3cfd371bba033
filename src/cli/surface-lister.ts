/**
 * A small MCP client that lists a live server for `graphmind surface`:
 * the handshake a host does (`initialize`, `notifications/initialized`),
 * then every page of each list the server's capabilities offer. It drives
 * the server through replay's targets (stdio: a child process, its stdout
 * read line by line; HTTP: the SDK's Streamable HTTP transport), so it
 * starts, reads and stops a server exactly as `graphmind verify` does.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { SurfaceInput, SurfaceListName } from '../surface/index.js';

/** The protocol version asked for by default: the newest one both SDK lines speak with `initialize`. */
export const DEFAULT_PROTOCOL_VERSION = '2025-11-25';

/** Most pages one list may take: a server that hands out cursors for ever is stopped here. */
export const MAX_PAGES = 1000;

/** Which server, and how long one request may take. */
export interface ListOptions {
  /** The server's command line (stdio), or its Streamable HTTP URL. */
  target: { command: readonly string[] } | { url: string };
  /** How long one request may take, ms. */
  timeoutMs: number;
  /** The protocol version `initialize` asks for. */
  protocolVersion: string;
  /** Our version, in `clientInfo`. */
  version: string;
}

/** A listed server, or one line saying why it could not be listed. */
export type Listed = { ok: true; input: SurfaceInput; noise: string[] } | { ok: false; line: string };

interface Target {
  send(text: string): void;
  stop(): Promise<void>;
  readonly noise: string[];
}

/** Each list method, the capability that offers it and the list it fills. */
const LISTS: ReadonlyArray<[method: string, capability: string, list: SurfaceListName]> = [
  ['tools/list', 'tools', 'tools'],
  ['resources/list', 'resources', 'resources'],
  ['resources/templates/list', 'resources', 'resourceTemplates'],
  ['prompts/list', 'prompts', 'prompts'],
];

/** A JSON-RPC session over a target: requests by id, with a timeout each. */
class Session {
  #next = 1;
  readonly #waiting = new Map<number, { resolve(answer: Record<string, unknown>): void; reject(error: Error): void }>();
  #ended: string | undefined;
  target!: Target;

  constructor(readonly timeoutMs: number) {}

  /** A message from the server: an answer to ours, or a request of its own (answered so it does not wait). */
  message(message: unknown): void {
    if (!isObject(message)) return;
    if (typeof message.method === 'string') {
      if (message.id === undefined) return;
      const answer = message.method === 'ping' ? { result: {} } : { error: { code: -32601, message: `graphmind surface does not offer ${message.method}` } };
      this.target.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer }));
      return;
    }
    const waiting = typeof message.id === 'number' ? this.#waiting.get(message.id) : undefined;
    if (waiting === undefined) return;
    this.#waiting.delete(message.id as number);
    waiting.resolve(message);
  }

  ended(line: string): void {
    this.#ended ??= line;
    for (const waiting of this.#waiting.values()) waiting.reject(new Error(line));
    this.#waiting.clear();
  }

  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.#ended !== undefined) return Promise.reject(new Error(this.#ended));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`the MCP server did not answer ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const done = <T>(settle: (value: T) => void) => (value: T): void => {
        clearTimeout(timer);
        settle(value);
      };
      this.#waiting.set(id, { resolve: done(resolve), reject: done(reject) });
      this.target.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Every page of `method`, or undefined when the server does not have the method. */
async function listAll(session: Session, method: string): Promise<unknown[] | undefined> {
  const pages: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const answer = await session.request(method, cursor === undefined ? {} : { cursor });
    if (isObject(answer.error)) {
      if (answer.error.code === -32601 && pages.length === 0) return undefined;
      throw new Error(`the MCP server answered ${method} with an error: ${String(answer.error.message)}`);
    }
    pages.push(answer.result);
    const next = isObject(answer.result) ? answer.result.nextCursor : undefined;
    cursor = typeof next === 'string' ? next : undefined;
    if (cursor !== undefined && (cursors.has(cursor) || pages.length >= MAX_PAGES)) {
      throw new Error(`the MCP server's ${method} pages never end (cursor ${JSON.stringify(cursor).slice(0, 80)} again, or over ${MAX_PAGES} pages)`);
    }
    if (cursor !== undefined) cursors.add(cursor);
  } while (cursor !== undefined);
  return pages;
}

async function openTarget(options: ListOptions, session: Session): Promise<Target> {
  const events = { message: (message: unknown) => session.message(message), ended: (line: string) => session.ended(line) };
  if ('url' in options.target) {
    const { HttpTarget } = await import('../replay/http-target.js');
    return HttpTarget.open(new URL(options.target.url), events);
  }
  const { StdioTarget } = await import('../replay/stdio-target.js');
  return new StdioTarget(options.target.command, events);
}

/** The handshake and every list, on an open session. */
async function handshakeAndList(session: Session, options: ListOptions): Promise<SurfaceInput> {
  const clientInfo = { name: 'graphmind-surface', version: options.version };
  const init = await session.request('initialize', { protocolVersion: options.protocolVersion, capabilities: {}, clientInfo });
  if (isObject(init.error)) throw new Error(`the MCP server refused initialize: ${String(init.error.message)}`);
  if (!isObject(init.result)) throw new Error('the MCP server answered initialize without a result');
  session.target.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const input: SurfaceInput = { initialize: init.result };
  const capabilities = isObject(init.result.capabilities) ? init.result.capabilities : {};
  for (const [method, capability, list] of LISTS) {
    if (capabilities[capability] === undefined) continue;
    const pages = await listAll(session, method);
    if (pages !== undefined) input[list] = pages;
  }
  return input;
}

/** List the server (see the module); the server is stopped before this returns. */
export async function listServer(options: ListOptions): Promise<Listed> {
  const session = new Session(options.timeoutMs);
  try {
    session.target = await openTarget(options, session);
  } catch (error) {
    return { ok: false, line: errorText(error) };
  }
  try {
    const input = await handshakeAndList(session, options);
    return { ok: true, input, noise: session.target.noise };
  } catch (error) {
    return { ok: false, line: errorText(error) };
  } finally {
    await session.target.stop();
  }
}
