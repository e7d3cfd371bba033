import type { DebuggerGate } from '../gates/debugger-gate.js';
import { isObject } from '../json/is-object.js';
import { CONNECT_WAIT_MS } from './adapter-options.js';
import type { AdapterStats } from './adapter-stats.js';
import { CallRun } from './call-run.js';
import { callShape } from './call-shape.js';
import { detachedCall, type DetachedSink } from './detached-calls.js';
import type { FirstContact } from './first-contact.js';
import { GatedCall, type CallHost } from './gated-call.js';
import type { LiveCalls } from './live-calls.js';
import { newScope, requestScope, scopeOfContext, settleScope, type ScopeTracking } from './request-scope.js';
import type { RunningCall } from './running-call.js';
import { gatedSampling } from './sampling-gate.js';
import { handlerContext, methodOfSchema, serverShape } from './sdk-shape.js';
import { GATED_METHODS, ServerState, type CallSite, type ServerSettings } from './server-state.js';

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/**
 * What the wrapper needs of the adapter: what the pieces it starts need
 * (a server's settings, gated calls and sampling, the fast path), and its
 * own switches: disposed, `waitForAttach`, and how a request's scope is found.
 */
export interface ProxyHost extends CallHost, DetachedSink, ServerSettings {
  /** The debugger-connected gate (`whenArmed`: `connect()` with `waitForAttach`). */
  readonly core: Pick<DebuggerGate, 'armed' | 'plan' | 'withHold' | 'giveUp' | 'mayHold' | 'whenArmed' | 'rules' | 'logpoints'>;
  /** The counts. */
  readonly stats: Pick<AdapterStats, 'runs' | 'calls' | 'errors' | 'sampling'>;
  /** The calls running now (`only`: the issuer of a `createMessage` before async context is on). */
  readonly live: Pick<LiveCalls<RunningCall>, 'began' | 'answered' | 'ended' | 'only'>;
  /** How code finds the request it runs in. */
  readonly scopes: ScopeTracking;
  /** The first contact with a debugger: a call made while it is open (and nothing is armed) waits for it. */
  readonly contact: Pick<FirstContact, 'open' | 'wait'>;
  /** `connect()` waits for a debugger. */
  readonly waitForAttach: boolean;
  /** Disposed: wrapped servers run as if unwrapped. */
  readonly disposed: boolean;
}

/** Every server wrapped so far, to its proxy: wrapping twice gives the same proxy, never two layers. */
const proxyOf = new WeakMap<object, object>();
/** The proxies made here (wrapping one of them gives it back). */
const ours = new WeakSet<object>();

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? `an object of class ${name}` : 'an object that is not an MCP server';
}

/**
 * The instrumented view of an SDK server: a JS `Proxy`. The object passed
 * in is never changed, re-created or given a property of ours; only what is
 * registered through the proxy is gated (the SDK's own registration writes
 * go to the object as usual). Throws one clear TypeError for something
 * that is not an SDK server.
 */
export function wrapServer<T extends object>(host: ProxyHost, target: T): T {
  if (ours.has(target)) return target;
  const existing = proxyOf.get(target);
  if (existing !== undefined) return existing as T;
  const shape = serverShape(target);
  if (shape === 'unknown') {
    throw new TypeError(
      `graphmind: wrapServer() takes an MCP SDK server (McpServer or Server, from @modelcontextprotocol/sdk 1.x or @modelcontextprotocol/server 2.x); got ${describe(target)}`,
    );
  }
  const state = new ServerState(host, target);
  const proxy = shape === 'mcp-server' ? mcpServerProxy(host, state, target) : serverProxy(host, state, target, true);
  proxyOf.set(target, proxy);
  ours.add(proxy);
  return proxy as T;
}

/**
 * The node a registration stands for now: a rename (`update({ name })`)
 * changes it for the callback already registered too.
 */
interface SiteRef {
  current: CallSite;
}

/** A handler (a registered callback) gated as the registration's current site. */
function gatedCallback(host: ProxyHost, state: ServerState, ref: SiteRef, callback: AnyFunction): AnyFunction {
  return function gated(this: unknown, ...args: unknown[]): unknown {
    if (host.disposed) return callback.apply(this, args);
    const site = ref.current;
    // No debugger: nothing can hold. The handler runs as it would unwrapped, and the call is noted for later.
    if (!host.core.armed && !host.contact.open) return detachedCall(host, state, site, callback, this, args);
    const { context, input, uri } = callShape(site, args);
    return begin(host, state, site, input, context, uri, callback, this, args);
  };
}

