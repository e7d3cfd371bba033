// Finding calls in a big run: the find bar's query, and whether a call (or
// a log line) matches it. Shared by the timeline, the waterfall and a
// node's list of calls. The text searched for a call (its method and node,
// its id, status and error, its input and output as JSON) is built once per
// call and state, and kept, so typing in a run of 10,000 calls stays quick.
import type { Instance, LogLine } from '../protocol/run-model.js';
import type { Hold } from '../protocol/control.js';
import { evaluateCondition } from '../conditions/index.js';
import { findFilter } from './condition-find.js';
import { cachedSubject } from './condition-subject.js';
import { PROTOCOL_NODE_ID, SESSION_NODE_ID, type RunModel } from './run-model.js';

/** Which calls the status chips keep. */
export type FindStatus = 'all' | 'error' | 'open' | 'held';

/** The find bar's query. */
export interface FindQuery {
  /**
   * Words every shown call contains (any case), in its method, node, id,
   * status, error, input or output; or an expression of the condition
   * language (docs/conditions.md) the shown calls match (see condition-find.ts).
   */
  text: string;
  status: FindStatus;
}

/** No query: everything shows. */
export const NO_FIND: FindQuery = { text: '', status: 'all' };

/** Is the query narrowing anything? An expression with a mistake in it narrows nothing (the find bar shows the mistake). */
export function finding(query: FindQuery): boolean {
  return query.status !== 'all' || (query.text.trim() !== '' && findFilter(query.text).kind !== 'invalid');
}

/** The characters of a call's input and output that are searched (each). */
const SEARCHED_VALUE = 4000;

/**
 * Is this instance a call, as the lists count them? The session
 * (`mcp:session`) and the protocol card (`mcp:protocol`) are recorded as
 * instances that stay open as long as the session, but are not calls.
 */
export function isCall(instance: Instance): boolean {
  return instance.nodeId !== SESSION_NODE_ID && instance.nodeId !== PROTOCOL_NODE_ID;
}

function valueText(value: unknown): string {
  if (value === undefined) return '';
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  } catch {
    text = '';
  }
  return text.length > SEARCHED_VALUE ? text.slice(0, SEARCHED_VALUE) : text;
}

interface Haystack {
  key: string;
  text: string;
}

/** The searched text of each call, by the state it was built for. */
const haystacks = new WeakMap<Instance, Haystack>();

/** The text a call is searched in, lower case. */
function haystackOf(instance: Instance, run: RunModel): string {
  const key = `${instance.status}|${instance.endedAt}|${instance.attempts?.length ?? 0}`;
  const cached = haystacks.get(instance);
  if (cached !== undefined && cached.key === key) return cached.text;
  const label = run.node(instance.nodeId)?.node.label ?? '';
  const parts = [label, instance.nodeId, instance.instanceId, instance.status, instance.status === 'error' ? 'failed' : '', instance.error?.name ?? '', instance.error?.message ?? '', valueText(instance.input), valueText(instance.output)];
  const text = parts.join('\n').toLowerCase();
  haystacks.set(instance, { key, text });
  return text;
}

/** The query's words, lower case; none when the text is an expression. */
export function words(query: FindQuery): string[] {
  if (findFilter(query.text).kind !== 'words') return [];
  return query.text.toLowerCase().split(/\s+/).filter((word) => word !== '');
}

/** Does a call match? `held`: the hold on it, if any (a held call matches the `held` chip, and the word "held"). */
export function callMatches(instance: Instance, run: RunModel, query: FindQuery, needles: readonly string[], held: Hold | undefined): boolean {
  if (query.status === 'held' ? held === undefined : query.status !== 'all' && instance.status !== query.status) return false;
  const filter = findFilter(query.text);
  if (filter.kind === 'condition') return evaluateCondition(filter.condition, cachedSubject({ instance, node: run.node(instance.nodeId)?.node, held: held !== undefined }));
  if (needles.length === 0) return true;
  const text = haystackOf(instance, run);
  return needles.every((needle) => text.includes(needle) || (held !== undefined && 'held'.includes(needle)));
}

/**
 * Does a log line match? Only a text query shows log lines (a status chip is
 * about calls); with an expression, the lines of a call it matches
 * (`callShown`: is the call of that instance id shown).
 */
export function logMatches(log: LogLine, query: FindQuery, needles: readonly string[], callShown?: (instanceId: string) => boolean): boolean {
  if (query.status !== 'all') return false;
  const filter = findFilter(query.text);
  if (filter.kind === 'condition') return log.instanceId !== undefined && callShown !== undefined && callShown(log.instanceId);
  if (needles.length === 0) return true;
  const text = `${log.stream}\n${log.text}`.toLowerCase();
  return needles.every((needle) => text.includes(needle));
}
