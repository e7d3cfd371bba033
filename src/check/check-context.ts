/**
 * What the parts of one check share: the findings so far, the checks run
 * (each a JUnit testcase), and `ask`, a request through the conversation
 * that reports `unanswered`, `early-exit` and `slow` on the way.
 *
 * @module
 */
import type { JsonRpcMessage } from '../streams/frame.js';
import type { Conversation } from './conversation.js';
import { finding, type Finding, type FindingCall, type FindingCode } from './findings.js';

/** A check run, as the reporters list it. */
export interface CheckRun {
  /** Its name: `handshake`, `tools/list`, `schema echo`, `step 2: call search`… */
  name: string;
  /** A group for it (JUnit's classname): `server`, `protocol`, `schemas`, `surface`, `script`, `run`. */
  group: string;
  /** How long it took, ms (0 when it sends nothing). */
  ms: number;
}

/** A request's answer, or nothing (the finding that says why is recorded). */
export type Asked = { message: JsonRpcMessage; ms: number } | undefined;

/** The shared state of one check (see the module). */
export class CheckContext {
  readonly findings: Finding[] = [];
  readonly checks: CheckRun[] = [];
  readonly conversation: Conversation;
  readonly #maxDurationMs: number | undefined;
  /** Set once the server is gone: its line, for an `early-exit`. */
  endedLine: string | undefined;
  #earlyExitReported = false;
  /** Did any request get an answer? */
  answered = false;

  constructor(conversation: Conversation, maxDurationMs: number | undefined) {
    this.conversation = conversation;
    this.#maxDurationMs = maxDurationMs;
  }

  /** Record a finding. */
  add(found: Finding): void {
    this.findings.push(found);
  }

  /** Record a finding of `code` on `check`. */
  report(code: FindingCode, check: string, message: string, extra: Partial<Omit<Finding, 'code' | 'check' | 'message'>> = {}): void {
    this.findings.push(finding(code, check, message, extra));
  }

  /** Record a check as run; returns it so its time can be set. */
  ran(name: string, group: string, ms = 0): CheckRun {
    const run = { name, group, ms };
    this.checks.push(run);
    return run;
  }

  /** Has the server gone? */
  get gone(): boolean {
    return this.endedLine !== undefined;
  }

  /** Send a request as a check: no answer is `unanswered` (or `early-exit`, once); a late one `slow` (unless not `timed`). */
  async ask(method: string, params: Record<string, unknown> | undefined, check: string, about: Omit<FindingCall, 'method' | 'id'> = {}, timed = true): Promise<Asked> {
    const pending = this.conversation.request(method, params);
    const call: FindingCall = { method, ...about, id: this.conversation.lastId };
    const answer = await pending;
    if (!answer.ok) {
      if (answer.why === 'timeout') this.report('unanswered', check, answer.line, { call });
      else if (!this.#earlyExitReported) {
        this.#earlyExitReported = true;
        const [first, ...rest] = answer.line.split('\n');
        this.report('early-exit', check, [`${first ?? ''} (while the check waited for ${method})`, ...rest].join('\n'), { call });
      }
      return undefined;
    }
    this.answered = true;
    if (timed) this.checkDuration(check, call, answer.ms);
    return { message: answer.message, ms: answer.ms };
  }

  /** A `slow` finding when `ms` is over `--max-duration`. */
  checkDuration(check: string, call: FindingCall, ms: number): void {
    if (this.#maxDurationMs === undefined || ms <= this.#maxDurationMs) return;
    this.report('slow', check, `${call.method}${call.name === undefined ? '' : ` ${call.name}`} took ${ms} ms, over --max-duration ${this.#maxDurationMs} ms`, { call });
  }

  /** The server could not be started or reached: a `spawn-failure` (and no `early-exit` after it). */
  spawnFailed(line: string): void {
    this.#earlyExitReported = true;
    this.report('spawn-failure', 'server', line);
  }

  /** The server ended while the check was not waiting on it: an `early-exit`, once. */
  endedBetween(line: string, check: string): void {
    if (this.#earlyExitReported) return;
    this.#earlyExitReported = true;
    this.report('early-exit', check, line);
  }
}