/** Start a gated call in the request's scope (or a fresh one). Fails open: a call that cannot be recorded just runs. */
function begin(
  host: ProxyHost,
  state: ServerState,
  site: CallSite,
  input: unknown,
  context: ReturnType<typeof handlerContext>,
  uri: string | undefined,
  handler: AnyFunction,
  thisArg: unknown,
  args: unknown[],
): unknown {
  if (!host.core.armed) {
    // The first call: a debugger may be attaching right now, with a breakpoint for it (see FirstContact).
    if (host.contact.open) return host.contact.wait().then(() => begin(host, state, site, input, context, uri, handler, thisArg, args));
    return detachedCall(host, state, site, handler, thisArg, args, { context, input });
  }
  let call: GatedCall;
  try {
    call = new GatedCall(host, state, site, input, context, uri);
  } catch {
    return handler.apply(thisArg, args);
  }
  const scopes = host.scopes;
  // The request's scope: made by the SDK's dispatch (found through the context object it hands the handler too).
  const scope = (context === undefined ? undefined : scopeOfContext.get(context.value)) ?? scopes.current();
  if (scope !== undefined && scope.call === undefined) {
    scope.call = call;
    call.scope = scope;
    return scopes.async && requestScope.getStore() !== scope ? requestScope.run(scope, () => call.invoke(handler, thisArg, args)) : call.invoke(handler, thisArg, args);
  }
  // A second call in one request (2.x's compatibility shim may call a tool again): the first ends as it answered.
  if (scope !== undefined) settleScope(scope, undefined);
  const fresh = newScope();
  fresh.call = call;
  call.scope = fresh;
  return scopes.async ? requestScope.run(fresh, () => call.invoke(handler, thisArg, args)) : call.invoke(handler, thisArg, args);
}

/** The method a registration function registers a handler for. */
function registrationMethod(key: string): CallSite['method'] {
  if (key === 'registerTool' || key === 'tool') return 'tools/call';
  if (key === 'registerResource' || key === 'resource') return 'resources/read';
  return 'prompts/get';
}

/**
 * What a registration returns (`RegisteredTool`, …), with `update({ callback })`
 * gated too: the 2.x SDK builds a tool's executor from the callback when it
 * is registered or updated, so a callback must be wrapped on its way in.
 */
function registeredView(registered: unknown, host: ProxyHost, state: ServerState, ref: SiteRef): unknown {
  if (!isObject(registered) || typeof registered.update !== 'function') return registered;
  return new Proxy(registered, {
    get(target, key, receiver) {
      if (key !== 'update') return Reflect.get(target, key, receiver);
      return (updates: unknown): unknown => {
        const update = target.update as AnyFunction;
        if (!isObject(updates)) return update.call(target, updates);
        const result = typeof updates.callback === 'function' ? update.call(target, { ...updates, callback: gatedCallback(host, state, ref, updates.callback as AnyFunction) }) : update.call(target, updates);
        // Renamed (or removed, 1.x: `name: null`) once the SDK took it: the graph hint and the calls follow.
        if ('name' in updates && updates.name !== ref.current.node.label) {
          state.forget(ref.current.node.nodeId);
          if (typeof updates.name === 'string') ref.current = state.site(ref.current.method, updates.name, { template: ref.current.template, remember: true });
        }
        return result;
      };
    },
  });
}

