/**
 * A call's own lines, for get_call: what the server printed outside the
 * protocol while that call was the only one in flight. Its stderr lines
 * are log lines attributed to the call (`LogLine.instanceId`); its stdout
 * noise is a `mcp:stdout-noise` record whose error data names the call
 * (`{ during: { instanceId } }`). Pure.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { Instance, Run } from '../protocol/run-model.js';
import { capText } from './cap.js';
import { CALL_LOG_LINES, TAIL_LINE_CHARS } from './limits.js';
import { arrayOf, integer, object, string } from './schemas.js';

/** One line of a call: when, from where (`stderr`, or `stdout` for noise), and its text (capped). */
export interface CallLine {
  at: string;
  stream: string;
  text: string;
}

/** The node of stdout-noise records. */
const NOISE_NODE = 'mcp:stdout-noise';

/** The call a stdout-noise record names in its error data, if any. */
export function noiseDuring(instance: Instance): string | undefined {
  const data = instance.error?.data;
  if (!isObject(data) || !isObject(data.during)) return undefined;
  const id = data.during.instanceId;
  return typeof id === 'string' ? id : undefined;
}

/** The lines attributed to `instance`, in the order they came (the first {@link CALL_LOG_LINES}), and how many there are. */
export function callLines(run: Run, instance: Instance): { lines: CallLine[]; total: number } {
  const id = instance.instanceId;
  const all: CallLine[] = [];
  for (const log of run.logs) if (log.instanceId === id) all.push({ at: log.at, stream: log.stream, text: log.text });
  for (const noise of run.instances) {
    if (noise.nodeId === NOISE_NODE && typeof noise.input === 'string' && noiseDuring(noise) === id) all.push({ at: noise.startedAt, stream: 'stdout', text: noise.input });
  }
  // A stable sort: lines of one millisecond keep stderr's order, then stdout's.
  all.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const lines = all.slice(0, CALL_LOG_LINES).map((line) => ({ ...line, text: capText(line.text, TAIL_LINE_CHARS).text }));
  return { lines, total: all.length };
}

/** The output schema of {@link callLines}. */
export const callLinesSchema = object({ lines: arrayOf(object({ at: string, stream: string, text: string })), total: integer });
