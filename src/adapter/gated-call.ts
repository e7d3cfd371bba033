import type { DebuggerGate } from '../gates/debugger-gate.js';
import { isObject } from '../json/is-object.js';
import { hidesResult, isToolError, recordResult, rpcError, type AnswerRecord } from '../report/answer-record.js';
import type { GatePoint } from '../protocol/control.js';
import type { HideSettings } from '../report/hide.js';
import type { AdapterStats } from './adapter-stats.js';
import { CallRun } from './call-run.js';
import { abortError, type DebuggerAnswer } from './debugger-answer.js';
import { execute, type Gated } from './gated-execution.js';
import type { LiveCalls } from './live-calls.js';
import type { FinalAnswer, RequestScope } from './request-scope.js';
import type { RunningCall } from './running-call.js';
import { gatedSampling, type SamplingHost } from './sampling-gate.js';
import { chainedContext, requestIdOf, sessionIdOf, signalOf, type HandlerContext, type SendRequest } from './sdk-shape.js';
import type { CallSite, ServerState } from './server-state.js';

/** What a gated call needs of the adapter: what its execution and its nested sampling need, and where running calls are kept. */
export interface CallHost extends SamplingHost {
  /** The debugger-connected gate (`mayHold`: whether to put the debugger's pieces in the handler's context). */
  readonly core: Pick<DebuggerGate, 'armed' | 'plan' | 'withHold' | 'giveUp' | 'mayHold' | 'rules' | 'logpoints'>;
  /** Counts `calls` and `errors` (and `runs`, `sampling`). */
  readonly stats: Pick<AdapterStats, 'runs' | 'calls' | 'errors' | 'sampling'>;
  /** The calls running now. */
  readonly live: Pick<LiveCalls<RunningCall>, 'began' | 'answered' | 'ended'>;
}

/** A thrown error as the held message shows it. */
function errorMessage(thrown: unknown): Record<string, unknown> {
  if (thrown instanceof Error) {
    const code = (thrown as { code?: unknown }).code;
    return { ...(typeof code === 'number' ? { code } : {}), message: thrown.message, data: { errorName: thrown.name, stack: thrown.stack } };
  }
  return { message: typeof thrown === 'string' ? thrown : 'a value that is not an Error was thrown' };
}

/**
 * One gated execution of a handler (a tool, a resource read, a prompt):
 * its run, and the handler (with the run's abort signal chained into the
 * SDK's, and sampling sent through its context gated as nested nodes), run
 * through the adapter's one gated execution (`execute`, which says what
 * each decision does). An abort ends the request with -32099 and fires the
 * run's signal.
 */
export class GatedCall implements Gated, RunningCall {
  readonly server: ServerState;
  readonly site: CallSite;
  readonly context: HandlerContext | undefined;
  readonly requestId: string | number | undefined;
  readonly instanceId: string;
  readonly run: CallRun;
  readonly input: unknown;
  /** For a resource read: the URI asked for (a lifted read result names it). */
  readonly uri: string | undefined;
  /** Aborted in the debugger, at this gate: the request ends with -32099 whatever the handler does. */
  abortedAt: GatePoint | undefined;
  /** The scope of the request this call runs in (set by whoever starts it). */
  scope: RequestScope | undefined;
  readonly #host: CallHost;
  /** The run's own abort controller, chained into the handler's signal (made when needed, see #signal). */
  #controller: AbortController | undefined;
  #samplings = 0;
  /** The handler and what it is called with (see {@link GatedCall.invoke}). */
  #handler: ((...args: unknown[]) => unknown) | undefined;
  #thisArg: unknown;
  #args: unknown[] = [];

  constructor(host: CallHost, server: ServerState, site: CallSite, input: unknown, context: HandlerContext | undefined, uri: string | undefined) {
    this.#host = host;
    this.server = server;
    this.site = site;
    this.context = context;
    this.input = input;
    this.uri = uri;
    this.requestId = requestIdOf(context);
    const connection = server.connection;
    const count = ++host.stats.calls;
    this.instanceId = `${connection}:${this.requestId ?? `call${count}`}`;
    // Nothing goes out yet: a quick call nobody holds is sent whole when it ends (see CallRun).
    this.run = new CallRun(host, server, `${site.method}:${site.node.label}`, { connection, sessionId: sessionIdOf(context) }, { instanceId: this.instanceId, node: site.node, input: host.recordedInput(input), requestId: this.requestId });
    host.live.began(this);
  }

  /** The handler's method. */
  get method(): string {
    return this.site.method;
  }

  /** The handler's node. */
  get nodeId(): string {
    return this.site.node.nodeId;
  }

  /** The wrapped server's name, which scoped breakpoints match. */
  get serverName(): string {
    return this.server.name;
  }

