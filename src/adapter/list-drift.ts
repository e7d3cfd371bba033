import { isObject } from '../json/is-object.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import { DRIFT_LOG_STREAM, DriftWatch, driftText, type Drift } from '../relay/drift-watch.js';
import { abortedRecord } from '../gates/outcome.js';
import type { CallHost } from './gated-call.js';
import { CallRun } from './call-run.js';
import { abortError, DebuggerAnswer } from './debugger-answer.js';
import { holdFor } from './hold-for.js';
import { handlerContext, requestIdOf, sessionIdOf, signalOf } from './sdk-shape.js';
import type { ServerState } from './server-state.js';

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** Each wrapped server's drift watch, for its current connection (a new connection starts a new session). */
const watches = new WeakMap<ServerState, { connection: string; watch: DriftWatch }>();
/** Numbers the instances of drifted list answers that came without a request id. */
let unnumbered = 0;

function watchOf(state: ServerState): DriftWatch {
  const connection = state.connection;
  let entry = watches.get(state);
  if (entry?.connection !== connection) {
    entry = { connection, watch: new DriftWatch() };
    watches.set(state, entry);
  }
  return entry.watch;
}

/**
 * The SDK's handler of a list method (`tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`) with live drift: its answer
 * is compared with the connection's first answer to the same request
 * (method + cursor). An answer that differs is recorded as a run of its own
 * (`tools/list`, the call with a `drift` log line) and, with `pauseOnDrift`
 * (see `holdPlan`), held at the after gate with reason `drift` before the
 * SDK sends it. Any other answer goes back untouched, with nothing recorded.
 */
export function driftCheckedList(host: CallHost, state: ServerState, method: string, handler: AnyFunction): AnyFunction {
  return async function listed(this: unknown, ...args: unknown[]): Promise<unknown> {
    const result = await handler.apply(this, args);
    const request = args[0];
    const params = isObject(request) ? request.params : undefined;
    let drift: Drift | undefined;
    try {
      drift = watchOf(state).answer(method, params, result);
    } catch {
      // Observation is best-effort: the answer goes back as it is.
    }
    return drift === undefined ? result : drifted(host, state, method, params, handlerContext(args[args.length - 1]), drift, result, () => handler.apply(this, args));
  };
}

/** Record a drifted list answer, and hold it if the breakpoints say so. */
async function drifted(
  host: CallHost,
  state: ServerState,
  method: string,
  params: unknown,
  context: ReturnType<typeof handlerContext>,
  drift: Drift,
  result: unknown,
  again: () => unknown,
): Promise<unknown> {
  const requestId = requestIdOf(context);
  const node: NodeDeclaration = { nodeId: `mcp:${method}`, kind: 'custom', parent: state.node.nodeId, label: method };
  const instanceId = `${state.connection}:${requestId ?? `list${++unnumbered}`}`;
  const run = new CallRun(host, state, method, { connection: state.connection, sessionId: sessionIdOf(context) }, { instanceId, node, input: params ?? {}, requestId });
  run.open().log(node.nodeId, driftText(drift), DRIFT_LOG_STREAM, Date.now(), instanceId);
  const core = host.core;
  const plan = core.armed ? core.plan(run.runId, { point: 'after', nodeId: node.nodeId, drift: true, server: state.name }) : undefined;
  if (plan === undefined) {
    run.complete({ failed: false, output: result });
    return result;
  }
  const target = { run, nodeId: node.nodeId, instanceId, method, giveUpSignal: signalOf(context), describe: () => `${method} (drift)` };
  let answer = result;
  for (;;) {
    const outcome = await holdFor(host, target, 'answer', { jsonrpc: '2.0', id: requestId ?? null, result: answer }, plan);
    switch (outcome.kind) {
      case 'retry':
        run.reopened(instanceId);
        answer = await again();
        continue;
      case 'answer':
        run.complete({ failed: false, output: outcome.value });
        return outcome.value;
      case 'answer-frame': {
        const frame = outcome.frame;
        const error = frame.error;
        if (isObject(error)) {
          const thrown = new DebuggerAnswer(typeof error.code === 'number' ? error.code : -32603, typeof error.message === 'string' ? error.message : 'error', error.data);
          run.complete({ failed: true, error: { name: 'DebuggerAnswer', message: thrown.message, code: thrown.code } });
          throw thrown;
        }
        const value = 'result' in frame ? frame.result : frame;
        run.complete({ failed: false, output: value });
        return value;
      }
      case 'fail':
        run.complete({ failed: true, error: abortedRecord(plan.point) });
        throw abortError();
      default:
        run.complete({ failed: false, output: answer });
        return answer;
    }
  }
}
