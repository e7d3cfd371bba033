/**
 * `POST /api/runs/:runId/instances/:instanceId/send`: Send again. The
 * proxy of a live run sends a recorded call to its server once more (as
 * recorded, or with the body's `params`), records it as a new call of the
 * run marked `sentBy`, and keeps its answer from the host.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { callToSend, isRefusal, type SendRefusal } from '../protocol/send-call.js';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import type { RunStore } from './run-store.js';
import type { ReporterConnection } from './ingest.js';
import { BodyError, readJsonBody, sendError, sendJson, sendMethodNotAllowed } from './http-util.js';

/** `by` in the body: who asks (a short line of text), as a decision's `by`. */
const BY = /^[^\u0000-\u001f\u007f]{1,64}$/;
/** An instance id in a path: what the proxies and the adapter make (`mcp_12`), checked before anything is looked up. */
const INSTANCE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** What the route needs of the server. */
export interface SendContext {
  store: RunStore;
  /** The connection that reports each live run. */
  owners: Map<string, ReporterConnection>;
  maxBody: number;
}

/** The run's call, checked by the one rule (`callToSend`), and asked of the run's proxy when it can be sent. */
export function askToSend(ctx: SendContext, runId: string, instanceId: string, edited: { params: unknown } | undefined, by: string): SendRefusal | undefined {
  const state = ctx.store.get(runId);
  if (state === undefined) return { status: 404, code: 'unknown_run', error: 'not found' };
  const instance = state.byId.get(instanceId);
  const node = instance === undefined ? undefined : state.nodes.get(instance.nodeId)?.node;
  const owner = ctx.owners.get(runId);
  // The server may keep a recorded value as its JSON text: the params go out as plain JSON.
  const input = instance?.input === undefined ? undefined : (JSON.parse(JSON.stringify(instance.input)) as unknown);
  const outcome = callToSend({ summary: state.summary, instance: instance === undefined ? undefined : { input }, node, edited, connected: owner !== undefined });
  if (isRefusal(outcome)) return outcome;
  owner?.send({ type: 'send', runId, instanceId, method: outcome.method, ...(outcome.params === undefined ? {} : { params: outcome.params }), by });
  return undefined;
}

/** Who asks, when the body does not say: a browser's request is the viewer's, anything else the API's. */
function askedBy(req: IncomingMessage): string {
  return req.headers['sec-fetch-site'] !== undefined || req.headers.origin !== undefined ? 'viewer' : 'api';
}

/** The body, `{}` when there is none; undefined once an error was answered. */
async function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Record<string, unknown> | undefined> {
  const length = req.headers['content-length'];
  if (length === '0' || (length === undefined && req.headers['transfer-encoding'] === undefined)) return {};
  let value: unknown;
  try {
    value = await readJsonBody(req, limit);
  } catch (error) {
    const status = error instanceof BodyError ? error.status : 400;
    sendError(res, status, error instanceof BodyError ? error.message : 'bad request');
    if (status === 413) res.once('finish', () => req.destroy());
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    sendJson(res, 400, { error: 'the body must be { "params"?: …, "by"?: … }', code: 'bad_body' });
    return undefined;
  }
  return value as Record<string, unknown>;
}

/** `POST /api/runs/:runId/instances/:instanceId/send` (see the module). */
export async function handleSend(req: IncomingMessage, res: ServerResponse, method: string, runId: string, instanceId: string, ctx: SendContext): Promise<void> {
  if (!RUN_ID_PATTERN.test(runId) || !INSTANCE_ID.test(instanceId)) return sendError(res, 404, 'not found');
  if (method !== 'POST') return sendMethodNotAllowed(res, 'POST');
  const body = await readBody(req, res, ctx.maxBody);
  if (body === undefined) return;
  const { by } = body;
  if (by !== undefined && (typeof by !== 'string' || !BY.test(by))) {
    return sendJson(res, 400, { error: 'by must be a short text (1 to 64 characters) naming who asks', code: 'bad_body' });
  }
  const edited = 'params' in body ? { params: body.params } : undefined;
  const refused = askToSend(ctx, runId, instanceId, edited, typeof by === 'string' ? by : askedBy(req));
  if (refused !== undefined) return sendJson(res, refused.status, { error: refused.error, code: refused.code });
  return sendJson(res, 202, { ok: true });
}
