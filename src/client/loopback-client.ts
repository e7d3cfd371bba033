/**
 * The one client of a running `graphmind serve`'s API on this machine,
 * found as reporters find it: `127.0.0.1:<port>`, else `[::1]:<port>`
 * (trying first the one that answered last); the token from
 * `GRAPHMIND_TOKEN`, else `<dataDir>/token`, read again for every request
 * since the server writes a new one each time it starts; the `Host` header
 * naming the address dialled, as the server's DNS-rebinding check requires.
 * `graphmind export`, `graphmind import` and `graphmind mcp` all talk to the
 * debugger through it.
 *
 * Before every request, whoever listens must prove it holds the token
 * (`GET /api/identity`, control API security rule 12): the token goes only
 * to a listener that does.
 *
 * Nothing answering, a listener that cannot prove it is the debugger (an
 * `impostor`), or a debugger that holds another token (or we have none)
 * is {@link DebuggerUnavailable}, with its {@link UnavailableReason}: the
 * commands read the data directory instead only when nothing answers or
 * an impostor does, never when a debugger of another token does. A
 * refused token's message names where ours was read and, when one of the
 * token files this user can read proves to be the debugger's (checked
 * with the same proof, nothing sent), that one; a connection that breaks,
 * an answer too large or too slow is a {@link LoopbackError}.
 *
 * @module
 */
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isObject } from '../json/is-object.js';
import { defaultDataDir, readToken } from '../report/config.js';
import { NOT_LISTENING, proveDebugger } from '../report/prove-debugger.js';
import { somethingElseAnswers } from '../relay/messages.js';

/**
 * Why there is no debugger to talk to: `absent` (nothing listens on the
 * port), `impostor` (something that could not prove it is the debugger),
 * `other-token` (a debugger that holds another token than ours, or we
 * have none: most likely a `graphmind serve` of another data directory).
 */
export type UnavailableReason = 'absent' | 'impostor' | 'other-token';

/**
 * No debugger to talk to: nothing listens on its port, or what listens
 * could not prove it is the debugger, or it holds another token. Readers
 * of runs fall back to the data directory unless a debugger of another
 * token answered; the controls report it as an error.
 */
export class DebuggerUnavailable extends Error {
  override readonly name = 'DebuggerUnavailable';

  /** Why (see {@link UnavailableReason}). */
  get reason(): UnavailableReason {
    if (this.impostor) return 'impostor';
    return this.refused ? 'other-token' : 'absent';
  }

  /**
   * @param refused - something answered but turned us away (401/403) or could not prove it is our debugger, rather than nothing answering
   * @param message - one line, for people
   * @param impostor - what answered could not prove it is the debugger at all (it was sent nothing)
   */
  constructor(
    readonly refused: boolean,
    message: string,
    readonly impostor = false,
  ) {
    super(message);
  }
}

/** A debugger answered, but the exchange failed: the connection broke, or the answer was too large or too slow. */
export class LoopbackError extends Error {
  override readonly name = 'LoopbackError';
}

/** Options for {@link LoopbackClient}. */
export interface LoopbackClientOptions {
  /** The debugger's port. */
  port: number;
  /** Where the token file is: `<dataDir>/token`. */
  dataDir: string;
  /** Where `GRAPHMIND_TOKEN` is read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** How long a request may take, connection to last byte. @default 30000 */
  timeoutMs?: number;
  /** Largest answer read. @default no limit */
  maxBytes?: number;
  /**
   * The command that asks (`graphmind mcp`): named in the hints of the
   * {@link DebuggerUnavailable} messages. Without it, the messages say
   * what happened and no more. @default undefined
   */
  command?: string;
}

/** One request. */
export interface LoopbackRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path and query, e.g. `/api/runs`. */
  path: string;
  /** The body, when there is one. */
  body?: Buffer;
  /** The body's media type. @default 'application/octet-stream' */
  contentType?: string;
  /** The `Accept` header, when one is to be sent. */
  accept?: string;
  /**
   * Where a 200 answer's body goes as it comes (read as fast as `sink`
   * takes it, never kept; not ended): the answer's `body` is then empty.
   */
  sink?: NodeJS.WritableStream;
}

/** An answer: its status, media type and body. */
export interface LoopbackAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** How long a listener has to prove it is the debugger. */
const PROVE_TIMEOUT_MS = 5000;

/** The two loopback addresses a `graphmind serve` may listen on, and their Host header. */
const ADDRESSES = [
  { host: '127.0.0.1', header: (port: number) => `127.0.0.1:${port}` },
  { host: '::1', header: (port: number) => `[::1]:${port}` },
] as const;

/** A running debugger's API on this machine (see the module). */
export class LoopbackClient {
  readonly #port: number;
  readonly #dataDir: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #command: string | undefined;
  /** Index in {@link ADDRESSES} of the address that answered last. */
  #preferred = 0;

  constructor(options: LoopbackClientOptions) {
    this.#port = options.port;
    this.#dataDir = options.dataDir;
    this.#env = options.env ?? process.env;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxBytes = options.maxBytes ?? Infinity;
    this.#command = options.command;
  }

  /** Where the debugger is looked for, for messages. */
  get address(): string {
    return `127.0.0.1:${this.#port}`;
  }

