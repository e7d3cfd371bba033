/**
 * `verifyRun`: a recorded run played against a server from a test, as
 * `graphmind verify` plays it: the host's recorded requests sent, the
 * server's own requests answered from the recording, each answer compared
 * with the recorded one (ids and `_meta` aside, JSON inside a text
 * compared as JSON, the ignores and normalisers applied).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { debuggerAddress } from '../report/config.js';
import { formatReport, reportOk, type ReporterName } from '../replay/verify-report.js';
import { parseRules, type Normaliser, type VerifyRules } from '../replay/verify-rules.js';
import { verifyAgainst, type VerifyTargetSpec } from '../replay/verify-run.js';
import type { CallResult } from '../replay/verify-session.js';
import { CannotRunError, readRun, runPath } from './run-file.js';

/** What verify ignores and normalises, as a `--rules` file holds it. */
export interface VerifyRulesFile {
  /** JSONPaths left out of the comparison, each optionally scoped to a tool: `tools/call:search $.result.content[0].text`. @default [] */
  ignore?: string[];
  /** Normalisers applied to both sides before comparing. @default [] */
  normalise?: Array<'uuid' | 'date-time'>;
}

/** Which debugger records a verify session. */
export interface VerifyRecordTo {
  /** The debugger's port. @default GRAPHMIND_URL's port, else 4747 */
  port?: number;
  /** Its data directory, where its token is. @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
}

/** How {@link verifyRun} compares, and where it reports. */
export interface VerifyRunOptions {
  /** JSONPaths left out of the comparison, as `--ignore` takes them (repeatable there). @default [] */
  ignore?: string[];
  /** A rules file's path (as `--rules`), or its content. @default no rules */
  rules?: string | VerifyRulesFile;
  /** Compare with the server's recorded answers rather than what the host received. @default false */
  asSentByServer?: boolean;
  /** How long one call may take, in milliseconds. @default 10000 */
  timeoutMs?: number;
  /** The format of {@link VerifyRunResult.report}. @default 'text' */
  reporter?: 'text' | 'json' | 'junit' | 'tap';
  /**
   * Record the session in a running debugger, as `graphmind verify` does
   * (`true`: the debugger by the one naming rule, `GRAPHMIND_URL`'s port
   * else 4747). Nothing listening: nothing recorded, nothing said.
   * @default false
   */
  record?: boolean | VerifyRecordTo;
}

/** One place where an answer differs from the recorded one. */
export interface VerifiedDifference {
  /** Where, as a JSONPath: `$.result.content[0].text`. */
  path: string;
  /** The recorded value there (absent when the recording has none). */
  recorded?: unknown;
  /** The value received now (absent when the new answer has none). */
  received?: unknown;
}

/** One call's result. */
export interface VerifiedCall {
  /** Its place among the run's calls (-1 for an answer to no request). */
  index: number;
  /** The JSON-RPC method. */
  method: string;
  /** The tool, prompt or resource it names. */
  name?: string;
  /** The same answer, a different one, none though one was expected, or one not expected. */
  verdict: 'same' | 'different' | 'missing' | 'extra';
  /** For `different`: where. */
  differences: VerifiedDifference[];
  /** Why there is no answer, or a note. */
  reason?: string;
  /** The answer expected (`{ result }` or `{ error }`). */
  expected?: unknown;
  /** The answer received now. */
  received?: unknown;
  /** How long the answer took, in milliseconds. */
  ms: number;
}

/** What {@link verifyRun} found. */
export interface VerifyRunResult {
  /** Every call the same, and nothing but JSON-RPC on the server's stdout (what `graphmind verify` exits 0 for). */
  ok: boolean;
  /** Each request's result, in recorded order (answers to no request last). */
  calls: VerifiedCall[];
  /** The results written as {@link VerifyRunOptions.reporter} says: what to print when `ok` is false. */
  report: string;
  /** Lines the server wrote to stdout that were not JSON-RPC (each a difference). */
  noise: string[];
}

function rulesOf(options: VerifyRunOptions): VerifyRules {
  const given = options.rules;
  let text: string | undefined;
  if (typeof given === 'string') {
    try {
      text = readFileSync(given, 'utf8');
    } catch (error) {
      throw new CannotRunError(`cannot read the rules ${given}: ${error instanceof Error ? error.message : String(error)}`);
    }
  } else if (given !== undefined) text = JSON.stringify({ ignore: given.ignore ?? [], normalise: given.normalise ?? ([] as Normaliser[]) });
  const parsed = parseRules(text, options.ignore ?? []);
  if (!parsed.ok) throw new CannotRunError(`the verify rules: ${parsed.reason}`);
  return parsed.rules;
}

function recordOf(option: VerifyRunOptions['record']): { port: number; dataDir?: string } | undefined {
  if (option === undefined || option === false) return undefined;
  const given = option === true ? {} : option;
  const address = debuggerAddress({ ...(given.port === undefined ? {} : { port: given.port }) });
  // A GRAPHMIND_URL that names no debugger: record nowhere rather than fail the test.
  if (address.problem !== undefined) return undefined;
  return { port: address.port, ...(given.dataDir === undefined ? {} : { dataDir: given.dataDir }) };
}

function verifiedCall(call: CallResult): VerifiedCall {
  return { ...call, differences: call.differences.map((difference) => ({ ...difference })) };
}

/**
 * Play the recorded run `run` (a run log or an mcp-recorder cassette, by
 * path or `file:` URL) against `target`: a server command started on stdio
 * (`['node', 'build/server.js']`), or `{ url }` of a Streamable HTTP server.
 *
 * Resolves with the results whether or not they are the same; throws a
 * {@link CannotRunError} when the verify cannot run at all (the run cannot
 * be read, the rules are wrong, the server could not start, be reached, or
 * never answered its first request).
 *
 * @example
 * ```ts
 * const { ok, report } = await verifyRun('test/fixtures/search.jsonl', ['node', 'build/server.js']);
 * assert.ok(ok, report);
 * ```
 */
export async function verifyRun(run: string | URL, target: readonly string[] | { url: string }, options: VerifyRunOptions = {}): Promise<VerifyRunResult> {
  const path = runPath(run);
  const recorded = readRun(path, 'verify');
  const rules = rulesOf(options);
  const spec: VerifyTargetSpec = 'url' in target ? { url: target.url } : { command: target as readonly string[] };
  if ('command' in spec && spec.command.length === 0) throw new CannotRunError('give the server command: verifyRun(run, ["node", "build/server.js"])');
  const record = recordOf(options.record);
  const outcome = await verifyAgainst(recorded, spec, {
    rules,
    asSentByServer: options.asSentByServer === true,
    timeoutMs: options.timeoutMs ?? 10_000,
    what: path,
    ...(record === undefined ? {} : { record }),
  });
  if (!outcome.ok) throw new CannotRunError(outcome.line);
  const reporter: ReporterName = options.reporter ?? 'text';
  const report = formatReport(outcome.report, reporter);
  return { ok: reportOk(outcome.report), calls: outcome.report.calls.map(verifiedCall), report, noise: outcome.report.noise };
}
