import { readFileSync } from 'node:fs';
import t from 'tap';
import { ERROR_NAMES } from '../src/report/error-names.js';

const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
const documented = new Set([...doc.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]));

t.test('every recorded error name is documented, and nothing else is', async (t) => {
  for (const name of Object.values(ERROR_NAMES)) t.ok(documented.has(name), `${name} in docs/errors.md`);
  const serveCodes = ['EADDRINUSE', 'EHOST', 'ELISTEN'];
  for (const name of documented) {
    t.ok((Object.values(ERROR_NAMES) as string[]).includes(name) || serveCodes.includes(name), `${name} is a real name`);
  }
});

t.test('the names the recorder writes are the documented ones', async (t) => {
  const sources = ['../src/relay/frame-events.ts', '../src/relay/session-end.ts', '../src/report/answer-record.ts'].map((path) => readFileSync(new URL(path, import.meta.url), 'utf8'));
  const used = new Set(sources.flatMap((source) => [...source.matchAll(/name: '([A-Za-z]+)'/g)].map((m) => m[1])));
  t.ok(used.size > 0);
  for (const name of used) t.ok(Object.values(ERROR_NAMES).includes(name as never), `${name} is in ERROR_NAMES`);
});
