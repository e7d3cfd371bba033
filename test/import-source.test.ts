// What `graphmind import` agrees to read, refused at once otherwise: a
// table of real files of every kind this machine can make.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openImportSource } from '../src/cli/import-source.js';

const dir = mkdtempSync(join(tmpdir(), 'gm-import-source-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'run.jsonl');
writeFileSync(file, '{"type":"run.started"}\n');
const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);

const rows: Array<[string, string, number, RegExp | 'open']> = [
  ['a regular file under the limit', file, 1024, 'open'],
  ['a regular file over the limit names the flag', file, 10, /is 23 bytes, over the 10-byte limit: raise it with --max-bytes/],
  ['a directory', dir, 1024, /is a directory, not a run log/],
  ['a FIFO with no writer, refused without blocking', fifo, 1024, /is a FIFO \(named pipe\), not a run log/],
  ['/dev/zero', '/dev/zero', 1024, /is a character device, not a run log/],
  ['/dev/null', '/dev/null', 1024, /is a character device, not a run log/],
  ['a missing file', join(dir, 'missing.jsonl'), 1024, /missing\.jsonl: no such file/],
];

for (const [name, path, max, expected] of rows) {
  const source = openImportSource(path, max);
  if (expected === 'open') {
    t.type(source, 'object', name);
    if (typeof source === 'object') {
      t.equal(source.size, 23, `${name}: its size`);
      source.close();
    }
  } else {
    t.type(source, 'string', name);
    t.match(source, expected, name);
    t.notMatch(String(source), /\n/, `${name}: one line`);
  }
}

const stdin = openImportSource('-', 10);
t.ok(typeof stdin === 'object' && stdin.fd === 0 && stdin.size === undefined, '- is standard input, with no size to check up front');
