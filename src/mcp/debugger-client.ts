/**
 * The REST API of a running `graphmind serve`, as `graphmind mcp` reads
 * and controls it: the shared loopback client (src/client/) for the
 * connection, token and Host; here, the routes and what their answers
 * mean to a tool (a {@link ToolError} with the code the assistant sees).
 *
 * @module
 */
import { answerJson, LoopbackClient, LoopbackError, type LoopbackAnswer } from '../client/loopback-client.js';
import { isObject } from '../json/is-object.js';
import type { Breakpoints, Hold, HoldDecision } from '../protocol/control.js';
import type { Run, RunSummary } from '../protocol/run-model.js';
import type { DebuggerControl, RunList, RunRead, RunSource } from './source.js';
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

/** The REST API of a running debugger, as a {@link RunSource} and its {@link DebuggerControl}. */
export class DebuggerClient implements RunSource, DebuggerControl {
  readonly #client: LoopbackClient;

  constructor(options: DebuggerClientOptions) {
    this.#client = new LoopbackClient({
      port: options.port,
      dataDir: options.dataDir,
      env: options.env,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBytes: options.maxBytes ?? 1024 * 1024 * 1024,
      command: 'graphmind mcp',
    });
  }

  /** Where the debugger is looked for, for messages. */
  get address(): string {
    return this.#client.address;
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

  /** A JSON request; DebuggerUnavailable as the loopback client throws it, a failed exchange as a `debugger-error`. */
  async #call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    let answer: LoopbackAnswer;
    try {
      answer = await this.#client.request({ method, path, body: payload, contentType: 'application/json', accept: 'application/json' });
    } catch (error) {
      throw error instanceof LoopbackError ? new ToolError('debugger-error', error.message) : error;
    }
    return { status: answer.status, json: answerJson(answer) };
  }

  #unexpected(what: string, answer: Answer): ToolError {
    return new ToolError('debugger-error', `the debugger answered ${what} with HTTP ${answer.status}${answer.json === undefined ? '' : `: ${errorText(answer.json)}`}`);
  }
}

/** The `error` of the debugger's `{ "error": "…" }`, short. */
function errorText(json: unknown): string {
  const text = isObject(json) && typeof json.error === 'string' ? json.error : JSON.stringify(json) ?? '';
  return text.slice(0, 200);
}
