import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
 * An existing directory is made 0700 only when it is this user's own and
 * not a shared one (sticky, as /tmp is): `--data-dir /tmp` must not lock
 * everybody else out of /tmp. The token file is 0600 either way.
 */
export function prepareToken(dataDir: string, env: NodeJS.ProcessEnv = process.env): { token: string; file: string | null } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (ownPrivateDir(dataDir)) chmodSync(dataDir, 0o700);
  const fromEnv = env.GRAPHMIND_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    // A token file from an earlier start would now be wrong: remove it.
    rmSync(join(dataDir, 'token'), { force: true });
    return { token: fromEnv, file: null };
  }
  const token = randomBytes(32).toString('hex');
  const file = join(dataDir, 'token');
  const temp = join(dataDir, `.token.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(temp, token, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
  return { token, file };
}
