/**
 * One verify from start to end, for the command and the test kit alike: the
 * server started on stdio or reached over Streamable HTTP, the recorded
 * run played against it ({@link VerifySession}), the server stopped, and
 * either the report or the one line that says why the verify could not
 * run (a server that could not start, could not be reached, or never
 * answered its first request). With a debugger to record to, the session
 * is recorded as a run ({@link VerifyRecording}).
 *
 * @module
 */
import { HttpTarget } from './http-target.js';
import type { RecordedRun } from './recorded-run.js';
import { StdioTarget, verifyLine, type StdioTargetEvents } from './stdio-target.js';
import { VerifyRecording, type VerifyRecordingOptions } from './verify-recording.js';
import { countsOf, reportOk, type VerifyReport } from './verify-report.js';
import { VerifySession, type VerifyOptions } from './verify-session.js';

/** The server to verify: a command started on stdio, or the URL of a Streamable HTTP server. */
export type VerifyTargetSpec = { command: readonly string[] } | { url: string };

/** What a target gives the run: the stdio and HTTP targets alike. */
interface Target {
  readonly noise: string[];
  send(text: string): void;
  stderrTail(): string[];
  stop(): Promise<void>;
}

/** How {@link verifyAgainst} runs. */
export interface VerifyAgainstOptions extends VerifyOptions {
  /** The run as named to the user (`run-…`, a file), for the report and the recording's name. */
  what: string;
  /** Record the session in a debugger, when one listens there. @default undefined: not recorded */
  record?: Omit<VerifyRecordingOptions, 'name'>;
}

/** A verify's end: its report (and a line to print about a server that ended mid-way), or the one line that says why it could not run. */
export type VerifyOutcome = { ok: true; report: VerifyReport; warning?: string; recordedRunId?: string } | { ok: false; line: string; recordedRunId?: string };

/** How the target is named in a report: the command line, or the URL. */
export function targetName(target: VerifyTargetSpec): string {
  return 'url' in target ? target.url : target.command.join(' ');
}

async function openTarget(target: VerifyTargetSpec, events: StdioTargetEvents): Promise<Target | string> {
  if (!('url' in target)) return new StdioTarget(target.command, events);
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return `--url ${target.url} is not a URL (give one such as http://127.0.0.1:3000/mcp)`;
  }
  try {
    return await HttpTarget.open(url, events);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The line for a first request that got no answer, or undefined when the server did answer. */
function notRunLine(report: VerifyReport, target: VerifyTargetSpec, endedLine: string | undefined, tail: readonly string[], timeoutMs: number): string | undefined {
  const first = report.calls[0];
  if (first === undefined || first.verdict !== 'missing' || first.received !== undefined) return undefined;
  // It could not start, or could not be reached: that line says it all.
  if (endedLine !== undefined && !endedLine.startsWith('the MCP server exited') && !endedLine.startsWith('the MCP server was')) return endedLine;
  const who = 'url' in target ? `the MCP server at ${target.url}` : 'the MCP server';
  const why = endedLine ?? `${who} did not answer ${first.method} within ${timeoutMs} ms (--timeout)`;
  if (endedLine !== undefined || 'url' in target) return why;
  return tail.length === 0 ? `${why} — it wrote nothing to stderr` : `${why} — its last stderr output was:\n${tail.slice(-40).map((line) => `    ${line}`).join('\n')}`;
}

/** Play `run` against `target` (see the module). */
export async function verifyAgainst(run: RecordedRun, target: VerifyTargetSpec, options: VerifyAgainstOptions): Promise<VerifyOutcome> {
  const name = targetName(target);
  const recording = options.record === undefined ? undefined : VerifyRecording.start({ ...options.record, name: `verify ${options.what} against ${name}` });
  let endedLine: string | undefined;
  let stopping = false;
  let session: VerifySession | undefined;
  const opened = await openTarget(target, {
    message: (message, text) => {
      recording?.message(text, 'server-to-client');
      session?.receive(message);
    },
    ended: (line) => {
      // Its end after we closed the session is ours, not news.
      if (!stopping) endedLine = line;
      session?.ended(line);
    },
  });
  if (typeof opened === 'string') {
    await recording?.finish({ spawnError: { message: opened } }, { verify: { run: options.what, against: name, ok: false } });
    return { ok: false, line: opened, ...(recording === undefined ? {} : { recordedRunId: recording.runId }) };
  }
  const wire = { send: (text: string) => (recording?.message(text, 'client-to-server'), opened.send(text)) };
  session = new VerifySession(run, options, wire);
  const calls = await session.play();
  stopping = true;
  await opened.stop();
  const report: VerifyReport = { run: `${options.what} against ${name}`, calls, noise: opened.noise };
  const line = notRunLine(report, target, endedLine, opened.stderrTail(), options.timeoutMs);
  const recorded = recording === undefined ? {} : { recordedRunId: recording.runId };
  const counts = countsOf(report);
  const end = line === undefined ? { asked: true } : { exitedEarly: { message: line.split('\n')[0] as string, stderr: opened.stderrTail() } };
  await recording?.finish(end, { verify: { run: options.what, against: name, ok: line === undefined && reportOk(report), ...counts, noise: report.noise.length } });
  if (line !== undefined) return { ok: false, line, ...recorded };
  const warning = endedLine !== undefined && calls.some((call) => call.verdict === 'missing') ? verifyLine(endedLine) : undefined;
  return { ok: true, report, ...(warning === undefined ? {} : { warning }), ...recorded };
}
