import type { DebuggerGate } from '../gates/debugger-gate.js';
import { liftResult } from '../gates/lift.js';
import { abortedRecord, type Outcome } from '../gates/outcome.js';
import { isObject } from '../json/is-object.js';
import { recordInjected, recordResult, recordThrown, type AnswerRecord } from '../report/answer-record.js';
import type { GatePoint } from '../protocol/control.js';
import { abortError, DebuggerAnswer } from './debugger-answer.js';
import { holdFor, type HoldHost, type HoldTarget } from './hold-for.js';
import { callRules } from './call-rules.js';

/** What a gated execution needs of the adapter: the gate (to ask where to hold, and to hold) and what a hold needs. */
export interface ExecutionHost extends HoldHost {
  /** The debugger-connected gate. */
  readonly core: Pick<DebuggerGate, 'armed' | 'plan' | 'withHold' | 'giveUp' | 'rules' | 'logpoints'>;
}

/**
 * One thing gated in process: a handler's call (`GatedCall`) or a sampling
 * request a handler sends (`gatedSampling`). {@link execute} runs its
 * lifecycle; this says what is particular to it.
 */
export interface Gated extends HoldTarget {
  /** Its run (also reopened on a retry). */
  readonly run: HoldTarget['run'] & { reopened(instanceId: string): void };
  /** The JSON-RPC id of its request, shown on the held messages (null when it has none). */
  readonly requestId: string | number | undefined;
  /** For a resource read: the URI asked for (a lifted read result names it). */
  readonly uri: string | undefined;
  /** The wrapped server's name: breakpoints scoped to another server do not hold it. @default undefined (only breakpoints for every server hold) */
  readonly serverName?: string;
  /** Set when a decision on a nested hold aborted it, at that hold's gate: it then ends aborted whatever it did. */
  readonly abortedAt: GatePoint | undefined;
  /** Does it complete a loop? Asked once, at the before gate (the loop detector remembers it). */
  loops(): boolean;
  /** The request's `params`, for the before gate's held message. */
  requestParams(): unknown;
  /** What it threw, as the `error` of the after gate's held message. */
  heldError(thrown: unknown): Record<string, unknown>;
  /** Run it once (the handler, or the request to the client): its result, or a promise of it. */
  attempt(): unknown;
  /** It has its answer, recorded so. */
  record(answer: AnswerRecord): void;
  /** Abort it from a hold decided at `point`; returns the error it ends with. */
  abort(point: GatePoint): Error;
  /** Throw `error` as the answer its requester gets. */
  throwAnswer(error: Error): never;
}

/**
 * The one gated execution of the adapter, for calls and sampling alike:
 * the before gate, each attempt, the after and error gates, retries, and
 * what each decision does in process:
 *
 * | outcome | before | after / error |
 * |---|---|---|
 * | forward | it runs | its result goes back (or its error is rethrown) |
 * | answer | the lifted value is returned; it never runs | the lifted value is returned instead |
 * | answer-frame | its `result` is returned, or its `error` is thrown as a JSON-RPC error | same |
 * | retry | (forward) | it runs again |
 * | fail | it is aborted (-32099), recorded as `abortedRecord` | same |
 *
 * Resolves or rejects as its requester's answer should.
 */
