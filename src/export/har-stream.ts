/**
 * The HAR export written as the log is read ({@link RunStreamer}): the
 * same text `JSON.stringify(runHar(…), null, 2)` makes, in pieces: the
 * log's header, one entry per call, and its end. A run exported while it
 * is live says so in the log's `comment` and in a `_graphmind` field of
 * the log (see docs/export.md).
 *
 * @module
 */
import type { Instance } from '../protocol/run-model.js';
import { serverNameOf } from './call-shape.js';
import { entryOf, harComment, harPage } from './har.js';
import { decisionsReader, type RunFacts } from './run-facts.js';
import type { CallFormat, SnapshotEnd } from './run-streamer.js';
import type { TraceRun } from './trace-model.js';

/** An entry's indentation in the whole file (log, entries, entry). */
const ENTRY_INDENT = '\n      ';

/** Indent JSON text made with two spaces by `prefix` (its newlines are all between tokens: strings escape theirs). */
function indented(text: string, prefix: string): string {
  return text.replace(/\n/g, prefix);
}

/** The HAR format for {@link RunStreamer}; `version` is GraphMind's (the log's creator). */
export function harFormat(version: string): CallFormat {
  let server = '';
  const decisionsIn = decisionsReader();
  return {
    head(run: TraceRun): string {
      server = serverNameOf(run.summary, run.meta);
      const text = JSON.stringify({ log: { version: '1.2', creator: { name: 'graphmind-ai', version }, pages: [harPage(run)], entries: [] } }, null, 2);
      // Everything up to the entries' opening bracket.
      return text.slice(0, text.lastIndexOf('"entries": [') + '"entries": ['.length);
    },
    call(run: TraceRun, facts: RunFacts, instance: Instance, now: number, first: boolean): string {
      const entry = entryOf({ run, facts, server, decisions: decisionsIn(run.meta), now }, instance);
      if (entry === undefined) return '';
      const text = JSON.stringify(Object.assign(entry, { pageref: run.summary.runId }), null, 2);
      return `${first ? '' : ','}${ENTRY_INDENT}${indented(text, ENTRY_INDENT)}`;
    },
    tail(run: TraceRun, _facts: RunFacts, end: SnapshotEnd, _now: number, wroteAny: boolean): string {
      let comment = harComment(run);
      let live = '';
      if (end.live) {
        const at = new Date(end.askedAt).toISOString();
        comment += ` (live: exported while still recording, as recorded up to ${at}; calls not answered then have status 0)`;
        live = `,\n    "_graphmind": ${indented(JSON.stringify({ live: true, snapshotAt: at, lastSeq: end.lastSeq }, null, 2), '\n    ')}`;
      }
      return `${wroteAny ? '\n    ]' : ']'},\n    "comment": ${JSON.stringify(comment)}${live}\n  }\n}\n`;
    },
  };
}
