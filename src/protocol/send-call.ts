/**
 * Send again: which recorded call can be sent to a live run's server once
 * more, and as what request. One rule for the server's route (which
 * answers with it) and the viewer (which offers the button only where it
 * would be accepted).
 *
 * @module
 */
import { isNotification, methodOf, serverInitiated } from './call-method.js';
import type { GraphNode, Instance, RunSummary } from './run-model.js';

/** The node ids that stand for no request: the session, the protocol card, stdout noise. */
const NOT_CALLS = new Set(['mcp:session', 'mcp:protocol', 'mcp:stdout-noise']);

/**
 * The method of the host's request that a node records, or undefined when
 * the node records none the host sent: the session and protocol cards,
 * stdout noise, notifications, the server's own requests (sampling,
 * elicitation, roots), an adapter's nodes of its own.
 */
export function hostRequestMethod(node: Pick<GraphNode, 'nodeId' | 'kind' | 'label'>): string | undefined {
  const { nodeId, kind } = node;
  if (NOT_CALLS.has(nodeId) || kind === 'server' || (kind === 'custom' && !nodeId.startsWith('mcp:'))) return undefined;
  const method = methodOf(node);
  return method === '' || isNotification(method) || serverInitiated(method) ? undefined : method;
}

/** The request Send again makes: a method and its params (undefined: none). */
export interface CallToSend {
  /** The request's method, e.g. `tools/call`. */
  method: string;
  /** Its `params`: an object or an array, or undefined for none. */
  params: unknown;
}

/** Why a call cannot be sent again: the HTTP status the API answers with, a stable code, and one line for people. */
export interface SendRefusal {
  /** 404 (no such call), 409 (not now, or not a request), 400 (bad params). */
  status: 400 | 404 | 409;
  /** Stable: `unknown_run`, `unknown_call`, `run_not_live`, `not_supported`, `not_a_request`, `handshake`, `input_not_recorded`, `bad_params`. */
  code: string;
  /** The line the API answers with (`error`). */
  error: string;
}

/** What {@link callToSend} decides from. */
export interface SendQuestion {
  /** The run's summary: live (`running`) and a proxy's (`source`). */
  summary: Pick<RunSummary, 'status' | 'source'>;
  /** The call to send again; undefined when the run has no such instance. */
  instance: Pick<Instance, 'input'> | undefined;
  /** Its node (undefined with the instance). */
  node: Pick<GraphNode, 'nodeId' | 'kind' | 'label'> | undefined;
  /** Whether the request named edited params (`params` in its body), and which. */
  edited?: { params: unknown };
  /** A reporter that carries it is connected for the run. @default true */
  connected?: boolean;
}

/** A recorded value that stands for one the record does not have (`[hidden]`, a frame too large or too deep). */
function notRecorded(input: unknown): boolean {
  return input === '[hidden]' || (input !== null && typeof input === 'object' && !Array.isArray(input) && '[graphmind]' in input);
}

/** JSON-RPC params: absent, an object or an array. */
function structured(params: unknown): boolean {
  return params === undefined || (params !== null && typeof params === 'object');
}

/**
 * Can this call be sent again, and as what request? Checked in the order
 * a person would fix things: the call exists, the run is live and a
 * proxy's (stdio or HTTP), the call is a request of the host, and its params are there
 * (recorded, or edited).
 */
export function callToSend(question: SendQuestion): CallToSend | SendRefusal {
  const { summary, instance, node, edited } = question;
  if (instance === undefined || node === undefined) return { status: 404, code: 'unknown_call', error: 'this run has no such call' };
  if (summary.status !== 'running' || question.connected === false) {
    return { status: 409, code: 'run_not_live', error: 'this run is not live: Send again needs its proxy running (start the host again, and send from the new run)' };
  }
  if (summary.source !== 'mcp-proxy' && summary.source !== 'mcp-http-proxy') {
    return { status: 409, code: 'not_supported', error: 'Send again works on graphmind mcp-proxy and http-proxy runs only' };
  }
  const method = hostRequestMethod(node);
  if (method === undefined) return { status: 409, code: 'not_a_request', error: 'this call is not a request of the host (a notification, a card, or a request of the server)' };
  if (method === 'initialize') return { status: 409, code: 'handshake', error: 'initialize is the session’s handshake: it is not sent again' };
  if (edited !== undefined) {
    if (!structured(edited.params)) return { status: 400, code: 'bad_params', error: 'params must be a JSON object or array (or absent for none)' };
    return { method, params: edited.params };
  }
  const input = instance.input;
  if (notRecorded(input) || !structured(input)) {
    return { status: 409, code: 'input_not_recorded', error: 'the record does not have this call’s params (hidden or too large): send it with edited params' };
  }
  return { method, params: input };
}

/** True when {@link callToSend} refused. */
export function isRefusal(outcome: CallToSend | SendRefusal): outcome is SendRefusal {
  return 'code' in outcome;
}
