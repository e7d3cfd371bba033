import { LoopDetector } from '../gates/loop-detector.js';
import type { NodeDeclaration, NodeKind } from '../report/events.js';
import type { AdapterRuntime } from './adapter-runtime.js';
import { sdkOf, serverInfoOf, type SdkPackage } from './sdk-shape.js';

/** The methods whose handlers the adapter gates, and the node kind of each. */
export const GATED_METHODS: Readonly<Record<string, Exclude<NodeKind, 'server' | 'llm' | 'custom'>>> = Object.freeze({
  'tools/call': 'tool',
  'resources/read': 'resource',
  'prompts/get': 'prompt',
});

/** A gated handler: what it answers and the node it is. */
export interface CallSite {
  method: 'tools/call' | 'resources/read' | 'prompts/get';
  node: NodeDeclaration;
  /** A resource registered with a URI template (its variables are the input). */
  template?: boolean;
}

/** One wrapped SDK server: who it is, and its connection. */
export class ServerState {
  readonly runtime: AdapterRuntime;
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

  constructor(runtime: AdapterRuntime, target: object) {
    this.runtime = runtime;
    this.sdk = sdkOf(target);
    const info = runtime.serverOverride ?? serverInfoOf(target) ?? { name: runtime.app };
    this.name = info.name;
    this.version = info.version;
    this.node = { nodeId: `server:${info.name}`, kind: 'server', parent: null, label: info.version === undefined ? info.name : `${info.name} ${info.version}` };
    this.loop = new LoopDetector({ allow: runtime.loopAllow });
  }

  /** The current connection's id (one is given if none was). */
  get connection(): string {
    this.#connection ??= this.runtime.nextConnection();
    return this.#connection;
  }

  /** A new connection begins: its own id, and a fresh loop memory. */
  connected(): string {
    this.#connection = this.runtime.nextConnection();
    this.loop = new LoopDetector({ allow: this.runtime.loopAllow });
    return this.#connection;
  }

  /** The server node's input: what the adapter knows of the server. */
  get identity(): Record<string, unknown> {
    return { sdk: this.sdk, name: this.name, version: this.version, app: this.runtime.app };
  }

  /**
   * The node of a gated handler named `name`. One registered on the wrapper
   * is `remember`ed for the graph hint; one met per request (a low-level
   * handler's tool name or resource URI) is not.
   */
  site(method: CallSite['method'], name: string, options: { template?: boolean; remember?: boolean } = {}): CallSite {
    const kind = GATED_METHODS[method] as 'tool' | 'resource' | 'prompt';
    const node: NodeDeclaration = { nodeId: `${kind}:${name}`, kind, parent: this.node.nodeId, label: name };
    if (options.remember === true) this.surface.set(node.nodeId, node);
    return options.template === true ? { method, node, template: true } : { method, node };
  }
}
