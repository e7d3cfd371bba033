// One run in the page: built from `GET /api/runs/:id`, then kept up to date
// by applying the `run.event` messages of the live feed, the same way the
// server replays a run's events.
import type { GraphNode, Instance, LogLine, NodeDeclaration, NodeStatus, RunEvent, RunSummary } from '../report/events.js';
import type { FetchedRun } from './api.js';

/** A node with its executions and their counts. */
export interface NodeEntry {
  node: NodeDeclaration;
  instances: Instance[];
  open: number;
  errors: number;
}

/** One line of the timeline: an execution or a log line, in the order they happened. */
export type TimelineItem = { kind: 'instance'; instance: Instance; index: number } | { kind: 'log'; log: LogLine; index: number };

const iso = (t: number): string => new Date(t).toISOString();

/** A node's own status, as the server derives it. */
export function ownStatus(entry: NodeEntry): NodeStatus {
  return entry.errors > 0 ? 'error' : entry.open > 0 ? 'open' : 'ok';
}

/** A run and everything recorded in it, updated in place. */
export class RunModel {
  summary: RunSummary;
  meta: Record<string, unknown>;
  droppedEvents: number;
  readonly nodes = new Map<string, NodeEntry>();
  readonly instances: Instance[] = [];
  readonly byId = new Map<string, Instance>();
  readonly logs: LogLine[] = [];
  /** Executions and log lines interleaved in the order they happened. */
  readonly timeline: TimelineItem[] = [];
  /** Children of each node, in declaration order. */
  readonly children = new Map<string | null, string[]>();
  lastSeq = 0;
  /** Bumped on every change; views compare it to skip work. */
  version = 0;
  /** Bumped when a node is added (the graph's shape changes). */
  shapeVersion = 0;
  /** Meta keys set by live `run.meta` events (newer than a fetched copy). */
  readonly #liveMetaKeys = new Set<string>();
  /** Log lines of the fetched run that a late live message may repeat: key → count. */
  #recentLogs = new Map<string, number>();
  #dedupeUntil = 0;

  constructor(run: FetchedRun) {
    this.summary = { runId: run.runId, name: run.name, source: run.source, status: run.status, startedAt: run.startedAt, endedAt: run.endedAt };
    this.meta = { ...run.meta };
    this.droppedEvents = run.droppedEvents ?? 0;
    for (const node of run.nodes) this.#addNode({ nodeId: node.nodeId, kind: node.kind, parent: node.parent, label: node.label });
    for (const instance of run.instances) {
      let entry = this.nodes.get(instance.nodeId);
      if (entry === undefined) entry = this.#addNode({ nodeId: instance.nodeId, kind: 'custom', parent: null, label: instance.nodeId });
      this.#track(instance, entry);
    }
    for (const log of run.logs) this.logs.push(log);
    this.#mergeTimeline();
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
    this.version++;
  }

