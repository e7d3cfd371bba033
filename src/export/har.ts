/**
 * A run as an HTTP Archive (HAR 1.2), for the tools that read one
 * (browser devtools' network panel, HAR viewers, proxies). Each call is
 * an entry: its JSON-RPC request POSTed, its answer the response, as
 * MCP's Streamable HTTP would carry them (200 with the JSON-RPC answer,
 * 202 for a notification). A stdio session has no HTTP, so the URL is
 * made up: `mcp://<server>/<method>[/<tool or prompt>]`. What GraphMind
 * knows beyond that (holds, decisions, whether the debugger changed the
 * answer) is in each entry's `_graphmind`, a custom field as HAR allows.
 *
 * @module
 */
import type { Instance } from '../protocol/run-model.js';
import { callTimes } from '../protocol/call-times.js';
import { interventionOf, isNotification, methodOf, msOf, serverInitiated, serverNameOf, targetOf, type Intervention } from './call-shape.js';
import { decisionsOf, type DecisionRecord, type RunFacts } from './run-facts.js';
import { isCall, type TraceRun } from './trace-model.js';

/** A HAR name/value pair. */
interface HarPair {
  name: string;
  value: string;
}

/** One HAR entry (the fields we fill). */
export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarPair[];
    headers: HarPair[];
    queryString: HarPair[];
    postData: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarPair[];
    headers: HarPair[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { blocked: number; send: number; wait: number; receive: number };
  comment?: string;
  _graphmind: Record<string, unknown>;
}

/** A HAR file. */
export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    pages: Array<{ startedDateTime: string; id: string; title: string; pageTimings: { onContentLoad: number; onLoad: number } }>;
    entries: HarEntry[];
    comment?: string;
  };
}

const JSON_TYPE = 'application/json';

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The answer a call's record stands for, as JSON-RPC. */
export function answerOf(instance: Instance, id: string | number | undefined): Record<string, unknown> {
  const answer: Record<string, unknown> = { jsonrpc: '2.0' };
  if (id !== undefined) answer.id = id;
  if (instance.error !== undefined && typeof instance.error.code === 'number') {
    const error: Record<string, unknown> = { code: instance.error.code, message: instance.error.message };
    if (instance.error.data !== undefined) error.data = instance.error.data;
    answer.error = error;
  } else if (instance.output !== undefined) {
    answer.result = instance.output;
  } else if (instance.error !== undefined) {
    // Recorded without a JSON-RPC code (no answer came, a handler threw): said in words.
    answer.error = { code: -32603, message: `${instance.error.name}: ${instance.error.message}` };
  } else {
    answer.result = {};
  }
  return answer;
}

/** The request id as the record knows it: from a held frame, as it was (a number stays a number). */
export function idValue(text: string | undefined): string | number | undefined {
  if (text === undefined) return undefined;
  return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? Number(text) : text;
}

/** Options for {@link runHar}. */
export interface HarOptions {
  /** GraphMind's version, for `creator`. */
  version: string;
  /** The time taken as "now" for calls still open. @default Date.now() */
  now?: number;
}

/** What every entry of a run shares. */
export interface EntryContext {
  run: TraceRun;
  facts: RunFacts;
  /** The MCP server's name, the URLs' host. */
  server: string;
  decisions: ReadonlyMap<string, DecisionRecord>;
  now: number;
}

/** An entry's response: no answer yet, a notification's 202, or the answer. */
function responseOf(instance: Instance, notification: boolean, id: string | number | undefined): { status: number; statusText: string; content: HarEntry['response']['content'] } {
  if (instance.endedAt === null) return { status: 0, statusText: 'no answer yet', content: { size: 0, mimeType: JSON_TYPE } };
  if (notification) return { status: 202, statusText: 'Accepted', content: { size: 0, mimeType: JSON_TYPE } };
  const answerText = JSON.stringify(answerOf(instance, id));
  return { status: 200, statusText: 'OK', content: { size: bytes(answerText), mimeType: JSON_TYPE, text: answerText } };
}

/** The entry's `_graphmind`: the call's record, what the debugger did to it (read from the run model, see `interventionOf`) and the server's time. */
function graphmindOf(instance: Instance, method: string, decisions: ReadonlyMap<string, DecisionRecord>, intervention: Intervention, serverMs: number | null): Record<string, unknown> {
  const holds = intervention.holds;
  const graphmind: Record<string, unknown> = {
    instanceId: instance.instanceId,
    nodeId: instance.nodeId,
    direction: serverInitiated(method) ? 'server-to-client' : 'client-to-server',
    status: instance.status,
    changedByDebugger: intervention.changed,
  };
  if (instance.error !== undefined) graphmind.error = instance.error;
  if (intervention.change !== undefined) graphmind.change = { action: intervention.change.action, by: intervention.change.by };
  // The server's part of `time` (null: the debugger answered before the server did); the held part is `timings.blocked`.
  if (instance.endedAt !== null) graphmind.serverMs = serverMs;
  if (holds.length > 0) {
    graphmind.heldMs = intervention.heldMs;
    graphmind.holds = holds.map((hold) => ({
      holdId: hold.holdId,
      gate: hold.gate,
      ...(hold.reason === undefined ? {} : { reason: hold.reason }),
      openedAt: new Date(hold.openedAt).toISOString(),
      ...(hold.releasedAt === undefined ? {} : { releasedAt: new Date(hold.releasedAt).toISOString() }),
      ...(hold.action === undefined ? {} : { action: hold.action, by: decisions.get(hold.holdId)?.by ?? 'unknown' }),
      ...(hold.givenUp === undefined ? {} : { givenUp: hold.givenUp }),
    }));
  }
  if (instance.attempts !== undefined) graphmind.attempts = instance.attempts;
  return graphmind;
}

