import type { InstanceError, NodeDeclaration } from '../report/events.js';
import { RunEvents } from '../report/run-events.js';
import type { AdapterRuntime } from './adapter-runtime.js';
import type { ServerState } from './server-state.js';

/** The instance id of a run's server node (each run has its own). */
const SERVER_INSTANCE = 'server';

/**
 * The run of one incoming request, as the adapter records it: the run
 * (`tools/call:<name>`, source `mcp-adapter`), the server node at its root,
 * the handler's node with one instance, and any nested instance (sampling)
 * under it. Built on the shared event builders.
 */
export class CallRun {
  readonly runId: string;
  readonly events: RunEvents;
  readonly #runtime: AdapterRuntime;
  #finished = false;

  constructor(runtime: AdapterRuntime, server: ServerState, name: string, meta: Record<string, unknown>, t?: number) {
    this.#runtime = runtime;
    const reporter = runtime.reporter;
    this.runId = reporter.startRun(name, 'mcp-adapter', { app: runtime.app, sdk: runtime.sdk, server: server.name, serverSdk: server.sdk, ...meta }, t);
    this.events = new RunEvents(reporter, this.runId);
    runtime.stats.runs++;
    // The root goes through send(): the reporter never drops a run's root.
    reporter.send(this.runId, { type: 'instance.started', instanceId: SERVER_INSTANCE, node: server.node, input: server.identity }, t);
  }

  /** An execution under the root began (at `t`, default now). */
  started(instanceId: string, node: NodeDeclaration, input: unknown, t = Date.now()): void {
    this.events.started(instanceId, node, input, 0, t);
  }

  /** An execution ended well. */
  ended(instanceId: string, output: unknown, t = Date.now()): void {
    this.events.ended(instanceId, output, 0, t);
  }

  /** An execution ended in error. */
  failed(instanceId: string, error: InstanceError, output?: unknown, t = Date.now()): void {
    this.events.failed(instanceId, output, error, 0, t);
  }

  /** An execution is open again (retried). */
  reopened(instanceId: string): void {
    this.events.reopened(instanceId, Date.now());
  }

  /** A log line on a node of the run. */
  log(nodeId: string, text: string, stream: string): void {
    this.events.log(nodeId, text, stream, Date.now());
  }

  /** Close the root and the run (at `t`, default now). */
  finish(status: 'ok' | 'error', t = Date.now()): void {
    if (this.#finished) return;
    this.#finished = true;
    this.events.ended(SERVER_INSTANCE, undefined, 0, t);
    this.#runtime.reporter.send(this.runId, { type: 'run.finished', status }, t);
  }
}
