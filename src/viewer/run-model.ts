// One run in the page: built from `GET /api/runs/:id`, then kept up to date
// by applying the `run.event` messages of the live feed with the server's
// own reducer (RunReplay), plus what the page needs beside it: the
// timeline, the tree of nodes, and change counters for the views.
import type { Instance, LogLine, NodeKind, NodeStatus, Run, RunSummary } from '../protocol/run-model.js';
import type { Hold } from '../protocol/control.js';
import type { NodeDeclaration, RunEvent } from '../protocol/ingest.js';
import { ownStatus, RunReplay, type NodeEntry } from '../protocol/run-replay.js';

export type { NodeEntry };

/** A run as `GET /api/runs/:id` returns it; `lastSeq` is there when the server reports it. */
export type FetchedRun = Run & { lastSeq?: number };

/** One line of the timeline: an execution or a log line, in the order they happened. */
export type TimelineItem = { kind: 'instance'; instance: Instance; index: number } | { kind: 'log'; log: LogLine; index: number };

/** A run and everything recorded in it, updated in place. */
export class RunModel extends RunReplay {
  /** Executions and log lines interleaved in the order they happened. */
  readonly timeline: TimelineItem[] = [];
  /** Children of each node, in declaration order. */
  readonly children = new Map<string | null, string[]>();
  /** Bumped on every change; views compare it to skip work. */
  version = 0;
  /** Bumped when a node is added (the graph's shape changes). */
  shapeVersion = 0;
  /**
   * Nodes drawn from the run's graph hint (`meta.graphHint`, which the
   * adapter's `mcp:connect` run carries: what the server registered), not
   * from anything that ran. See {@link RunModel.isHinted}.
   */
  readonly hinted = new Set<string>();
  /** Bumped when a hold is let go: the only time a call's `changed` is set (see {@link RunModel.changedCalls}). */
  #releases = 0;
  /** The calls the debugger changed, by node, as of `#releases` (see {@link RunModel.changedCalls}). */
  #changed: { releases: number; byNode: Map<string, Instance[]> } | null = null;
  /** Meta keys set by live `run.meta` events (newer than a fetched copy). */
  readonly #liveMetaKeys = new Set<string>();
  /** Log lines of the fetched run that a late live message may repeat: key → count. */
  #recentLogs = new Map<string, number>();
  #dedupeUntil = 0;

  constructor(run: FetchedRun) {
    super({ runId: run.runId, name: run.name, source: run.source, status: run.status, startedAt: run.startedAt, endedAt: run.endedAt });
    // The header says when the run's log stopped being written (a full disk).
    if (typeof run.recordingStopped === 'string') this.summary.recordingStopped = run.recordingStopped;
    this.meta = { ...run.meta };
    this.droppedEvents = run.droppedEvents ?? 0;
    for (const node of run.nodes) this.addNode({ nodeId: node.nodeId, kind: node.kind, parent: node.parent, label: node.label });
    for (const instance of run.instances) {
      let entry = this.nodes.get(instance.nodeId);
      if (entry === undefined) entry = this.addNode({ nodeId: instance.nodeId, kind: 'custom', parent: null, label: instance.nodeId });
      // As fetched: the timeline is merged from them below.
      super.addInstance(instance, entry);
    }
    for (const log of run.logs) this.logs.push(log);
    this.#mergeTimeline();
    this.#applyHint();
    if (typeof run.lastSeq === 'number') {
      this.lastSeq = run.lastSeq;
    } else {
      // Without the server's sequence number, a log line sent while the run
      // was being fetched could arrive twice: remember the last ones briefly.
      for (const log of run.logs.slice(-500)) {
        const key = logKey(log.nodeId, log.text, log.at);
        this.#recentLogs.set(key, (this.#recentLogs.get(key) ?? 0) + 1);
      }
      this.#dedupeUntil = Date.now() + 3000;
    }
  }

  /**
   * A run seen starting on the live feed: nothing has happened in it yet
   * but its start, and every later event arrives on the same feed, in order.
   */
  static starting(summary: RunSummary): RunModel {
    return new RunModel({ ...summary, meta: {}, nodes: [], instances: [], logs: [], droppedEvents: 0, lastSeq: 0 });
  }

  /** Take the meta of a fetched copy of this run, keeping what live events set since. */
  mergeMeta(meta: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(meta)) if (!this.#liveMetaKeys.has(key)) this.meta[key] = value;
    this.#applyHint();
    this.version++;
  }

  /**
   * The holds open on this run when it was fetched. A fetched run is its
   * calls, not its events: without these, a decision made after the page
   * loaded would find no hold to end, and the call would show neither what
   * the debugger changed nor its time held. Applied as the `hold.opened`
   * events they were (sequence 0: out of sequence, like the server's own).
   */
  openHolds(holds: readonly Hold[]): void {
    for (const hold of holds) {
      if (hold.runId !== this.summary.runId) continue;
      const { holdId, nodeId, instanceId, gate, method, frame } = hold;
      this.apply({ type: 'hold.opened', runId: hold.runId, seq: 0, t: Date.parse(hold.since), holdId, nodeId, instanceId, gate, method, frame });
    }
  }

