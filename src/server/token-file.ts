import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The token for this start of the server. `GRAPHMIND_TOKEN` wins when set;
 * otherwise a fresh 256-bit token is written to `<dataDir>/token` (directory
 * 0700, file 0600, atomically via rename) for reporters on this machine.
 */
export function prepareToken(dataDir: string, env: NodeJS.ProcessEnv = process.env): { token: string; file: string | null } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
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
  writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
  return { token, file };
}
