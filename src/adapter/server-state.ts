import { LoopDetector } from '../gates/loop-detector.js';
import { KnownJson } from '../report/deferred.js';
import type { NodeKind } from '../protocol/run-model.js';
import type { NodeDeclaration } from '../protocol/ingest.js';
import { declared } from '../report/node-declaration.js';
import { sdkOf, serverInfoOf, type SdkPackage } from './sdk-shape.js';

/** The methods whose handlers the adapter gates, and the node kind of each. */
export const GATED_METHODS: Readonly<Record<string, Exclude<NodeKind, 'server' | 'llm' | 'custom'>>> = Object.freeze({
  'tools/call': 'tool',
  'resources/read': 'resource',
  'prompts/get': 'prompt',
});

/** The instance id of a run's server node (each run has its own). */
export const SERVER_INSTANCE = 'server';

/** Nodes whose JSON is kept (beyond it the cache starts again: a low-level server names a node per resource URI). */
const MAX_CACHED_NODES = 1024;

/** A gated handler: what it answers and the node it is. */
export interface CallSite {
  method: 'tools/call' | 'resources/read' | 'prompts/get';
  node: NodeDeclaration;
  /** A resource registered with a URI template (its variables are the input). */
  template?: boolean;
}

/** What a {@link ServerState} reads of the adapter's settings, and where its connection ids come from. */
export interface ServerSettings {
  /** The application's name (`app` option). */
  readonly app: string;
  /** The `server` option: the server node's name instead of the SDK server's own. */
  readonly serverOverride: { name: string; version?: string } | undefined;
  /** Tools the loop hold leaves alone (`GRAPHMIND_LOOP_ALLOW`). */
  readonly loopAllow: readonly string[];
  /** The SDK the session reports. */
  readonly sdk: string | undefined;
  /** A new connection's id, namespacing its requests' instance ids: `c1`, `c2`, … */
  nextConnection(): string;
}

/** One wrapped SDK server: who it is, and its connection. */
export class ServerState {
  readonly #settings: ServerSettings;
  /** The SDK generation that built it, read off the object. */
  readonly sdk: SdkPackage | undefined;
  readonly name: string;
  readonly version: string | undefined;
  /** `server:<name>`, the root of each of its runs. */
  readonly node: NodeDeclaration;
  /** The loop hold's memory, per connection. */
  loop: LoopDetector;
  /** The current connection's id (`c1`, …), set on `connect()`, or on the first request of a server connected before it was wrapped. */
  #connection: string | undefined;
  /** What was registered through the wrapper, for the connect run's graph hint. */
  readonly surface = new Map<string, NodeDeclaration>();
  /** The run metadata of the current connection, as a value and as JSON. */
  #meta: { connection: string; sessionId: string | undefined; value: Record<string, unknown>; json: KnownJson } | undefined;
  #rootJson: KnownJson | undefined;
  readonly #nodeJson = new Map<string, KnownJson>();

  constructor(settings: ServerSettings, target: object) {
    this.#settings = settings;
    this.sdk = sdkOf(target);
    const info = settings.serverOverride ?? serverInfoOf(target) ?? { name: settings.app };
    this.name = info.name;
    this.version = info.version;
    this.node = declared({ nodeId: `server:${info.name}`, kind: 'server', parent: null, label: info.version === undefined ? info.name : `${info.name} ${info.version}` });
    this.loop = new LoopDetector({ allow: settings.loopAllow });
  }

  /** The current connection's id (one is given if none was). */
  get connection(): string {
    this.#connection ??= this.#settings.nextConnection();
    return this.#connection;
  }

  /** A new connection begins: its own id, and a fresh loop memory. */
  connected(): string {
    this.#connection = this.#settings.nextConnection();
    this.loop = new LoopDetector({ allow: this.#settings.loopAllow });
    return this.#connection;
  }

  /** The server node's input: what the adapter knows of the server. */
  get identity(): Record<string, unknown> {
    return { sdk: this.sdk, name: this.name, version: this.version, app: this.#settings.app };
  }

  #metaOf(connection: string, sessionId: string | undefined): { value: Record<string, unknown>; json: KnownJson } {
    const meta = this.#meta;
    if (meta !== undefined && meta.connection === connection && meta.sessionId === sessionId) return meta;
    const settings = this.#settings;
    const value: Record<string, unknown> = { app: settings.app, sdk: settings.sdk, server: this.name, serverSdk: this.sdk, connection };
    if (sessionId !== undefined) value.sessionId = sessionId;
    this.#meta = { connection, sessionId, value, json: new KnownJson(value) };
    return this.#meta;
  }

  /**
   * The metadata of a run on `connection` (and the transport's `sessionId`,
   * over HTTP): the app, the SDKs, the server and the connection.
   */
  meta(connection: string, sessionId?: string): Record<string, unknown> {
    return this.#metaOf(connection, sessionId).value;
  }

  /** {@link ServerState.meta} as JSON, made once per connection. */
  metaJson(connection: string, sessionId?: string): KnownJson {
    return this.#metaOf(connection, sessionId).json;
  }

  /** A run's root (`{ instanceId, node, input }`) as JSON made once. */
  rootJson(): KnownJson {
    this.#rootJson ??= new KnownJson({ instanceId: SERVER_INSTANCE, node: this.node, input: this.identity });
    return this.#rootJson;
  }

  /** A node's declaration as JSON, made once per node. */
  nodeJson(node: NodeDeclaration): KnownJson {
    let json = this.#nodeJson.get(node.nodeId);
    if (json === undefined) {
      if (this.#nodeJson.size >= MAX_CACHED_NODES) this.#nodeJson.clear();
      json = new KnownJson(node);
      this.#nodeJson.set(node.nodeId, json);
    }
    return json;
  }

  /**
   * The node of a gated handler named `name`. One registered on the wrapper
   * is `remember`ed for the graph hint; one met per request (a low-level
   * handler's tool name or resource URI) is not.
   */
  site(method: CallSite['method'], name: string, options: { template?: boolean; remember?: boolean } = {}): CallSite {
    const kind = GATED_METHODS[method] as 'tool' | 'resource' | 'prompt';
    const node = declared({ nodeId: `${kind}:${name}`, kind, parent: this.node.nodeId, label: name });
    if (options.remember === true) this.surface.set(node.nodeId, node);
    return options.template === true ? { method, node, template: true } : { method, node };
  }

  /** A registration renamed or removed: its old node leaves the graph hint. */
  forget(nodeId: string): void {
    this.surface.delete(nodeId);
  }
}
