// The REST control API, with the token as a bearer header. A 401 means the
// server restarted with a new token: read it again and retry once.
import type { RunSummary } from '../protocol/run-model.js';
import type { Breakpoints, Hold, HoldAction } from '../protocol/control.js';
import type { FetchedRun } from './run-model.js';
import { refreshToken, token } from './token.js';

export type { FetchedRun };

/** A failed API call, with the HTTP status (0 when the server could not be reached). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function call(method: string, path: string, body?: unknown, retried = false): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token()}` };
  let payload: string | undefined;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: payload, cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new ApiError(0, 'the debugger is not reachable');
  }
  if (res.status === 401 && !retried && (await refreshToken())) return call(method, path, body, true);
  if (!res.ok) {
    let message = `${method} ${path}: HTTP ${res.status}`;
    try {
      const data = (await res.json()) as { error?: unknown };
      if (typeof data.error === 'string') message = data.error;
    } catch {
      // keep the generic message
    }
    throw new ApiError(res.status, message);
  }
  return res;
}

async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await call(method, path, body);
  return (await res.json()) as T;
}

const runPath = (runId: string): string => `/api/runs/${encodeURIComponent(runId)}`;

/** The control API. */
export const api = {
  runs: (): Promise<RunSummary[]> => json('GET', '/api/runs'),
  run: (runId: string): Promise<FetchedRun> => json('GET', runPath(runId)),
  async deleteRun(runId: string): Promise<void> {
    await call('DELETE', runPath(runId));
  },
  breakpoints: (): Promise<Breakpoints> => json('GET', '/api/breakpoints'),
  putBreakpoints: (breakpoints: Breakpoints): Promise<Breakpoints> => json('PUT', '/api/breakpoints', breakpoints),
  holds: (): Promise<Hold[]> => json('GET', '/api/holds'),
  /** Ask the proxy of a live run to restart its server (202: under way; 404 unknown run; 409 not a live proxy run). */
  async restartServer(runId: string): Promise<void> {
    await call('POST', `${runPath(runId)}/restart`);
  },
  /** Send a recorded call to the live run's server again, as recorded or with `edited` params (202; 404; 409 not a live proxy run or not a request). */
  async sendAgain(runId: string, instanceId: string, edited?: { params: unknown }): Promise<void> {
    await call('POST', `${runPath(runId)}/instances/${encodeURIComponent(instanceId)}/send`, { ...edited, by: 'viewer' });
  },
  /** What a call costs a model's context, counted by serve (the viewer cannot carry the tokenizer): see cost-view.ts. */
  cost: <T>(runId: string, instanceId: string): Promise<T> => json('GET', `${runPath(runId)}/instances/${encodeURIComponent(instanceId)}/cost`),
  async decide(holdId: string, action: HoldAction, value?: unknown): Promise<void> {
    await call('POST', `/api/holds/${encodeURIComponent(holdId)}`, action === 'inject' ? { action, value, by: 'viewer' } : { action, by: 'viewer' });
  },
};