  #addNode(node: NodeDeclaration): NodeEntry {
    const entry: NodeEntry = { node, instances: [], open: 0, errors: 0 };
    this.nodes.set(node.nodeId, entry);
    const siblings = this.children.get(node.parent);
    if (siblings === undefined) this.children.set(node.parent, [node.nodeId]);
    else siblings.push(node.nodeId);
    this.shapeVersion++;
    return entry;
  }

  #track(instance: Instance, entry: NodeEntry): void {
    this.instances.push(instance);
    this.byId.set(instance.instanceId, instance);
    entry.instances.push(instance);
    if (instance.status === 'open') entry.open++;
    else if (instance.status === 'error') entry.errors++;
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

  /** A node's declaration, or undefined. */
  node(nodeId: string): NodeEntry | undefined {
    return this.nodes.get(nodeId);
  }

  /** The nodes as the API shows them (with their status). */
  graphNodes(): GraphNode[] {
    return [...this.nodes.values()].map((entry) => ({ ...entry.node, status: ownStatus(entry) }));
  }

  /** Apply one event; false when it changed nothing. */
  apply(event: RunEvent): boolean {
    if (event.type !== 'run.started' && event.seq !== 0) {
      if (event.seq <= this.lastSeq) return false;
      this.lastSeq = event.seq;
    }
    const changed = this.#apply(event);
    if (changed) this.version++;
    return changed;
  }

  #apply(event: RunEvent): boolean {
    switch (event.type) {
      case 'run.started':
        this.summary.status = 'running';
        this.summary.endedAt = null;
        return true;
      case 'run.meta':
        for (const [key, value] of Object.entries(event.meta)) {
          if (value === undefined) continue;
          this.meta[key] = value;
          this.#liveMetaKeys.add(key);
        }
        return true;
      case 'run.finished':
        this.summary.status = event.status;
        this.summary.endedAt = iso(event.t);
        return true;
      case 'instance.started': {
        if (this.byId.has(event.instanceId)) return false;
        let entry = this.nodes.get(event.node.nodeId);
        if (entry === undefined) {
          const { nodeId, kind, parent, label } = event.node;
          entry = this.#addNode({ nodeId, kind, parent, label });
        }
        const instance: Instance = { instanceId: event.instanceId, nodeId: event.node.nodeId, status: 'open', startedAt: iso(event.t), endedAt: null };
        if (event.input !== undefined) instance.input = event.input;
        this.#track(instance, entry);
        this.timeline.push({ kind: 'instance', instance, index: this.instances.length - 1 });
        return true;
      }
      case 'instance.finished':
      case 'instance.error': {
        const instance = this.byId.get(event.instanceId);
        if (instance === undefined) return false;
        const at = iso(event.t);
        // Already in the fetched state (a message that crossed the fetch).
        if (instance.status !== 'open' && instance.endedAt !== null && instance.endedAt >= at) return false;
        const entry = this.nodes.get(instance.nodeId) as NodeEntry;
        if (instance.status === 'open') entry.open--;
        if (instance.status === 'error') entry.errors--;
        if (event.output !== undefined) instance.output = event.output;
        if (event.type === 'instance.error') {
          instance.status = 'error';
          instance.error = event.error;
          entry.errors++;
        } else {
          instance.status = 'ok';
          delete instance.error;
        }
        instance.endedAt = at;
        return true;
      }
      case 'instance.reopened': {
        const instance = this.byId.get(event.instanceId);
        if (instance === undefined || instance.status === 'open') return false;
        if (instance.endedAt !== null && instance.endedAt > iso(event.t)) return false;
        const entry = this.nodes.get(instance.nodeId) as NodeEntry;
        if (instance.status === 'error') entry.errors--;
        entry.open++;
        instance.status = 'open';
        instance.endedAt = null;
        delete instance.output;
        delete instance.error;
        return true;
      }
      case 'log': {
        const log: LogLine = { nodeId: event.nodeId, stream: event.stream, text: event.text, at: iso(event.t) };
        if (this.#seenBefore(log)) return false;
        this.logs.push(log);
        this.timeline.push({ kind: 'log', log, index: this.logs.length - 1 });
        return true;
      }
      case 'events.dropped':
        this.droppedEvents += event.count;
        return true;
      default:
        return false;
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

function logKey(nodeId: string, text: string, at: string): string {
  return `${at}\u0000${nodeId}\u0000${text}`;
}

/** The protocol card: drawn folded, with a count of the calls inside. */
export const PROTOCOL_NODE_ID = 'mcp:protocol';
/** The session node. */
export const SESSION_NODE_ID = 'mcp:session';
/** Non-JSON lines the server wrote to stdout. */
export const STDOUT_NOISE_NODE_ID = 'mcp:stdout-noise';

/** Is this node drawn as a folded container? */
export function isContainer(nodeId: string): boolean {
  return nodeId === PROTOCOL_NODE_ID;
}
