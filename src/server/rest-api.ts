import type { IncomingMessage, ServerResponse } from 'node:http';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import { type Breakpoints, type Hold, type HoldAction } from '../protocol/control.js';
import type { OtlpStats } from '../export/otlp-stream.js';
import type { RunTransfer } from './export-routes.js';
import { parseBreakpoints, type BreakpointsHealth } from './breakpoints.js';
import type { HoldRegistry } from './holds.js';
import { BodyError, readJsonBody, sendError, sendJson, sendJsonText, sendMethodNotAllowed } from './http-util.js';
import type { LiveFeed } from './live-feed.js';
import type { RunState } from '../protocol/run-state.js';
import type { RunStore } from './run-store.js';
import { handleSend, type SendContext } from './send-route.js';

/** What the REST API works on. */
export interface ApiContext {
  version: string;
  store: RunStore;
  holds: HoldRegistry;
  feed: LiveFeed;
  maxBody: number;
  /** Delete a run (memory and disk), let its held frames go and tell the viewers; false if unknown. */
  deleteRun(runId: string): boolean;
  /**
   * Ask the proxy reporting a live run to restart its server: `asked`, or
   * why not (`unknown` run, run `ended`, `not-proxy`: not a proxy's, or no
   * proxy connected for it).
   */
  restartRun(runId: string): 'asked' | 'unknown' | 'ended' | 'not-proxy';
  /** The breakpoints in force. */
  getBreakpoints(): Breakpoints;
  /**
   * Replace the breakpoints and push them to every reporter; a promise
   * settles once every reporter connected now has applied them (or the
   * bound passed), and `PUT /api/breakpoints` answers then.
   */
  setBreakpoints(breakpoints: Breakpoints): void | Promise<void>;
  /** What `GET /api/health` says of the breakpoints (their version, and how many reporters have applied it). */
  breakpointsHealth?: () => BreakpointsHealth;
  /** Export and import of runs (`GET /api/runs/:runId/export`, `POST /api/runs/import`). */
  transfer?: RunTransfer;
  /** What the OTLP stream has done, when the server streams (shown by `GET /api/health`). */
  otlpStats?: () => OtlpStats | undefined;
  /** A hold was decided through the API: note who decided it in its run. */
  recordDecision?: (hold: Hold, action: HoldAction, by: string) => void;
  /** Send again (`POST /api/runs/:runId/instances/:instanceId/send`): the live runs' reporters. */
  send?: SendContext;
}

/** `by` in a decision's body: who decides (a short line of text). */
const BY = /^[^\u0000-\u001f\u007f]{1,64}$/;

/** Who decided, when the body does not say: a browser's request is the viewer's, anything else the API's. */
function decidedBy(req: IncomingMessage): string {
  return req.headers['sec-fetch-site'] !== undefined || req.headers.origin !== undefined ? 'viewer' : 'api';
}

const ACTIONS = new Set<HoldAction>(['continue', 'inject', 'retry', 'abort']);

/** A run's JSON while responses carrying it are still going out, and how many. */
interface SharedBody {
  revision: number;
  bytes: Buffer;
  readers: number;
}
const sending = new WeakMap<RunState, SharedBody>();

/**
 * `GET /api/runs/:id`. Every response that goes out while the run is
 * unchanged shares one encoding of it: ten viewers (or ten slow readers)
 * of a run of hundreds of MiB hold one copy and cost one stringify, not
 * ten. Nothing is kept once the last of them is done.
 */
function sendRun(res: ServerResponse, state: RunState): void {
  let body = sending.get(state);
  if (body === undefined || body.revision !== state.revision) {
    body = { revision: state.revision, bytes: Buffer.from(JSON.stringify(state.toRun())), readers: 0 };
    sending.set(state, body);
  }
  const shared = body;
  shared.readers++;
  res.once('close', () => {
    if (--shared.readers === 0 && sending.get(state) === shared) sending.delete(state);
  });
  sendJsonText(res, 200, shared.bytes);
}

