// A token that cannot be written because the disk is full: one line that
// names the file and says so, and no temporary token file left behind.
// The writer writes to /dev/full (every write fails with ENOSPC) instead of
// the temp file, after creating the temp file as the real write would.
import { readdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { diskErrorLine } from '../src/server/disk-error.js';
import { prepareToken, type TokenWriter } from '../src/server/token-file.js';

const dir = mkdtempSync(join(tmpdir(), 'gm-token-full-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const fullDisk: TokenWriter = (file, data, options) => {
  writeFileSync(file, '', options); // the temp file exists, empty, as a cut write leaves it
  writeFileSync('/dev/full', data); // and the bytes do not fit
};

t.throws(() => prepareToken(dir, {}, fullDisk), { message: `the disk is full: could not write ${join(dir, 'token')} (ENOSPC)` }, 'a full disk is said plainly, naming the token file');
t.same(readdirSync(dir), [], 'no temporary token file is left behind');

const { token, file } = prepareToken(dir, {});
t.match(token, /^[0-9a-f]{64}$/, 'with room again, the token is written');
t.same(readdirSync(dir), ['token'], 'and only the token file is there');
t.equal(file, join(dir, 'token'));

const rows: Array<[string, string | undefined, RegExp]> = [
  ['ENOSPC', 'ENOSPC', /^the disk is full: could not write \/x \(ENOSPC\)$/],
  ['EDQUOT', 'EDQUOT', /^the disk quota is used up: could not write \/x/],
  ['EROFS', 'EROFS', /^the file system is read-only: could not write \/x/],
  ['another error', 'EIO', /^could not write \/x: boom$/],
];
for (const [name, code, expected] of rows) {
  const error = Object.assign(new Error('boom'), { code });
  t.match(diskErrorLine('/x', error), expected, name);
}
