/**
 * `diffSurfaces`: every change from one surface to another, classed
 * (breaking, risky, benign; see docs/surface.md for the table), and
 * `diffListAnswers`: the same for one list answer against an earlier one,
 * which is what the proxies compare live.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { canonicalText } from './canonical.js';
import type { SurfaceChange, SurfaceChangeClass } from './change.js';
import { diffSchemas } from './schema-diff.js';
import { entriesOfPages, listOfMethod, SURFACE_LISTS, type Surface, type SurfaceEntry, type SurfaceListName } from './snapshot.js';

/** How each list names its entries: the identifying field, the node id prefix, the word in messages. */
const LIST_KINDS: Readonly<Record<SurfaceListName, { key: string; prefix: string; word: string; kind: string }>> = {
  tools: { key: 'name', prefix: 'tool:', word: 'tool', kind: 'tool' },
  prompts: { key: 'name', prefix: 'prompt:', word: 'prompt', kind: 'prompt' },
  resources: { key: 'uri', prefix: 'resource:', word: 'resource', kind: 'resource' },
  resourceTemplates: { key: 'uriTemplate', prefix: 'resource-template:', word: 'resource template', kind: 'template' },
};

/** Fields of an entry whose change is benign; any other field's change (but `annotations`, read key by key) is risky. */
const BENIGN_FIELDS = new Set(['icons', 'size']);
/** Fields read on their own by {@link diffEntry}. */
const OWN_FIELDS = new Set(['name', 'uri', 'uriTemplate', 'hash', 'annotations', 'inputSchema', 'outputSchema', 'arguments']);

function change(klass: SurfaceChangeClass, kind: string, entry: string, message: string, extra: Partial<SurfaceChange> = {}): SurfaceChange {
  return { class: klass, kind, entry, message, ...extra };
}

function keyOf(list: SurfaceListName, entry: SurfaceEntry): string {
  const key = entry[LIST_KINDS[list].key];
  return typeof key === 'string' ? key : canonicalText(key);
}

/** An entry's definition without what names it: two entries alike here are a rename. */
function restOf(list: SurfaceListName, entry: SurfaceEntry): string {
  const { [LIST_KINDS[list].key]: _key, hash: _hash, ...rest } = entry;
  return canonicalText(rest);
}

/** A prompt's arguments read as an input schema, so they are classed as a tool's parameters are. */
function argumentsSchema(entry: SurfaceEntry): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const argument of Array.isArray(entry.arguments) ? entry.arguments : []) {
    if (!isObject(argument) || typeof argument.name !== 'string') continue;
    const { name, required: isRequired, ...rest } = argument;
    properties[name] = rest;
    if (isRequired === true) required.push(name);
  }
  return { properties, required };
}

function diffAnnotations(id: string, label: string, a: unknown, b: unknown, out: SurfaceChange[]): void {
  const before = isObject(a) ? a : {};
  const after = isObject(b) ? b : {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (canonicalText(before[key]) === canonicalText(after[key])) continue;
    const message = `${label}: annotation ${key} changed from ${canonicalText(before[key] ?? null)} to ${canonicalText(after[key] ?? null)}`;
    out.push(change('risky', 'annotation-changed', id, message, { path: `annotations.${key}`, from: before[key], to: after[key] }));
  }
}

function diffOutputSchema(id: string, label: string, a: SurfaceEntry, b: SurfaceEntry, out: SurfaceChange[]): void {
  if (a.outputSchema === undefined && b.outputSchema === undefined) return;
  if (b.outputSchema === undefined) out.push(change('breaking', 'output-schema-removed', id, `${label}: its output schema was removed`));
  else if (a.outputSchema === undefined) out.push(change('benign', 'output-schema-added', id, `${label}: an output schema was added`));
  else out.push(...diffSchemas('output', id, label, a.outputSchema, b.outputSchema));
}

/** The changes inside one entry present on both sides. */
function diffEntry(list: SurfaceListName, a: SurfaceEntry, b: SurfaceEntry): SurfaceChange[] {
  if (a.hash === b.hash && canonicalText(a) === canonicalText(b)) return [];
  const kinds = LIST_KINDS[list];
  const key = keyOf(list, a);
  const id = `${kinds.prefix}${key}`;
  const label = `${kinds.word} ${key}`;
  const out: SurfaceChange[] = [];
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (OWN_FIELDS.has(field) || canonicalText(a[field]) === canonicalText(b[field])) continue;
    const klass = BENIGN_FIELDS.has(field) ? 'benign' : 'risky';
    const kind = field === 'title' || field === 'description' || field === 'name' || field === 'icons' ? `${field}-changed` : 'field-changed';
    out.push(change(klass, kind, id, `${label}: ${field} changed`, { path: field, from: a[field], to: b[field] }));
  }
  if (list === 'resources' || list === 'resourceTemplates' || list === 'prompts') {
    if (canonicalText(a.name) !== canonicalText(b.name)) out.push(change('risky', 'name-changed', id, `${label}: name changed`, { path: 'name', from: a.name, to: b.name }));
  }
  diffAnnotations(id, label, a.annotations, b.annotations, out);
  if (list === 'tools') {
    out.push(...diffSchemas('input', id, label, a.inputSchema ?? {}, b.inputSchema ?? {}));
    diffOutputSchema(id, label, a, b, out);
  }
  if (list === 'prompts') out.push(...diffSchemas('input', id, label, argumentsSchema(a), argumentsSchema(b)));
  return out;
}

