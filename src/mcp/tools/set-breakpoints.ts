/**
 * `set_breakpoints` (only with `--allow-control`): change the debugger's
 * breakpoints, merged into the ones it has.
 *
 * @module
 */
import { isObject } from '../../json/is-object.js';
import { MAX_RULES, type BreakpointRule, type Breakpoints, type RuleState } from '../../protocol/control.js';
import { argsOf, flag, optional, type Field, type JsonSchema } from '../args.js';
import { arrayOf, boolean, object } from '../schemas.js';
import { ToolError } from '../tool-error.js';
import { defineTool, UNTRUSTED } from '../tool.js';

/** Node ids in one call at most. */
const MAX_NODES = 1_000;

/** The longest server name a scope may give (as the control API takes it). */
const MAX_SERVER_NAME = 256;

/**
 * A node's breakpoints, as given: true or false for each gate; `server`, the
 * one server it holds on (its `serverInfo.name`), or null for every server;
 * what is absent stays as it was.
 */
export type NodeChange = { before?: boolean; after?: boolean; server?: string | null };

const gateProperties: Record<string, JsonSchema> = {
  before: { type: 'boolean', description: 'Hold its requests before they go out.' },
  after: { type: 'boolean', description: 'Hold its answers before they come back.' },
};

/** A node's change as the tool takes it. */
const changeSchema: JsonSchema = {
  type: 'object',
  properties: {
    ...gateProperties,
    server: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: MAX_SERVER_NAME,
      description: 'Hold only in sessions of this MCP server (its serverInfo.name, in get_run\'s meta); null: on every server. Absent: the scope it had (every server for a new one).',
    },
  },
  additionalProperties: false,
};

/** A node's breakpoint as the debugger has it. */
const breakpointSchema: JsonSchema = {
  type: 'object',
  properties: { ...gateProperties, server: { type: 'string', description: 'The one server it holds on (serverInfo.name); absent: every server.' } },
  additionalProperties: false,
};

/** What a node takes, for errors. */
const NODE_SHAPE = '{ before?: boolean, after?: boolean, server?: string | null }';

/** One node's change, checked (`bad` makes the error). */
function readChange(nodeId: string, gates: unknown, bad: (why: string) => ToolError): NodeChange {
  const shape = (): ToolError => bad(`"${nodeId.slice(0, 80)}" must be ${NODE_SHAPE}`);
  if (!isObject(gates)) throw shape();
  const change: NodeChange = {};
  for (const [key, value] of Object.entries(gates)) {
    if (key === 'server') {
      if (value !== null && (typeof value !== 'string' || value.length === 0 || value.length > MAX_SERVER_NAME)) {
        throw bad(`"${nodeId.slice(0, 80)}": server must be a server's name (serverInfo.name, 1 to ${MAX_SERVER_NAME} characters), or null for every server`);
      }
      change.server = value;
    } else if ((key === 'before' || key === 'after') && typeof value === 'boolean') change[key] = value;
    else throw shape();
  }
  return change;
}

/** The `nodes` argument: node id → { before?, after? }. */
function nodeChanges(): Field<Record<string, NodeChange> | undefined> {
  return {
    schema: {
      type: 'object',
      description:
        'Per node id ("tool:search", "resource:file:///a.md", "mcp:initialize", …): { before?: boolean, after?: boolean, server?: string | null }. Given gates are set, others kept; both false removes the node\'s breakpoints. ' +
        'server scopes it to one MCP server (its serverInfo.name): other servers\' sessions are not held; null makes it hold on every server.',
      additionalProperties: changeSchema,
    },
    required: false,
    read(value, name) {
      if (value === undefined) return undefined;
      const bad = (why: string): ToolError => new ToolError('bad-argument', `${name}: ${why}`);
      if (!isObject(value)) throw bad('must be an object keyed by node id');
      const entries = Object.entries(value);
      if (entries.length > MAX_NODES) throw bad(`at most ${MAX_NODES} node ids at once`);
      const out: Record<string, NodeChange> = {};
      for (const [nodeId, gates] of entries) {
        if (nodeId.length === 0 || nodeId.length > 1_024) throw bad('a node id must be 1 to 1024 characters');
        out[nodeId] = readChange(nodeId, gates, bad);
      }
      return out;
    },
  };
}

/** A rule as the tool takes it (the debugger checks it: a bad expression is refused with its position). */
const ruleSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Its id; the debugger gives rule-<n> when absent.' },
    when: { type: 'string', description: 'An expression of the condition language (docs/conditions.md), e.g. tool:search and $.params.arguments.q ~ "PAY-".' },
    gate: { type: 'string', enum: ['before', 'after', 'both'], description: 'Where it applies: requests (before, the default), answers (after), or both.' },
    action: { type: 'string', enum: ['pause', 'log'], description: 'pause (the default) holds the matching frame; log never holds, it records a logpoint line on the run.' },
    hits: { oneOf: [{ type: 'string', enum: ['every', 'once'] }, { type: 'integer', minimum: 1 }], description: 'every (the default), once, or how many matches before it disarms.' },
    enabled: { type: 'boolean', description: 'false keeps it without acting on it. Default true.' },
  },
  required: ['when'],
  additionalProperties: false,
};

/** A rule as the debugger has it (GET's form). */
const ruleStateSchema: JsonSchema = {
  type: 'object',
  properties: { ...(ruleSchema.properties as Record<string, JsonSchema>), hitCount: { type: 'integer' }, armed: { type: 'boolean' } },
};

