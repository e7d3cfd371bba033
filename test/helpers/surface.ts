// Helpers for the surface CLI tests: run `graphmind surface`, write a fixture server's surface.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { CLI, FIXTURES } from './cli.js';
import { runGraphmind } from './replay.js';
import { parseSurfaceFile, type Surface } from '../../src/surface/index.js';

/** The fixture server (test/fixtures/surface/server.mjs: --sdk 1|2, SURFACE_CHANGE). */
export const SURFACE_SERVER = `${FIXTURES}surface/server.mjs`;

/** Run `graphmind surface <args>`; its exit code and output. */
export async function surface(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runGraphmind(['surface', ...args], env);
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Write the surface of the fixture on `sdk` with `change` into `dir`; its path. */
export async function lock(t: Test, dir: string, sdk: string, change: string): Promise<string> {
  const file = join(dir, `sdk${sdk}-${change || 'lock'}.surface.json`);
  // A wide --timeout: the first request waits for the server's start, slow on a loaded machine.
  const written = await surface(['-o', file, '--timeout', '60000', '--', process.execPath, SURFACE_SERVER, '--sdk', sdk], { SURFACE_CHANGE: change });
  t.equal(written.code, 0, written.stderr);
  t.match(written.stderr, new RegExp(`^graphmind surface: wrote [12] tools?, 1 resource, 0 resource templates, 1 prompt to ${escaped(file)}\ngraphmind surface: the tool surface costs ≈ \\d+ tokens \\(an estimate, gpt-tokenizer o200k_base; \\d+ bytes\\) on every turn\n$`));
  return file;
}

/** A surface file read back (throws when it is not one). */
export function readSurface(file: string): Surface {
  const parsed = parseSurfaceFile(readFileSync(file, 'utf8'));
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

/** A lock, then each change of the fixture classed with its exit code (both SDK lines run this). */
export async function changesClassed(t: Test, dir: string, sdk: string): Promise<string> {
  const base = await lock(t, dir, sdk, '');
  const locked = readSurface(base);
  t.equal(locked.serverInfo?.name, `surface-fixture-${sdk}`);
  t.equal(locked.instructions, 'Search before you delete.');
  t.same(locked.tools.map((tool) => tool.name), ['search', 'delete']);
  t.match(locked.tools[0], { hash: /^[0-9a-f]{64}$/, annotations: { readOnlyHint: true }, inputSchema: { required: ['q'] } });
  t.same([locked.prompts.length, locked.resources.length], [1, 1]);
  t.match(locked.cost, { tokenizer: 'gpt-tokenizer o200k_base', note: /^tokens: an estimate/, perTool: [{ name: 'search' }, { name: 'delete' }] });
  t.ok(locked.cost !== undefined && locked.cost.tokens > 0 && locked.cost.bytes === locked.cost.perTool.reduce((sum, tool) => sum + tool.bytes, 0), 'the total is the sum of the tools');
  const same = await surface(['diff', base, base]);
  t.equal(same.code, 0);
  t.match(same.stdout, /^no changes/);
  const rows: Array<[change: string, line: RegExp, code: number]> = [
    ['description', /^risky\s+description-changed\s+tool search: description changed$/m, 1],
    ['remove', /^breaking\s+tool-removed\s+tool delete was removed$/m, 1],
    ['required', /^breaking\s+parameter-made-required\s+tool search: parameter "limit" was made required$/m, 1],
    ['rename', /^breaking\s+tool-renamed\s+tool delete was renamed to remove$/m, 1],
    ['readonly', /^risky\s+annotation-changed\s+tool search: annotation readOnlyHint changed from true to false$/m, 1],
    ['optional', /^benign\s+optional-parameter-added\s+tool search: optional parameter "page" was added$/m, 0],
  ];
  for (const [change, line, code] of rows) {
    const changed = await lock(t, dir, sdk, change);
    const diff = await surface(['diff', base, changed]);
    t.equal(diff.code, code, `${change}: exit ${code}`);
    t.match(diff.stdout, line, change);
    t.match(diff.stdout, /^1 change: /m, `${change}: exactly one change`);
  }
  t.equal((await surface(['diff', base, join(dir, `sdk${sdk}-description.surface.json`), '--fail-on', 'breaking'])).code, 0, 'a risky change passes --fail-on breaking');
  t.equal((await surface(['diff', base, join(dir, `sdk${sdk}-remove.surface.json`), '--fail-on', 'breaking'])).code, 1);
  t.equal((await surface(['diff', base, join(dir, `sdk${sdk}-optional.surface.json`), '--fail-on', 'any'])).code, 1, 'a benign change fails --fail-on any');
  return base;
}
