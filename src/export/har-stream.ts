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
import { entryOf, harComment, harPage, type HarEntry } from './har.js';
import { decisionsReader, type RunFacts } from './run-facts.js';
import type { CallFormat, SnapshotEnd } from './run-streamer.js';
import type { TraceRun } from './trace-model.js';

/** An entry's indentation in the whole file (log, entries, entry). */
const ENTRY_INDENT = '\n      ';

/** Indent JSON text made with two spaces by `prefix` (its newlines are all between tokens: strings escape theirs). */
function indented(text: string, prefix: string): string {
  return text.replace(/\n/g, prefix);
}

/**
 * Stand-ins for an entry's two bodies (the request's and the answer's
 * text, which can be megabytes) while the rest of it is made: the bodies
 * are written as pieces of their own, not copied again into the entry's
 * text and then into its indented copy. A NUL cannot be written raw by
 * `JSON.stringify`; should a recorded string hold the same escaped text,
 * the stand-in is not unique and the entry is made whole instead.
 */
const POST_MARK = '\u0000graphmind:request-body';
const ANSWER_MARK = '\u0000graphmind:answer-body';
const POST_QUOTED = JSON.stringify(POST_MARK);
const ANSWER_QUOTED = JSON.stringify(ANSWER_MARK);

/** The entry's text, indented as in the whole file, in pieces (see {@link POST_MARK}). */
export function entryPieces(entry: HarEntry & { pageref: string }): string[] {
  const post = entry.request.postData.text;
  const answer = entry.response.content.text;
  entry.request.postData.text = POST_MARK;
  if (answer !== undefined) entry.response.content.text = ANSWER_MARK;
  const shell = indented(JSON.stringify(entry, null, 2), ENTRY_INDENT);
  const postAt = uniqueIndex(shell, POST_QUOTED);
  const answerAt = answer === undefined ? shell.length : uniqueIndex(shell, ANSWER_QUOTED);
  entry.request.postData.text = post;
  if (answer !== undefined) entry.response.content.text = answer;
  if (postAt === -1 || answerAt === -1 || answerAt < postAt) return [indented(JSON.stringify(entry, null, 2), ENTRY_INDENT)];
  const pieces = [shell.slice(0, postAt), JSON.stringify(post)];
  if (answer === undefined) {
    pieces.push(shell.slice(postAt + POST_QUOTED.length));
    return pieces;
  }
  pieces.push(shell.slice(postAt + POST_QUOTED.length, answerAt), JSON.stringify(answer), shell.slice(answerAt + ANSWER_QUOTED.length));
  return pieces;
}

/** Where `mark` is in `text`, or -1 when it is not there exactly once. */
function uniqueIndex(text: string, mark: string): number {
  const at = text.indexOf(mark);
  return at !== -1 && text.indexOf(mark, at + mark.length) === -1 ? at : -1;
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
    call(run: TraceRun, facts: RunFacts, instance: Instance, now: number, first: boolean): string[] {
      const entry = entryOf({ run, facts, server, decisions: decisionsIn(run.meta), now }, instance);
      if (entry === undefined) return [];
      const pieces = entryPieces(Object.assign(entry, { pageref: run.summary.runId }));
      pieces[0] = `${first ? '' : ','}${ENTRY_INDENT}${pieces[0] as string}`;
      return pieces;
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
