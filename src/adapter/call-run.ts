import type { AnswerRecord } from '../report/answer-record.js';
import { COMPLETED_RUN, type CompletedRun } from '../report/completed-run.js';
import type { InstanceError } from '../protocol/run-model.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import { newRunId, type Reporter } from '../report/reporter.js';
import { RunEvents, type RunEventSink } from '../report/run-events.js';
import type { AdapterStats } from './adapter-stats.js';
import { SERVER_INSTANCE, type ServerState } from './server-state.js';

/** The reporter as a run uses it: a run's start, its events (built whole, or not), and a run sent whole. */
export type RunReporter = Pick<Reporter, 'startRun' | 'send' | 'sendCompletedRun'> & RunEventSink;

/** What a {@link CallRun} needs of the adapter: the reporter it goes out through, and the count of runs. */
export interface RunHost {
  /** Where the run's events go. */
  readonly reporter: RunReporter;
  /** Counts `runs`. */
  readonly stats: Pick<AdapterStats, 'runs'>;
}

/** What a {@link CallRun} reads of its server: the root node, and the metadata and JSON it made once. */
export type RunServer = Pick<ServerState, 'node' | 'identity' | 'meta' | 'metaJson' | 'rootJson' | 'nodeJson'>;

/** The execution a run is about: the handler's call (or a sampling request with no call around it). */
export interface MainInstance {
  instanceId: string;
  node: NodeDeclaration;
  input: unknown;
  /** The JSON-RPC id of the request the handler answers (the SDK's), if it has one. */
  requestId?: string | number;
}

/**
 * The run of one incoming request, as the adapter records it: the run
 * (`tools/call:<name>`, source `mcp-adapter`), the server node at its root,
 * the handler's instance, and anything nested under it (sampling).
 *
 * Nothing is sent while the call runs, as long as nobody needs to see it: a
 * call that ends without a hold, a nested request or a log line is sent
 * once, whole, as one `run.completed` element (see report/completed-run.ts).
 * Anything that must show the run while it is live (a hold, a nested
 * sampling, a log line, or the call simply taking long: see
 * `LiveCalls`) first {@link CallRun.open}s it with the usual events.
 */
export class CallRun {
  readonly runId = newRunId();
  readonly #host: RunHost;
  readonly #server: RunServer;
  readonly #connection: string;
  readonly #sessionId: string | undefined;
  readonly #name: string;
  readonly #main: MainInstance | undefined;
  readonly #t: number;
  #events: RunEvents | undefined;
  #finished = false;

  constructor(
    host: RunHost,
    server: RunServer,
    name: string,
    where: { connection: string; sessionId?: string },
    main: MainInstance | undefined,
    t = Date.now(),
  ) {
    this.#host = host;
    this.#server = server;
    this.#name = name;
    this.#connection = where.connection;
    this.#sessionId = where.sessionId;
    this.#main = main;
    this.#t = t;
    host.stats.runs++;
  }

  /** When the run began, ms since the epoch. */
  get startedAt(): number {
    return this.#t;
  }

  /** The run's events have started going out (it shows as running). */
  get opened(): boolean {
    return this.#events !== undefined;
  }

  /** Send the run's beginning: the run, its root, and its main instance. Once. */
  open(): RunEvents {
    if (this.#events !== undefined) return this.#events;
    const reporter = this.#host.reporter;
    const t = this.#t;
    const server = this.#server;
    reporter.startRun(this.#name, 'mcp-adapter', server.meta(this.#connection, this.#sessionId), t, this.runId);
    const events = new RunEvents(reporter, this.runId);
    this.#events = events;
    // The root goes through send(): the reporter never drops a run's root.
    reporter.send(this.runId, { type: 'instance.started', instanceId: SERVER_INSTANCE, node: server.node, input: server.identity }, t);
    const main = this.#main;
    if (main !== undefined) events.started(main.instanceId, main.node, main.input, 0, t, main.requestId);
    return events;
  }

  /** An execution under the root began (at `t`, default now). */
  started(instanceId: string, node: NodeDeclaration, input: unknown, t = Date.now()): void {
    this.open().started(instanceId, node, input, 0, t);
  }

  /** An execution ended well. */
  ended(instanceId: string, output: unknown, t = Date.now()): void {
    this.open().ended(instanceId, output, 0, t);
  }

  /** An execution ended in error. */
  failed(instanceId: string, error: InstanceError, output?: unknown, t = Date.now()): void {
    this.open().failed(instanceId, output, error, 0, t);
  }

  /** An execution is open again (retried). */
  reopened(instanceId: string): void {
    this.open().reopened(instanceId, Date.now());
  }

  /** A log line on a node of the run. */
  log(nodeId: string, text: string, stream: string): void {
    this.open().log(nodeId, text, stream, Date.now());
  }

  /**
   * The main instance ended (`answer`, at `endT`), and with it the run: as
   * one `run.completed` if nothing of the run was sent yet, else as the
   * events that close it.
   */
  complete(answer: AnswerRecord, endT = Date.now()): void {
    if (this.#finished) return;
    const main = this.#main;
    if (this.#events !== undefined || main === undefined) {
      if (main !== undefined) {
        if (answer.failed) this.failed(main.instanceId, answer.error, answer.output, endT);
        else this.ended(main.instanceId, answer.output, endT);
      }
      this.finish(answer.failed ? 'error' : 'ok', endT);
      return;
    }
    this.#finished = true;
    const server = this.#server;
    const run: CompletedRun = {
      type: COMPLETED_RUN,
      runId: this.runId,
      seq: 1,
      t: this.#t,
      endT,
      name: this.#name,
      source: 'mcp-adapter',
      meta: server.metaJson(this.#connection, this.#sessionId) as unknown as Record<string, unknown>,
      root: server.rootJson() as unknown as CompletedRun['root'],
      instanceId: main.instanceId,
      node: server.nodeJson(main.node) as unknown as NodeDeclaration,
      input: main.input,
      requestId: main.requestId,
      output: answer.output,
      error: answer.failed ? answer.error : undefined,
    };
    this.#host.reporter.sendCompletedRun(run);
  }

  /** Close the root and the run (at `t`, default now). */
  finish(status: 'ok' | 'error', t = Date.now()): void {
    if (this.#finished) return;
    this.#finished = true;
    this.open().ended(SERVER_INSTANCE, undefined, 0, t);
    this.#host.reporter.send(this.runId, { type: 'run.finished', status }, t);
  }
}
