/**
 * A client of a running `graphmind serve`'s REST API, found as reporters
 * find it: `127.0.0.1:<port>` (else `[::1]:<port>`, trying first the one
 * that answered last), the token from `GRAPHMIND_TOKEN`, else
 * `<dataDir>/token`, read again for every request since the server writes a
 * new one each time it starts. The `Host` header names the address dialled,
 * as the server's DNS-rebinding check requires.
 *
 * @module
 */
import { request } from 'node:http';
import type { Breakpoints, Hold, HoldDecision } from '../protocol/control.js';
import type { Run, RunSummary } from '../protocol/run-model.js';
import { readToken } from '../report/config.js';
import { DebuggerUnavailable, type DebuggerControl, type RunList, type RunRead, type RunSource } from './source.js';
import { ToolError } from './tool-error.js';

/** Options for {@link DebuggerClient}. */
export interface DebuggerClientOptions {
  /** The debugger's port. */
  port: number;
  /** Where the token file is: `<dataDir>/token`. */
  dataDir: string;
  /** Where `GRAPHMIND_TOKEN` is read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** How long a request may take, connection to last byte. @default 30000 */
  timeoutMs?: number;
  /** Largest answer read. @default 1 GiB */
  maxBytes?: number;
}

/** An HTTP answer: its status and its body parsed as JSON (undefined if it is not JSON). */
interface Answer {
  status: number;
  json: unknown;
}

/** Connection errors that mean nothing listens at that address. */
const NOT_THERE = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'EAFNOSUPPORT', 'ENETUNREACH', 'EHOSTUNREACH']);

/** The two loopback addresses a `graphmind serve` may listen on, and their Host header. */
const ADDRESSES = [
  { host: '127.0.0.1', header: (port: number) => `127.0.0.1:${port}` },
  { host: '::1', header: (port: number) => `[::1]:${port}` },
] as const;

/** The REST API of a running debugger, as a {@link RunSource} and its {@link DebuggerControl}. */
export class DebuggerClient implements RunSource, DebuggerControl {
  readonly #port: number;
  readonly #dataDir: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  /** Index in {@link ADDRESSES} of the address that answered last. */
  #preferred = 0;

  constructor(options: DebuggerClientOptions) {
    this.#port = options.port;
    this.#dataDir = options.dataDir;
    this.#env = options.env ?? process.env;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxBytes = options.maxBytes ?? 1024 * 1024 * 1024;
  }

  /** Where the debugger is looked for, for messages. */
  get address(): string {
    return `127.0.0.1:${this.#port}`;
  }

  async listRuns(): Promise<RunList> {
    const answer = await this.#call('GET', '/api/runs');
    if (answer.status !== 200 || !Array.isArray(answer.json)) throw this.#unexpected('GET /api/runs', answer);
    return { from: 'debugger', runs: answer.json as RunSummary[] };
  }

  async getRun(runId: string): Promise<RunRead> {
    const answer = await this.#call('GET', `/api/runs/${encodeURIComponent(runId)}`);
    if (answer.status === 404) return { from: 'debugger', run: undefined };
    if (answer.status !== 200 || !isObject(answer.json)) throw this.#unexpected('GET /api/runs/:runId', answer);
    return { from: 'debugger', run: answer.json as unknown as Run };
  }

  async listHolds(): Promise<Hold[]> {
    const answer = await this.#call('GET', '/api/holds');
    if (answer.status !== 200 || !Array.isArray(answer.json)) throw this.#unexpected('GET /api/holds', answer);
    return answer.json as Hold[];
  }

  async decideHold(holdId: string, decision: HoldDecision): Promise<void> {
    // `by`: the run records who decided (see docs/export.md).
    const body = decision.action === 'inject' ? { action: decision.action, value: decision.value, by: 'graphmind mcp' } : { action: decision.action, by: 'graphmind mcp' };
    const answer = await this.#call('POST', `/api/holds/${encodeURIComponent(holdId)}`, body);
    if (answer.status === 200) return;
    if (answer.status === 404) throw new ToolError('unknown-hold', `no hold ${holdId} is waiting (it never existed, or its session went away): list_holds shows the holds there are`);
    if (answer.status === 409) throw new ToolError('hold-decided', `hold ${holdId} was already decided`);
    if (answer.status === 400) throw new ToolError('bad-argument', `the debugger refused this decision: ${errorText(answer.json)}`);
    throw this.#unexpected('POST /api/holds/:holdId', answer);
  }

