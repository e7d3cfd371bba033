/**
 * One request to a running `graphmind serve`'s API with a body of bytes
 * either way (a run log up, an export down), found as `graphmind mcp`
 * finds it (src/mcp/debugger-client.ts): `127.0.0.1:<port>`, else
 * `[::1]:<port>`, the token from `GRAPHMIND_TOKEN` or `<dataDir>/token`,
 * the `Host` header naming the address dialled. Nothing answering, or the
 * token refused, is {@link DebuggerUnavailable}: the commands then read or
 * write the data directory instead.
 *
 * @module
 */
import { request } from 'node:http';
import { readToken } from '../report/config.js';
import { DebuggerUnavailable } from '../mcp/source.js';

/** Connection errors that mean nothing listens at that address. */
const NOT_THERE = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'EAFNOSUPPORT', 'ENETUNREACH', 'EHOSTUNREACH']);

/** A request to the API. */
export interface ApiCall {
  port: number;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  method: 'GET' | 'POST';
  path: string;
  body?: Buffer;
  contentType?: string;
  /** @default 120000 */
  timeoutMs?: number;
}

/** The answer: its status, media type and body. */
export interface ApiAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

function once(call: ApiCall, host: string, hostHeader: string, token: string): Promise<ApiAnswer | undefined> {
  const headers: Record<string, string | number> = { host: hostHeader, authorization: `Bearer ${token}` };
  if (call.body !== undefined) {
    headers['content-type'] = call.contentType ?? 'application/octet-stream';
    headers['content-length'] = call.body.length;
  }
  return new Promise((resolve, reject) => {
    const req = request({ host, port: call.port, method: call.method, path: call.path, headers, setHost: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    const timeout = call.timeoutMs ?? 120_000;
    req.setTimeout(timeout, () => req.destroy(new Error(`no answer within ${timeout} ms`)));
    req.on('error', (error: NodeJS.ErrnoException) => (NOT_THERE.has(error.code ?? '') ? resolve(undefined) : reject(error)));
    req.end(call.body);
  });
}

/** Send `call` to the debugger; {@link DebuggerUnavailable} when none answers or it refuses the token. */
export async function callApi(call: ApiCall): Promise<ApiAnswer> {
  const token = readToken(call.dataDir, call.env ?? process.env);
  if (token === undefined) throw new DebuggerUnavailable(false, `no debugger token (no GRAPHMIND_TOKEN and no ${call.dataDir}/token)`);
  for (const [host, header] of [
    ['127.0.0.1', `127.0.0.1:${call.port}`],
    ['::1', `[::1]:${call.port}`],
  ] as const) {
    const answer = await once(call, host, header, token);
    if (answer === undefined) continue;
    if (answer.status === 401 || answer.status === 403) {
      throw new DebuggerUnavailable(true, `the debugger on port ${call.port} refused our token (HTTP ${answer.status}): it uses another data directory than ${call.dataDir}`);
    }
    return answer;
  }
  throw new DebuggerUnavailable(false, `no debugger answers on 127.0.0.1:${call.port}`);
}

/** The `error` of an API's `{ "error": "…" }` answer, else its status. */
export function answerError(answer: ApiAnswer): string {
  try {
    const json = JSON.parse(answer.body.toString('utf8')) as { error?: unknown };
    if (typeof json.error === 'string') return json.error;
  } catch {
    // not JSON
  }
  return `HTTP ${answer.status}`;
}
