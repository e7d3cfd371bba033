/**
 * What the adapter reads off the MCP SDKs, by shape only: it never imports
 * either SDK. Everything here is a pure function of the objects the SDK
 * hands it, so a future SDK that changes a shape degrades to "not
 * recognised" (passed through), never to an exception.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';

/** The two SDK generations, by their package names. */
export type SdkPackage = '@modelcontextprotocol/sdk' | '@modelcontextprotocol/server';

/** What kind of SDK object a value is. */
export type ServerShape = 'mcp-server' | 'server' | 'unknown';

type Obj = Record<string, unknown>;

function hasMethod(value: Obj, name: string): boolean {
  return typeof value[name] === 'function';
}

/**
 * `mcp-server` for an `McpServer` (registers tools, resources and prompts,
 * and holds a low-level `server`), `server` for a low-level `Server` (it
 * sets request handlers and connects), `unknown` for anything else.
 */
export function serverShape(value: unknown): ServerShape {
  if (!isObject(value)) return 'unknown';
  if (hasMethod(value, 'registerTool') && hasMethod(value, 'connect') && isObject(value.server)) return 'mcp-server';
  if (hasMethod(value, 'setRequestHandler') && hasMethod(value, 'connect') && hasMethod(value, 'createMessage')) return 'server';
  return 'unknown';
}

/**
 * Which SDK generation built `value` (an `McpServer` or a `Server`), read
 * structurally: the 2.x protocol negotiates a wire codec per era
 * (`_negotiatedWireCodec`), and only the 1.x `McpServer` still has the
 * variadic `tool()` form.
 */
export function sdkOf(value: unknown): SdkPackage | undefined {
  if (!isObject(value)) return undefined;
  const inner = serverShape(value) === 'mcp-server' ? (value.server as Obj) : value;
  if (hasMethod(inner, '_negotiatedWireCodec')) return '@modelcontextprotocol/server';
  if (serverShape(value) === 'mcp-server') return hasMethod(value, 'tool') ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
  if (hasMethod(inner, '_onrequest')) return '@modelcontextprotocol/sdk';
  return undefined;
}

/** The `{ name, version }` the SDK server was created with, if it can be read. */
export function serverInfoOf(value: unknown): { name: string; version?: string } | undefined {
  if (!isObject(value)) return undefined;
  const inner = serverShape(value) === 'mcp-server' ? value.server : value;
  const info = isObject(inner) ? inner._serverInfo : undefined;
  if (!isObject(info) || typeof info.name !== 'string' || info.name === '') return undefined;
  return typeof info.version === 'string' ? { name: info.name, version: info.version } : { name: info.name };
}

/**
 * The SDK's per-request context, the last argument of every handler:
 * `RequestHandlerExtra` in 1.x (`signal`, `requestId`, `sendRequest`, …),
 * `ctx` in 2.x (`mcpReq: { id, method, signal, send, … }`).
 */
export type HandlerContext = { kind: 'extra'; value: Obj } | { kind: 'ctx'; value: Obj };

/** Recognise the SDK's context object, or undefined for anything else (a handler's own argument). */
export function handlerContext(value: unknown): HandlerContext | undefined {
  if (!isObject(value)) return undefined;
  const req = value.mcpReq;
  if (isObject(req) && 'id' in req && req.signal instanceof AbortSignal) return { kind: 'ctx', value };
  if (value.signal instanceof AbortSignal && 'requestId' in value && typeof value.sendRequest === 'function') return { kind: 'extra', value };
  return undefined;
}

/** The context a handler was called with: its last argument, when it is one. */
export function trailingContext(args: readonly unknown[]): HandlerContext | undefined {
  return args.length === 0 ? undefined : handlerContext(args[args.length - 1]);
}