/** The proxy of an `McpServer` (1.x or 2.x). */
function mcpServerProxy(host: ProxyHost, state: ServerState, target: object): object {
  const registrations = new Map<PropertyKey, AnyFunction>();
  let innerTarget: unknown;
  let inner: object | undefined;
  // eslint-disable-next-line prefer-const
  let proxy: object;

  const registration = (key: string): AnyFunction => {
    let wrapper = registrations.get(key);
    if (wrapper !== undefined) return wrapper;
    const method = registrationMethod(key);
    wrapper = function register(this: unknown, ...args: unknown[]): unknown {
      const original = Reflect.get(target, key, proxy) as AnyFunction;
      const last = args.length - 1;
      const callback = args[last];
      const name = args[0];
      if (host.disposed || typeof callback !== 'function' || typeof name !== 'string') return original.apply(this, args);
      const ref: SiteRef = { current: state.site(method, name, { template: method === 'resources/read' && typeof args[1] !== 'string', remember: true }) };
      const gatedArgs = [...args];
      gatedArgs[last] = gatedCallback(host, state, ref, callback as AnyFunction);
      return registeredView(original.apply(this, gatedArgs), host, state, ref);
    };
    registrations.set(key, wrapper);
    return wrapper;
  };

  const connect = connectFor(host, state, target, () => proxy);

  proxy = new Proxy(target, {
    get(t, key, receiver) {
      switch (key) {
        case 'registerTool':
        case 'tool':
        case 'registerResource':
        case 'resource':
        case 'registerPrompt':
        case 'prompt':
          return typeof Reflect.get(t, key, receiver) === 'function' ? registration(key) : Reflect.get(t, key, receiver);
        case 'server': {
          const server = Reflect.get(t, key, receiver);
          if (!isObject(server)) return server;
          if (server !== innerTarget) {
            innerTarget = server;
            inner = serverProxy(host, state, server, false);
          }
          return inner;
        }
        case 'connect':
          return connect;
        default:
          return Reflect.get(t, key, receiver);
      }
    },
  });
  return proxy;
}

/**
 * `connect()` through the wrapper: a new connection (its own id, which
 * namespaces its requests' instance ids), an optional wait for the
 * debugger, and a small `mcp:connect` run whose metadata carries the graph
 * hint (everything registered through the wrapper) for the viewer to draw
 * before traffic arrives.
 */
function connectFor(host: ProxyHost, state: ServerState, target: object, proxy: () => object): AnyFunction {
  return async function connect(this: unknown, ...args: unknown[]): Promise<unknown> {
    const original = Reflect.get(target, 'connect', proxy()) as AnyFunction;
    if (host.disposed) return original.apply(this, args);
    const connection = state.connected();
    if (host.waitForAttach) await host.core.whenArmed(CONNECT_WAIT_MS);
    try {
      const transport = args[0];
      const transportName = isObject(transport) ? (transport.constructor as { name?: string } | undefined)?.name : undefined;
      const run = new CallRun(host, state, `mcp:connect ${state.name}`, { connection }, undefined);
      // The graph hint: what was registered through the wrapper, for the viewer to draw before traffic comes.
      run.open();
      host.reporter.send(run.runId, { type: 'run.meta', meta: { transport: transportName, graphHint: { nodes: [...state.surface.values()] } } });
      run.finish('ok');
    } catch {
      // Observation is best-effort.
    }
    return original.apply(this, args);
  };
}

/** The request handlers' map as the SDK's dispatch reads it: gated methods run in a request scope. */
function handlersView(host: ProxyHost, map: Map<unknown, unknown>, scoped: WeakMap<object, AnyFunction>): Map<unknown, unknown> {
  return new Proxy(map, {
    get(m, key) {
      if (key === 'get') {
        return (method: unknown): unknown => {
          const handler = m.get(method);
          // Detached, nothing can hold or be decided: the SDK's own handler, with no scope to carry.
          if (typeof handler !== 'function' || (!host.core.armed && !host.contact.open) || typeof method !== 'string' || !Object.hasOwn(GATED_METHODS, method)) return handler;
          let wrapper = scoped.get(handler);
          if (wrapper === undefined) {
            wrapper = inScope(host.scopes, handler as AnyFunction);
            scoped.set(handler, wrapper);
          }
          return wrapper;
        };
      }
      const value = Reflect.get(m, key, m);
      return typeof value === 'function' ? (value as AnyFunction).bind(m) : value;
    },
  });
}

/**
 * A request handler run in a fresh request scope. An answer the debugger
 * decided that must be a JSON-RPC error (an abort's -32099, an injected
 * error frame) is thrown from here, whatever the SDK made of it inside (an
 * `McpServer` turns a tool's thrown error into an `isError` result). What
 * the SDK's handler finally did is handed to the call, which records its
 * end only then (see `RequestScope.settled`).
 */