async function body(req: IncomingMessage, res: ServerResponse, limit: number): Promise<{ value: unknown } | undefined> {
  try {
    return { value: await readJsonBody(req, limit) };
  } catch (error) {
    const status = error instanceof BodyError ? error.status : 400;
    sendError(res, status, error instanceof BodyError ? error.message : 'bad request');
    if (status === 413) res.once('finish', () => req.destroy());
    return undefined;
  }
}

/** `/api/runs/:id/export`, `/api/runs/:id/restart`, `/api/runs/:id/instances/:instanceId/send`, `…/cost` and `POST /api/runs/import`: true once answered, false when the path is none of them. */
async function runAction(req: IncomingMessage, res: ServerResponse, method: string, id: string | undefined, rest: string[], ctx: ApiContext): Promise<boolean> {
  if (id !== undefined && rest.length === 1 && rest[0] === 'export' && ctx.transfer !== undefined) {
    if (!RUN_ID_PATTERN.test(id)) sendError(res, 404, 'not found');
    else await (await import('./export-routes.js')).handleRunExport(req, res, id, ctx.transfer);
    return true;
  }
  if (id === 'import' && rest.length === 0 && method === 'POST' && ctx.transfer !== undefined) {
    await (await import('./export-routes.js')).handleRunImport(req, res, ctx.transfer, ctx.maxBody);
    return true;
  }
  if (id !== undefined && rest.length === 3 && rest[0] === 'instances' && rest[2] === 'send' && ctx.send !== undefined) {
    await handleSend(req, res, method, id, rest[1] as string, ctx.send);
    return true;
  }
  if (id !== undefined && rest.length === 3 && rest[0] === 'instances' && rest[2] === 'cost') {
    // Loaded on first use: a server nobody asks for a cost never loads the cost code.
    (await import('./cost-route.js')).handleCost(res, method, id, rest[1] as string, ctx.store);
    return true;
  }
  if (id !== undefined && rest.length === 1 && rest[0] === 'restart') {
    restart(res, method, id, ctx);
    return true;
  }
  return false;
}

/** `POST /api/runs/:id/restart`. */
function restart(res: ServerResponse, method: string, id: string, ctx: ApiContext): void {
  if (!RUN_ID_PATTERN.test(id)) return sendError(res, 404, 'not found');
  if (method !== 'POST') return sendMethodNotAllowed(res, 'POST');
  const asked = ctx.restartRun(id);
  if (asked === 'unknown') return sendError(res, 404, 'not found');
  if (asked === 'ended') return sendError(res, 409, 'this run has ended');
  if (asked === 'not-proxy') return sendError(res, 409, 'this run is not a live graphmind mcp-proxy session');
  return sendJson(res, 202, { ok: true });
}

/** `GET /api/health`. */
function health(res: ServerResponse, method: string, ctx: ApiContext): void {
  if (method !== 'GET') return sendMethodNotAllowed(res, 'GET');
  const otlp = ctx.otlpStats?.();
  const breakpoints = ctx.breakpointsHealth?.();
  const answer: Record<string, unknown> = { ok: true, version: ctx.version };
  // Just after a start, while the run logs load in the background.
  const loading = ctx.store.loading;
  if (loading !== undefined) answer.loading = loading;
  if (breakpoints !== undefined) answer.breakpoints = breakpoints;
  if (otlp !== undefined) answer.otlp = otlp;
  return sendJson(res, 200, answer);
}

/** `GET /api/runs`, and `GET` or `DELETE /api/runs/:id`. */
function runs(res: ServerResponse, method: string, id: string | undefined, ctx: ApiContext): void {
  if (id === undefined) {
    if (method !== 'GET') return sendMethodNotAllowed(res, 'GET');
    // While the logs load: the runs loaded so far, and how far the load is.
    const loading = ctx.store.loading;
    return sendJson(res, 200, ctx.store.list(), loading === undefined ? {} : { 'graphmind-loading': `${loading.loaded}/${loading.total}` });
  }
  if (!RUN_ID_PATTERN.test(id)) return sendError(res, 404, 'not found');
  if (method === 'GET') {
    const state = ctx.store.get(id);
    return state === undefined ? sendError(res, 404, 'not found') : sendRun(res, state);
  }
  if (method === 'DELETE') {
    if (!ctx.deleteRun(id)) return sendError(res, 404, 'not found');
    return sendJson(res, 204, undefined);
  }
  return sendMethodNotAllowed(res, 'GET, DELETE');
}

