/**
 * One `graphmind check` from start to end: the server started behind our
 * relay (or reached over HTTP), every frame it writes looked at
 * (wire-rules.ts), the handshake and every list (listing.ts), the tool
 * schemas, the lock and the budgets, then the scenario (`--script` or
 * `--run`), the server stopped, and the report. With a debugger to record
 * to, the session is recorded as a run, source `graphmind-check`.
 *
 * @module
 */
import type { RecordedRun } from '../replay/recorded-run.js';
import { VerifyRecording, type VerifyRecordingOptions } from '../replay/verify-recording.js';
import { messageOf, type Frame } from '../streams/frame.js';
import type { Surface } from '../surface/index.js';
import { CheckContext, type CheckRun } from './check-context.js';
import { Conversation } from './conversation.js';
import type { Finding, FindingCode } from './findings.js';
import { listServer, type Listed } from './listing.js';
import { openCheckTarget, type CheckTarget, type CheckTargetSpec, type EndKind } from './relay-target.js';
import { playRun, type RunPlayback } from './run-calls.js';
import { checkToolSchemas } from './schema-checks.js';
import type { ScriptStep } from './script.js';
import { playScript } from './steps.js';
import { checkDrift, checkSurfaceBudget, listedSurface, resultBudget } from './surface-checks.js';
import { wireFinding } from './wire-rules.js';

/** The run source a check is recorded under. */
export const CHECK_SOURCE = 'graphmind-check';

/** The protocol version the handshake asks for by default: the newest of the initialize era that both SDKs (1.x and 2.x) speak. */
export const DEFAULT_PROTOCOL_VERSION = '2025-11-25';

/** How many findings of one wire code are listed; the rest are counted. */
export const MAX_WIRE_FINDINGS = 20;

/** How a check runs. */
export interface CheckOptions {
  /** @default {@link DEFAULT_PROTOCOL_VERSION} */
  protocolVersion?: string;
  /** How long one request may wait for its answer, ms. */
  timeoutMs: number;
  /** Answers slower than this are `slow`, ms. */
  maxDurationMs?: number;
  script?: readonly ScriptStep[];
  run?: RecordedRun;
  /** The lock and the file it came from. */
  lock?: { surface: Surface; file: string };
  maxSurfaceTokens?: number;
  maxResultTokens?: number;
  /** Record the session in a debugger, when one listens there. */
  record?: Omit<VerifyRecordingOptions, 'name' | 'source'>;
}

/** What a check found. */
export interface CheckReport {
  /** The server, as named: its command line or URL. */
  target: string;
  protocolVersion?: string;
  serverInfo?: Record<string, unknown>;
  /** How many entries each list had. */
  counts: { tools: number; resources: number; resourceTemplates: number; prompts: number };
  /** The tool definitions' cost (tokens: an estimate), when `--max-surface-tokens` asked for it. */
  surfaceCost?: { bytes: number; tokens: number };
  checks: CheckRun[];
  findings: Finding[];
  /** Findings past {@link MAX_WIRE_FINDINGS} of a code, counted, not listed. */
  omitted: Partial<Record<FindingCode, number>>;
  durationMs: number;
  /** The run the session was recorded as, when a debugger took it. */
  recordedRunId?: string;
}

/** How the target is named in a report. */
export function targetName(spec: CheckTargetSpec): string {
  return 'url' in spec ? spec.url : spec.command.join(' ');
}

/** The checks after the listing: schemas, lock, budgets, scenario. */
async function checkListed(context: CheckContext, listed: Listed, options: CheckOptions, playback: RunPlayback, send: (text: string) => void): Promise<{ bytes: number; tokens: number } | undefined> {
  const outputs = checkToolSchemas(context, listed.tools);
  if (options.lock !== undefined) checkDrift(context, options.lock.surface, options.lock.file, listedSurface(listed));
  // The tokenizer takes about a second to load: counted only when a budget asks for it.
  const cost = options.maxSurfaceTokens === undefined ? undefined : checkSurfaceBudget(context, listed.tools, options.maxSurfaceTokens);
  const budget = resultBudget(options.maxResultTokens);
  if (options.script !== undefined) await playScript(context, options.script, listed, outputs, budget);
  if (options.run !== undefined && !context.gone) await playRun(context, options.run, playback, send, { timeoutMs: options.timeoutMs, outputs, budget });
  return cost;
}