  /** Apply one event; false when it changed nothing. */
  override apply(event: RunEvent): boolean {
    const changed = super.apply(event);
    if (changed) {
      if ((event.type === 'run.meta' || event.type === 'run.started') && 'graphHint' in event.meta) this.#applyHint();
      if (event.type === 'hold.released') this.#releases++;
      this.version++;
    }
    return changed;
  }

  /**
   * Is the node drawn as hinted: declared by the run's graph hint, and not
   * run (no execution of it in this run)? It is drawn grey: the server has
   * it, nothing called it here.
   */
  isHinted(nodeId: string): boolean {
    return this.hinted.has(nodeId) && (this.nodes.get(nodeId)?.instances.length ?? 1) === 0;
  }

  /**
   * The calls of `nodeId` (and of the nodes inside it, for a container)
   * whose answer the debugger changed (`Instance.changed`), oldest first.
   * Found again only after a hold was let go, so drawing the graph on every
   * live event does not walk every call.
   */
  changedCalls(nodeId: string): readonly Instance[] {
    if (this.#changed === null || this.#changed.releases !== this.#releases) {
      const byNode = new Map<string, Instance[]>();
      for (const instance of this.instances) {
        if (instance.changed === undefined) continue;
        const list = byNode.get(instance.nodeId);
        if (list === undefined) byNode.set(instance.nodeId, [instance]);
        else list.push(instance);
      }
      this.#changed = { releases: this.#releases, byNode };
    }
    const { byNode } = this.#changed;
    if (!isContainer(nodeId)) return byNode.get(nodeId) ?? [];
    return [nodeId, ...this.descendants(nodeId)].flatMap((id) => byNode.get(id) ?? []);
  }

  /** Add the nodes of the graph hint that the run does not have yet. */
  #applyHint(): void {
    for (const node of hintNodes(this.meta.graphHint)) {
      if (this.nodes.has(node.nodeId)) continue;
      this.addNode(node);
      this.hinted.add(node.nodeId);
    }
  }

  /** A node's declaration, or undefined. */
  node(nodeId: string): NodeEntry | undefined {
    return this.nodes.get(nodeId);
  }

  protected override addNode(node: NodeDeclaration): NodeEntry {
    const entry = super.addNode(node);
    const siblings = this.children.get(node.parent);
    if (siblings === undefined) this.children.set(node.parent, [node.nodeId]);
    else siblings.push(node.nodeId);
    this.shapeVersion++;
    return entry;
  }

  protected override addInstance(instance: Instance, entry: NodeEntry): void {
    super.addInstance(instance, entry);
    this.timeline.push({ kind: 'instance', instance, index: this.instances.length - 1 });
  }

  protected override addLog(log: LogLine): boolean {
    if (this.#seenBefore(log)) return false;
    super.addLog(log);
    this.timeline.push({ kind: 'log', log, index: this.logs.length - 1 });
    return true;
  }

  protected override metaSet(key: string): void {
    this.#liveMetaKeys.add(key);
  }

  /** Already in the fetched state: a message that crossed the fetch. */
  protected override isStale(instance: Instance, at: string, ending: boolean): boolean {
    return instance.endedAt !== null && (ending ? instance.endedAt >= at : instance.endedAt > at);
  }

  /** Interleave executions and logs of a fetched run by time; at the same millisecond the execution comes first. */
  #mergeTimeline(): void {
    const { instances, logs, timeline } = this;
    let i = 0;
    let j = 0;
    while (i < instances.length || j < logs.length) {
      const instance = instances[i];
      const log = logs[j];
      if (instance !== undefined && (log === undefined || instance.startedAt <= log.at)) {
        timeline.push({ kind: 'instance', instance, index: i++ });
      } else if (log !== undefined) {
        timeline.push({ kind: 'log', log, index: j++ });
      }
    }
  }

  #seenBefore(log: LogLine): boolean {
    if (this.#recentLogs.size === 0) return false;
    if (Date.now() > this.#dedupeUntil) {
      this.#recentLogs.clear();
      return false;
    }
    const key = logKey(log.nodeId, log.text, log.at);
    const count = this.#recentLogs.get(key);
    if (count === undefined) return false;
    if (count <= 1) this.#recentLogs.delete(key);
    else this.#recentLogs.set(key, count - 1);
    return true;
  }

  /**
   * The status a node is drawn with. A folded container (the protocol card)
   * shows what happened inside it: red if anything inside failed, open while
   * a call inside is unanswered.
   */
  shownStatus(nodeId: string): NodeStatus {
    const entry = this.nodes.get(nodeId);
    if (entry === undefined) return 'ok';
    if (!isContainer(nodeId)) return ownStatus(entry);
    let open = false;
    if (entry.errors > 0) return 'error';
    for (const id of this.descendants(nodeId)) {
      const child = this.nodes.get(id) as NodeEntry;
      if (child.errors > 0) return 'error';
      if (child.open > 0) open = true;
    }
    return open ? 'open' : 'ok';
  }

  /** Every node below `nodeId`. */
  descendants(nodeId: string): string[] {
    const out: string[] = [];
    const stack = [...(this.children.get(nodeId) ?? [])];
    const seen = new Set<string>([nodeId]);
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(id);
      for (const child of this.children.get(id) ?? []) stack.push(child);
    }
    return out;
  }

  /** Calls inside a container: the executions of everything below it. */
  callsInside(nodeId: string): { calls: number; errors: number; open: number } {
    let calls = 0;
    let errors = 0;
    let open = 0;
    for (const id of this.descendants(nodeId)) {
      const entry = this.nodes.get(id) as NodeEntry;
      calls += entry.instances.length;
      errors += entry.errors;
      open += entry.open;
    }
    return { calls, errors, open };
  }

  /** The nodes at the top of the graph: no parent, or a parent never declared. */
  roots(): string[] {
    const out: string[] = [];
    for (const [nodeId, entry] of this.nodes) {
      if (entry.node.parent === null || !this.nodes.has(entry.node.parent) || entry.node.parent === nodeId) out.push(nodeId);
    }
    return out;
  }
}

