import type { Instance, Run, RunSummary } from './run-model.js';
import type { RunEvent } from './ingest.js';
import { isoTime, RunReplay } from './run-replay.js';
import { countCall, countFailed, isCallNode, isFailedCall } from './run-counts.js';

/** A run's {@link RunSummary.group}. */
export type RunGroup = NonNullable<RunSummary['group']>;

/**
 * The bundled reporter's run ids: `run_<time, base 36>_<16 characters drawn
 * once per process>` and a count (report/reporter.ts `newRunId`). The 16
 * characters tell two processes apart; any other id says nothing of its
 * process.
 */
const REPORTER_RUN_ID = /^run_[0-9a-z]+_([A-Za-z0-9_-]{16})[0-9a-z]+$/;

/** Text up to this long names a server, connection or session in a group; longer is no group. */
const GROUP_PART_MAX = 512;

/** The last group made: the runs of one connection come in a row, and share it (a summary never changes it in place). */
let lastGroup: { origin: string; group: RunGroup } | undefined;

const isBase36 = (code: number): boolean => (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a);

/**
 * Does `runId` match {@link REPORTER_RUN_ID} with `origin` (16 characters
 * it matched before) as its process part? The same answer as the pattern,
 * without its match and substring: a connection's runs all come this way.
 */
function hasOrigin(runId: string, origin: string): boolean {
  if (!runId.startsWith('run_')) return false;
  // The time has no `_`: the first one after `run_` ends it.
  const mark = runId.indexOf('_', 4);
  if (mark <= 4 || runId.length <= mark + 1 + origin.length || !runId.startsWith(origin, mark + 1)) return false;
  for (let i = 4; i < mark; i++) if (!isBase36(runId.charCodeAt(i))) return false;
  for (let i = mark + 1 + origin.length; i < runId.length; i++) if (!isBase36(runId.charCodeAt(i))) return false;
  return true;
}

function groupPart(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= GROUP_PART_MAX ? value : undefined;
}

/**
 * The adapter connection a run belongs to ({@link RunSummary.group}):
 * for an `mcp-adapter` run whose meta has a `server` and a `connection`
 * (non-empty strings), else undefined. Pure, apart from sharing the last
 * group made with the next run of the same connection.
 */
export function runGroup(runId: string, source: string, meta: Record<string, unknown>): RunGroup | undefined {
  if (source !== 'mcp-adapter') return undefined;
  const server = groupPart(meta.server);
  const connection = groupPart(meta.connection);
  if (server === undefined || connection === undefined) return undefined;
  const sessionId = groupPart(meta.sessionId);
  const last = lastGroup;
  if (last !== undefined && last.group.server === server && last.group.connection === connection && last.group.sessionId === sessionId) {
    if (last.origin === '' ? !REPORTER_RUN_ID.test(runId) : hasOrigin(runId, last.origin)) return last.group;
  }
  const origin = REPORTER_RUN_ID.exec(runId)?.[1] ?? '';
  const group: RunGroup = { id: JSON.stringify([server, connection, origin]), server, connection };
  if (sessionId !== undefined) group.sessionId = sessionId;
  lastGroup = { origin, group };
  return group;
}

/** The longest server or client name or version taken from a run's meta into its summary. */
const SERVER_TEXT_MAX = 256;

/** A peer's name and version, as a summary has them. */
type Peer = { name: string; version?: string };

/** The last info object read for one field, and what it gave: a connection's runs share their meta's values (server/batch-reader.ts). */
interface PeerCache {
  info: unknown;
  peer: Peer | undefined;
}
const serverCache: PeerCache = { info: undefined, peer: undefined };
const clientCache: PeerCache = { info: undefined, peer: undefined };

/** A name and version from `serverInfo` or `clientInfo`: a non-empty name of at most 256 characters, the version when it is a string as short. */
function peerInfo(info: unknown, cache: PeerCache): Peer | undefined {
  if (info === null || typeof info !== 'object' || Array.isArray(info)) return undefined;
  // The same object, the same answer (a summary never changes its server or client in place).
  if (info === cache.info) return cache.peer;
  const peer = readPeerInfo(info);
  cache.info = info;
  cache.peer = peer;
  return peer;
}

function readPeerInfo(info: object): Peer | undefined {
  const { name, version } = info as Record<string, unknown>;
  if (typeof name !== 'string' || name === '' || name.length > SERVER_TEXT_MAX) return undefined;
  return typeof version === 'string' && version !== '' && version.length <= SERVER_TEXT_MAX ? { name, version } : { name };
}