/** Run one check (see the module). */
export async function runCheck(spec: CheckTargetSpec, options: CheckOptions): Promise<CheckReport> {
  const started = performance.now();
  const name = targetName(spec);
  const recording = options.record === undefined ? undefined : VerifyRecording.start({ ...options.record, name: `check ${name}`, source: CHECK_SOURCE });
  const protocolVersion = options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION;
  let target: CheckTarget | undefined;
  const conversation = new Conversation({ send: (text) => target?.send(text) }, { timeoutMs: options.timeoutMs, protocolVersion });
  const context = new CheckContext(conversation, options.maxDurationMs);
  const playback: RunPlayback = {};
  const wireCounts = new Map<FindingCode, number>();
  const omitted: Partial<Record<FindingCode, number>> = {};
  let stopping = false;
  let endKind: EndKind | undefined;
  context.ran('server', 'server');
  context.ran('wire', 'protocol');
  const onFrame = (frame: Frame): void => {
    const text = frame.raw.toString('utf8').replace(/\r?\n$/, '');
    recording?.message(text, frame.direction);
    if (frame.direction !== 'server-to-client') return;
    const found = wireFinding(frame);
    if (found !== undefined) {
      const count = (wireCounts.get(found.code) ?? 0) + 1;
      wireCounts.set(found.code, count);
      if (count <= MAX_WIRE_FINDINGS) context.add(found);
      else omitted[found.code] = count - MAX_WIRE_FINDINGS;
    }
    const session = playback.session;
    if (session !== undefined && (frame.type === 'response' || frame.type === 'error')) session.receive(messageOf(frame));
    else conversation.take(frame);
  };
  const ended = (line: string, kind: EndKind): void => {
    if (stopping) return;
    endKind ??= kind;
    context.endedLine ??= line;
    if (kind === 'spawn-failure') context.spawnFailed(line);
    conversation.ended(line);
    playback.session?.ended(line);
  };
  target = await openCheckTarget(spec, { frame: onFrame, ended });
  const send = (text: string): void => target?.send(text);
  const listed = context.gone ? undefined : await listServer(context, protocolVersion);
  const cost = listed === undefined ? undefined : await checkListed(context, listed, options, playback, send);
  if (endKind === 'exit' && context.endedLine !== undefined) context.endedBetween(context.endedLine, 'server');
  stopping = true;
  await target.stop();
  const report: CheckReport = {
    target: name,
    counts: { tools: listed?.tools.length ?? 0, resources: listed?.resources.length ?? 0, resourceTemplates: listed?.resourceTemplates.length ?? 0, prompts: listed?.prompts.length ?? 0 },
    checks: context.checks,
    findings: context.findings,
    omitted,
    durationMs: Math.round(performance.now() - started),
  };
  if (listed !== undefined) report.protocolVersion = listed.protocolVersion;
  // The 2026-07-28 era names the server in the result's `_meta`.
  const meta = listed?.handshake._meta;
  const serverInfo = listed?.handshake.serverInfo ?? (meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo'] : undefined);
  if (serverInfo !== null && typeof serverInfo === 'object') report.serverInfo = serverInfo as Record<string, unknown>;
  if (cost !== undefined) report.surfaceCost = cost;
  if (recording !== undefined) {
    report.recordedRunId = recording.runId;
    await recording.finish(sessionEnd(endKind, context, target), { check: { target: name, findings: report.findings.length } });
  }
  return report;
}

function sessionEnd(kind: EndKind | undefined, context: CheckContext, target: CheckTarget): import('../relay/relay-recorder.js').SessionEnd {
  const line = context.endedLine ?? '';
  if (kind === 'spawn-failure') return { spawnError: { message: line } };
  if (kind === 'exit' && !context.answered) return { exitedEarly: { message: line.split('\n')[0] as string, stderr: target.stderrTail() } };
  return { asked: true };
}
