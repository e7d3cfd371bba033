/**
 * CommonJS packages loaded ahead of their first import, one file at a time
 * between turns of the event loop. OpenTelemetry, which the OTLP export
 * needs, is a few hundred CommonJS files; `import()` of it reads and
 * compiles them all in one go, which held a debugger's event loop for
 * 160 ms (500 ms on a loaded machine) at the start of its first OTLP
 * export. Here its files are found first (their `require` calls read
 * without blocking), then required dependencies first, a slice at a time:
 * each `require` finds what its file needs loaded already. The `import()`
 * that follows then finds every file in the CommonJS cache.
 *
 * A file the scan misses is only loaded later, at once, as it would have
 * been: the scan decides the order, never what is loaded.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Longest stretch of loading between two turns of the event loop, ms. */
const SLICE_MS = 10;
/** `require('…')` with a literal name: what the compiled packages use. */
const REQUIRE_CALL = /\brequire\(\s*["']([^"'\n]+)["']\s*\)/g;

/** Packages already warmed (or being warmed): each is done once per process. */
const warming = new Map<string, Promise<void>>();

/**
 * Load the CommonJS packages `names` (as resolved from `fromUrl`, a module's
 * `import.meta.url`), a file at a time; resolves when all are loaded. A
 * package that cannot be found is left to the import that follows, which
 * says why.
 */
export function warmRequire(names: readonly string[], fromUrl: string): Promise<void> {
  const key = `${fromUrl}\n${names.join('\n')}`;
  let done = warming.get(key);
  if (done === undefined) {
    done = warm(names, fromUrl).catch(() => undefined);
    warming.set(key, done);
  }
  return done;
}

async function warm(names: readonly string[], fromUrl: string): Promise<void> {
  const require = createRequire(fromUrl);
  const order: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const file = resolved(require, name);
    if (file !== undefined) await visit(file, seen, order, require.cache);
  }
  let sliceStart = performance.now();
  for (const file of order) {
    if (require.cache[file] !== undefined) continue;
    require(file);
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}

/** `file`, then what it requires, put in `order` dependencies first (a cycle is cut where it is met again). */
async function visit(file: string, seen: Set<string>, order: string[], cache: NodeJS.Require['cache']): Promise<void> {
  // Depth first, without recursion: [file, its dependencies not visited yet].
  const stack: Array<{ file: string; deps: string[] | undefined }> = [{ file, deps: undefined }];
  seen.add(file);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { file: string; deps: string[] | undefined };
    if (top.deps === undefined) {
      top.deps = cache[top.file] === undefined ? await dependencies(top.file) : [];
    }
    const next = top.deps.pop();
    if (next === undefined) {
      stack.pop();
      order.push(top.file);
    } else if (!seen.has(next)) {
      seen.add(next);
      stack.push({ file: next, deps: undefined });
    }
  }
}

/** The files `file` requires by a literal name (built-in modules and JSON left out). */
async function dependencies(file: string): Promise<string[]> {
  if (!file.endsWith('.js') && !file.endsWith('.cjs')) return [];
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const require = createRequire(file);
  const deps: string[] = [];
  for (const match of source.matchAll(REQUIRE_CALL)) {
    const dep = resolved(require, match[1] as string);
    if (dep !== undefined) deps.push(dep);
  }
  // Popped from the end: reversed, they are visited in the order they are required.
  return deps.reverse();
}

/** The file `name` names for `require`, or undefined (a built-in module, or not found). */
function resolved(require: NodeJS.Require, name: string): string | undefined {
  try {
    const file = require.resolve(name);
    return isAbsolute(file) ? file : undefined;
  } catch {
    return undefined;
  }
}
