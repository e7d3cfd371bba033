/**
 * `--where` on an export: which calls of a run an expression of the
 * condition language keeps. A call is tested once it has settled (request,
 * answer and times known), as the exports write it. The JSONL export
 * writes the log's own lines, in the order they were written, before a
 * call's answer is known: it reads the log twice, first to learn which
 * calls to leave out ({@link unmatchedCalls}), then to copy the rest
 * (where-lines.ts).
 *
 * @module
 */
import { Writable } from 'node:stream';
import { evaluateCondition, type Condition } from '../conditions/index.js';
import { callSubject } from '../protocol/call-subject.js';
import type { Instance } from '../protocol/run-model.js';
import { catchUp, openLog, pumpLog, SinkWriter } from './export-pump.js';
import { RunStreamer, type CallFormat } from './run-streamer.js';
import type { TraceRun } from './trace-model.js';

/** Does `condition` match `instance`, a call of `run`? */
export function callMatches(condition: Condition, run: TraceRun, instance: Instance): boolean {
  return evaluateCondition(condition, callSubject(instance, run.node(instance.nodeId), run.summary.source));
}

/** Options for {@link unmatchedCalls}: the snapshot, as the export reads it. */
export interface UnmatchedOptions {
  live: boolean;
  untilSeq?: number;
  askedAt?: number;
  waitMs?: number;
}

/**
 * The calls of run `runId` in log `file` that `condition` does not match
 * (their ids), read in one pass as an export reads a run (memory bounded
 * by the calls still open, plus these ids); or why the log cannot be read.
 */
export async function unmatchedCalls(file: string, runId: string, condition: Condition, options: UnmatchedOptions): Promise<Set<string> | string> {
  const handle = await openLog(file);
  if (typeof handle === 'string') return handle;
  const unmatched = new Set<string>();
  // A format that writes nothing: it only notes each call the expression leaves out.
  const noting: CallFormat = {
    head: () => '',
    call(run, _facts, instance) {
      if (!callMatches(condition, run, instance)) unmatched.add(instance.instanceId);
      return '';
    },
    tail: () => '',
  };
  const streamer = new RunStreamer(runId, noting, { live: options.live, untilSeq: options.untilSeq, askedAt: options.askedAt });
  const writer = new SinkWriter({ stream: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  try {
    await pumpLog(handle, streamer, writer, options.waitMs === undefined ? {} : { waitMs: options.waitMs });
    streamer.finish();
    if (streamer.behind) await catchUp(streamer, writer);
    return unmatched;
  } finally {
    await handle.close();
  }
}
