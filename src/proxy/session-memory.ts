import { isObject } from '../json/is-object.js';
import { scanEnvelope } from '../streams/envelope.js';
import { messageOf, type Frame } from '../streams/frame.js';

/** The lists a host may have fetched, whose change after a restart it is told of. */
export const LISTS = ['tools', 'resources', 'prompts'] as const;
/** One of {@link LISTS}. */
export type ListKind = (typeof LISTS)[number];
/** Each list's method (`tools/list`, …) to its kind. */
const LIST_OF_METHOD = new Map<string, ListKind>(LISTS.map((kind) => [`${kind}/list`, kind]));

/** A frame's bytes, copied out of the chunk they arrived in (kept for the session's life). */
function keep(frame: Frame): Buffer {
  return Buffer.from(frame.raw);
}

/** The names in a list result (`tools`, `resources` by URI, `prompts`), sorted: what a change is judged by. */
function namesOf(kind: ListKind, result: unknown): string[] | undefined {
  if (!isObject(result)) return undefined;
  const items = result[kind];
  if (!Array.isArray(items)) return undefined;
  const key = kind === 'resources' ? 'uri' : 'name';
  return items
    .map((item) => (isObject(item) ? item[key] : undefined))
    .filter((name): name is string => typeof name === 'string')
    .sort();
}

/**
 * What a host set up in its session with the server, learned from the
 * frames as they pass, so that a restarted server can be brought to the
 * same state without the host knowing (see `replayHandshake`): the host's
 * `initialize` request and `notifications/initialized`, the logging level
 * it asked for, the resources it subscribed to, what the server said it can
 * do, and the names in the lists the host fetched. Pure: it reads frames,
 * nothing else.
 */
export class SessionMemory {
  /** The host's `initialize` request, as it came. */
  initialize: Buffer | undefined;
  /** The host's `notifications/initialized`, as it came. */
  initialized: Buffer | undefined;
  /** The last `logging/setLevel` request. */
  logLevel: Buffer | undefined;
  /** Subscribed resource URIs, each with its `resources/subscribe` request. */
  readonly subscriptions = new Map<string, Buffer>();
  /** The server's capabilities, from its answer to `initialize`. */
  capabilities: Record<string, unknown> | undefined;
  /** The names in the last first page of each list the host fetched (what it knows of). */
  readonly lists = new Map<ListKind, string[]>();
  /**
   * The host's own request for that first page, as it came: fetched again
   * after a restart with these bytes (an id of ours), so that it carries
   * what the host's requests carry (in the 2026-07-28 era, the protocol
   * version each request names).
   */
  readonly listRequests = new Map<ListKind, Buffer>();
  /** Requests the host did not send (the debugger's Send again): their answers are not the host's lists. @default undefined */
  notHost: ReadonlySet<Frame> | undefined;

  /** Learn from one classified frame (any direction, any kind). */
  observe(frame: Frame): void {
    const type = frame.type;
    if (frame.direction === 'client-to-server') {
      if (type === 'request') this.#request(frame);
      else if (type === 'notification' && frame.method === 'notifications/initialized') this.initialized = keep(frame);
      return;
    }
    if (type === 'response' && frame.request !== undefined && frame.request.direction === 'client-to-server') this.#answer(frame, frame.request);
  }

  #request(frame: Frame): void {
    switch (frame.method) {
      case 'initialize':
        this.initialize = keep(frame);
        break;
      case 'logging/setLevel':
        this.logLevel = keep(frame);
        break;
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const params = messageOf(frame)?.params;
        const uri = isObject(params) && typeof params.uri === 'string' ? params.uri : undefined;
        if (uri === undefined) break;
        if (frame.method === 'resources/subscribe') this.subscriptions.set(uri, keep(frame));
        else this.subscriptions.delete(uri);
        break;
      }
      default:
        break;
    }
  }

  #answer(frame: Frame, request: Frame): void {
    const method = request.method;
    if (method === 'initialize') {
      const result = messageOf(frame)?.result;
      if (isObject(result) && isObject(result.capabilities)) this.capabilities = result.capabilities;
      return;
    }
    // Looked up, not built: this runs for every answer the host gets.
    const kind = method === undefined ? undefined : LIST_OF_METHOD.get(method);
    if (kind === undefined || this.notHost?.has(request) === true) return;
    // Only a first page stands for the list (a later page would replace it with a part).
    const params = messageOf(request)?.params;
    if (isObject(params) && params.cursor !== undefined) return;
    const names = namesOf(kind, messageOf(frame)?.result);
    if (names === undefined) return;
    this.lists.set(kind, names);
    this.listRequests.set(kind, keep(request));
  }
}

/** The names a list result holds, sorted (see {@link SessionMemory.lists}). */
export function listNames(kind: ListKind, result: unknown): string[] | undefined {
  return namesOf(kind, result);
}

/**
 * A request's line with its id replaced by `id` (a JSON value of ours): the
 * host's own bytes otherwise, key order, spacing and all. Undefined when
 * the line has no id to replace.
 */
export function withId(line: Buffer, id: string): Buffer | undefined {
  const env = scanEnvelope(line);
  if (env === undefined || env.id === -1) return undefined;
  return Buffer.concat([line.subarray(0, env.id), Buffer.from(id), line.subarray(env.idEnd)]);
}
