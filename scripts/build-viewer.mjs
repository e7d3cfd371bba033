// Bundles the viewer (src/viewer) into static files under dist/viewer, which
// graphmind serve serves at /. Run by `npm run build` after tsc.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../src/viewer/main.ts', import.meta.url));
if (!existsSync(entry)) {
  console.log('build-viewer: no src/viewer/main.ts yet; the server serves its placeholder page');
  process.exit(0);
}
const { build } = await import('./viewer-bundle.mjs');
await build();
