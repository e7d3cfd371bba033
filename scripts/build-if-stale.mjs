// `npm test` runs this first: it builds only when a build input (src/, the
// build scripts, the tsconfigs, package.json) is newer than the build's
// outputs. A fresh `npm ci` or `npm install` has just built (prepare), so CI
// builds once; after an edit, `npm test` rebuilds before it tests.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outputs = ['dist/index.js', 'dist/cli/graphmind.js', 'dist/viewer/index.html', 'dist/viewer/assets/viewer.js'];
const inputs = ['src', 'scripts/build-viewer.mjs', 'scripts/viewer-bundle.mjs', 'tsconfig.json', 'tsconfig.viewer.json', 'package.json'];

/** Newest modification time under `path` (a file or a folder), in ms. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted or renamed file changes its folder's time
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function oldestOutput() {
  let oldest = Infinity;
  for (const output of outputs) {
    try {
      oldest = Math.min(oldest, statSync(join(root, output)).mtimeMs);
    } catch {
      return -Infinity; // missing: build
    }
  }
  return oldest;
}

const built = oldestOutput();
const changed = Math.max(...inputs.map((input) => newest(join(root, input))));
if (changed <= built) {
  console.log('build-if-stale: dist/ is newer than its sources; not rebuilding');
} else {
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