/** Removed and added entries, renames told apart: a removed entry whose whole definition but its name reappears. */
function diffMembers(list: SurfaceListName, before: Map<string, SurfaceEntry>, after: Map<string, SurfaceEntry>): SurfaceChange[] {
  const kinds = LIST_KINDS[list];
  const out: SurfaceChange[] = [];
  const added = [...after.keys()].filter((key) => !before.has(key));
  for (const [key, entry] of before) {
    if (after.has(key)) continue;
    const rest = restOf(list, entry);
    const to = added.findIndex((name) => restOf(list, after.get(name) as SurfaceEntry) === rest);
    if (to !== -1) {
      const [renamed] = added.splice(to, 1) as [string];
      // The old name is gone: a host that calls it fails, so a rename breaks as a removal does.
      out.push(change('breaking', `${kinds.kind}-renamed`, `${kinds.prefix}${key}`, `${kinds.word} ${key} was renamed to ${renamed}`, { from: key, to: renamed }));
      continue;
    }
    out.push(change('breaking', `${kinds.kind}-removed`, `${kinds.prefix}${key}`, `${kinds.word} ${key} was removed`));
  }
  for (const key of added) {
    // A new tool is a new thing the model may be told to do; the other lists are read by the host or the user.
    out.push(change(list === 'tools' ? 'risky' : 'benign', `${kinds.kind}-added`, `${kinds.prefix}${key}`, `${kinds.word} ${key} was added`));
  }
  return out;
}

/** The changes from one list's entries to another's. */
export function diffEntries(list: SurfaceListName, a: readonly SurfaceEntry[], b: readonly SurfaceEntry[]): SurfaceChange[] {
  const before = new Map(a.map((entry) => [keyOf(list, entry), entry] as const));
  const after = new Map(b.map((entry) => [keyOf(list, entry), entry] as const));
  const out = diffMembers(list, before, after);
  for (const [key, entry] of before) {
    const later = after.get(key);
    if (later !== undefined) out.push(...diffEntry(list, entry, later));
  }
  const kept = [...before.keys()].filter((key) => after.has(key));
  const keptAfter = [...after.keys()].filter((key) => before.has(key));
  if (kept.join('\n') !== keptAfter.join('\n')) {
    out.push(change('benign', 'order-changed', list, `${list}: the order of the entries changed`, { from: kept, to: keptAfter }));
  }
  return out;
}

/** The changes in what the initialize answer says. */
function diffServer(a: Surface, b: Surface): SurfaceChange[] {
  const out: SurfaceChange[] = [];
  if (canonicalText(a.instructions) !== canonicalText(b.instructions)) {
    out.push(change('risky', 'instructions-changed', 'server', 'the server instructions changed', { from: a.instructions, to: b.instructions }));
  }
  if (a.protocolVersion !== b.protocolVersion) {
    out.push(change('risky', 'protocol-version-changed', 'server', `the protocol version changed from ${a.protocolVersion ?? 'none'} to ${b.protocolVersion ?? 'none'}`, { from: a.protocolVersion, to: b.protocolVersion }));
  }
  const capsA = a.capabilities ?? {};
  const capsB = b.capabilities ?? {};
  for (const key of new Set([...Object.keys(capsA), ...Object.keys(capsB)])) {
    if (canonicalText(capsA[key]) === canonicalText(capsB[key])) continue;
    const path = `capabilities.${key}`;
    if (capsB[key] === undefined) out.push(change('risky', 'capability-removed', 'server', `capability ${key} was removed`, { path, from: capsA[key] }));
    else if (capsA[key] === undefined) out.push(change('benign', 'capability-added', 'server', `capability ${key} was added`, { path, to: capsB[key] }));
    else out.push(change('benign', 'capability-changed', 'server', `capability ${key} changed`, { path, from: capsA[key], to: capsB[key] }));
  }
  if (canonicalText(a.serverInfo) !== canonicalText(b.serverInfo)) {
    out.push(change('benign', 'server-info-changed', 'server', 'serverInfo changed', { path: 'serverInfo', from: a.serverInfo, to: b.serverInfo }));
  }
  return out;
}

/** Every change from surface `a` (earlier, the lock) to surface `b` (now), classed. */
export function diffSurfaces(a: Surface, b: Surface): SurfaceChange[] {
  const out = diffServer(a, b);
  for (const list of SURFACE_LISTS) out.push(...diffEntries(list, a[list], b[list]));
  return out;
}

/**
 * The changes from one list answer to a later one of the same method
 * (`tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list`): each a `result` or the whole JSON-RPC answer
 * holding it. Any other method, or an answer without the list: no change.
 */
export function diffListAnswers(method: string, before: unknown, after: unknown): SurfaceChange[] {
  const list = listOfMethod(method);
  if (list === undefined) return [];
  return diffEntries(list, entriesOfPages(list, [before]), entriesOfPages(list, [after]));
}