/**
 * The MCP server's name and version ({@link RunSummary.server}) from a
 * run's `meta.serverInfo` (the answer to `initialize`), when it has a name
 * (a non-empty string of at most 256 characters); else undefined.
 */
export function runServer(meta: Record<string, unknown>): RunSummary['server'] {
  return peerInfo(meta.serverInfo, serverCache);
}

/**
 * The MCP client's name and version ({@link RunSummary.client}) from a
 * run's `meta.clientInfo` (its `initialize` request), by the same rule as
 * {@link runServer}; else undefined.
 */
export function runClient(meta: Record<string, unknown>): RunSummary['client'] {
  return peerInfo(meta.clientInfo, clientCache);
}

/**
 * One run as the server keeps it: the replay of its events (the same
 * reducer serves live ingest and the reload of a log from disk, so a
 * restarted server sees exactly what the live one did), and its end when
 * its reporter vanishes.
 */
export class RunState extends RunReplay {
  constructor(runId: string, t: number) {
    super({ runId, name: runId, source: 'unknown', status: 'running', startedAt: isoTime(t), endedAt: null });
  }

  /**
   * Set when the summary's counts, client or tools changed, for the server
   * to tell the live feed (a `run.updated`, see server/summary-news); the
   * server clears it once told.
   */
  summaryChanged = false;

  /** Apply one event; a run's start and its meta also set the summary's group, server and client; calls update its counts. */
  override apply(event: RunEvent): boolean {
    // An end or a reopen may change whether a call counts as failed: how it stood before.
    const ending = event.type === 'instance.finished' || event.type === 'instance.error' || event.type === 'instance.reopened' ? this.byId.get(event.instanceId) : undefined;
    const failedBefore = ending !== undefined && this.#failedCall(ending);
    const nodesBefore = this.nodes.size;
    const changed = super.apply(event);
    if (!changed) return false;
    switch (event.type) {
      case 'run.started':
      case 'run.meta':
        this.#metaChanged();
        break;
      case 'instance.started':
      case 'instance.completed': {
        const node = this.nodes.get(event.node.nodeId)?.node;
        if (node === undefined || !isCallNode(node)) break;
        // A tool's name is looked at once, with the first call of its node.
        countCall(this.summary, node.kind === 'tool' && this.nodes.size > nodesBefore ? node.label : undefined);
        this.summaryChanged = true;
        break;
      }
      default:
        if (ending !== undefined && this.#failedCall(ending) !== failedBefore) {
          countFailed(this.summary, failedBefore ? -1 : 1);
          this.summaryChanged = true;
        }
    }
    return true;
  }

  /** Is `instance` a call that counts as failed now? */
  #failedCall(instance: Instance): boolean {
    if (instance.status !== 'error') return false;
    const node = this.nodes.get(instance.nodeId)?.node;
    return node !== undefined && isCallNode(node) && isFailedCall(instance.nodeId, instance.status, instance.error);
  }

  /** The group, server and client the run's meta now gives its summary. */
  #metaChanged(): void {
    const group = runGroup(this.summary.runId, this.summary.source, this.meta);
    if (group === undefined) delete this.summary.group;
    else this.summary.group = group;
    const server = runServer(this.meta);
    if (server === undefined) delete this.summary.server;
    else if (this.summary.server?.name !== server.name || this.summary.server.version !== server.version) {
      this.summary.server = server;
      this.summaryChanged = true;
    }
    const client = runClient(this.meta);
    if (client === undefined) {
      if (this.summary.client !== undefined) this.summaryChanged = true;
      delete this.summary.client;
    } else if (this.summary.client?.name !== client.name || this.summary.client.version !== client.version) {
      this.summary.client = client;
      this.summaryChanged = true;
    }
  }

  /** Instances recorded so far. */
  get instanceCount(): number {
    return this.instances.length;
  }

  /** Close a run whose reporter vanished: open work will never finish. */
  abandon(t: number): void {
    if (this.summary.status !== 'running') return;
    this.revision++;
    this.summary.status = 'error';
    this.summary.endedAt = isoTime(t);
  }

  /** The whole run, as `GET /api/runs/:runId` returns it. */
  toRun(): Run {
    return {
      ...this.summary,
      meta: this.meta,
      nodes: this.graphNodes(),
      instances: this.instances,
      logs: this.logs,
      droppedEvents: this.droppedEvents,
      lastSeq: this.lastSeq,
    };
  }
}
