// GRAPHMIND_HIDE_INPUTS keeps only the command's name and the file names of
// its path arguments: an argument with a path separator, or a bare
// `name.ext` that is a file where the server starts. Other arguments that
// merely look like file names (a host name, a number, a key) are dropped.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { hideSettings, redactCommandLine } from '../src/report/hide.js';

t.test('paths keep their file name; flags and plain words go', async (t) => {
  const none = (): boolean => false;
  t.same(redactCommandLine('/usr/bin/node', ['/home/me/srv/server.js', '--key=abc', 'plain'], none), ['node', 'server.js']);
  t.same(redactCommandLine('node', ['build/index.js', '-v', '--config', 'conf/app.json'], none), ['node', 'index.js', 'app.json']);
});

t.test('a bare name.ext is kept only when it is a file there', async (t) => {
  const files = new Set(['server.py', 'main.ts']);
  const exists = (path: string): boolean => files.has(path);
  t.same(redactCommandLine('python3', ['server.py', 'example.com', '3.14', 'sk-abc.def'], exists), ['python3', 'server.py']);
  t.same(redactCommandLine('deno', ['run', 'main.ts', 'token.value'], exists), ['deno', 'main.ts']);
});

t.test('by default, looked up in the current directory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-hide-'));
  const before = process.cwd();
  t.teardown(() => {
    process.chdir(before);
    rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(join(dir, 'server.py'), '');
  process.chdir(dir);
  t.same(redactCommandLine('python3', ['server.py', 'example.com']), ['python3', 'server.py']);
});

t.test('the switches', async (t) => {
  t.same(hideSettings({}), { inputs: false, toolResults: false });
  t.same(hideSettings({ GRAPHMIND_HIDE_INPUTS: '1', GRAPHMIND_HIDE_TOOL_RESULTS: 'true' }), { inputs: true, toolResults: true });
  for (const off of ['', '0', 'false', 'FALSE']) t.same(hideSettings({ GRAPHMIND_HIDE_INPUTS: off }).inputs, false, `"${off}" is off`);
});