function inScope(scopes: ScopeTracking, handler: AnyFunction): AnyFunction {
  return function scopedHandler(this: unknown, ...args: unknown[]): Promise<unknown> {
    const scope = newScope(true);
    // The handler gets the same context object: that is how it finds this scope.
    const context = args[1];
    if (isObject(context)) scopeOfContext.set(context, scope);
    const body = async (): Promise<unknown> => {
      let result: unknown;
      try {
        result = await handler.apply(this, args);
      } catch (error) {
        settleScope(scope, { threw: true, value: error });
        throw error;
      }
      if (scope.escape !== undefined) {
        settleScope(scope, { threw: true, value: scope.escape });
        throw scope.escape;
      }
      settleScope(scope, { threw: false, value: result });
      return result;
    };
    return scopes.async ? requestScope.run(scope, body) : body();
  };
}

/**
 * The proxy of a low-level `Server`: the one inside an `McpServer` (its
 * `createMessage` gated as sampling, its dispatch given request scopes), or
 * one wrapped directly (`direct`: its `setRequestHandler` handlers for
 * `tools/call`, `resources/read` and `prompts/get` gated too, named from
 * the request: a tool by its name, a resource by its URI).
 */
function serverProxy(host: ProxyHost, state: ServerState, target: object, direct: boolean): object {
  const scoped = new WeakMap<object, AnyFunction>();
  let views: { map: unknown; view: unknown } | undefined;
  // eslint-disable-next-line prefer-const
  let proxy: object;

  const createMessage = function createMessage(this: unknown, ...args: unknown[]): unknown {
    const original = Reflect.get(target, 'createMessage', proxy) as AnyFunction;
    if (host.disposed) return original.apply(this, args);
    const scopes = host.scopes;
    // The adapter's own gated sampling (a wrapped requestSampling) calling through: already gated.
    if (scopes.inSampling) return original.apply(this, args);
    // Called by a handler directly: its call is found through async context, which is switched on now.
    let issuer = scopes.current()?.call;
    if (!scopes.async) {
      scopes.startAsync();
      issuer = host.live.only();
    }
    return gatedSampling(host, state, issuer, args[0], () => original.apply(this, args) as Promise<unknown>);
  };

  const setRequestHandler = function setRequestHandler(this: unknown, ...args: unknown[]): unknown {
    const original = Reflect.get(target, 'setRequestHandler', proxy) as AnyFunction;
    const [first, second, third] = args;
    const method = typeof first === 'string' ? first : methodOfSchema(first);
    // (method or schema, handler), or 2.x (method, { params }, handler) whose handler gets the validated params.
    const paramsOnly = args.length >= 3 && typeof third === 'function';
    const handler = paramsOnly ? third : second;
    if (host.disposed || method === undefined || !Object.hasOwn(GATED_METHODS, method) || typeof handler !== 'function') return original.apply(this, args);
    const gatedMethod = method as CallSite['method'];
    const gated = function gatedHandler(this: unknown, request: unknown, ...rest: unknown[]): unknown {
      const params = paramsOnly ? request : isObject(request) ? request.params : undefined;
      const p: Record<string, unknown> = isObject(params) ? params : {};
      const uri = typeof p.uri === 'string' ? p.uri : undefined;
      const name = gatedMethod === 'resources/read' ? (uri ?? 'unknown') : typeof p.name === 'string' ? p.name : 'unknown';
      const site = state.site(gatedMethod, name);
      const input = gatedMethod === 'resources/read' ? { uri } : (p.arguments ?? {});
      const context = handlerContext(rest[rest.length - 1]);
      return begin(host, state, site, input, context, uri, handler as AnyFunction, this, [request, ...rest]);
    };
    const gatedArgs = [...args];
    gatedArgs[paramsOnly ? 2 : 1] = gated;
    return original.apply(this, gatedArgs);
  };

  const connect = direct ? connectFor(host, state, target, () => proxy) : undefined;

  proxy = new Proxy(target, {
    get(t, key, receiver) {
      switch (key) {
        case 'createMessage':
          return typeof Reflect.get(t, key, receiver) === 'function' ? createMessage : Reflect.get(t, key, receiver);
        case '_requestHandlers': {
          const map = Reflect.get(t, key, receiver);
          if (!(map instanceof Map) || host.disposed) return map;
          if (views?.map !== map) views = { map, view: handlersView(host, map, scoped) };
          return views.view;
        }
        case 'setRequestHandler':
          return direct ? setRequestHandler : Reflect.get(t, key, receiver);
        case 'connect':
          return connect ?? Reflect.get(t, key, receiver);
        default:
          return Reflect.get(t, key, receiver);
      }
    },
  });
  return proxy;
}
