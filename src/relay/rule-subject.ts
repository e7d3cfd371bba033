/**
 * What a rule's expression is evaluated against where the frame is: a
 * frame at a gate as a {@link ConditionSubject} (parsed only if the
 * expression reads the message), and what a logpoint records of a match.
 *
 * @module
 */
import type { ConditionSubject } from '../conditions/index.js';
import type { DebuggerGate } from '../gates/debugger-gate.js';
import type { LogpointHit, RuleSet } from '../gates/rules.js';
import { HIDDEN, type HideSettings } from '../report/hide.js';
import { messageOf, type Frame } from '../streams/frame.js';

/**
 * A frame at a gate as a rule sees it. The request and the answer are
 * getters: the frame is parsed only when an expression reads the message
 * (atoms such as `tool:` or `dur>` read the classification only).
 */
export class FrameSubject implements ConditionSubject {
  readonly method: string | undefined;
  readonly nodeId: string | undefined;
  readonly from: 'host' | 'server';
  readonly kind: 'request' | 'answer' | 'notification';
  readonly status: 'ok' | 'error' | 'open' | undefined;
  readonly durationMs: number | undefined;
  readonly bytes: number;
  readonly #call: Frame;
  readonly #answer: Frame | undefined;

  /**
   * `frame` at the before gate (a request or notification), or an answer
   * (with its request) at the after gate; `failed` says whether that
   * answer is a failure.
   */
  constructor(frame: Frame, failed?: boolean) {
    const answer = frame.type === 'response' || frame.type === 'error' ? frame : undefined;
    const call = answer?.request ?? frame;
    this.#call = call;
    this.#answer = answer;
    this.method = call.method;
    this.nodeId = call.node?.nodeId;
    this.from = call.direction === 'client-to-server' ? 'host' : 'server';
    this.kind = answer !== undefined ? 'answer' : frame.type === 'notification' ? 'notification' : 'request';
    this.status = answer === undefined ? (frame.type === 'request' ? 'open' : undefined) : failed === true ? 'error' : 'ok';
    // Server time: from reading the request to reading its answer, at the proxy.
    this.durationMs = answer === undefined ? undefined : Math.max(0, answer.at - call.at);
    this.bytes = frame.size;
  }

  /** The request (or notification), parsed when first read. */
  get request(): unknown {
    return messageOf(this.#call);
  }

  /** The answer, parsed when first read (undefined at the before gate). */
  get answer(): unknown {
    return this.#answer === undefined ? undefined : messageOf(this.#answer);
  }
}

/** The longest value a logpoint's line keeps as it is, in JSON characters: a longer one is cut, as text. */
export const MAX_LOGPOINT_VALUE = 1024;

/** One value as a logpoint records it: hidden where the hide switches say, cut when long. */
function shown(at: string, value: unknown, hide: HideSettings): unknown {
  if (hide.inputs && at.startsWith('$.params')) return HIDDEN;
  if (hide.toolResults && (at.startsWith('$.result') || at === 'text')) return HIDDEN;
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value ?? null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return null;
  if (text.length <= MAX_LOGPOINT_VALUE) return value;
  return `${text.slice(0, MAX_LOGPOINT_VALUE)}…`;
}

/** A logpoint hit's values as its line records them (hide switches applied, long values cut). */
export function logpointValues(hit: LogpointHit, hide: HideSettings): LogpointHit {
  return { ruleId: hit.ruleId, values: hit.values.map(({ at, value }) => ({ at, value: shown(at, value, hide) })) };
}

/** A logpoint's line: `rule-1 · tools/call tool:search · $.params.arguments.q = "PAY-1"` (values as recorded). */
export function logpointText(hit: LogpointHit, method: string, nodeId: string): string {
  const values = hit.values.map(({ at, value }) => {
    const text = JSON.stringify(value) ?? 'undefined';
    return `${at} = ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
  });
  return [`${hit.ruleId} · ${method} ${nodeId}`, ...values].join(' · ');
}

const NO_HIDING: HideSettings = { inputs: false, toolResults: false };

/** The recorder as {@link frameRules} uses it (a `GateRecorder`). */
export interface RuleRecorder {
  /** The run the frames are recorded as. */
  readonly runId: string;
  /** What the record hides: a logpoint's values hide as much. */
  readonly hide?: HideSettings;
  /** The instance a request or notification frame was recorded as. */
  instanceIdOf(frame: Frame): string | undefined;
}

/**
 * The rules at `point` for `frame` (the relays call this only when there
 * are rules): its logpoints log now, and the answer is what asks the pause
 * rules (the hold policy asks only when no breakpoint holds the frame), or
 * undefined when none is at this gate.
 */
export function frameRules(core: DebuggerGate, recorder: RuleRecorder, rules: RuleSet, point: 'before' | 'after', frame: Frame, failed?: boolean): (() => string | undefined) | undefined {
  if (!rules.at(point)) return undefined;
  const subject = new FrameSubject(frame, failed);
  const hits = rules.logs(point, subject);
  if (hits !== undefined) {
    const call = frame.request ?? frame;
    const method = call.method ?? 'unknown';
    const nodeId = call.node?.nodeId ?? 'mcp:session';
    const hide = recorder.hide ?? NO_HIDING;
    const shownHits = hits.map((hit) => logpointValues(hit, hide));
    core.logpoints({ runId: recorder.runId, nodeId, instanceId: recorder.instanceIdOf(call) ?? '', method }, shownHits, (hit) => logpointText(hit, method, nodeId));
  }
  return (point === 'before' ? rules.pauseBefore : rules.pauseAfter).length === 0 ? undefined : () => rules.pause(point, subject);
}