  /** The SDK's signal for the request: it fires when the client cancels, or goes away. */
  get giveUpSignal(): AbortSignal | undefined {
    return signalOf(this.context);
  }

  /** The next nested instance id (sampling issued by this handler). */
  nestedId(kind: string): string {
    return `${this.instanceId}:${kind}:${++this.#samplings}`;
  }

  /** Abort the run (decided at `point`): the handler's signal fires, and the request ends with -32099. */
  abort(point: GatePoint): DebuggerAnswer {
    this.abortedAt = point;
    const error = abortError();
    this.#controller ??= new AbortController();
    this.#controller.abort(error);
    return error;
  }

  /** The run's own abort signal, made when first asked for (most handlers never read their signal). */
  #signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  /** Run the handler through the gates; resolves or rejects as the client's answer should. */
  async invoke(handler: (...args: unknown[]) => unknown, thisArg: unknown, args: unknown[]): Promise<unknown> {
    const host = this.#host;
    let callArgs = args;
    const context = this.context;
    if (context !== undefined && host.core.mayHold(this.run.runId)) {
      callArgs = args.slice();
      callArgs[callArgs.length - 1] = chainedContext(context, () => this.#signal(), {
        send: (send) => this.#wrapSend(send),
        sampling: (requestSampling) => (params, ...rest) => gatedSampling(host, this.server, this, params, () => requestSampling(params, ...rest)),
      });
    }
    this.#handler = handler;
    this.#thisArg = thisArg;
    this.#args = callArgs;
    return execute(host, this);
  }

  /** Run the handler once. */
  attempt(): unknown {
    return (this.#handler as (...args: unknown[]) => unknown).apply(this.#thisArg, this.#args);
  }

  /** A tool call completes a loop (asked at the before gate: the loop detector remembers it). */
  loops(): boolean {
    return this.site.node.kind === 'tool' && this.server.loop.observe(this.site.node.label, this.input);
  }

  /** The request's params as they arrived, for the before gate's hold. */
  requestParams(): unknown {
    if (this.site.method === 'resources/read') return this.site.template === true ? { uri: this.uri, variables: this.input } : { uri: this.uri };
    return { name: this.site.node.label, arguments: this.input };
  }

  heldError(thrown: unknown): Record<string, unknown> {
    return errorMessage(thrown);
  }

  describe(): string {
    const id = this.requestId === undefined ? '' : ` #${String(this.requestId)}`;
    return `${this.site.method}${id} (${this.site.node.nodeId})`;
  }

  /** Throw an answer that must reach the client as a JSON-RPC error (see `RequestScope.escape`). */
  throwAnswer(error: Error): never {
    if (this.scope !== undefined) this.scope.escape = error;
    throw error;
  }

  /**
   * The call has its answer. Run by the SDK's dispatch, it is recorded once
   * the SDK's own handler around it has settled, as the client got it (see
   * {@link asAnswered}); otherwise at once.
   */
  record(answer: AnswerRecord): void {
    const host = this.#host;
    host.live.answered(this);
    const scope = this.scope;
    if (scope !== undefined && scope.dispatch && scope.call === this && scope.settled === undefined) {
      scope.settled = (final) => this.#complete(asAnswered(this.site.method, answer, final, host.hide));
      return;
    }
    this.#complete(answer);
  }

  #complete(answer: AnswerRecord): void {
    const host = this.#host;
    host.live.ended(this);
    if (answer.failed) host.stats.errors++;
    this.run.complete(answer);
  }

  /** The handler's client-request sender, with sampling gated as a nested node. */
  #wrapSend(send: SendRequest): SendRequest {
    return (request, ...rest) => {
      if (request?.method !== 'sampling/createMessage') return send(request, ...rest);
      return gatedSampling(this.#host, this.server, this, request.params, () => send(request, ...rest));
    };
  }
}

/**
 * A call's own record of its answer, as the client got it: an answer the
 * SDK refused after the handler (a result its output-schema validation
 * rejects, an injected value included) reaches the client as an `isError`
 * tool result or a JSON-RPC error, and is recorded so. Anything else, and a
 * call that already failed, is recorded as the call answered.
 */
export function asAnswered(method: string, own: AnswerRecord, final: FinalAnswer | undefined, hide: HideSettings): AnswerRecord {
  if (own.failed || final === undefined) return own;
  if (final.threw) {
    const thrown = final.value;
    const rpc = isObject(thrown) || thrown instanceof Error ? (thrown as { code?: unknown; message?: unknown; data?: unknown }) : { message: String(thrown) };
    return { failed: true, output: own.output, error: rpcError(rpc, hidesResult(method, hide)) };
  }
  return isToolError(method, final.value) ? recordResult(method, final.value, hide) : own;
}