/**
 * `GET` and `PUT /api/breakpoints`. A `PUT` answers once every reporter
 * connected at that moment has applied the new breakpoints, or the bound
 * passed (see {@link ApiContext.setBreakpoints}).
 */
async function breakpoints(req: IncomingMessage, res: ServerResponse, method: string, ctx: ApiContext): Promise<void> {
  if (method === 'GET') return sendJson(res, 200, ctx.getBreakpoints());
  if (method !== 'PUT') return sendMethodNotAllowed(res, 'GET, PUT');
  const read = await body(req, res, ctx.maxBody);
  if (read === undefined) return;
  const parsed = parseBreakpoints(read.value);
  if (typeof parsed === 'string') return sendError(res, 400, `bad breakpoints: ${parsed}`);
  await ctx.setBreakpoints(parsed);
  // The breakpoints in force now: these, unless a PUT that came while this one waited replaced them (a client
  // that takes the answer as the state, the viewer does, is then not set back to older ones).
  return sendJson(res, 200, ctx.getBreakpoints());
}

/** `GET /api/holds` and `POST /api/holds/:holdId` (a decision). */
async function holds(req: IncomingMessage, res: ServerResponse, method: string, id: string | undefined, ctx: ApiContext): Promise<void> {
  if (id === undefined) {
    if (method !== 'GET') return sendMethodNotAllowed(res, 'GET');
    return sendJson(res, 200, ctx.holds.list());
  }
  if (method !== 'POST') return sendMethodNotAllowed(res, 'POST');
  if (!RUN_ID_PATTERN.test(id)) return sendError(res, 404, 'unknown hold');
  const read = await body(req, res, ctx.maxBody);
  if (read === undefined) return;
  const decision = read.value;
  if (decision === null || typeof decision !== 'object' || Array.isArray(decision)) {
    return sendError(res, 400, 'the body must be { "action": …, "value"?: … }');
  }
  const { action, value, by } = decision as { action?: unknown; value?: unknown; by?: unknown };
  if (by !== undefined && (typeof by !== 'string' || !BY.test(by))) return sendError(res, 400, 'by must be a short text (1 to 64 characters) naming who decides');
  if (typeof action !== 'string' || !ACTIONS.has(action as HoldAction)) {
    return sendError(res, 400, 'action must be continue, inject, retry or abort');
  }
  if (action === 'inject' && !('value' in decision)) return sendError(res, 400, 'inject needs a value');
  const held = ctx.recordDecision === undefined ? undefined : ctx.holds.list().find((hold) => hold.holdId === id);
  const result = ctx.holds.decide(id, action as HoldAction, action === 'inject' ? value : undefined);
  if (result === 'unknown') return sendError(res, 404, 'unknown hold');
  if (result === 'decided') return sendError(res, 409, 'this hold was already decided');
  ctx.feed.broadcast({ type: 'hold.decided', holdId: id, action: action as HoldAction });
  if (held !== undefined) ctx.recordDecision?.(held, action as HoldAction, typeof by === 'string' ? by : decidedBy(req));
  return sendJson(res, 200, { ok: true });
}

/**
 * Answer one `/api/*` request (token, Host and Origin were checked
 * before). Routes and shapes follow the control API contract.
 */
export async function handleApi(req: IncomingMessage, res: ServerResponse, path: string, ctx: ApiContext): Promise<void> {
  const method = req.method ?? 'GET';
  const parts = path.split('/').filter((part) => part !== '');
  // parts[0] === 'api'
  const [, resource, id, ...rest] = parts;
  if (resource === 'runs' && (await runAction(req, res, method, id, rest, ctx))) return;
  if (rest.length > 0) return sendError(res, 404, 'not found');
  if (resource === 'health' && id === undefined) return health(res, method, ctx);
  if (resource === 'runs') return runs(res, method, id, ctx);
  if (resource === 'breakpoints' && id === undefined) return breakpoints(req, res, method, ctx);
  if (resource === 'holds') return holds(req, res, method, id, ctx);
  return sendError(res, 404, 'not found');
}