/** The entry of one call; undefined for what is not a call (the root, the protocol card, a stdout line). */
export function entryOf(context: EntryContext, instance: Instance): HarEntry | undefined {
  const { run, facts, server, decisions, now } = context;
  const node = run.node(instance.nodeId);
  if (node === undefined || !isCall(run, instance)) return undefined;
  const method = methodOf(node);
  const target = targetOf(method, node, instance.input, run.summary.source);
  const name = target.tool ?? target.prompt;
  const path = `/${method.split('/').map(encodeURIComponent).join('/')}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  const queryString: HarPair[] = target.resourceUri === undefined ? [] : [{ name: 'uri', value: target.resourceUri }];
  const query = queryString.length === 0 ? '' : `?uri=${encodeURIComponent(target.resourceUri as string)}`;
  const notification = isNotification(method);
  const id = notification ? undefined : idValue(facts.requestIdOf(instance.instanceId));
  const request: Record<string, unknown> = { jsonrpc: '2.0' };
  if (id !== undefined) request.id = id;
  request.method = method;
  if (instance.input !== undefined) request.params = instance.input;
  const requestText = JSON.stringify(request);
  const startMs = msOf(instance.startedAt);
  const endMs = instance.endedAt !== null ? msOf(instance.deliveredAt ?? instance.endedAt) : now;
  const time = Math.max(0, endMs - startMs);
  // Held time is the debugger's: apart from the server's, as `blocked` (HAR's time spent waiting before the exchange could go on).
  const times = callTimes(instance, now);
  const blocked = Math.min(time, times.heldMs);
  const intervention = interventionOf(instance, facts.holdsOf(instance.instanceId), decisions, now);
  const { status, statusText, content } = responseOf(instance, notification, id);
  const entry: HarEntry = {
    startedDateTime: new Date(startMs).toISOString(),
    time,
    request: {
      method: 'POST',
      url: `mcp://${encodeURIComponent(server)}${path}${query}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Content-Type', value: JSON_TYPE }],
      queryString,
      postData: { mimeType: JSON_TYPE, text: requestText },
      headersSize: -1,
      bodySize: bytes(requestText),
    },
    response: {
      status,
      statusText,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: content.text === undefined ? [] : [{ name: 'Content-Type', value: JSON_TYPE }],
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: content.size,
    },
    cache: {},
    timings: { blocked, send: 0, wait: time - blocked, receive: 0 },
    _graphmind: graphmindOf(instance, method, decisions, intervention, times.serverMs),
  };
  if (id === undefined && !notification) entry.comment = 'The JSON-RPC id of this request was not recorded.';
  return entry;
}

/** The run as a HAR 1.2 log: one page (the run), one entry per call, in start order. */
export function runHar(run: TraceRun, facts: RunFacts, options: HarOptions): Har {
  const { summary, meta } = run;
  const server = serverNameOf(summary, meta);
  const context: EntryContext = { run, facts, server, decisions: decisionsOf(meta), now: options.now ?? Date.now() };
  const pageId = summary.runId;
  const entries: HarEntry[] = [];
  for (const instance of run.instances) {
    const entry = entryOf(context, instance);
    if (entry !== undefined) entries.push(entry);
  }
  return {
    log: {
      version: '1.2',
      creator: { name: 'graphmind-ai', version: options.version },
      pages: [harPage(run)],
      entries: entries.map((entry) => Object.assign(entry, { pageref: pageId })),
      comment: harComment(run),
    },
  };
}

/** The log's comment: which run, and how it ended. */
export function harComment(run: TraceRun): string {
  const { summary } = run;
  return `GraphMind run ${summary.runId}: ${summary.name}, ${summary.status}`;
}

/** The log's one page: the run. */
export function harPage(run: TraceRun): Har['log']['pages'][number] {
  const { summary, meta } = run;
  return { startedDateTime: summary.startedAt, id: summary.runId, title: `${summary.source} ${serverNameOf(summary, meta)} (${summary.runId})`, pageTimings: { onContentLoad: -1, onLoad: -1 } };
}
