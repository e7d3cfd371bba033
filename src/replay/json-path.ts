/**
 * A small JSONPath subset, written by hand for `--ignore` and `--rules`:
 * `$`, `.key`, `["key"]`, `[n]`, `[*]` and `.*`. A path selects places in
 * a value; {@link removeAt} takes what it selects out (an object's key is
 * deleted, an array's item is replaced by {@link IGNORED} so the items
 * after it keep their places). No I/O.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';

/** What an ignored array item is compared as. */
export const IGNORED = '[ignored]';

/** One step of a path: a key, an index, or every child. */
export type PathStep = { key: string } | { index: number } | { any: true };

/** A path parsed, or why it cannot be. */
export type ParsedPath = { ok: true; steps: PathStep[] } | { ok: false; reason: string };

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
      if (key === undefined) return { ok: false, reason: `${JSON.stringify(text)}: a key must follow "." (use ["…"] for other keys)` };
      steps.push({ key });
      rest = rest.slice(1 + key.length);
    } else if (rest.startsWith('[')) {
      const end = bracketEnd(rest);
      if (end === -1) return { ok: false, reason: `${JSON.stringify(text)}: a [ is not closed` };
      const inside = rest.slice(1, end).trim();
      const step = bracketStep(inside);
      if (step === undefined) return { ok: false, reason: `${JSON.stringify(text)}: [${inside}] is not [n], [*] or ["key"]` };
      steps.push(step);
      rest = rest.slice(end + 1);
    } else {
      return { ok: false, reason: `${JSON.stringify(text)}: unexpected ${JSON.stringify(rest[0])} (the paths take $, .key, [n], [*] and ["key"])` };
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
  if (steps.length === 0) return;
  walk(value, steps, 0);
}

function walk(value: unknown, steps: readonly PathStep[], at: number): void {
  const step = steps[at] as PathStep;
  const last = at === steps.length - 1;
  if (Array.isArray(value)) {
    const indexes = 'any' in step ? value.keys() : 'index' in step && step.index < value.length ? [step.index] : [];
    for (const index of indexes) {
      if (last) value[index] = IGNORED;
      else walk(value[index], steps, at + 1);
    }
    return;
  }
  if (!isObject(value)) return;
  const keys = 'any' in step ? Object.keys(value) : 'key' in step && step.key in value ? [step.key] : [];
  for (const key of keys) {
    if (last) delete value[key];
    else walk(value[key], steps, at + 1);
  }
}
