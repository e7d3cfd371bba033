import { liftResult } from '../gates/lift.js';
import type { Outcome } from '../gates/outcome.js';
import { recordInjected, recordThrown } from '../report/answer-record.js';
import type { InstanceError, NodeDeclaration } from '../report/events.js';
import { CallRun } from './call-run.js';
import type { GatedCall } from './gated-call.js';
import { abortError, holdFor, type HeldThing } from './hold-for.js';
import { DebuggerAnswer } from './request-scope.js';
import { signalOf } from './sdk-shape.js';
import type { ServerState } from './server-state.js';

const METHOD = 'sampling/createMessage';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A sampling request a handler sends the client (`extra.sendRequest`,
 * `ctx.mcpReq.send`, `ctx.mcpReq.requestSampling`, or the server's
 * `createMessage`), gated as its own `llm:sampling` node nested under the
 * call that issued it (`parent`; for a server's `createMessage`, which
 * names no request, found through async context by the caller). Outside any call it gets a small run of its own.
 * Decisions as for a call: inject answers the handler with a lifted
 * `CreateMessageResult` (the client is not asked), retry asks again, abort
 * aborts the issuing call (its signal fires; the request ends with -32099)
 * and rejects here.
 */
export async function gatedSampling(server: ServerState, parent: GatedCall | undefined, params: unknown, send: () => Promise<unknown>): Promise<unknown> {
  const runtime = server.runtime;
  // With no debugger nothing can hold it, and it is not recorded.
  if (!runtime.core.armed) return send();
  const issuer = parent;
  runtime.stats.sampling++;
  const instanceId = issuer?.nestedId('sampling') ?? `${server.connection}:sampling:${runtime.stats.sampling}`;
  const node: NodeDeclaration = { nodeId: 'llm:sampling', kind: 'llm', parent: issuer?.site.node.nodeId ?? server.node.nodeId, label: 'sampling' };
  // Nested under the call that sent it (whose run now shows live), or a small run of its own.
  const input = runtime.recordedInput(params);
  const run = issuer?.run ?? new CallRun(runtime, server, METHOD, { connection: server.connection }, { instanceId, node, input });
  if (issuer !== undefined) run.started(instanceId, node, input);
  const finish = (failed: boolean, output: unknown, error?: InstanceError): void => {
    if (issuer === undefined) {
      run.complete(failed ? { failed, output, error: error as InstanceError } : { failed, output });
      return;
    }
    if (failed) run.failed(instanceId, error as InstanceError, output);
    else run.ended(instanceId, output);
  };
  const held = (kind: HeldThing['kind'], message: Record<string, unknown>): HeldThing => ({
    runId: run.runId,
    nodeId: node.nodeId,
    instanceId,
    method: METHOD,
    kind,
    message,
    describe: `${METHOD} (${node.nodeId}${issuer === undefined ? '' : ` under ${issuer.site.node.nodeId}`})`,
    giveUp: issuer === undefined ? undefined : signalOf(issuer.context),
    open: () => void run.open(),
  });
  const decided = (outcome: Outcome): unknown => {
    switch (outcome.kind) {
      case 'answer': {
        const lifted = liftResult(METHOD, outcome.value);
        finish(false, lifted);
        return lifted;
      }
      case 'answer-frame': {
        const answer = recordInjected(METHOD, outcome.frame, runtime.hide);
        finish(answer.failed, answer.output, answer.failed ? answer.error : undefined);
        const error = outcome.frame.error;
        if (isObject(error)) throw new DebuggerAnswer(typeof error.code === 'number' ? error.code : -32603, typeof error.message === 'string' ? error.message : 'error', error.data);
        return 'result' in outcome.frame ? outcome.frame.result : outcome.frame;
      }
      default: {
        // fail: the issuing call is aborted with it.
        finish(true, undefined, { name: 'Aborted', message: 'aborted in the debugger', code: -32099 });
        throw issuer?.abort() ?? abortError();
      }
    }
  };
  const core = runtime.core;
  const request = { jsonrpc: '2.0', id: null, method: METHOD, params };
  if (core.armed) {
    const plan = core.plan(run.runId, { point: 'before', nodeId: node.nodeId });
    if (plan !== undefined) {
      const outcome = await holdFor(runtime, held('request', request), plan);
      if (outcome.kind !== 'forward' && outcome.kind !== 'retry') return decided(outcome);
    }
  }
  // While it starts, a createMessage it calls through is this same request (see AdapterRuntime.samplingDepth).
  const sendOnce = (): Promise<unknown> => {
    runtime.samplingDepth++;
    try {
      return send();
    } finally {
      runtime.samplingDepth--;
    }
  };
  for (;;) {
    let result: unknown;
    let thrown: unknown;
    let threw = false;
    try {
      result = await sendOnce();
    } catch (error) {
      threw = true;
      thrown = error;
    }
    const plan = core.armed ? core.plan(run.runId, { point: 'after', nodeId: node.nodeId, failed: threw }) : undefined;
    if (plan !== undefined) {
      const answer = threw ? { jsonrpc: '2.0', id: null, error: { message: thrown instanceof Error ? thrown.message : String(thrown) } } : { jsonrpc: '2.0', id: null, result };
      const outcome = await holdFor(runtime, held('answer', answer), plan);
      if (outcome.kind === 'retry') {
        run.reopened(instanceId);
        continue;
      }
      if (outcome.kind !== 'forward') return decided(outcome);
    }
    if (threw) {
      finish(true, undefined, recordThrown(METHOD, thrown, runtime.hide));
      throw thrown;
    }
    finish(false, result);
    return result;
  }
}