export async function execute(host: ExecutionHost, gated: Gated): Promise<unknown> {
  const core = host.core;
  const runId = gated.run.runId;
  const requestOf = (): Record<string, unknown> => ({ jsonrpc: '2.0', id: gated.requestId ?? null, method: gated.method, params: gated.requestParams() });
  if (core.armed) {
    // No rule: one check; else the call's logpoints log and its pause rules are asked (see call-rules).
    const rule = core.rules.empty ? undefined : gatedRules(host, gated, 'before', requestOf);
    const plan = core.plan(runId, { point: 'before', nodeId: gated.nodeId, loop: gated.loops(), server: gated.serverName, rule });
    if (plan !== undefined) {
      const request = requestOf();
      const outcome = await holdFor(host, gated, 'request', request, plan);
      if (outcome.kind !== 'forward' && outcome.kind !== 'retry') return decided(host, gated, outcome, plan.point);
    }
  }
  for (;;) {
    let result: unknown;
    let thrown: unknown;
    let threw = false;
    // Timed only for rules (`dur>`): without them a call costs no clock reading more.
    const started = core.rules.empty ? 0 : Date.now();
    try {
      result = await gated.attempt();
    } catch (error) {
      threw = true;
      thrown = error;
    }
    const abortedAt = gated.abortedAt;
    if (abortedAt !== undefined) {
      gated.record({ failed: true, error: abortedRecord(abortedAt) });
      return gated.throwAnswer(abortError());
    }
    const recorded = threw ? undefined : recordResult(gated.method, result, host.hide);
    const failed = threw || recorded?.failed === true;
    const id = gated.requestId ?? null;
    const answerOf = (): Record<string, unknown> => (threw ? { jsonrpc: '2.0', id, error: gated.heldError(thrown) } : { jsonrpc: '2.0', id, result });
    const rule = !core.armed || core.rules.empty ? undefined : gatedRules(host, gated, 'after', requestOf, { message: answerOf, failed, durationMs: Date.now() - started });
    const plan = core.armed ? core.plan(runId, { point: 'after', nodeId: gated.nodeId, failed, server: gated.serverName, rule }) : undefined;
    if (plan !== undefined) {
      const answer = answerOf();
      const outcome = await holdFor(host, gated, 'answer', answer, plan);
      if (outcome.kind === 'retry') {
        gated.run.reopened(gated.instanceId);
        continue;
      }
      if (outcome.kind !== 'forward') return decided(host, gated, outcome, plan.point);
    }
    if (threw) {
      gated.record({ failed: true, error: recordThrown(gated.method, thrown, host.hide) });
      throw thrown;
    }
    gated.record(recorded as AnswerRecord);
    return result;
  }
}

/** The rules at `point` for `gated` (see `callRules`): its run is opened before a logpoint is reported on it. */
function gatedRules(
  host: ExecutionHost,
  gated: Gated,
  point: 'before' | 'after',
  request: () => unknown,
  answer?: { message: () => unknown; failed: boolean; durationMs: number },
): (() => string | undefined) | undefined {
  const core = host.core;
  const logger = {
    logpoints: (...args: Parameters<typeof core.logpoints>): void => {
      gated.run.open();
      core.logpoints(...args);
    },
  };
  const call = { runId: gated.run.runId, nodeId: gated.nodeId, instanceId: gated.instanceId, method: gated.method };
  return callRules(logger, core.rules, host.hide, call, point, request, answer);
}

/** Carry out a decision (made at `point`) that answers the requester here. */
function decided(host: ExecutionHost, gated: Gated, outcome: Outcome, point: GatePoint): unknown {
  const method = gated.method;
  switch (outcome.kind) {
    case 'answer': {
      const lifted = liftResult(method, outcome.value, { uri: gated.uri });
      gated.record(recordInjected(method, lifted, host.hide));
      return lifted;
    }
    case 'answer-frame': {
      const frame = outcome.frame;
      gated.record(recordInjected(method, frame, host.hide));
      const error = frame.error;
      if (isObject(error)) {
        return gated.throwAnswer(new DebuggerAnswer(typeof error.code === 'number' ? error.code : -32603, typeof error.message === 'string' ? error.message : 'error', error.data));
      }
      return 'result' in frame ? frame.result : frame;
    }
    case 'fail': {
      const error = gated.abort(point);
      gated.record({ failed: true, error: abortedRecord(point) });
      return gated.throwAnswer(error);
    }
    default:
      // forward, retry, replace, drop: nothing to answer here (a request or an answer never gets replace or drop).
      return undefined;
  }
}