  /** Send `call` to the first address that answers; {@link DebuggerUnavailable} when none does or the token is refused. */
  async request(call: LoopbackRequest): Promise<LoopbackAnswer> {
    // Without a token the check still runs: a debugger that answers is then told apart from nothing at all.
    const token = readToken(this.#dataDir, this.#env);
    const order = this.#preferred === 0 ? [0, 1] : [1, 0];
    for (const index of order) {
      // The token goes only to a listener that proves it holds it: one check per request, since the debugger may have gone and something else come.
      const host = (ADDRESSES[index] as (typeof ADDRESSES)[number]).host;
      const identity = await proveDebugger({ host, port: this.#port, token, timeoutMs: Math.min(this.#timeoutMs, PROVE_TIMEOUT_MS) });
      if (identity === 'absent') continue;
      this.#preferred = index;
      if (identity === 'impostor') throw new DebuggerUnavailable(true, `${somethingElseAnswers(this.#port)}; not sending it the token`, true);
      if (identity === 'other-token' || token === undefined) throw await this.#refused(host, token, 'it proves it holds another one');
      const answer = await this.#send(index, call, token);
      if (answer === undefined) continue;
      if (answer.status === 401 || answer.status === 403) throw await this.#refused(host, token, `HTTP ${answer.status}`);
      return answer;
    }
    throw new DebuggerUnavailable(false, `no debugger answers on 127.0.0.1:${this.#port}`);
  }

  /** The refusal of our token, in one line: where ours came from, and whose the debugger holds when a token file we can read proves it. */
  async #refused(host: string, token: string | undefined, how: string): Promise<DebuggerUnavailable> {
    const fromEnv = this.#env.GRAPHMIND_TOKEN !== undefined && this.#env.GRAPHMIND_TOKEN !== '';
    const ours = token === undefined ? `we have none (no GRAPHMIND_TOKEN and no ${join(this.#dataDir, 'token')})` : `we read ours from ${fromEnv ? 'GRAPHMIND_TOKEN' : join(this.#dataDir, 'token')}`;
    const theirs = await this.#whoseToken(host, fromEnv);
    const it = theirs === undefined ? 'it uses another token (another --data-dir?)' : `it uses the one in ${join(theirs, 'token')} (--data-dir ${theirs})`;
    const hint = this.#command === undefined ? '' : `; give ${this.#command} that --data-dir, or set GRAPHMIND_TOKEN`;
    return new DebuggerUnavailable(true, `the debugger on port ${this.#port} refused our token (${how}): ${ours}, and ${it}${hint}`);
  }

  /**
   * The data directory whose token file the debugger holds, among those
   * this user would have meant (GRAPHMIND_DATA_DIR's, ~/.graphmind, ours
   * when the token came from GRAPHMIND_TOKEN): each is checked with the
   * identity proof, so no token is sent and the debugger tells nothing.
   */
  async #whoseToken(host: string, fromEnv: boolean): Promise<string | undefined> {
    const dirs = new Set([defaultDataDir(this.#env), join(homedir(), '.graphmind')]);
    if (fromEnv) dirs.add(this.#dataDir);
    else dirs.delete(this.#dataDir);
    for (const dir of dirs) {
      const token = readToken(dir, {});
      if (token === undefined) continue;
      if ((await proveDebugger({ host, port: this.#port, token, timeoutMs: Math.min(this.#timeoutMs, PROVE_TIMEOUT_MS) })) === 'proven') return dir;
    }
    return undefined;
  }

  /** One request to one address; undefined when nothing listens there. */
  #send(index: number, call: LoopbackRequest, token: string): Promise<LoopbackAnswer | undefined> {
    const address = ADDRESSES[index] as (typeof ADDRESSES)[number];
    const { method, path, body } = call;
    const headers: Record<string, string | number> = { host: address.header(this.#port), authorization: `Bearer ${token}` };
    if (call.accept !== undefined) headers.accept = call.accept;
    if (body !== undefined) {
      headers['content-type'] = call.contentType ?? 'application/octet-stream';
      headers['content-length'] = body.length;
    }
    return new Promise((resolve, reject) => {
      const req = request({ host: address.host, port: this.#port, method, path, headers, setHost: false, agent: false }, (res) => {
        if (call.sink !== undefined && res.statusCode === 200) {
          // Streamed through: a body cut short (the debugger failed mid-way) is an error, not an answer.
          res.pipe(call.sink, { end: false });
          res.on('close', () => {
            if (res.complete) resolve({ status: 200, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.alloc(0) });
            else reject(new LoopbackError(`the debugger's answer to ${method} ${path} was cut short`));
          });
          return;
        }
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > this.#maxBytes) {
            req.destroy();
            reject(new LoopbackError(`the debugger's answer to ${method} ${path} is larger than ${this.#maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
        res.on('error', (error) => reject(new LoopbackError(`reading the debugger's answer failed: ${error.message}`)));
      });
      req.setTimeout(this.#timeoutMs, () => req.destroy(new Error(`no answer within ${this.#timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (NOT_LISTENING.has(error.code ?? '')) resolve(undefined);
        else reject(new LoopbackError(`the debugger on port ${this.#port} did not answer ${method} ${path}: ${error.message}`));
      });
      req.end(body);
    });
  }
}

/** An answer's body parsed as JSON; undefined when it is empty or not JSON. */
export function answerJson(answer: LoopbackAnswer): unknown {
  const text = answer.body.toString('utf8');
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `error` of an API's `{ "error": "…" }` answer, else its status. */
export function answerError(answer: LoopbackAnswer): string {
  const json = answerJson(answer);
  if (isObject(json) && typeof json.error === 'string') return json.error;
  return `HTTP ${answer.status}`;
}
