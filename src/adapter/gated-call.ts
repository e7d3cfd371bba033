import { liftResult } from '../gates/lift.js';
import { ABORT_CODE, type HeldKind, type Outcome } from '../gates/outcome.js';
import { hidesResult, isToolError, recordInjected, recordResult, recordThrown, rpcError, type AnswerRecord } from '../report/answer-record.js';
import type { HideSettings } from '../report/hide.js';
import type { AdapterRuntime } from './adapter-runtime.js';
import { CallRun } from './call-run.js';
import { abortError, holdFor, type HeldThing } from './hold-for.js';
import { DebuggerAnswer, type FinalAnswer, type RequestScope } from './request-scope.js';
import { gatedSampling } from './sampling-gate.js';
import { chainedContext, requestIdOf, sessionIdOf, signalOf, trailingContext, type HandlerContext, type SendRequest } from './sdk-shape.js';
import type { CallSite, ServerState } from './server-state.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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
 * One gated execution of a handler (a tool, a resource read, a prompt): its
 * run, the before gate, the handler (with the run's abort signal chained
 * into the SDK's), the after and error gates, retries, and what each
 * decision does in process:
 *
 * | outcome | before | after / error |
 * |---|---|---|
 * | forward | the handler runs | its result goes back (or its error is rethrown) |
 * | answer | the lifted value is returned; the handler never runs | the lifted value is returned instead |
 * | answer-frame | its `result` is returned, or its `error` answers the request | same |
 * | retry | (forward) | the handler runs again |
 * | fail | the request ends with -32099; the run's signal aborts | same |
 */
export class GatedCall {
  readonly server: ServerState;
  readonly site: CallSite;
  readonly context: HandlerContext | undefined;
  readonly requestId: string | number | undefined;
  readonly instanceId: string;
  readonly run: CallRun;
  readonly input: unknown;
  /** For a resource read: the URI asked for (a lifted read result names it). */
  readonly uri: string | undefined;
  /** Aborted in the debugger: the request ends with -32099 whatever the handler does. */
  aborted = false;
  /** The scope of the request this call runs in (set by whoever starts it). */
  scope: RequestScope | undefined;
  /** The run's own abort controller, chained into the handler's signal (made when needed, see #signal). */
  #controller: AbortController | undefined;
  #samplings = 0;

  constructor(server: ServerState, site: CallSite, input: unknown, context: HandlerContext | undefined, uri: string | undefined) {
    const runtime = server.runtime;
    this.server = server;
    this.site = site;
    this.context = context;
    this.input = input;
    this.uri = uri;
    this.requestId = requestIdOf(context);
    const connection = server.connection;
    const count = ++runtime.stats.calls;
    this.instanceId = `${connection}:${this.requestId ?? `call${count}`}`;
    // Nothing goes out yet: a quick call nobody holds is sent whole when it ends (see CallRun).
    this.run = new CallRun(runtime, server, `${site.method}:${site.node.label}`, { connection, sessionId: sessionIdOf(context) }, { instanceId: this.instanceId, node: site.node, input: runtime.recordedInput(input) });
    runtime.inFlight.add(this);
    runtime.running.add(this);
  }

  /** The next nested instance id (sampling issued by this handler). */
  nestedId(kind: string): string {
    return `${this.instanceId}:${kind}:${++this.#samplings}`;
  }

  /** Abort the run: the handler's signal fires, and the request ends with -32099. */
  abort(): DebuggerAnswer {
    this.aborted = true;
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
    const runtime = this.server.runtime;
    const core = runtime.core;
    let callArgs = args;
    const context = this.context;
    if (context !== undefined && core.mayHold(this.run.runId)) {
      callArgs = args.slice();
      callArgs[callArgs.length - 1] = chainedContext(context, () => this.#signal(), {
        send: (send) => this.#wrapSend(send),
        sampling: (requestSampling) => (params, ...rest) => gatedSampling(this.server, this, params, () => requestSampling(params, ...rest)),
      });
    }
    return this.#lifecycle(handler, thisArg, callArgs);
  }

  async #lifecycle(handler: (...args: unknown[]) => unknown, thisArg: unknown, args: unknown[]): Promise<unknown> {
    const runtime = this.server.runtime;
    const core = runtime.core;
    const runId = this.run.runId;
    const nodeId = this.site.node.nodeId;
    const method = this.site.method;
    if (core.armed) {
      const loop = this.site.node.kind === 'tool' && this.server.loop.observe(this.site.node.label, this.input);
      const plan = core.plan(runId, { point: 'before', nodeId, loop });
      if (plan !== undefined) {
        const outcome = await holdFor(runtime, this.#held('request', this.#requestMessage()), plan);
        if (outcome.kind !== 'forward' && outcome.kind !== 'retry') return this.#decided(outcome);
      }
    }
    for (;;) {
      let result: unknown;
      let thrown: unknown;
      let threw = false;
      try {
        result = await handler.apply(thisArg, args);
      } catch (error) {
        threw = true;
        thrown = error;
      }
      if (this.aborted) return this.#end(abortError(), true);
      const recorded = threw ? undefined : recordResult(method, result, runtime.hide);
      const failed = threw || recorded?.failed === true;
      const plan = core.armed ? core.plan(runId, { point: 'after', nodeId, failed }) : undefined;
      if (plan !== undefined) {
        const message = threw ? { jsonrpc: '2.0', id: this.requestId ?? null, error: errorMessage(thrown) } : { jsonrpc: '2.0', id: this.requestId ?? null, result };
        const outcome = await holdFor(runtime, this.#held('answer', message), plan);
        if (outcome.kind === 'retry') {
          this.run.reopened(this.instanceId);
          continue;
        }
        if (outcome.kind !== 'forward') return this.#decided(outcome);
      }
      if (threw) {
        this.#record({ failed: true, error: recordThrown(method, thrown, runtime.hide) });
        throw thrown;
      }
      this.#record(recorded as NonNullable<typeof recorded>);
      return result;
    }
  }

  /** Carry out a decision that answers the request here. */
  #decided(outcome: Outcome): unknown {
    const runtime = this.server.runtime;
    const method = this.site.method;
    switch (outcome.kind) {
      case 'answer': {
        const lifted = liftResult(method, outcome.value, { uri: this.uri });
        this.#record(recordInjected(method, lifted, runtime.hide));
        return lifted;
      }
      case 'answer-frame': {
        const frame = outcome.frame;
        this.#record(recordInjected(method, frame, runtime.hide));
        if (isObject(frame.error)) {
          const { code, message, data } = frame.error;
          return this.#throwAnswer(new DebuggerAnswer(typeof code === 'number' ? code : -32603, typeof message === 'string' ? message : 'error', data));
        }
        return 'result' in frame ? frame.result : frame;
      }
      case 'fail':
        return this.#end(this.abort(), true);
      default:
        // forward, retry, replace, drop: nothing to answer here (not reached).
        return undefined;
    }
  }

  /** End the call with an abort: recorded as Aborted, answered with -32099. */
  #end(error: DebuggerAnswer, aborted: boolean): never {
    if (aborted) this.#record({ failed: true, error: { name: 'Aborted', message: 'aborted in the debugger', code: ABORT_CODE } });
    return this.#throwAnswer(error);
  }

  /** Throw an answer that must reach the client as a JSON-RPC error (see `RequestScope.escape`). */
  #throwAnswer(error: DebuggerAnswer): never {
    if (this.scope !== undefined) this.scope.escape = error;
    throw error;
  }

  /**
   * The call has its answer. Run by the SDK's dispatch, it is recorded once
   * the SDK's own handler around it has settled, as the client got it (see
   * {@link asAnswered}); otherwise at once.
   */
  #record(answer: AnswerRecord): void {
    const runtime = this.server.runtime;
    runtime.inFlight.delete(this);
    const scope = this.scope;
    if (scope !== undefined && scope.dispatch && scope.call === this && scope.settled === undefined) {
      scope.settled = (final) => this.#complete(asAnswered(this.site.method, answer, final, runtime.hide));
      return;
    }
    this.#complete(answer);
  }

  #complete(answer: AnswerRecord): void {
    this.server.runtime.running.delete(this);
    if (answer.failed) this.server.runtime.stats.errors++;
    this.run.complete(answer);
  }

  #held(kind: HeldKind, message: Record<string, unknown>): HeldThing {
    const id = this.requestId === undefined ? '' : ` #${String(this.requestId)}`;
    return {
      runId: this.run.runId,
      nodeId: this.site.node.nodeId,
      instanceId: this.instanceId,
      method: this.site.method,
      kind,
      message,
      describe: `${this.site.method}${id} (${this.site.node.nodeId})`,
      giveUp: signalOf(this.context),
      open: () => this.run.open(),
    };
  }

  /** The request as it arrived, for the before gate's hold. */
  #requestMessage(): Record<string, unknown> {
    const node = this.site.node;
    let params: Record<string, unknown>;
    if (this.site.method === 'resources/read') params = this.site.template === true ? { uri: this.uri, variables: this.input } : { uri: this.uri };
    else params = { name: node.label, arguments: this.input };
    return { jsonrpc: '2.0', id: this.requestId ?? null, method: this.site.method, params };
  }

  /** The handler's client-request sender, with sampling gated as a nested node. */
  #wrapSend(send: SendRequest): SendRequest {
    return (request, ...rest) => {
      if (request?.method !== 'sampling/createMessage') return send(request, ...rest);
      return gatedSampling(this.server, this, request.params, () => send(request, ...rest));
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

/** Read what a handler was called with: its context, and its input (the arguments before the context). */
export function callShape(site: CallSite, args: readonly unknown[]): { context: HandlerContext | undefined; input: unknown; uri: string | undefined } {
  const context = trailingContext(args);
  const own = context === undefined ? args : args.slice(0, -1);
  if (site.method === 'resources/read') {
    const uri = own[0] === undefined ? undefined : String(own[0]);
    return { context, input: site.template === true ? (own[1] ?? {}) : { uri }, uri };
  }
  // A tool or prompt without an input schema is called with its context alone: an empty input.
  return { context, input: own.length > 0 ? own[0] : {}, uri: undefined };
}