/** The JSON-RPC id of the request being handled. */
export function requestIdOf(context: HandlerContext | undefined): string | number | undefined {
  if (context === undefined) return undefined;
  const id = context.kind === 'ctx' ? (context.value.mcpReq as Obj).id : context.value.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The transport's session id (Streamable HTTP), if any. */
export function sessionIdOf(context: HandlerContext | undefined): string | undefined {
  const id = context?.value.sessionId;
  return typeof id === 'string' ? id : undefined;
}

/** The SDK's abort signal for the request (the client cancelled, or the connection closed). */
export function signalOf(context: HandlerContext | undefined): AbortSignal | undefined {
  if (context === undefined) return undefined;
  const signal = context.kind === 'ctx' ? (context.value.mcpReq as Obj).signal : context.value.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

/** A function the SDK gives handlers to send a request to the client. */
export type SendRequest = (request: { method: string; params?: unknown }, ...rest: unknown[]) => Promise<unknown>;

/**
 * A signal that aborts when `sdk` does (the client cancelled, or went away)
 * and when the debugger aborts the run (`run`): the SDK's signal chained
 * with the run's own, never replaced by it alone.
 */
function chained(sdk: unknown, run: AbortSignal): AbortSignal {
  if (!(sdk instanceof AbortSignal)) return run;
  if (sdk.aborted) return sdk;
  const both = new AbortController();
  const fromSdk = (): void => both.abort(sdk.reason);
  const fromRun = (): void => both.abort(run.reason);
  sdk.addEventListener('abort', fromSdk, { once: true });
  run.addEventListener('abort', fromRun, { once: true });
  both.signal.addEventListener('abort', () => {
    sdk.removeEventListener('abort', fromSdk);
    run.removeEventListener('abort', fromRun);
  }, { once: true });
  if (run.aborted) both.abort(run.reason);
  return both.signal;
}

/**
 * A view of one of the SDK's context objects with the debugger's pieces
 * put in: `signal` (when the object has one) is the SDK's chained with the
 * run's own (see {@link chained}, made on first read: most handlers never
 * read it), the functions named in `wrapped` are wrapped (made on first
 * read too), and `inner` members are views of their own. Everything else
 * reads through to the SDK's object, which is not changed (a `Proxy`, not a
 * copy: copying the context on every call cost more than the rest of the
 * adapter together).
 */
function contextView(target: Obj, run: () => AbortSignal, wrapped: Record<string, (original: SendRequest) => SendRequest>, inner?: Record<string, Obj>): Obj {
  let signal: AbortSignal | undefined;
  let made: Map<string, SendRequest> | undefined;
  const hasSignal = target.signal instanceof AbortSignal;
  return new Proxy(target, {
    get(t, key, receiver) {
      if (key === 'signal' && hasSignal) return (signal ??= chained(t.signal, run()));
      if (typeof key === 'string') {
        const wrap = Object.hasOwn(wrapped, key) ? wrapped[key] : undefined;
        if (wrap !== undefined && typeof t[key] === 'function') {
          made ??= new Map();
          let fn = made.get(key);
          if (fn === undefined) {
            fn = wrap((t[key] as SendRequest).bind(t));
            made.set(key, fn);
          }
          return fn;
        }
        if (inner !== undefined && Object.hasOwn(inner, key)) return inner[key];
      }
      return Reflect.get(t, key, receiver);
    },
  });
}

/** How the context's client-request functions are wrapped (see {@link chainedContext}). */
export interface ContextWraps {
  /** A sender of any request (1.x `extra.sendRequest`, 2.x `ctx.mcpReq.send`): sampling among them is gated. */
  send: (original: SendRequest) => SendRequest;
  /** 2.x `ctx.mcpReq.requestSampling(params)`: gated as sampling. */
  sampling: (original: SendRequest) => SendRequest;
}

/**
 * The context a handler is given while a debugger is attached: the SDK's,
 * seen through {@link contextView} (its abort signal chained with the
 * run's, which `signal` makes on first read; its client-request functions
 * gating sampling). The SDK's object is not changed.
 */
export function chainedContext(context: HandlerContext, signal: () => AbortSignal, wraps: ContextWraps): Obj {
  const value = context.value;
  if (context.kind === 'extra') return contextView(value, signal, { sendRequest: wraps.send });
  return contextView(value, signal, {}, { mcpReq: contextView(value.mcpReq as Obj, signal, { send: wraps.send, requestSampling: wraps.sampling }) });
}

/**
 * The method a 1.x request schema stands for: the literal of its `method`
 * field, in Zod 3 (`_def.value`) or Zod 4 (`_zod.def.value`).
 */
export function methodOfSchema(schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined;
  let shape: unknown = schema.shape;
  if (!isObject(shape)) {
    const zod = isObject(schema._zod) ? schema._zod : undefined;
    const def = isObject(zod?.def) ? zod.def : isObject(schema._def) ? schema._def : undefined;
    shape = isObject(def) ? (typeof def.shape === 'function' ? (def.shape as () => unknown)() : def.shape) : undefined;
  }
  const field = isObject(shape) ? shape.method : undefined;
  if (!isObject(field)) return undefined;
  const zod = isObject(field._zod) ? field._zod : undefined;
  const def = isObject(zod?.def) ? zod.def : isObject(field._def) ? field._def : undefined;
  if (!isObject(def)) return undefined;
  if (typeof def.value === 'string') return def.value;
  if (Array.isArray(def.values) && typeof def.values[0] === 'string') return def.values[0];
  return undefined;
}
