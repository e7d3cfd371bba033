// docs/testing.md's examples of graphmind-ai/test are files (test/fixtures/testing-examples):
// the page must show each one exactly as it is, and the node:test and tap ones are run here, each
// in its own runner (node --test; a tap file run by node), against the committed fixture and the
// examples' server: they pass, and fail when the server's answer changes (SEARCH_CHANGE=1), so
// they are tests that can fail. vitest is not a dependency of this project: its example is only
// checked against the page.
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from './helpers/replay.js';

const DIR = fileURLToPath(new URL('./fixtures/testing-examples/', import.meta.url));
const DOC = readFileSync(fileURLToPath(new URL('../docs/testing.md', import.meta.url)), 'utf8');

async function run(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, { cwd: DIR, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, output };
}

t.test('docs/testing.md shows each example as it is', async (t) => {
  for (const file of ['node-test.mjs', 'tap.mjs', 'vitest.mjs']) {
    const code = readFileSync(`${DIR}${file}`, 'utf8');
    t.ok(DOC.includes(`\`\`\`js\n${code}\`\`\``), `${file} is quoted whole in a js block`);
  }
});

const RUNNERS = [
  { name: 'node:test', args: ['--test', 'node-test.mjs'], passed: /^# pass 2$/m },
  // A tap file run by node prints TAP with no summary: both top-level tests ok.
  { name: 'tap', args: ['tap.mjs'], passed: /^ok 1 - the server answers as recorded[\s\S]*^ok 2 - a client against the replayed server/m },
];

for (const runner of RUNNERS) {
  t.test(`the ${runner.name} example passes, and fails when the server answers differently`, async (t) => {
    const passing = await run(runner.args);
    t.equal(passing.code, 0, passing.output);
    t.match(passing.output, runner.passed);
    const failing = await run(runner.args, { SEARCH_CHANGE: '1' });
    t.not(failing.code, 0, 'a changed answer fails the test');
    // (tap escapes the # of a message.)
    t.match(failing.output, /different\s+\\*#\d+ tools\/call\s+search/, 'with the report as its message');
  });
}
