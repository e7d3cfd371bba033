// The house's rules, checked on the whole of src/: imports only go down the
// layers and never in a circle (dependency-cruiser with
// .dependency-cruiser.cjs, as `npm run depcruise` runs it), and no file or
// function is too long (scripts/house-size.mjs). A failure prints the
// tool's own list of breaches.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Run a Node script from the repository's root; its exit status and everything it printed. */
function runNode(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, output: `${result.stdout}${result.stderr}${result.error === undefined ? '' : String(result.error)}` };
}

/** A tool's output as a list of lines, for the failure's report. */
function lines(output: string): string[] {
  return output.split('\n').map((line) => line.trimEnd()).filter((line) => line !== '');
}

t.test('imports go only down the layers, and never in a circle (npm run depcruise)', async (t) => {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [command, ...args] = (scripts.depcruise ?? '').split(' ');
  t.equal(command, 'depcruise', 'package.json has the depcruise script');
  // The script's own command, run through the package's bin (no npm in between).
  const bin = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const { status, output } = runNode([bin, ...args]);
  t.equal(status, 0, 'dependency-cruiser finds no breach of the import rules', { breaches: lines(output) });
});

t.test('no source file over 400 lines, no function over 80 (scripts/house-size.mjs)', async (t) => {
  const { status, output } = runNode([join(root, 'scripts', 'house-size.mjs')]);
  t.equal(status, 0, 'no file or function is too long', { breaches: lines(output) });
});
