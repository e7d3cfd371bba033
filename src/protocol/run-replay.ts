/**
 * The replay of a run's events: the one reducer behind the server's record
 * of a run (live ingest and the reload of a log) and the viewer's copy of it
 * (kept current from the live feed), so both see exactly the same run.
 *
 * @module
 */
import { setOwn } from '../json/set-own.js';
import type { GraphNode, Instance, InstanceAttempt, InstanceError, LogLine, NodeStatus, RunSummary, ServerAnswer } from './run-model.js';
import type { GatePoint, HoldAction } from './control.js';
import { decisionOf } from './decisions.js';
import type { LogEvent, NodeDeclaration, RunEvent, RunStartedEvent } from './ingest.js';
import { InstanceIndex } from './instance-index.js';

/** A frame held right now, as its `hold.opened` said. */
interface OpenHold {
  /** The call it belongs to. */
  instanceId: string;
  gate: GatePoint;
  /** When it opened, ms. */
  t: number;
  /** The server's answer a decision replaced, once one did (see `#replacing`). */
  server?: ServerAnswer;
}

/** A node with its executions and their counts. */
export interface NodeEntry {
  node: NodeDeclaration;
  instances: Instance[];
  open: number;
  errors: number;
}

/** A node's own status: error if any execution failed, else open if any is open, else ok. */
export function ownStatus(entry: NodeEntry): NodeStatus {
  return entry.errors > 0 ? 'error' : entry.open > 0 ? 'open' : 'ok';
}

/** The last second formatted: events come in bursts of the same few milliseconds. */
let isoSecond = Number.NaN;
let isoPrefix = '';
/**
 * The texts of recent times, one slot per millisecond modulo the size. A
 * call's start and end alternate between two times, and a burst of calls
 * shares a handful: the same text is handed out again instead of a new
 * string per call, and a run kept in memory holds one string per
 * millisecond rather than two per call (building and then keeping those
 * strings was a quarter of what recording a call cost the server).
 */
const ISO_SLOTS = 16;
const isoTimes = new Float64Array(ISO_SLOTS).fill(Number.NaN);
const isoTexts: string[] = new Array<string>(ISO_SLOTS).fill('');

/**
 * `new Date(t).toISOString()`, which costs about a microsecond: it is done
 * for nearly every event, so recent times are remembered (see above) and,
 * within the same second, only the milliseconds are written again. `t` must
 * be within Date's range.
 */
