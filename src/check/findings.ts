/**
 * What `graphmind check` can find: one row per finding code, with its
 * severity, what it means and how to fix it. A pure table: the reporters,
 * `--fail-on` and docs/ci.md all read it, and a test keeps the docs and
 * the table in step.
 *
 * @module
 */

/** How bad a finding is; SARIF's levels. */
export type Severity = 'error' | 'warning' | 'note';

/** The severities, worst first. */
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'note'];

/** Every finding code (stable: scripts and CI configs name them). */
export type FindingCode =
  | 'spawn-failure'
  | 'early-exit'
  | 'handshake-failed'
  | 'stdout-noise'
  | 'invalid-frame'
  | 'unanswered'
  | 'unknown-id'
  | 'schema-invalid'
  | 'output-schema-mismatch'
  | 'tool-error'
  | 'expectation-failed'
  | 'unknown-entry'
  | 'slow'
  | 'drift'
  | 'context-budget'
  | 'pagination-loop';

/** One row of the table. */
export interface FindingRule {
  /** The severity a finding of this code has (a `drift` finding takes its change's class instead). */
  severity: Severity;
  /** A short title (SARIF's shortDescription, the docs' heading). */
  title: string;
  /** What it means, in a sentence. */
  meaning: string;
  /** How to fix it, in a sentence. */
  fix: string;
}

/** The table (see the module). */
export const FINDINGS: Readonly<Record<FindingCode, FindingRule>> = {
  'spawn-failure': {
    severity: 'error',
    title: 'The server could not be started or reached',
    meaning: 'The command was not found, not executable, or the URL did not answer: nothing else could be checked.',
    fix: 'Fix the command after `--` (or the `--url`); the message says what the system answered.',
  },
  'early-exit': {
    severity: 'error',
    title: 'The server exited while the check was talking to it',
    meaning: 'The process ended before the check was done (often a crash during the handshake); its last stderr lines are in the message.',
    fix: 'Read the stderr lines quoted, and make the server survive the handshake and the listing.',
  },
  'handshake-failed': {
    severity: 'error',
    title: 'The server refused the handshake',
    meaning: 'The server answered `initialize` (or `server/discover`) with an error, or with no result: a host cannot start a session.',
    fix: 'Answer the handshake with a result; if the protocol version is the problem, see `--protocol-version`.',
  },
  'stdout-noise': {
    severity: 'error',
    title: 'A line on stdout that is not JSON-RPC',
    meaning: 'Stdout is the MCP wire: a banner or a log line there breaks a real host.',
    fix: 'Log to stderr (console.error, or your logger pointed at stderr), never to stdout.',
  },
  'invalid-frame': {
    severity: 'error',
    title: 'A message that is not valid JSON-RPC',
    meaning: 'A line meant as JSON-RPC that a host cannot take: broken JSON, a wrong `jsonrpc`, an answer with neither `result` nor `error`, a result that is not an object, a batch.',
    fix: 'Send one JSON-RPC 2.0 object per line, with `result` (an object) or `error` (`code` and `message`) on every answer.',
  },
  unanswered: {
    severity: 'error',
    title: 'A request got no answer in time',
    meaning: 'No answer came within `--timeout` (default 10 s): a host would wait, then give up.',
    fix: 'Answer every request, also the ones you do not support (with a JSON-RPC error such as -32601).',
  },
  'unknown-id': {
    severity: 'warning',
    title: 'An answer to a request that was never sent',
    meaning: 'The server answered an id the check did not send (or answered one twice); hosts drop it or log an error.',
    fix: 'Answer each request once, with the id it came with, unchanged.',
  },
  'schema-invalid': {
    severity: 'error',
    title: 'A tool schema that is not a valid JSON Schema object',
    meaning: 'An `inputSchema` or `outputSchema` that a validator (ajv) rejects, or whose `type` is not `"object"`: strict hosts refuse the tool, or the whole list.',
    fix: 'Declare `{ "type": "object", "properties": … }` and fix what the message quotes from the validator.',
  },
  'output-schema-mismatch': {
    severity: 'error',
    title: 'A result that does not match its tool’s outputSchema',
    meaning: 'A tool with an `outputSchema` answered without `structuredContent`, or with one the schema rejects (results with `isError: true` are exempt).',
    fix: 'Return `structuredContent` that matches the declared `outputSchema`, or change the schema.',
  },
  'tool-error': {
    severity: 'error',
    title: 'A call failed that was not expected to',
    meaning: 'A scripted call (or a call of `--run` that succeeded when recorded) answered with a JSON-RPC error or `isError: true`.',
    fix: 'Fix the handler, or write `"expect": { "isError": true }` on the step if the failure is the point.',
  },
  'expectation-failed': {
    severity: 'error',
    title: 'A scripted step did not get what it expected',
    meaning: 'The answer did not contain the `expect.text`, or succeeded where `expect.isError` was true.',
    fix: 'Fix the server, or the step’s `expect`.',
  },
  'unknown-entry': {
    severity: 'error',
    title: 'A scripted step names something the server does not list',
    meaning: 'The step calls a tool, gets a prompt or reads a resource that is not in the server’s lists; it was not sent.',
    fix: 'Fix the name in the script, or list the entry on the server.',
  },
  slow: {
    severity: 'error',
    title: 'A request took longer than --max-duration',
    meaning: 'The answer came, but later than the budget given with `--max-duration`.',
    fix: 'Make the call faster, or raise `--max-duration`.',
  },
  drift: {
    severity: 'error',
    title: 'The tool surface changed from the lock',
    meaning: 'What the server offers a model differs from `--lock`: breaking and risky changes are errors, benign ones notes (a changed description after approval is how a rug pull looks).',
    fix: 'If the change is meant, write the lock again (`graphmind surface -o graphmind.surface.json -- …`) and commit it; else undo it.',
  },
  'context-budget': {
    severity: 'error',
    title: 'Over a token budget',
    meaning: 'The tool definitions (`--max-surface-tokens`) or a result (`--max-result-tokens`) cost the model more tokens than the budget (an estimate, see docs/context-cost.md).',
    fix: 'Shorten descriptions and schemas, split or drop tools, page long results; or raise the budget.',
  },
  'pagination-loop': {
    severity: 'error',
    title: 'A list that pages forever',
    meaning: 'A list answer gave a `nextCursor` already seen, or kept paging past the check’s limit: a host listing it never finishes.',
    fix: 'Return a fresh cursor for each next page, and none on the last page.',
  },
};

