/**
 * A small JSONPath subset, written by hand for verify's `--ignore` and
 * `--rules` and for export's `--redact`: `$`, `.key`, `["key"]`, `[n]`,
 * `[*]` and `.*`, optionally scoped to a method and a name
 * (`tools/call:search $.params.arguments.key`). A path selects places in
 * a value; {@link removeAt} takes what it selects out (an object's key is
 * deleted, an array's item is replaced by {@link IGNORED} so the items
 * after it keep their places), {@link replaceAt} puts a value in its
 * place. No I/O.
 *
 * @module
 */
import { isObject } from './is-object.js';

/** What an ignored array item is compared as. */
export const IGNORED = '[ignored]';

/** One step of a path: a key, an index, or every child. */
export type PathStep = { key: string } | { index: number } | { any: true };

/** A path parsed, or why it cannot be (`at`: the offset in the text where it went wrong). */
export type ParsedPath = { ok: true; steps: PathStep[] } | { ok: false; reason: string; at?: number };

const KEY = /^[A-Za-z_$][\w$-]*/;

/** Parse `text` (see the module). */
export function parseJsonPath(text: string): ParsedPath {
  if (!text.startsWith('$')) return { ok: false, reason: `${JSON.stringify(text)} does not start with $` };
  const steps: PathStep[] = [];
  let rest = text.slice(1);
  while (rest.length > 0) {
    if (rest.startsWith('.*')) {
      steps.push({ any: true });
      rest = rest.slice(2);
    } else if (rest.startsWith('.')) {
      const key = KEY.exec(rest.slice(1))?.[0];
      if (key === undefined) return { ok: false, reason: `${JSON.stringify(text)}: a key must follow "." (use ["…"] for other keys)`, at: text.length - rest.length + 1 };
      steps.push({ key });
      rest = rest.slice(1 + key.length);
    } else if (rest.startsWith('[')) {
      const end = bracketEnd(rest);
      if (end === -1) return { ok: false, reason: `${JSON.stringify(text)}: a [ is not closed`, at: text.length - rest.length };
      const inside = rest.slice(1, end).trim();
      const step = bracketStep(inside);
      if (step === undefined) return { ok: false, reason: `${JSON.stringify(text)}: [${inside}] is not [n], [*] or ["key"]`, at: text.length - rest.length };
      steps.push(step);
      rest = rest.slice(end + 1);
    } else {
      return { ok: false, reason: `${JSON.stringify(text)}: unexpected ${JSON.stringify(rest[0])} (the paths take $, .key, [n], [*] and ["key"])`, at: text.length - rest.length };
    }
  }
  return { ok: true, steps };
}

/** Where the bracket that opens `text` closes (a quoted key may hold a ]). */
function bracketEnd(text: string): number {
  const quote = text[1];
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, 2);
    return close === -1 ? -1 : text.indexOf(']', close);
  }
  return text.indexOf(']');
}

function bracketStep(inside: string): PathStep | undefined {
  if (inside === '*') return { any: true };
  if (/^\d+$/.test(inside)) return { index: Number(inside) };
  if (inside.length >= 2 && (inside[0] === '"' || inside[0] === "'") && inside.at(-1) === inside[0]) return { key: inside.slice(1, -1) };
  return undefined;
}

/** Take what `steps` selects out of `value` (in place; see the module). */
export function removeAt(value: unknown, steps: readonly PathStep[]): void {
  visit(value, steps, (holder, key) => {
    if (Array.isArray(holder)) holder[key as number] = IGNORED;
    else delete (holder as Record<string, unknown>)[key];
  });
}

/** Put `replacement` in place of each value `steps` selects in `value` (in place); how many were replaced. */
export function replaceAt(value: unknown, steps: readonly PathStep[], replacement: unknown): number {
  let count = 0;
  visit(value, steps, (holder, key) => {
    (holder as Record<string | number, unknown>)[key] = replacement;
    count++;
  });
  return count;
}

/** Call `found` with the holder and key of each place `steps` selects (`$` alone selects nothing: it has no holder). */
function visit(value: unknown, steps: readonly PathStep[], found: (holder: object, key: string | number) => void): void {
  if (steps.length === 0) return;
  walk(value, steps, 0, found);
}

function walk(value: unknown, steps: readonly PathStep[], at: number, found: (holder: object, key: string | number) => void): void {
  const step = steps[at] as PathStep;
  const last = at === steps.length - 1;
  if (Array.isArray(value)) {
    const indexes = 'any' in step ? value.keys() : 'index' in step && step.index < value.length ? [step.index] : [];
    for (const index of indexes) {
      if (last) found(value, index);
      else walk(value[index], steps, at + 1, found);
    }
    return;
  }
  if (!isObject(value)) return;
  const keys = 'any' in step ? Object.keys(value) : 'key' in step && Object.hasOwn(value, step.key) ? [step.key] : [];
  for (const key of keys) {
    if (last) found(value, key);
    else walk(value[key], steps, at + 1, found);
  }
}

/** A path scoped to the calls of one method (and one name: a tool, a prompt, a resource URI), or to every call. */
export interface ScopedPath {
  /** As given. */
  text: string;
  /** The method it is scoped to; undefined: every call. */
  method?: string;
  /** The tool, prompt or resource it is scoped to; undefined: any. */
  name?: string;
  steps: PathStep[];
}

/** `[<method>[:<name>] ]<path>` parsed (`tools/call:search $.result.content[0].text`), or why it cannot be. */
export function parseScopedPath(text: string): { ok: true; rule: ScopedPath } | { ok: false; reason: string } {
  const trimmed = text.trim();
  const space = trimmed.search(/\s+\$/);
  const scope = space === -1 ? undefined : trimmed.slice(0, space);
  const pathText = space === -1 ? trimmed : trimmed.slice(space).trim();
  const parsed = parseJsonPath(pathText);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const rule: ScopedPath = { text, steps: parsed.steps };
  if (scope !== undefined) {
    // A method holds a "/" and never a ":"; what follows the first ":" is the name (a URI may hold more).
    const colon = scope.indexOf(':');
    rule.method = colon === -1 ? scope : scope.slice(0, colon);
    if (colon !== -1) rule.name = scope.slice(colon + 1);
    if (rule.method === '' || rule.name === '') return { ok: false, reason: `${JSON.stringify(text)}: the scope must be <method> or <method>:<name>` };
  }
  return { ok: true, rule };
}

/** Does `rule` apply to a call of `method` naming `name`? */
export function scopeApplies(rule: ScopedPath, method: string, name: string | undefined): boolean {
  return (rule.method === undefined || rule.method === method) && (rule.name === undefined || rule.name === name);
}
