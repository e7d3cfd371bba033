/**
 * The canonical snapshot of what a server offers a model: what its
 * `initialize` answer says (serverInfo, protocol version, capabilities,
 * instructions) and every entry of its four lists (tools, resources,
 * resource templates, prompts), each entry in canonical key order with the
 * sha256 of its definition. Entries keep the server's order, so a change of
 * order can be told (benign) and the file still diffs line by line.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { canonicalValue, hashOf } from './canonical.js';

/** The `format` a surface file carries, so a reader can tell one from any other JSON. */
export const SURFACE_FORMAT = 'graphmind-surface';
/** The version of the snapshot's layout. */
export const SURFACE_VERSION = 1;

/** One entry of a list (a tool, a resource, a template or a prompt) as the snapshot keeps it. */
export interface SurfaceEntry {
  /** The sha256 (64 hex digits) of the entry's canonical JSON without this field. */
  hash: string;
  /** The entry's fields as the server listed them, `_meta` left out, keys in canonical order. */
  [field: string]: unknown;
}

/** The four lists of a server, by the name the snapshot gives them. */
export type SurfaceListName = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** The lists in the order a snapshot writes them. */
export const SURFACE_LISTS: readonly SurfaceListName[] = ['tools', 'resources', 'resourceTemplates', 'prompts'];

/** Context cost of the tool surface (filled in where `src/cost/` is available; never part of a hash or a diff). */
export interface SurfaceCost {
  /** Bytes of every tool definition as a host hands it to the model. */
  bytes: number;
  /** Tokens: an ESTIMATE from the named tokenizer. */
  tokens: number;
  /** Which tokenizer gave `tokens`. */
  tokenizer?: string;
  /** What the token figure is and is not. */
  note?: string;
  /** Per tool, in list order. */
  perTool: Array<{ name: string; bytes: number; tokens: number }>;
}

/** The canonical snapshot (see the module). */
export interface Surface {
  /** Always {@link SURFACE_FORMAT}. */
  format: typeof SURFACE_FORMAT;
  /** Always {@link SURFACE_VERSION} for now. */
  version: number;
  /** The `serverInfo` of the initialize answer (name, version, title…). */
  serverInfo?: Record<string, unknown>;
  /** The protocol version the server answered with. */
  protocolVersion?: string;
  /** The server's capabilities. */
  capabilities?: Record<string, unknown>;
  /** The server's `instructions` for the model. */
  instructions?: string;
  /** `tools/list`, every page, in order. */
  tools: SurfaceEntry[];
  /** `resources/list`, every page, in order. */
  resources: SurfaceEntry[];
  /** `resources/templates/list`, every page, in order. */
  resourceTemplates: SurfaceEntry[];
  /** `prompts/list`, every page, in order. */
  prompts: SurfaceEntry[];
  /** Context cost of the tools (an estimate; informative only). */
  cost?: SurfaceCost;
}

/**
 * What a snapshot is made from. Each list is the answers of that list
 * method, one per page in order: a page is the `result` (`{ tools: […],
 * nextCursor }`) or the whole JSON-RPC answer holding it. A list left out
 * (the server does not offer it) is empty in the snapshot.
 */
export interface SurfaceInput {
  /** The `initialize` result (or the whole answer holding it). */
  initialize?: unknown;
  /** `tools/list` pages. */
  tools?: readonly unknown[];
  /** `resources/list` pages. */
  resources?: readonly unknown[];
  /** `resources/templates/list` pages. */
  resourceTemplates?: readonly unknown[];
  /** `prompts/list` pages. */
  prompts?: readonly unknown[];
}

/** The field a list answer's result holds its items in, by list name. */
export const LIST_FIELD: Readonly<Record<SurfaceListName, string>> = {
  tools: 'tools',
  resources: 'resources',
  resourceTemplates: 'resourceTemplates',
  prompts: 'prompts',
};

/** The list named by a list method, or undefined for any other method. */
export function listOfMethod(method: string): SurfaceListName | undefined {
  if (method === 'tools/list') return 'tools';
  if (method === 'resources/list') return 'resources';
  if (method === 'resources/templates/list') return 'resourceTemplates';
  if (method === 'prompts/list') return 'prompts';
  return undefined;
}

/** The result of an answer, or the value itself when it is a result already. */
export function resultOf(answer: unknown): unknown {
  return isObject(answer) && answer.jsonrpc !== undefined && 'result' in answer ? answer.result : answer;
}

/** An entry made canonical with its hash: `_meta` dropped, keys ordered, the hash of the rest. */
export function surfaceEntry(item: unknown): SurfaceEntry {
  const fields = canonicalValue(isObject(item) ? { ...item, hash: undefined } : { value: item }) as Record<string, unknown>;
  const hash = hashOf(fields);
  return canonicalValue({ ...fields, hash }) as SurfaceEntry;
}

/** The entries of a list's pages, in order. */
export function entriesOfPages(list: SurfaceListName, pages: readonly unknown[] | undefined): SurfaceEntry[] {
  const entries: SurfaceEntry[] = [];
  for (const page of pages ?? []) {
    const items = (resultOf(page) as Record<string, unknown> | undefined)?.[LIST_FIELD[list]];
    if (Array.isArray(items)) for (const item of items) entries.push(surfaceEntry(item));
  }
  return entries;
}

/** The canonical snapshot of a server from its initialize answer and list answers (see {@link SurfaceInput}). */
export function surfaceOf(lists: SurfaceInput): Surface {
  const init = resultOf(lists.initialize);
  const surface: Surface = { format: SURFACE_FORMAT, version: SURFACE_VERSION, tools: [], resources: [], resourceTemplates: [], prompts: [] };
  if (isObject(init)) {
    if (isObject(init.serverInfo)) surface.serverInfo = canonicalValue(init.serverInfo) as Record<string, unknown>;
    if (typeof init.protocolVersion === 'string') surface.protocolVersion = init.protocolVersion;
    if (isObject(init.capabilities)) surface.capabilities = canonicalValue(init.capabilities) as Record<string, unknown>;
    if (typeof init.instructions === 'string') surface.instructions = init.instructions;
  }
  for (const list of SURFACE_LISTS) surface[list] = entriesOfPages(list, lists[list]);
  return surface;
}

/** The snapshot as the text of a surface file: two-space JSON, one key order, a final newline. */
export function surfaceText(surface: Surface): string {
  const ordered: Record<string, unknown> = {
    format: surface.format,
    version: surface.version,
    serverInfo: surface.serverInfo,
    protocolVersion: surface.protocolVersion,
    capabilities: surface.capabilities,
    instructions: surface.instructions,
    tools: surface.tools,
    resources: surface.resources,
    resourceTemplates: surface.resourceTemplates,
    prompts: surface.prompts,
    cost: surface.cost,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
