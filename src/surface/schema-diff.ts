/**
 * The changes between two JSON Schemas of one tool: its input schema
 * (what a caller sends: a narrower schema breaks callers, a wider one does
 * not) or its output schema (what a caller reads: a property gone breaks
 * it). Parameters are the properties, nested ones named by dotted paths.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { canonicalText } from './canonical.js';
import type { SurfaceChange, SurfaceChangeClass } from './change.js';

/** Which side of a call the schema describes. */
export type SchemaSide = 'input' | 'output';

/** Keywords read on their own below; any other keyword that changes is a `schema-changed` (risky). */
const READ_KEYWORDS = new Set(['type', 'enum', 'description', 'title', 'properties', 'required', 'items']);
/** Keywords that change nothing a caller sends or reads (the dialect an SDK writes, comments, examples): `schema-meta-changed` (benign). */
const META_KEYWORDS = new Set(['$schema', '$comment', 'examples']);

interface Context {
  side: SchemaSide;
  entry: string;
  label: string;
  out: SurfaceChange[];
}

function add(ctx: Context, klass: SurfaceChangeClass, kind: string, path: string, message: string, from?: unknown, to?: unknown): void {
  const change: SurfaceChange = { class: klass, kind, entry: ctx.entry, message: `${ctx.label}: ${message}` };
  if (path !== '') change.path = path;
  if (from !== undefined) change.from = from;
  if (to !== undefined) change.to = to;
  ctx.out.push(change);
}

function what(ctx: Context, path: string): string {
  if (path === '') return `the ${ctx.side} schema`;
  return ctx.side === 'input' ? `parameter "${path}"` : `output property "${path}"`;
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** The JSON types a schema allows, or undefined for any (no `type`). `integer` is a part of `number`. */
function typesOf(schema: Record<string, unknown>): Set<string> | undefined {
  const type = schema.type;
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === 'string'));
  return undefined;
}

function allows(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === 'integer' && types.has('number'));
}

/** Is every type of `inner` allowed by `outer`? */
function within(inner: Set<string>, outer: Set<string>): boolean {
  for (const type of inner) if (!allows(outer, type)) return false;
  return true;
}

function typeList(types: Set<string> | undefined): string {
  return types === undefined ? 'any' : [...types].join('|');
}

function diffType(ctx: Context, a: Record<string, unknown>, b: Record<string, unknown>, path: string): void {
  const before = typesOf(a);
  const after = typesOf(b);
  if (canonicalText(a.type) === canonicalText(b.type)) return;
  const from = typeList(before);
  const to = typeList(after);
  if (ctx.side === 'output') return add(ctx, 'risky', 'output-type-changed', path, `${what(ctx, path)} type changed from ${from} to ${to}`, from, to);
  if (after !== undefined && (before === undefined || within(after, before))) {
    if (before !== undefined && within(before, after)) return; // the same types, written otherwise
    return add(ctx, 'breaking', 'parameter-type-narrowed', path, `${what(ctx, path)} type narrowed from ${from} to ${to}`, from, to);
  }
  if (before !== undefined && (after === undefined || within(before, after))) {
    return add(ctx, 'benign', 'parameter-type-widened', path, `${what(ctx, path)} type widened from ${from} to ${to}`, from, to);
  }
  add(ctx, 'breaking', 'parameter-type-changed', path, `${what(ctx, path)} type changed from ${from} to ${to}`, from, to);
}

function diffEnum(ctx: Context, a: Record<string, unknown>, b: Record<string, unknown>, path: string): void {
  if (canonicalText(a.enum) === canonicalText(b.enum)) return;
  const before = Array.isArray(a.enum) ? a.enum.map(canonicalText) : undefined;
  const after = Array.isArray(b.enum) ? b.enum.map(canonicalText) : undefined;
  if (ctx.side === 'output') return add(ctx, 'risky', 'output-enum-changed', path, `${what(ctx, path)} enum changed`, a.enum, b.enum);
  if (after === undefined) return add(ctx, 'benign', 'enum-removed', path, `${what(ctx, path)} takes any value now (its enum was removed)`, a.enum);
  if (before === undefined) return add(ctx, 'breaking', 'enum-added', path, `${what(ctx, path)} is limited to ${after.join(', ')} now`, undefined, b.enum);
  for (const value of before) {
    if (!after.includes(value)) add(ctx, 'breaking', 'enum-value-removed', path, `${what(ctx, path)} no longer takes ${value}`, JSON.parse(value), undefined);
  }
  for (const value of after) {
    if (!before.includes(value)) add(ctx, 'benign', 'enum-value-added', path, `${what(ctx, path)} takes ${value} too`, undefined, JSON.parse(value));
  }
}