  async getBreakpoints(): Promise<Breakpoints> {
    const answer = await this.#call('GET', '/api/breakpoints');
    if (answer.status !== 200 || !isObject(answer.json)) throw this.#unexpected('GET /api/breakpoints', answer);
    return answer.json as unknown as Breakpoints;
  }

  async putBreakpoints(breakpoints: Breakpoints): Promise<Breakpoints> {
    const answer = await this.#call('PUT', '/api/breakpoints', breakpoints);
    if (answer.status === 400) throw new ToolError('bad-argument', `the debugger refused these breakpoints: ${errorText(answer.json)}`);
    if (answer.status !== 200 || !isObject(answer.json)) throw this.#unexpected('PUT /api/breakpoints', answer);
    return answer.json as unknown as Breakpoints;
  }

  /** A request to the first address that answers; {@link DebuggerUnavailable} when none does or the token is refused. */
  async #call(method: string, path: string, body?: unknown): Promise<Answer> {
    const token = readToken(this.#dataDir, this.#env);
    if (token === undefined) {
      throw new DebuggerUnavailable(false, `no debugger token (no GRAPHMIND_TOKEN and no ${this.#dataDir}/token): is graphmind serve running with this data directory?`);
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    const order = this.#preferred === 0 ? [0, 1] : [1, 0];
    for (const index of order) {
      const answer = await this.#send(index, method, path, token, payload);
      if (answer === undefined) continue;
      this.#preferred = index;
      if (answer.status === 401 || answer.status === 403) {
        throw new DebuggerUnavailable(
          true,
          `the debugger on port ${this.#port} refused our token (HTTP ${answer.status}): it uses another data directory than ${this.#dataDir}; give graphmind mcp that --data-dir, or set GRAPHMIND_TOKEN`,
        );
      }
      return answer;
    }
    throw new DebuggerUnavailable(false, `no debugger answers on 127.0.0.1:${this.#port}`);
  }

  /** One request to one address; undefined when nothing listens there. */
  #send(index: number, method: string, path: string, token: string, payload: Buffer | undefined): Promise<Answer | undefined> {
    const address = ADDRESSES[index] as (typeof ADDRESSES)[number];
    const headers: Record<string, string | number> = { host: address.header(this.#port), authorization: `Bearer ${token}`, accept: 'application/json' };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    return new Promise((resolve, reject) => {
      const req = request({ host: address.host, port: this.#port, method, path, headers, setHost: false, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > this.#maxBytes) {
            req.destroy();
            reject(new ToolError('debugger-error', `the debugger's answer to ${method} ${path} is larger than ${this.#maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', (error) => reject(new ToolError('debugger-error', `reading the debugger's answer failed: ${error.message}`)));
      });
      req.setTimeout(this.#timeoutMs, () => req.destroy(new Error(`no answer within ${this.#timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (NOT_THERE.has(error.code ?? '')) resolve(undefined);
        else reject(new ToolError('debugger-error', `the debugger on port ${this.#port} did not answer ${method} ${path}: ${error.message}`));
      });
      req.end(payload);
    });
  }

  #unexpected(what: string, answer: Answer): ToolError {
    return new ToolError('debugger-error', `the debugger answered ${what} with HTTP ${answer.status}${answer.json === undefined ? '' : `: ${errorText(answer.json)}`}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The `error` of the debugger's `{ "error": "…" }`, short. */
function errorText(json: unknown): string {
  const text = isObject(json) && typeof json.error === 'string' ? json.error : JSON.stringify(json) ?? '';
  return text.slice(0, 200);
}