const KINDS: ReadonlySet<string> = new Set<NodeKind>(['server', 'tool', 'resource', 'prompt', 'llm', 'custom']);
/** The most hinted nodes drawn; a hint is reporter data, and the page stays usable whatever it holds. */
const HINT_LIMIT = 500;
/** The longest node id or label taken from a hint. */
const HINT_TEXT_MAX = 2000;

/**
 * The node declarations of a graph hint (`{ nodes: NodeDeclaration[] }`),
 * checked as untrusted data: entries without a string `nodeId` are skipped,
 * an unknown kind is `custom`, a parent that is not a string is none, a
 * missing label is the node id; repeats are dropped, and at most
 * {@link HINT_LIMIT} are taken.
 */
export function hintNodes(hint: unknown): NodeDeclaration[] {
  if (hint === null || typeof hint !== 'object') return [];
  const nodes = (hint as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return [];
  const out: NodeDeclaration[] = [];
  const seen = new Set<string>();
  for (const item of nodes) {
    if (out.length >= HINT_LIMIT) break;
    if (item === null || typeof item !== 'object') continue;
    const { nodeId, kind, parent, label } = item as Record<string, unknown>;
    if (typeof nodeId !== 'string' || nodeId === '' || nodeId.length > HINT_TEXT_MAX || seen.has(nodeId)) continue;
    seen.add(nodeId);
    out.push({
      nodeId,
      kind: typeof kind === 'string' && KINDS.has(kind) ? (kind as NodeKind) : 'custom',
      parent: typeof parent === 'string' && parent !== nodeId ? parent : null,
      label: typeof label === 'string' && label.length <= HINT_TEXT_MAX ? label : nodeId,
    });
  }
  return out;
}

function logKey(nodeId: string, text: string, at: string): string {
  return `${at}\u0000${nodeId}\u0000${text}`;
}

/** The protocol card: drawn folded, with a count of the calls inside. */
export const PROTOCOL_NODE_ID = 'mcp:protocol';
/** The session node. */
export const SESSION_NODE_ID = 'mcp:session';
/** Non-JSON lines the server wrote to stdout. */
export const STDOUT_NOISE_NODE_ID = 'mcp:stdout-noise';

/**
 * A status as the page shows it. `unfinished` is an execution (or a node)
 * still open in a run that is no longer running: its reporter vanished or
 * the server restarted, so nobody knows how it ended. The data keeps it
 * open (a reclaim may still finish it); only the display says otherwise.
 */
export type ShownStatus = NodeStatus | 'unfinished';

/**
 * `status` as shown in `run`: `open` becomes `unfinished` once the run is
 * not running. The one place that decides it, for the graph, the node
 * detail and the timeline; each view keys its caches on the run's status so
 * a reclaim (the run running again) redraws them as open.
 */
export function shownState(status: NodeStatus, run: RunModel | null | undefined): ShownStatus {
  return status === 'open' && runEnded(run) ? 'unfinished' : status;
}

/** Is the run over (ok or error)? What is still open in it then is unfinished. */
export function runEnded(run: RunModel | null | undefined): boolean {
  return run !== null && run !== undefined && run.summary.status !== 'running';
}

/**
 * What a node's kind is called on the page. A node the protocol card holds
 * says what it is: a `request` (`initialize`, `tools/list`…), a
 * `notification` (`notifications/initialized`…) or `stdout` (noise), not
 * the `custom` it is recorded as; the card itself is `protocol`.
 */
export function kindText(node: NodeDeclaration): string {
  if (node.nodeId === PROTOCOL_NODE_ID) return 'protocol';
  if (node.kind !== 'custom' || node.parent !== PROTOCOL_NODE_ID) return node.kind;
  if (node.nodeId === STDOUT_NOISE_NODE_ID) return 'stdout';
  return node.label.startsWith('notifications/') ? 'notification' : 'request';
}

/** Is this node drawn as a folded container? */
export function isContainer(nodeId: string): boolean {
  return nodeId === PROTOCOL_NODE_ID;
}
