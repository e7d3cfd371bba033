import type { AnswerRecord } from '../report/answer-record.js';
import type { GatePoint } from '../protocol/control.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import type { AdapterStats } from './adapter-stats.js';
import { CallRun, type RunHost } from './call-run.js';
import { abortError } from './debugger-answer.js';
import { execute, type ExecutionHost, type Gated } from './gated-execution.js';
import type { ScopeTracking } from './request-scope.js';
import type { RunningCall } from './running-call.js';
import type { ServerState } from './server-state.js';

const METHOD = 'sampling/createMessage';

/** What a gated sampling request needs of the adapter. */
export interface SamplingHost extends ExecutionHost, RunHost {
  /** Counts `sampling` (and `runs`, for a sampling outside any call). */
  readonly stats: Pick<AdapterStats, 'runs' | 'sampling'>;
  /** Marks the synchronous start of a request the adapter sends itself. */
  readonly scopes: Pick<ScopeTracking, 'sending'>;
  /** An input as the record keeps it (hidden under `GRAPHMIND_HIDE_INPUTS`). */
  recordedInput(input: unknown): unknown;
}

/**
 * A sampling request a handler sends the client (`extra.sendRequest`,
 * `ctx.mcpReq.send`, `ctx.mcpReq.requestSampling`, or the server's
 * `createMessage`), gated as its own `llm:sampling` node nested under the
 * call that issued it (`parent`; for a server's `createMessage`, which
 * names no request, found through async context by the caller). Outside
 * any call it gets a small run of its own. Decisions as for a call (see
 * `execute`): inject answers the handler with a lifted
 * `CreateMessageResult` (the client is not asked), retry asks again, abort
 * aborts the issuing call (its signal fires; the request ends with -32099)
 * and rejects here.
 */
export async function gatedSampling(host: SamplingHost, server: ServerState, parent: RunningCall | undefined, params: unknown, send: () => Promise<unknown>): Promise<unknown> {
  // With no debugger nothing can hold it, and it is not recorded.
  if (!host.core.armed) return send();
  return execute(host, new SamplingRequest(host, server, parent, params, send));
}

/** One sampling request as a gated execution (see {@link gatedSampling}). */
class SamplingRequest implements Gated {
  readonly method = METHOD;
  readonly nodeId = 'llm:sampling';
  readonly requestId = undefined;
  readonly uri = undefined;
  /** A sampling is aborted by its own holds only. */
  readonly abortedAt = undefined;
  readonly instanceId: string;
  readonly run: CallRun;
  /** The wrapped server's name, which scoped breakpoints match. */
  readonly serverName: string;
  readonly #host: SamplingHost;
  readonly #parent: RunningCall | undefined;
  readonly #params: unknown;
  readonly #send: () => Promise<unknown>;

  constructor(host: SamplingHost, server: ServerState, parent: RunningCall | undefined, params: unknown, send: () => Promise<unknown>) {
    this.#host = host;
    this.#parent = parent;
    this.#params = params;
    this.#send = send;
    host.stats.sampling++;
    this.serverName = server.name;
    this.instanceId = parent?.nestedId('sampling') ?? `${server.connection}:sampling:${host.stats.sampling}`;
    const node: NodeDeclaration = { nodeId: this.nodeId, kind: 'llm', parent: parent?.nodeId ?? server.node.nodeId, label: 'sampling' };
    // Nested under the call that sent it (whose run now shows live), or a small run of its own.
    const input = host.recordedInput(params);
    this.run = parent?.run ?? new CallRun(host, server, METHOD, { connection: server.connection }, { instanceId: this.instanceId, node, input });
    if (parent !== undefined) this.run.started(this.instanceId, node, input);
  }

  get giveUpSignal(): AbortSignal | undefined {
    return this.#parent?.giveUpSignal;
  }

  describe(): string {
    const parent = this.#parent;
    return `${METHOD} (${this.nodeId}${parent === undefined ? '' : ` under ${parent.nodeId}`})`;
  }

  loops(): boolean {
    return false;
  }

  requestParams(): unknown {
    return this.#params;
  }

  heldError(thrown: unknown): Record<string, unknown> {
    return { message: thrown instanceof Error ? thrown.message : String(thrown) };
  }

  /** Ask the client; while it starts, a `createMessage` it calls through is this same request (see `ScopeTracking.inSampling`). */
  attempt(): Promise<unknown> {
    return this.#host.scopes.sending(this.#send);
  }

  record(answer: AnswerRecord): void {
    if (this.#parent === undefined) {
      this.run.complete(answer);
      return;
    }
    if (answer.failed) this.run.failed(this.instanceId, answer.error, answer.output);
    else this.run.ended(this.instanceId, answer.output);
  }

  /** The issuing call is aborted with it. */
  abort(point: GatePoint): Error {
    return this.#parent?.abort(point) ?? abortError();
  }

  throwAnswer(error: Error): never {
    throw error;
  }
}
