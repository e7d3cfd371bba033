import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskErrorLine } from './disk-error.js';

/** How the token file is written: `writeFileSync` (a test passes a writer that fails as a full disk does). */
export type TokenWriter = (file: string, data: string, options: { mode: number; flag: string }) => void;

/** `dir` belongs to this user and is not a shared (sticky) directory. */
function ownPrivateDir(dir: string): boolean {
  const { mode, uid } = statSync(dir);
  // No uids (Windows): chmod only sets the read-only bit there; nothing to protect.
  const mine = process.getuid === undefined || uid === process.getuid();
  return mine && (mode & 0o1000) === 0;
}

/**
 * The token for this start of the server. `GRAPHMIND_TOKEN` wins when set;
 * otherwise a fresh 256-bit token is written to `<dataDir>/token` (directory
 * 0700, file 0600, atomically via rename) for reporters on this machine.
 * The file holds the token alone, with no newline, so that it can be used
 * as read.
 *
 * An existing directory of this user's is made 0700. A shared one (sticky,
 * as /tmp is) or another user's is refused with one line: chmod'ing /tmp
 * would lock everybody else out of it, and in a directory others can write
 * to, they could put a `token` or a `runs/` there first.
 *
 * A token that cannot be written (a full disk) is one line naming the
 * file, and leaves no temporary file behind.
 */
export function prepareToken(dataDir: string, env: NodeJS.ProcessEnv = process.env, write: TokenWriter = writeFileSync): { token: string; file: string | null } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!ownPrivateDir(dataDir)) {
    throw new Error(`the data directory ${dataDir} is shared (sticky) or another user's; give one of your own (--data-dir or GRAPHMIND_DATA_DIR), such as ${dataDir.replace(/[\\/]+$/, '')}/graphmind`);
  }
  chmodSync(dataDir, 0o700);
  const fromEnv = env.GRAPHMIND_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    // A token file from an earlier start would now be wrong: remove it.
    rmSync(join(dataDir, 'token'), { force: true });
    return { token: fromEnv, file: null };
  }
  const token = randomBytes(32).toString('hex');
  const file = join(dataDir, 'token');
  const temp = join(dataDir, `.token.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    write(temp, token, { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    // A write cut short (a full disk) must not leave a temp file behind.
    rmSync(temp, { force: true });
    throw new Error(diskErrorLine(file, error));
  }
  return { token, file };
}
