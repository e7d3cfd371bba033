// Bundles the viewer: src/viewer/main.ts → dist/viewer/assets/viewer.js (one
// ES module, minified), its stylesheet (src/viewer/viewer.css, views.css, run-list.css, changes.css, send-again.css,
// replay-lines.css, cost-view.css, joined),
// and copies its page and icon beside it.
// Called by scripts/build-viewer.mjs during `npm run build`.
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';

const root = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** Build dist/viewer from src/viewer. */
export async function build() {
  const out = root('dist/viewer');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(root('dist/viewer/assets'), { recursive: true });
  await esbuild({
    entryPoints: [root('src/viewer/main.ts')],
    outfile: root('dist/viewer/assets/viewer.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'none',
    charset: 'utf8',
    tsconfig: root('tsconfig.viewer.json'),
    logLevel: 'warning',
  });
  copyFileSync(root('src/viewer/index.html'), root('dist/viewer/index.html'));
  // One stylesheet for the page, kept in files by job: the frame and panes, the run's views, the run list's rows, what the debugger changed, Send again, the replay lines.
  writeFileSync(root('dist/viewer/assets/viewer.css'), ['src/viewer/viewer.css', 'src/viewer/views.css', 'src/viewer/run-list.css', 'src/viewer/changes.css', 'src/viewer/send-again.css', 'src/viewer/replay-lines.css', 'src/viewer/cost-view.css'].map((file) => readFileSync(root(file), 'utf8')).join('\n'));
  copyFileSync(root('src/viewer/favicon.svg'), root('dist/viewer/assets/favicon.svg'));
  const kb = (path) => (statSync(root(path)).size / 1024).toFixed(1);
  console.log(`build-viewer: dist/viewer/assets/viewer.js ${kb('dist/viewer/assets/viewer.js')} KiB, viewer.css ${kb('dist/viewer/assets/viewer.css')} KiB`);
}