function diffText(ctx: Context, a: Record<string, unknown>, b: Record<string, unknown>, path: string, field: 'description' | 'title'): void {
  if (canonicalText(a[field]) === canonicalText(b[field])) return;
  const prefix = ctx.side === 'input' ? (path === '' ? 'input-schema' : 'parameter') : 'output';
  add(ctx, 'risky', `${prefix}-${field}-changed`, path, `${what(ctx, path)} ${field} changed`, a[field], b[field]);
}

function diffOtherKeywords(ctx: Context, a: Record<string, unknown>, b: Record<string, unknown>, path: string): void {
  const changed = new Set<string>();
  const meta = new Set<string>();
  for (const key of [...Object.keys(a), ...Object.keys(b)]) {
    if (READ_KEYWORDS.has(key) || canonicalText(a[key]) === canonicalText(b[key])) continue;
    (META_KEYWORDS.has(key) ? meta : changed).add(key);
  }
  if (meta.size > 0) {
    const keys = [...meta].sort();
    add(ctx, 'benign', 'schema-meta-changed', path, `${what(ctx, path)} changed its ${keys.join(', ')}`, pick(a, keys), pick(b, keys));
  }
  if (changed.size === 0) return;
  const keys = [...changed].sort();
  const kind = ctx.side === 'input' ? 'schema-changed' : 'output-schema-changed';
  add(ctx, 'risky', kind, path, `${what(ctx, path)} changed its ${keys.join(', ')}`, pick(a, keys), pick(b, keys));
}

function pick(schema: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (schema[key] !== undefined) out[key] = schema[key];
  return out;
}

function requiredOf(schema: Record<string, unknown>): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
}

function propertiesOf(schema: Record<string, unknown>): Record<string, unknown> {
  return isObject(schema.properties) ? schema.properties : {};
}

function diffProperties(ctx: Context, a: Record<string, unknown>, b: Record<string, unknown>, path: string): void {
  const before = propertiesOf(a);
  const after = propertiesOf(b);
  const requiredBefore = requiredOf(a);
  const requiredAfter = requiredOf(b);
  const input = ctx.side === 'input';
  for (const name of Object.keys(before)) {
    const at = join(path, name);
    if (!(name in after)) {
      add(ctx, 'breaking', input ? 'parameter-removed' : 'output-property-removed', at, `${what(ctx, at)} was removed`);
      continue;
    }
    if (!requiredBefore.has(name) && requiredAfter.has(name)) {
      add(ctx, input ? 'breaking' : 'benign', input ? 'parameter-made-required' : 'output-property-made-required', at, `${what(ctx, at)} was made required`);
    } else if (requiredBefore.has(name) && !requiredAfter.has(name)) {
      add(ctx, input ? 'benign' : 'risky', input ? 'parameter-made-optional' : 'output-property-made-optional', at, `${what(ctx, at)} was made optional`);
    }
    diffNode(ctx, before[name], after[name], at);
  }
  for (const name of Object.keys(after)) {
    if (name in before) continue;
    const at = join(path, name);
    if (!input) add(ctx, 'benign', 'output-property-added', at, `${what(ctx, at)} was added`);
    else if (requiredAfter.has(name)) add(ctx, 'breaking', 'required-parameter-added', at, `required ${what(ctx, at)} was added`);
    else add(ctx, 'benign', 'optional-parameter-added', at, `optional ${what(ctx, at)} was added`);
  }
}

function diffNode(ctx: Context, a: unknown, b: unknown, path: string): void {
  if (canonicalText(a) === canonicalText(b)) return;
  if (!isObject(a) || !isObject(b)) {
    // `true`/`false` schemas or garbage: no finer reading than "it changed".
    add(ctx, 'risky', ctx.side === 'input' ? 'schema-changed' : 'output-schema-changed', path, `${what(ctx, path)} changed`, a, b);
    return;
  }
  diffType(ctx, a, b, path);
  diffEnum(ctx, a, b, path);
  diffText(ctx, a, b, path, 'title');
  diffText(ctx, a, b, path, 'description');
  diffOtherKeywords(ctx, a, b, path);
  if (isObject(a.properties) || isObject(b.properties)) diffProperties(ctx, a, b, path);
  if (a.items !== undefined || b.items !== undefined) diffNode(ctx, a.items ?? {}, b.items ?? {}, `${path}[]`);
}

/**
 * The changes from schema `a` to schema `b` on `side` of tool `entry`
 * (`label` starts each message: `tool search`). A schema present on one
 * side only is the caller's to class (see diffTool).
 */
export function diffSchemas(side: SchemaSide, entry: string, label: string, a: unknown, b: unknown): SurfaceChange[] {
  const ctx: Context = { side, entry, label, out: [] };
  diffNode(ctx, a, b, '');
  return ctx.out;
}
