import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The default port of `graphmind serve`. */
export const DEFAULT_PORT = 4747;

/** The data directory: `GRAPHMIND_DATA_DIR`, else `~/.graphmind`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.GRAPHMIND_DATA_DIR;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.graphmind');
}

/**
 * The token a client presents to `graphmind serve`: `GRAPHMIND_TOKEN` if
 * set, else the contents of `<dataDir>/token`, else undefined. Read afresh
 * on every call, because the server writes a new token each time it starts.
 */
export function readToken(dataDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.GRAPHMIND_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    return token === '' ? undefined : token;
  } catch {
    return undefined;
  }
}