/** The `rules` argument: the whole list of rules, replacing the debugger's. */
function ruleList(): Field<BreakpointRule[] | undefined> {
  return {
    schema: {
      ...arrayOf(ruleSchema),
      maxItems: MAX_RULES,
      description:
        'Conditional breakpoints and logpoints: the whole list, replacing the rules the debugger has ([] removes them; absent keeps them). ' +
        'Each { when, gate?, action?, hits?, enabled?, id? }. A rule given again unchanged (same id, when, gate, action, hits) keeps its hit count.',
    },
    required: false,
    read(value, name) {
      if (value === undefined) return undefined;
      // The debugger checks each rule (and its expression); here only the shape of the list.
      if (!Array.isArray(value)) throw new ToolError('bad-argument', `${name}: must be an array of rules`);
      if (value.length > MAX_RULES) throw new ToolError('bad-argument', `${name}: at most ${MAX_RULES} rules (this has ${value.length})`);
      if (!value.every(isObject)) throw new ToolError('bad-argument', `${name}: each rule is an object { when, gate?, action?, hits?, enabled?, id? }`);
      return value as unknown as BreakpointRule[];
    },
  };
}

/** One rule in a line: `rule-1 (pause before, once; 1 hit, disarmed): tool:search`. */
function ruleLine(rule: BreakpointRule | RuleState): string {
  const state = 'hitCount' in rule ? `; ${rule.hitCount} hit${rule.hitCount === 1 ? '' : 's'}${rule.armed ? '' : ', disarmed'}` : '';
  const off = rule.enabled === false ? ', disabled' : '';
  return `${rule.id ?? '?'} (${rule.action ?? 'pause'} ${rule.gate ?? 'before'}, ${rule.hits ?? 'every'}${off}${state}): ${rule.when.slice(0, 200)}`;
}

/** `current` with `pauseOnError` and `nodes` changed as given (pure). */
export function mergeBreakpoints(current: Breakpoints, pauseOnError: boolean | undefined, nodes: Record<string, NodeChange> | undefined): Breakpoints {
  const merged: Breakpoints = { ...current, pauseOnError: pauseOnError ?? current.pauseOnError, nodes: { ...current.nodes } };
  for (const [nodeId, change] of Object.entries(nodes ?? {})) {
    const next = { ...merged.nodes[nodeId], ...change };
    const kept: { before?: boolean; after?: boolean; server?: string } = {};
    if (next.before === true) kept.before = true;
    if (next.after === true) kept.after = true;
    // A node scoped to one server stays scoped when only its gates change; null scopes it to every server.
    if (typeof next.server === 'string') kept.server = next.server;
    if (kept.before === undefined && kept.after === undefined) delete merged.nodes[nodeId];
    else merged.nodes[nodeId] = kept;
  }
  return merged;
}

/** The `set_breakpoints` tool. */
export const setBreakpointsTool = defineTool({
  name: 'set_breakpoints',
  title: 'Change breakpoints',
  description:
    'Change the debugger\'s breakpoints, which every proxy and adapter follows at once: pauseOnError holds every failing answer (JSON-RPC errors, isError results); ' +
    'nodes sets, per node id, whether its requests ("before") and answers ("after") are held, and on which server ("server": one MCP server\'s serverInfo.name, in get_run\'s meta, or null for every server). ' +
    'rules replaces the conditional breakpoints and logpoints ({ when: "<expression>", gate?, action?: pause|log, hits?: every|once|n, enabled? }; a logpoint never holds, it logs on the run). What is not given stays as it is; call with no arguments to read them. Returns the breakpoints now in force, with each rule\'s hit count. ' +
    'A hold stops that MCP session (the agent waits) until it is decided: only set breakpoints the user asked for. ' +
    UNTRUSTED,
  control: true,
  args: argsOf({
    pauseOnError: optional(flag('Hold failing answers (JSON-RPC errors and isError results).')),
    nodes: nodeChanges(),
    rules: ruleList(),
  }),
  outputSchema: object({
    breakpoints: object({ pauseOnError: boolean, nodes: { type: 'object', additionalProperties: breakpointSchema }, rules: arrayOf(ruleStateSchema) }, ['rules']),
  }),
  async run(input, context) {
    const current = await context.control.getBreakpoints();
    const changed = input.pauseOnError !== undefined || input.nodes !== undefined || input.rules !== undefined;
    // Without rules the PUT keeps the debugger's rules (and their hit counts).
    const next = mergeBreakpoints(current, input.pauseOnError, input.nodes);
    if (input.rules !== undefined) next.rules = input.rules;
    const breakpoints = changed ? await context.control.putBreakpoints(next) : current;
    const rules = breakpoints.rules ?? [];
    const nodes = Object.entries(breakpoints.nodes).map(
      ([nodeId, gates]) => `${nodeId}:${gates.before === true ? ' before' : ''}${gates.after === true ? ' after' : ''} (${gates.server === undefined ? 'every server' : `server ${JSON.stringify(gates.server)}`})`,
    );
    return {
      structured: { breakpoints },
      text:
        `${changed ? 'breakpoints now' : 'breakpoints'}: pause on error ${breakpoints.pauseOnError ? 'on' : 'off'}; ${nodes.length === 0 ? 'no node breakpoints' : nodes.join(', ')}` +
        `; ${rules.length === 0 ? 'no rules' : `rules: ${rules.map(ruleLine).join('; ')}`}`,
    };
  },
});
