import { adapterMode, CONNECT_WAIT_MS, type AdapterMode, type GraphmindOptions } from './adapter-options.js';
import { AdapterRuntime } from './adapter-runtime.js';
import type { AdapterStats } from './adapter-stats.js';
import { wrapServer } from './server-proxy.js';

/** `gm.session`: what the adapter is doing, and custom events. */
export interface GraphmindSession {
  /** The adapter is on (no kill switch applies). */
  readonly enabled: boolean;
  /** Why it is off, or `on`. */
  readonly mode: AdapterMode;
  /** A debugger is attached right now. */
  readonly attached: boolean;
  /** Counts since `graphmind()` was called. */
  readonly stats: Readonly<AdapterStats>;
  /**
   * Record a custom event (`name`, optional JSON-serialisable `data`) as a
   * log line on the node of the call running now. Outside a gated call
   * there is nowhere to put it, and it is ignored. Returns whether it was
   * recorded.
   */
  event(name: string, data?: unknown): boolean;
}

/** What {@link graphmind} returns. */
export interface Graphmind {
  /**
   * The instrumented view of an SDK server (`McpServer` or `Server`, 1.x or
   * 2.x): register on and connect the value this returns. The object passed
   * in is never changed. The identity when the adapter is off.
   */
  wrapServer<T extends object>(server: T): T;
  /**
   * Resolves true once a debugger is attached and has sent its breakpoints;
   * false after `timeoutMs` (or when off). The first call already waits for
   * a debugger that is running; this waits for one that may start later.
   */
  ready(timeoutMs?: number): Promise<boolean>;
  /** The session: stats and custom events. */
  readonly session: GraphmindSession;
  /** Let every hold go on, send what is left (up to 1 s) and disconnect. Wrapped servers then run as if unwrapped. */
  dispose(): Promise<void>;
}

const EMPTY_STATS: AdapterStats = Object.freeze({ runs: 0, calls: 0, errors: 0, holds: 0, sampling: 0 });

/**
 * The in-process adapter: instrument an MCP server written with the
 * TypeScript SDK (1.x `@modelcontextprotocol/sdk` or 2.x
 * `@modelcontextprotocol/server`) so every `tools/call`, `resources/read`
 * and `prompts/get` it handles, and every sampling request its handlers
 * send, is a node the debugger can hold and steer.
 *
 * Off (wrapServer is the identity, nothing touches the network) when
 * `GRAPHMIND_DISABLED` is set, with `enabled: false`, or under
 * `NODE_ENV=production` unless `GRAPHMIND=1`. The first call waits for
 * the first contact with a debugger to settle (attached with its
 * breakpoints, or refused at once when none runs), so that a breakpoint set
 * before the server started holds it. With no debugger running it records
 * into a bounded buffer and never holds.
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { graphmind } from 'graphmind-ai/adapter';
 *
 * const gm = graphmind({ app: 'my-mcp-server' });
 * const server = gm.wrapServer(new McpServer({ name: 'my-server', version: '1.0.0' }));
 * server.registerTool('echo', { description: 'Echo' }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function graphmind(options: GraphmindOptions = {}): Graphmind {
  const env = options.env ?? process.env;
  const mode = adapterMode(options, env);
  if (mode !== 'on') {
    return {
      wrapServer: <T extends object>(server: T): T => server,
      ready: () => Promise.resolve(false),
      session: { enabled: false, mode, attached: false, stats: EMPTY_STATS, event: () => false },
      dispose: () => Promise.resolve(),
    };
  }
  const runtime = new AdapterRuntime(options, env);
  const session: GraphmindSession = {
    enabled: true,
    mode,
    get attached(): boolean {
      return runtime.reporter.attached && !runtime.disposed;
    },
    get stats(): Readonly<AdapterStats> {
      return { ...runtime.stats };
    },
    event(name: string, data?: unknown): boolean {
      // The call running now: by async context once that is on, else the only one running.
      const call = runtime.scopes.current()?.call ?? runtime.live.only();
      if (call === undefined || runtime.disposed) return false;
      let text = name;
      if (data !== undefined) {
        try {
          text = `${name} ${JSON.stringify(data)}`;
        } catch {
          text = `${name} [data that cannot be written as JSON]`;
        }
      }
      call.run.log(call.nodeId, text, 'event');
      return true;
    },
  };
  return {
    wrapServer: <T extends object>(server: T): T => wrapServer(runtime, server),
    ready: (timeoutMs = CONNECT_WAIT_MS) => (runtime.disposed ? Promise.resolve(false) : runtime.core.whenArmed(timeoutMs)),
    session,
    dispose: () => runtime.dispose(),
  };
}