export function isoTime(t: number): string {
  const ms = Math.floor(t);
  const slot = ms & (ISO_SLOTS - 1);
  if (isoTimes[slot] === t) return isoTexts[slot] as string;
  const second = Math.floor(ms / 1000);
  let text: string;
  if (second === isoSecond) {
    const milli = ms - second * 1000;
    text = `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  } else {
    text = new Date(t).toISOString();
    // `.mmmZ` ends every ISO string Date makes; a negative fractional time rounds toward zero, so no shortcut for it.
    if (t >= 0) {
      isoSecond = second;
      isoPrefix = text.slice(0, -4);
    }
  }
  isoTimes[slot] = t;
  isoTexts[slot] = text;
  return text;
}

/** The log line a `log` event adds, with the call it is attributed to when the event names one. */
export function logLineOf(event: LogEvent): LogLine {
  const line: LogLine = { nodeId: event.nodeId, stream: event.stream, text: event.text, at: isoTime(event.t) };
  if (event.instanceId !== undefined) line.instanceId = event.instanceId;
  // A logpoint's line keeps its rule and values (each checked by validateEvent).
  if (event.ruleId !== undefined) line.ruleId = event.ruleId;
  if (event.values !== undefined) line.values = event.values;
  return line;
}

/**
 * A run rebuilt by applying its events in order. Subclasses add what they
 * keep beside it through the protected hooks; the rules of the replay are
 * here and nowhere else.
 */
export class RunReplay {
  summary: RunSummary;
  meta: Record<string, unknown> = {};
  droppedEvents = 0;
  /** The highest sequence number applied; repeats are ignored. */
  lastSeq = 0;
  /**
   * Bumped by every call that may change what the run shows (each
   * {@link RunReplay.apply}, resume, abandon): a copy of the run made at
   * one revision is still the run while the revision is the same.
   */
  revision = 0;
  /** Time of the last event, ms. */
  lastT = 0;
  readonly nodes = new Map<string, NodeEntry>();
  /** Every execution, in start order. */
  readonly instances: Instance[] = [];
  readonly byId = new InstanceIndex<Instance>();
  readonly logs: LogLine[] = [];
  /** Frames held right now, by hold id: what each holds (see {@link OpenHold}). Made with the first hold: most runs have none. */
  #held: Map<string, OpenHold> | undefined;

  constructor(summary: RunSummary) {
    this.summary = summary;
  }

  /**
   * Apply one event. Returns false when it changed nothing (a repeat, or an
   * event about an execution never started). Sequence 0 marks events the
   * server or reporter adds out of sequence.
   */
  apply(event: RunEvent): boolean {
    this.revision++;
    if (event.type !== 'run.started' && event.seq !== 0) {
      if (event.seq <= this.lastSeq) return false;
      this.lastSeq = event.seq;
    }
    this.lastT = Math.max(this.lastT, event.type === 'instance.completed' ? event.endT : event.t);
    switch (event.type) {
      case 'run.started':
        return this.#begin(event);
      case 'run.meta':
        for (const [key, value] of Object.entries(event.meta)) {
          if (value === undefined) continue;
          setOwn(this.meta, key, value);
          this.metaSet(key);
        }
        return true;
      case 'run.finished':
        this.summary.status = event.status;
        this.summary.endedAt = isoTime(event.t);
        return true;
      case 'instance.started':
        return this.#start(event.instanceId, event.node, event.input, event.t, event.sentBy);
      case 'instance.completed':
        return this.#complete(event.instanceId, event.node, event.input, event.output, event.t, event.endT);
      case 'instance.finished':
        return this.#end(event.instanceId, event.output, undefined, event.t);
      case 'instance.error':
        return this.#end(event.instanceId, event.output, event.error, event.t);
      case 'instance.reopened':
        return this.#reopen(event.instanceId, event.t);
      case 'log':
        return this.addLog(logLineOf(event));
      case 'events.dropped':
        this.droppedEvents += event.count;
        return true;
      case 'hold.opened':
        // Holds are live state (the server's hold registry); a run keeps them as history:
        // the time held, the answer a decision replaced, and when a held answer reached the requester.
        this.#held ??= new Map();
        if (!this.#held.has(event.holdId)) this.#held.set(event.holdId, { instanceId: event.instanceId, gate: event.gate, t: event.t });
        return true;
      case 'hold.released':
        return this.#released(event.holdId, event.action, event.t);
      case 'hold.updated':
        return true;
      default:
        return false;
    }
  }

  /** Live again (its reporter reclaimed it): running, not ended. */
  resume(): void {
    this.revision++;
    this.summary.status = 'running';
    this.summary.endedAt = null;
  }

  /** The nodes with their status, as the API shows them. */
  graphNodes(): GraphNode[] {
    return [...this.nodes.values()].map((entry) => ({ ...entry.node, status: ownStatus(entry) }));
  }

  /** Declare a node (a copy of the fields that make it). */
  protected addNode(node: NodeDeclaration): NodeEntry {
    const entry: NodeEntry = { node, instances: [], open: 0, errors: 0 };
    this.nodes.set(node.nodeId, entry);
    return entry;
  }

  /** Record an execution of `entry`'s node, counted by its status. */
  protected addInstance(instance: Instance, entry: NodeEntry): void {
    this.instances.push(instance);
    this.byId.set(instance.instanceId, instance);
    entry.instances.push(instance);
    if (instance.status === 'open') entry.open++;
    else if (instance.status === 'error') entry.errors++;
  }

  /** Record a log line; false if it was not new. */
  protected addLog(log: LogLine): boolean {
    this.logs.push(log);
    return true;
  }

  /** A meta key was set by an event. */
  protected metaSet(_key: string): void {}

  /**
   * Is a change at `at` to `instance`, which has ended, older news than its
   * end? (`ending`: the change is another end, which the very same time
   * also makes old.) The server applies each event once, in order: never.
   * A copy fetched while events were on their way may know better.
   */
  protected isStale(_instance: Instance, _at: string, _ending: boolean): boolean {
    return false;
  }

  /** A run.started: the run's name and start the first time, and live again every time (a reclaim after a reconnect). */
  #begin(event: RunStartedEvent): boolean {
    if (this.lastSeq === 0) {
      this.summary.name = event.name;
      this.summary.source = event.source;
      this.summary.startedAt = isoTime(event.t);
      this.meta = { ...event.meta };
      this.lastSeq = Math.max(this.lastSeq, event.seq);
    }
    // Also a reclaim after a reconnect: the run is live again.
    this.resume();
    return true;
  }

  /** An ended execution is open again (a Retry): the answer it had is kept as an earlier attempt. */
  #reopen(instanceId: string, t: number): boolean {
    const instance = this.byId.get(instanceId);
    const at = isoTime(t);
    if (instance === undefined || instance.status === 'open' || this.isStale(instance, at, false)) return false;
    const entry = this.nodes.get(instance.nodeId) as NodeEntry;
    if (instance.status === 'error') entry.errors--;
    entry.open++;
    // The answer it had is dropped (a Retry): kept as an earlier attempt, not forgotten.
    const attempt: InstanceAttempt = { status: instance.status, endedAt: instance.endedAt ?? at, retriedAt: at };
    if (instance.output !== undefined) attempt.output = instance.output;
    if (instance.error !== undefined) attempt.error = instance.error;
    (instance.attempts ??= []).push(attempt);
    instance.status = 'open';
    instance.endedAt = null;
    delete instance.output;
    delete instance.error;
    delete instance.deliveredAt;
    return true;
  }

  /**
   * A hold was let go: its time is the debugger's, a decision that changed
   * the call is said on it (with who made it, from the server's
   * `decisions` meta, and the server's answer it replaced), and an answer
   * held on its way to the requester reached it only now, if it went on as
   * it came.
   */
  #released(holdId: string, action: HoldAction, t: number): boolean {
    const hold = this.#held?.get(holdId);
    this.#held?.delete(holdId);
    const instance = this.byId.get(hold?.instanceId ?? '');
    if (hold === undefined || instance === undefined) return true;
    const at = isoTime(t);
    if (t > hold.t) instance.heldMs = (instance.heldMs ?? 0) + (t - hold.t);
    if (action === 'continue') {
      // Continued: the answer as it came went on now. (A decision that replaced it ended the call at its own time.)
      if (hold.gate !== 'before' && instance.endedAt !== null && instance.endedAt < at) instance.deliveredAt = at;
      return true;
    }
    const by = decisionOf(this.meta, holdId)?.by ?? 'unknown';
    instance.changed = { action, gate: hold.gate, by, at, holdId };
    if (hold.server !== undefined && action !== 'retry') instance.changed.server = hold.server;
    return true;
  }

  /** The answer a later end replaces (a decision at an after gate): kept on the hold that holds it, for {@link #released}. */
  #replacing(instance: Instance): void {
    if (instance.endedAt === null || instance.status === 'open' || this.#held === undefined) return;
    for (const hold of this.#held.values()) {
      if (hold.instanceId !== instance.instanceId || hold.gate === 'before' || hold.server !== undefined) continue;
      const server: ServerAnswer = { status: instance.status, endedAt: instance.endedAt };
      if (instance.output !== undefined) server.output = instance.output;
      if (instance.error !== undefined) server.error = instance.error;
      hold.server = server;
      return;
    }
  }

  #start(instanceId: string, node: NodeDeclaration, input: unknown, t: number, sentBy: string | undefined): boolean {
    if (this.byId.has(instanceId)) return false;
    const entry = this.#entryOf(node);
    const instance: Instance = { instanceId, nodeId: node.nodeId, status: 'open', startedAt: isoTime(t), endedAt: null };
    if (input !== undefined) instance.input = input;
    // A call the debugger sent (Send again), not the host.
    if (sentBy !== undefined) instance.sentBy = sentBy;
    this.addInstance(instance, entry);
    return true;
  }

  /**
   * A start and a successful end at once: the same instance, counts and
   * hooks as {@link #start} then {@link #end} would leave (an instance
   * that is new is never stale), built in its final shape.
   */
  #complete(instanceId: string, node: NodeDeclaration, input: unknown, output: unknown, t: number, endT: number): boolean {
    if (this.byId.has(instanceId)) return false;
    const entry = this.#entryOf(node);
    const instance: Instance = { instanceId, nodeId: node.nodeId, status: 'ok', startedAt: isoTime(t), endedAt: isoTime(endT) };
    if (input !== undefined) instance.input = input;
    if (output !== undefined) instance.output = output;
    this.addInstance(instance, entry);
    return true;
  }

  /** The entry of `node`, declared now if it is new. */
  #entryOf(node: NodeDeclaration): NodeEntry {
    const entry = this.nodes.get(node.nodeId);
    if (entry !== undefined) return entry;
    const { nodeId, kind, parent, label } = node;
    return this.addNode({ nodeId, kind, parent, label });
  }

  #end(instanceId: string, output: unknown, error: InstanceError | undefined, t: number): boolean {
    const instance = this.byId.get(instanceId);
    if (instance === undefined) return false;
    const at = isoTime(t);
    if (instance.status !== 'open' && this.isStale(instance, at, true)) return false;
    const entry = this.nodes.get(instance.nodeId) as NodeEntry;
    const ended = instance.status !== 'open';
    if (!ended) entry.open--;
    else this.#replacing(instance);
    if (instance.status === 'error') entry.errors--;
    // A later end replaces the earlier one whole (a decision at the after
    // gate: an injected error or an abort took the place of the answer, and
    // the requester never got that answer's output).
    if (output !== undefined) instance.output = output;
    else if (ended) delete instance.output;
    if (ended) delete instance.deliveredAt;
    if (error !== undefined) {
      instance.status = 'error';
      instance.error = error;
      entry.errors++;
    } else {
      instance.status = 'ok';
      delete instance.error;
    }
    instance.endedAt = at;
    return true;
  }
}
