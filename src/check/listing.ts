/**
 * The handshake as a host makes it (`initialize` and
 * `notifications/initialized`; on the 2026-07-28 era `server/discover`),
 * then every list the server's capabilities offer, page after page: a
 * `nextCursor` seen before, or more than {@link MAX_PAGES} pages, is a
 * `pagination-loop` and the listing of that kind stops there.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { CheckContext } from './check-context.js';
import { CLIENT_INFO, ERA_2026 } from './conversation.js';

/** How many pages of one list the check reads before it calls the list endless. */
export const MAX_PAGES = 1000;

/** What the server offers, as listed. */
export interface Listed {
  /** The `initialize` (or `server/discover`) result. */
  handshake: Record<string, unknown>;
  /** The protocol version the session runs on. */
  protocolVersion: string;
  tools: unknown[];
  resources: unknown[];
  resourceTemplates: unknown[];
  prompts: unknown[];
  /** The answers to each list method, page by page, as they came (for the surface). */
  pages: Record<string, unknown[]>;
}

/** The lists, their item keys and the capability that offers them. */
const LISTS = [
  { method: 'tools/list', key: 'tools', capability: 'tools', field: 'tools' },
  { method: 'resources/list', key: 'resources', capability: 'resources', field: 'resources' },
  { method: 'resources/templates/list', key: 'resourceTemplates', capability: 'resources', field: 'resourceTemplates' },
  { method: 'prompts/list', key: 'prompts', capability: 'prompts', field: 'prompts' },
] as const;

/** The handshake; undefined when it failed (the finding says why). */
export async function handshake(context: CheckContext, protocolVersion: string): Promise<Listed['handshake'] | undefined> {
  const started = performance.now();
  const run = context.ran('handshake', 'protocol');
  const era2026 = protocolVersion === ERA_2026;
  const method = era2026 ? 'server/discover' : 'initialize';
  const params = era2026 ? undefined : { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO };
  // Not timed against --max-duration: the handshake's time is mostly the server's own start.
  const asked = await context.ask(method, params, 'handshake', {}, false);
  run.ms = Math.round(performance.now() - started);
  if (asked === undefined) return undefined;
  const { message } = asked;
  if (!('result' in message) || !isObject(message.result)) {
    const error = isObject(message.error) ? `${String(message.error.message)} (${String(message.error.code)})` : 'no result';
    context.report('handshake-failed', 'handshake', `the server refused ${method}: ${error}`, { call: { method } });
    return undefined;
  }
  if (!era2026) context.conversation.notify('notifications/initialized');
  return message.result;
}

/** Every page of one list; stops at a loop. */
async function listAll(context: CheckContext, method: string, field: string, pages: unknown[]): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const asked = await context.ask(method, cursor === undefined ? undefined : { cursor }, method);
    if (asked === undefined) return items;
    const result = asked.message.result;
    if (!isObject(result)) return items; // an error answer: the list is empty for the check; a malformed one is the wire's finding
    pages.push(result);
    const list = result[field];
    if (!Array.isArray(list)) {
      context.report('invalid-frame', method, `the ${method} answer has no "${field}" array`, { call: { method } });
      return items;
    }
    items.push(...list);
    const next = result.nextCursor;
    if (next === undefined || next === null) return items;
    if (typeof next !== 'string') {
      context.report('invalid-frame', method, `the ${method} answer's nextCursor is ${JSON.stringify(next)}, not a string`, { call: { method } });
      return items;
    }
    if (seen.has(next) || next === cursor) {
      context.report('pagination-loop', method, `${method} gave the cursor ${JSON.stringify(next.slice(0, 100))} again on page ${page}: a host listing it never finishes`, { call: { method } });
      return items;
    }
    if (page >= MAX_PAGES) {
      context.report('pagination-loop', method, `${method} was still paging after ${MAX_PAGES} pages (${items.length} entries): a host listing it may never finish`, { call: { method } });
      return items;
    }
    seen.add(next);
    cursor = next;
  }
}

/** The handshake and every list (see the module); undefined when the handshake failed. */
export async function listServer(context: CheckContext, protocolVersion: string): Promise<Listed | undefined> {
  const result = await handshake(context, protocolVersion);
  if (result === undefined) return undefined;
  const capabilities = isObject(result.capabilities) ? result.capabilities : {};
  const listed: Listed = {
    handshake: result,
    protocolVersion: typeof result.protocolVersion === 'string' ? result.protocolVersion : protocolVersion,
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    pages: {},
  };
  for (const list of LISTS) {
    if (!isObject(capabilities[list.capability]) || context.gone) continue;
    const started = performance.now();
    const run = context.ran(list.method, 'protocol');
    const pages: unknown[] = [];
    listed[list.key] = await listAll(context, list.method, list.field, pages);
    listed.pages[list.method] = pages;
    run.ms = Math.round(performance.now() - started);
  }
  return listed;
}
