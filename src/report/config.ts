import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseIngestUrl } from './ingest-url.js';

/** The default port of `graphmind serve`. */
export const DEFAULT_PORT = 4747;

/** Where the debugger is, and what named it. */
export interface DebuggerAddress {
  /** Its port on this machine. */
  port: number;
  /** The ingest URL, when one named it (`GRAPHMIND_URL`, or a reporter's `url` option): reporters dial its host and path. */
  url?: string;
  /** What named it, for messages: the flag, the environment, or neither. */
  from: '--port' | 'url' | 'GRAPHMIND_URL' | 'default';
  /** Set when `GRAPHMIND_URL` is not a usable ingest URL (it was then passed over): commands refuse with it, reporters go on. */
  problem?: string;
}

/**
 * The one rule every command and reporter finds the debugger by: a given
 * URL (a reporter's `url` option), else `--port` (or a reporter's `port`
 * option), else `GRAPHMIND_URL` (`ws://127.0.0.1:<port>/ingest`), else
 * port 4747. See docs/control-api.md, "Naming the debugger".
 */
export function debuggerAddress(given: { port?: number; url?: string }, env: NodeJS.ProcessEnv = process.env): DebuggerAddress {
  const url = given.url !== undefined && given.url !== '' ? given.url : undefined;
  const fromUrl = url === undefined ? undefined : parseIngestUrl(url);
  if (url !== undefined && fromUrl !== undefined) return { port: fromUrl.port, url, from: 'url' };
  if (given.port !== undefined) return { port: given.port, from: '--port' };
  const envUrl = env.GRAPHMIND_URL;
  if (envUrl === undefined || envUrl === '') return { port: DEFAULT_PORT, from: 'default' };
  const target = parseIngestUrl(envUrl);
  if (target === undefined || target.port < 1 || target.port > 65535) {
    return { port: DEFAULT_PORT, from: 'default', problem: `GRAPHMIND_URL is not the debugger's ingest URL (ws://127.0.0.1:<port>/ingest): ${JSON.stringify(envUrl)}` };
  }
  return { port: target.port, url: envUrl, from: 'GRAPHMIND_URL' };
}

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