/** The codes, in the table's order. */
export const FINDING_CODES = Object.keys(FINDINGS) as FindingCode[];

/** Is `text` a finding code? */
export function isFindingCode(text: string): text is FindingCode {
  return Object.hasOwn(FINDINGS, text);
}

/** What a finding concerns: a call (a request the check sent or the server answered) or a frame of the wire. */
export interface FindingCall {
  /** The request's method, e.g. `tools/call`. */
  method: string;
  /** The tool, prompt or resource it names. */
  name?: string;
  /** The JSON-RPC id it was sent with. */
  id?: string | number | null;
  /** For a step of `--script`: its place, from 1. */
  step?: number;
}

/** A line of the wire a finding quotes. */
export interface FindingFrame {
  /** Which way it went. */
  direction: 'client-to-server' | 'server-to-client';
  /** Its place in that direction, from 1. */
  seq: number;
  /** The line, cut to 200 characters. */
  text: string;
}

/** One finding. */
export interface Finding {
  code: FindingCode;
  severity: Severity;
  message: string;
  /** The check it came from (a JUnit testcase): `handshake`, `wire`, `tools/list`, `schema echo`, `step 2`… */
  check: string;
  call?: FindingCall;
  frame?: FindingFrame;
  /** For `drift`: the change's class. */
  class?: 'breaking' | 'risky' | 'benign';
  /** For `drift`: the kind of change and the entry it concerns. */
  kind?: string;
  entry?: string;
}

/** A finding of `code` with the table's severity. */
export function finding(code: FindingCode, check: string, message: string, extra: Partial<Omit<Finding, 'code' | 'check' | 'message'>> = {}): Finding {
  return { code, severity: FINDINGS[code].severity, message, check, ...extra };
}

/** The severity of a drift change of `changeClass`. */
export function driftSeverity(changeClass: 'breaking' | 'risky' | 'benign'): Severity {
  return changeClass === 'benign' ? 'note' : 'error';
}
