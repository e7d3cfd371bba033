/**
 * Rules (conditional breakpoints and logpoints) in process: a call of the
 * adapter at a gate as a rule sees it, its logpoints logged, and what asks
 * its pause rules.
 *
 * @module
 */
import type { ConditionSubject } from '../conditions/index.js';
import type { DebuggerGate } from '../gates/debugger-gate.js';
import type { RuleSet } from '../gates/rules.js';
import type { HideSettings } from '../report/hide.js';
import { logpointText, logpointValues } from '../relay/rule-subject.js';

/** The methods a server sends to its client: their calls come `from: "server"`. */
const FROM_SERVER = /^(sampling|elicitation|roots)\//;

/** A gated call as {@link callRules} reads it. */
export interface RuleCall {
  readonly runId: string;
  readonly nodeId: string;
  readonly instanceId: string;
  readonly method: string;
}

/** The request (and at the after gate, the answer) of a call in process, built only when an expression reads them. */
class CallSubject implements ConditionSubject {
  readonly method: string;
  readonly nodeId: string;
  readonly from: 'host' | 'server';
  readonly kind: 'request' | 'answer';
  readonly status: 'open' | 'ok' | 'error';
  readonly durationMs: number | undefined;
  readonly #request: () => unknown;
  readonly #answer: (() => unknown) | undefined;
  #requestValue: unknown;
  #answerValue: unknown;

  constructor(call: RuleCall, request: () => unknown, answer?: () => unknown, failed?: boolean, durationMs?: number) {
    this.method = call.method;
    this.nodeId = call.nodeId;
    this.from = FROM_SERVER.test(call.method) ? 'server' : 'host';
    this.kind = answer === undefined ? 'request' : 'answer';
    this.status = answer === undefined ? 'open' : failed === true ? 'error' : 'ok';
    this.durationMs = durationMs;
    this.#request = request;
    this.#answer = answer;
  }

  get request(): unknown {
    return (this.#requestValue ??= this.#request());
  }

  get answer(): unknown {
    return this.#answer === undefined ? undefined : (this.#answerValue ??= this.#answer());
  }

  /** The message's bytes as JSON (request at before, answer after): measured only when an expression asks. */
  get bytes(): number | undefined {
    try {
      return JSON.stringify(this.kind === 'answer' ? this.answer : this.request)?.length;
    } catch {
      return undefined;
    }
  }
}

/**
 * The rules at `point` for a call in process (called only when there are
 * rules): its logpoints log now, and the answer asks the pause rules, or
 * is undefined when none is at this gate. `request` and `answer` make the
 * JSON-RPC messages (only if an expression reads them).
 */
export function callRules(
  core: Pick<DebuggerGate, 'logpoints'>,
  rules: RuleSet,
  hide: HideSettings,
  call: RuleCall,
  point: 'before' | 'after',
  request: () => unknown,
  answer?: { message: () => unknown; failed: boolean; durationMs: number },
): (() => string | undefined) | undefined {
  if (!rules.at(point)) return undefined;
  const subject = new CallSubject(call, request, answer?.message, answer?.failed, answer?.durationMs);
  const hits = rules.logs(point, subject);
  if (hits !== undefined) {
    const shown = hits.map((hit) => logpointValues(hit, hide));
    core.logpoints(call, shown, (hit) => logpointText(hit, call.method, call.nodeId));
  }
  return (point === 'before' ? rules.pauseBefore : rules.pauseAfter).length === 0 ? undefined : () => rules.pause(point, subject);
}
